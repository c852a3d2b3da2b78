"""Linear algebra: jitted ``solve`` and ``eigh`` of a 256x256 float64 matrix, beside JAX.

The matrices are made with ``dnp.asarray``/``jnp.asarray`` and each
function is compiled before timing, so a time is a cache hit plus the
kernels, waited for. Both libraries call the same LAPACK kernels jaxlib
registers with XLA (``getrf`` for solve's LU, ``syevd`` for eigh); solve's
triangular solves are LAPACK's ``trsm`` in both.
``solve`` takes one right-hand side (a vector), as the common case. Each
library runs inside its ``enable_x64(True)`` (its arrays, compile and
calls), so that both compute in float64 whatever the session's mode;
entering that context costs microseconds, against milliseconds of work.
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

N = 256
RNG = np.random.default_rng(0)
_A = RNG.normal(size=(N, N))
A = _A + N * np.eye(N)  # well conditioned
SPD = _A @ _A.T + N * np.eye(N)
B = RNG.normal(size=N)


def _solve(impl: Impl) -> Callable[[], Any]:
    if impl == "didax":
        with didax.enable_x64(True):
            a, b = dnp.asarray(A), dnp.asarray(B)
            f = didax.jit(dnp.linalg.solve)
            f(a, b).block_until_ready()

        def ours() -> Any:
            with didax.enable_x64(True):
                return f(a, b).block_until_ready()

        return ours
    with jax.enable_x64(True):
        ja, jb = jnp.asarray(A), jnp.asarray(B)
        jf = jax.jit(jnp.linalg.solve)
        jf(ja, jb).block_until_ready()

    def call() -> Any:
        with jax.enable_x64(True):
            return jf(ja, jb).block_until_ready()

    return call


def _eigh(impl: Impl) -> Callable[[], Any]:
    if impl == "didax":
        with didax.enable_x64(True):
            a = dnp.asarray(SPD)
            f = didax.jit(dnp.linalg.eigh)
            f(a).eigenvalues.block_until_ready()

        def ours() -> Any:
            with didax.enable_x64(True):
                return f(a).eigenvalues.block_until_ready()

        return ours
    with jax.enable_x64(True):
        ja = jnp.asarray(SPD)
        jf = jax.jit(jnp.linalg.eigh)
        jf(ja).eigenvalues.block_until_ready()

    def call() -> Any:
        with jax.enable_x64(True):
            return jf(ja).eigenvalues.block_until_ready()

    return call


@pytest.mark.benchmark(group="linalg under jit", warmup=True)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_solve_jit(benchmark: BenchmarkFixture, record: Record, impl: Impl) -> None:
    result = benchmark(_solve(impl))
    record(benchmark, workload=f"jit solve f64[{N},{N}], f64[{N}]", impl=impl)
    np.testing.assert_allclose(np.asarray(result), np.linalg.solve(A, B), rtol=1e-10, atol=1e-12)


@pytest.mark.benchmark(group="linalg under jit", warmup=True)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_eigh_jit(benchmark: BenchmarkFixture, record: Record, impl: Impl) -> None:
    result = benchmark(_eigh(impl))
    record(benchmark, workload=f"jit eigh f64[{N},{N}]", impl=impl)
    np.testing.assert_allclose(np.asarray(result), np.linalg.eigvalsh(SPD), rtol=1e-10)
