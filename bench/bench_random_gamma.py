"""Gamma samples under jit: a million float32 draws, one per entry of an array of alphas.

``didax.random.gamma(key, alpha)`` inside ``didax.jit`` against the same call
of ``jax.random.gamma`` inside ``jax.jit``, on alphas spread over
``[0.1, 10)`` (both of the method's regimes, ``a < 1`` boosted), the
compiled function called on a key and alphas already on the device, each
result waited for. The work is XLA's in both: a key split per element,
then Marsaglia and Tsang's rejection loop vectorised over the million
elements (it runs until the slowest element accepts); the ratio says
whether didax's program compiles to code as fast as JAX's. The benchmark
also checks that the samples equal JAX's bit for bit.
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
import didax.numpy as dnp
import didax.random

if TYPE_CHECKING:  # conftest.py is pytest's to import; only its types are needed here
    from bench.conftest import Impl, Record

N = 10**6
SEED = 1234


def alphas() -> np.ndarray[Any, np.dtype[np.float32]]:
    return np.random.default_rng(0).uniform(0.1, 10.0, N).astype(np.float32)


def workload(impl: Impl) -> Callable[[], Any]:
    """One call of the jitted sampler, waited for (the first call compiles)."""
    if impl == "didax":
        dkey, da = didax.random.PRNGKey(SEED), dnp.asarray(alphas())
        dsample = didax.jit(lambda k, a: didax.random.gamma(k, a))
        return lambda: dsample(dkey, da).block_until_ready()
    jkey, ja = jax.random.PRNGKey(SEED), jnp.asarray(alphas())
    jsample = jax.jit(lambda k, a: jax.random.gamma(k, a))
    return lambda: jsample(jkey, ja).block_until_ready()


@pytest.mark.slow  # bench/paired.py's gamma row, which CI runs once, checks the same workload
@pytest.mark.benchmark(group="random.gamma f32[1e6] under jit", warmup=True)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_random_gamma(benchmark: BenchmarkFixture, record: Record, impl: Impl) -> None:
    run = workload(impl)
    run()  # compiled outside the timing
    result = benchmark(run)
    record(benchmark, workload="jit random.gamma f32[1e6]", impl=impl, per=1, unit="call")

    expected = np.asarray(workload("jax")())
    out = np.asarray(result)
    assert out.shape == expected.shape == (N,)
    assert out.dtype == expected.dtype == np.float32
    np.testing.assert_array_equal(out, expected)
