"""Eager dispatch: one primitive applied outside any transformation.

``didax.lax.add`` on two float32[3] NumPy arrays (bind, the root trace, the
NumPy impl rule) against ``jax.lax.add`` on two float32[3] JAX arrays (JAX's
eager path: a cached single-op executable), each waited for. At this size
the data work is negligible: the time is the dispatch overhead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import jax
import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

import didax

if TYPE_CHECKING:  # conftest.py is pytest's to import; only its types are needed here
    from bench.conftest import Impl, Record

A = np.array([1.0, 2.0, 3.0], dtype=np.float32)
B = np.array([0.5, -1.0, 4.0], dtype=np.float32)


def didax_add() -> Callable[[], Any]:
    return lambda: didax.lax.add(A, B)


def jax_add() -> Callable[[], Any]:
    a, b = jax.device_put(A), jax.device_put(B)
    # Waiting for the result makes the two comparable: didax's eager path is
    # synchronous NumPy, JAX's is asynchronous dispatch.
    return lambda: jax.lax.add(a, b).block_until_ready()


WORKLOADS: dict[Impl, Callable[[], Callable[[], Any]]] = {"didax": didax_add, "jax": jax_add}


@pytest.mark.benchmark(group="eager add f32[3]", warmup=True)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_eager_add(benchmark: BenchmarkFixture, record: Record, impl: Impl) -> None:
    result = benchmark(WORKLOADS[impl]())
    record(benchmark, workload="eager lax.add f32[3]", impl=impl, per=1, unit="op")

    expected = np.asarray(jax.lax.add(jax.device_put(A), jax.device_put(B)))
    out = np.asarray(result)
    assert out.shape == expected.shape == (3,)
    assert out.dtype == expected.dtype == np.float32
    np.testing.assert_array_equal(out, expected)
