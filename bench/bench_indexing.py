"""Indexing: a gather ``x[idx]`` and a scatter-add ``x.at[idx].add(v)``, jitted and eager.

``x`` is float32[100000] and ``idx`` int32[10000] (with repeats), made with
``dnp.asarray``/``jnp.asarray`` as users make them. Under jit each function
is compiled before timing, so the time is a cache hit plus XLA's gather or
scatter on the CPU, waited for: both libraries lower the same StableHLO
ops, so the ratio shows what didax's dispatch adds to the same kernel.
Eagerly, didax runs its NumPy impl rules (index normalisation, then one
advanced-indexing read or one ``np.add.at``) where JAX dispatches each
operation to XLA.
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

RNG = np.random.default_rng(0)
X = RNG.normal(size=100_000).astype(np.float32)
IDX = RNG.integers(0, X.size, size=10_000).astype(np.int32)
V = RNG.normal(size=IDX.size).astype(np.float32)


def _gather(x: Any, idx: Any) -> Any:
    return x[idx]


def _scatter_add(x: Any, idx: Any, v: Any) -> Any:
    return x.at[idx].add(v)


OPS: dict[str, tuple[Callable[..., Any], int]] = {
    "gather x[idx]": (_gather, 2),
    "scatter-add x.at[idx].add(v)": (_scatter_add, 3),
}


def _workload(impl: Impl, op: str, jitted: bool) -> Callable[[], Any]:
    fn, arity = OPS[op]
    if impl == "didax":
        args = [dnp.asarray(X), dnp.asarray(IDX), dnp.asarray(V)][:arity]
        dfn = didax.jit(fn) if jitted else fn
        dfn(*args).block_until_ready()  # compiled (or warmed) before timing
        return lambda: dfn(*args).block_until_ready()
    jargs = [jnp.asarray(X), jnp.asarray(IDX), jnp.asarray(V)][:arity]
    jfn = jax.jit(fn) if jitted else fn
    jfn(*jargs).block_until_ready()
    return lambda: jfn(*jargs).block_until_ready()


def _expected(op: str) -> np.ndarray[Any, Any]:
    if op.startswith("gather"):
        return X[IDX]
    out = X.copy()
    np.add.at(out, IDX, V)
    return out


def _check(result: Any, op: str) -> None:
    out = np.asarray(result)
    expected = _expected(op)
    assert out.shape == expected.shape
    assert out.dtype == np.float32
    # Repeated indices accumulate in an unspecified order: float32 sums may differ in the last bits.
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.benchmark(group="indexing under jit", warmup=True)
@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_indexing_jit(benchmark: BenchmarkFixture, record: Record, impl: Impl, op: str) -> None:
    result = benchmark(_workload(impl, op, jitted=True))
    record(benchmark, workload=f"jit {op}, x f32[100000], idx i32[10000]", impl=impl)
    _check(result, op)


@pytest.mark.benchmark(group="indexing eager", warmup=True)
@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_indexing_eager(benchmark: BenchmarkFixture, record: Record, impl: Impl, op: str) -> None:
    result = benchmark(_workload(impl, op, jitted=False))
    record(benchmark, workload=f"eager {op}, x f32[100000], idx i32[10000]", impl=impl)
    _check(result, op)
