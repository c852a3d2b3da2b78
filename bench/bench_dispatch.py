"""Eager dispatch: one primitive applied outside any transformation.

``didax.lax.add`` and ``didax.lax.sin`` on float32[3] Arrays made with
``dnp.asarray`` (bind, the root trace, the per-signature cache and the NumPy
impl rule on the Arrays' host data) against ``jax.lax.add``/``sin`` on
Arrays made with ``jnp.asarray`` (JAX's eager path: a cached single-op
executable), each waited for. At this size the data work is negligible: the
time is the dispatch overhead. The arguments are made the way users make
them, so didax's figure includes everything a user's eager op costs.
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

A = np.array([1.0, 2.0, 3.0], dtype=np.float32)
B = np.array([0.5, -1.0, 4.0], dtype=np.float32)

OPS: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "add": (didax.lax.add, jax.lax.add),
    "sin": (didax.lax.sin, jax.lax.sin),
}


def _workload(impl: Impl, op: str) -> Callable[[], Any]:
    dfn, jfn = OPS[op]
    arity = 2 if op == "add" else 1
    if impl == "didax":
        args = [dnp.asarray(A), dnp.asarray(B)][:arity]
        # didax's eager path is synchronous NumPy: the result is ready.
        return lambda: dfn(*args)
    jargs = [jnp.asarray(A), jnp.asarray(B)][:arity]
    # Waiting for the result makes the two comparable: JAX dispatches asynchronously.
    return lambda: jfn(*jargs).block_until_ready()


@pytest.mark.benchmark(group="eager op f32[3]", warmup=True)
@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_eager_op(benchmark: BenchmarkFixture, record: Record, impl: Impl, op: str) -> None:
    result = benchmark(_workload(impl, op))
    record(benchmark, workload=f"eager lax.{op} f32[3]", impl=impl, per=1, unit="op")

    jfn = OPS[op][1]
    expected = np.asarray(jfn(*[jnp.asarray(A), jnp.asarray(B)][: 2 if op == "add" else 1]))
    assert type(result) is didax.Array or impl == "jax"
    out = np.asarray(result)
    assert out.shape == expected.shape == (3,)
    assert out.dtype == expected.dtype == np.float32
    np.testing.assert_allclose(out, expected, rtol=1e-6)
