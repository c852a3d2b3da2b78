"""Tracing speed: ``didax.make_jaxpr`` against ``jax.make_jaxpr`` on long chains.

The workload is a chain of ``n`` element-wise operations on a float32 scalar,
cycling ``sin``, ``mul`` by a float32 constant and ``add`` of one, so that
each operation becomes one equation. (The constants are NumPy float32
scalars: ``jax.lax`` does not promote a Python float under x64, which the
test suite turns on.) Reported per equation, for
``n = 1000`` and ``n = 4000``: if tracing is linear in program size, the
per-equation time is flat and the growth factor is about 1.0.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

import jax
import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

import didax

if TYPE_CHECKING:  # conftest.py is pytest's to import; only its types are needed here
    from bench.conftest import Impl, Record

IMPLS: dict[Impl, tuple[Callable[..., Any], ModuleType]] = {
    "didax": (didax.make_jaxpr, didax.lax),
    "jax": (jax.make_jaxpr, jax.lax),
}
X = np.float32(0.5)
SCALE = np.float32(1.5)
SHIFT = np.float32(0.5)


def chain(lax: ModuleType, n: int) -> Callable[[Any], Any]:
    """``x -> add(mul(sin(x), SCALE), SHIFT)`` repeated, ``n`` operations in all."""

    def f(x: Any) -> Any:
        for i in range(n):
            if i % 3 == 0:
                x = lax.sin(x)
            elif i % 3 == 1:
                x = lax.mul(x, SCALE)
            else:
                x = lax.add(x, SHIFT)
        return x

    return f


def expected_primitives(n: int) -> list[str]:
    return [("sin", "mul", "add")[i % 3] for i in range(n)]


@pytest.mark.benchmark(group="make_jaxpr", min_rounds=5, warmup=True, warmup_iterations=1)
@pytest.mark.parametrize("n", [1000, 4000])
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_make_jaxpr_chain(benchmark: BenchmarkFixture, record: Record, impl: Impl, n: int) -> None:
    make_jaxpr, lax = IMPLS[impl]
    # A new function each round: jax.make_jaxpr caches traces per function.
    jaxpr = benchmark(lambda: make_jaxpr(chain(lax, n))(X))
    record(benchmark, workload=f"make_jaxpr chain, n={n}", impl=impl, per=n, unit="eqn")

    # Same program as JAX's: one equation per operation, same primitives, same types.
    names = [eqn.primitive.name for eqn in jaxpr.eqns]
    assert names == expected_primitives(n)
    reference = jax.make_jaxpr(chain(jax.lax, n))(X)
    assert names == [eqn.primitive.name for eqn in reference.eqns]
    assert types(jaxpr.in_avals) == types(reference.in_avals)
    assert types(jaxpr.out_avals) == types(reference.out_avals)


def types(avals: Any) -> list[tuple[tuple[int, ...], np.dtype[Any]]]:
    return [(tuple(a.shape), np.dtype(a.dtype)) for a in avals]
