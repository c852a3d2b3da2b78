"""Cumulative sums: jitted ``dnp.cumsum`` / ``jnp.cumsum`` of float32[n], n = 10^3, 10^4, 10^5.

The arrays are made with ``dnp.asarray``/``jnp.asarray`` and each function
is compiled before timing, so a time is a cache hit plus XLA's scan on the
CPU, waited for. didax lowers ``cumsum`` of an axis longer than 2048 to an
associative scan (``lowering.scan_ops``: O(n) additions in O(log n)
depth), and shorter ones, as JAX lowers all, to a ``reduce_window`` as
long as the axis, which XLA rewrites. The ratio table's
growth line divides the time per element at n = 10^5 by that at n = 10^3:
1.0 means linear total time, 100 would be quadratic.
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

if TYPE_CHECKING:  # conftest.py is pytest's to import; only its types are needed here
    from bench.conftest import Impl, Record

SIZES = (1_000, 10_000, 100_000)
RNG = np.random.default_rng(0)
XS = {n: RNG.normal(size=n).astype(np.float32) for n in SIZES}


def _workload(impl: Impl, n: int) -> Callable[[], Any]:
    if impl == "didax":
        x = dnp.asarray(XS[n])
        f = didax.jit(dnp.cumsum)
        f(x).block_until_ready()  # compiled before timing
        return lambda: f(x).block_until_ready()
    jx = jnp.asarray(XS[n])
    jf = jax.jit(jnp.cumsum)
    jf(jx).block_until_ready()
    return lambda: jf(jx).block_until_ready()


def _check(result: Any, n: int) -> None:
    out = np.asarray(result)
    assert out.shape == (n,)
    assert out.dtype == np.float32
    exact = np.cumsum(XS[n].astype(np.float64))
    # Both libraries sum in float32, each in its own order: |sums| reach a few hundred.
    np.testing.assert_allclose(out, exact, rtol=0, atol=2e-3)
    expected = np.asarray(jax.jit(jnp.cumsum)(jnp.asarray(XS[n])))
    np.testing.assert_allclose(out, expected, rtol=0, atol=2e-3)


@pytest.mark.benchmark(group="cumsum under jit", warmup=True)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_cumsum_jit(benchmark: BenchmarkFixture, record: Record, impl: Impl, n: int) -> None:
    result = benchmark(_workload(impl, n))
    record(benchmark, workload=f"jit cumsum f32, n={n}", impl=impl, per=n, unit="element")
    _check(result, n)
