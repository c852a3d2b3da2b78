"""Random numbers under jit: a million float32 samples from one key.

``didax.random.normal(key, (10**6,), float32)`` (and ``uniform``) inside
``didax.jit`` against the same call of ``jax.random`` inside ``jax.jit``,
the compiled function called on a raw key that is already on the device,
each result waited for. The work is XLA's in both: Threefry-2x32 over a
million counters (a five-step loop of four rounds, as JAX lowers it on
CPUs), the bits made floats in [1, 2), and for ``normal`` an ``erf_inv``;
the ratio says whether didax's program compiles to code as fast as JAX's.
Each benchmark also checks that the samples equal JAX's bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

import didax
import didax.random

if TYPE_CHECKING:  # conftest.py is pytest's to import; only its types are needed here
    from bench.conftest import Impl, Record

N = 10**6
SEED = 1234

SAMPLERS: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "normal": (didax.random.normal, jax.random.normal),
    "uniform": (didax.random.uniform, jax.random.uniform),
}


def _workload(impl: Impl, sampler: str) -> Callable[[], Any]:
    dfn, jfn = SAMPLERS[sampler]
    if impl == "didax":
        dkey = didax.random.PRNGKey(SEED)
        dsample = didax.jit(lambda k: dfn(k, (N,), np.float32))
        return lambda: dsample(dkey).block_until_ready()
    jkey = jax.random.PRNGKey(SEED)
    jsample = jax.jit(lambda k: jfn(k, (N,), jnp.float32))
    return lambda: jsample(jkey).block_until_ready()


@pytest.mark.benchmark(group="random f32[1e6] under jit", warmup=True)
@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_random_sampler(
    benchmark: BenchmarkFixture, record: Record, impl: Impl, sampler: str
) -> None:
    run = _workload(impl, sampler)
    run()  # compiled outside the timing
    result = benchmark(run)
    record(benchmark, workload=f"jit random.{sampler} f32[1e6]", impl=impl, per=1, unit="call")

    expected = np.asarray(_workload("jax", sampler)())
    out = np.asarray(result)
    assert out.shape == expected.shape == (N,)
    assert out.dtype == expected.dtype == np.float32
    np.testing.assert_array_equal(out, expected)
