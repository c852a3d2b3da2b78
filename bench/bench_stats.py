"""``scipy.stats.norm.logpdf`` on a million float32 values under jit, didax beside JAX.

``didax.scipy.stats.norm.logpdf(x, loc, scale)`` inside ``didax.jit``
against ``jax.scipy.stats.norm.logpdf`` inside ``jax.jit``, as a user
writes it (the location and scale are Python scalars), on data already on
the device, each result waited for. The work is XLA's in both: a fused
element-wise program (square, log, divide); the ratio says whether
didax's program compiles to code as fast as JAX's. The benchmark also
checks the values against JAX's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import jax
import jax.scipy.stats
import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

import didax
import didax.numpy as dnp
import didax.scipy.stats

if TYPE_CHECKING:  # conftest.py is pytest's to import; only its types are needed here
    from bench.conftest import Impl, Record

N = 10**6


def data() -> np.ndarray[Any, Any]:
    return np.random.default_rng(0).normal(size=N).astype(np.float32)


def workload(impl: Impl) -> Callable[[], Any]:
    """One call of the jitted ``norm.logpdf(x, 0.5, 2.0)`` for ``impl``, waited for."""
    if impl == "didax":
        dx_fn = didax.jit(lambda x: didax.scipy.stats.norm.logpdf(x, 0.5, 2.0))
        dx_x = dnp.asarray(data())
        return lambda: dx_fn(dx_x).block_until_ready()
    jax_fn = jax.jit(lambda x: jax.scipy.stats.norm.logpdf(x, 0.5, 2.0))
    jax_x = jax.numpy.asarray(data())
    return lambda: jax_fn(jax_x).block_until_ready()


@pytest.mark.benchmark(group="scipy.stats f32[1e6] under jit", warmup=True)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_norm_logpdf(benchmark: BenchmarkFixture, record: Record, impl: Impl) -> None:
    run = workload(impl)
    run()  # compiled outside the timing
    result = benchmark(run)
    record(
        benchmark, workload="jit scipy.stats.norm.logpdf f32[1e6]", impl=impl, per=1, unit="call"
    )
    expected = np.asarray(workload("jax")())
    out = np.asarray(result)
    assert out.dtype == expected.dtype == np.float32
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-6)
