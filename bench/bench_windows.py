"""Max-pooling: jitted ``lax.reduce_window`` forward and backward, float32 (64, 32, 32, 16) NHWC.

Written as a user writes it: ``lax.reduce_window(x, -inf, lax.max,
(1, 2, 2, 1), (1, 2, 2, 1), "VALID")`` (recognised as ``reduce_window_max``
by both libraries), and its backward pass, ``grad`` of the pooled sum
(``select_and_scatter_add``: XLA's ``select_and_scatter``). The arrays
are made with ``dnp.asarray``/``jnp.asarray`` and each function is
compiled before timing, so a time is a cache hit plus XLA's kernels on the
CPU, waited for. Under ``--benchmark-disable`` each runs once and checks
its result against JAX's, bit for bit.
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
from didax import lax

if TYPE_CHECKING:  # conftest.py is pytest's to import; only its types are needed here
    from bench.conftest import Impl, Record

SHAPE = (64, 32, 32, 16)
X = np.random.default_rng(0).normal(size=SHAPE).astype(np.float32)
WINDOW = (1, 2, 2, 1)


def _pool(ops: Any) -> Callable[[Any], Any]:
    return lambda x: ops.reduce_window(x, -np.inf, ops.max, WINDOW, WINDOW, "VALID")


def _functions(impl: Impl) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """(forward, backward), jitted, of ``impl``."""
    if impl == "didax":
        pool = _pool(lax)
        return didax.jit(pool), didax.jit(didax.grad(lambda x: pool(x).sum()))
    jpool = _pool(jax.lax)
    return jax.jit(jpool), jax.jit(jax.grad(lambda x: jnp.sum(jpool(x))))


def _workload(impl: Impl, backward: bool) -> Callable[[], Any]:
    f = _functions(impl)[backward]
    x = dnp.asarray(X) if impl == "didax" else jnp.asarray(X)
    f(x).block_until_ready()  # compiled before timing
    return lambda: f(x).block_until_ready()


def _check(result: Any, backward: bool) -> None:
    expected = np.asarray(_functions("jax")[backward](jnp.asarray(X)))
    out = np.asarray(result)
    assert out.dtype == expected.dtype
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out, expected)


@pytest.mark.benchmark(group="max-pool under jit", warmup=True)
@pytest.mark.parametrize("backward", [False, True], ids=["forward", "backward"])
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_max_pool_jit(
    benchmark: BenchmarkFixture, record: Record, impl: Impl, backward: bool
) -> None:
    result = benchmark(_workload(impl, backward))
    what = "grad of sum of" if backward else ""
    workload = f"jit {what} max-pool 2x2/2 f32{list(SHAPE)}".replace("  ", " ")
    record(benchmark, workload=workload, impl=impl)
    _check(result, backward)
