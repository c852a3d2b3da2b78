"""Attention: jitted ``nn.dot_product_attention`` forward and its gradient, beside JAX's.

Issue 29's workload: batch 8, 8 heads, 512 tokens, 64 dimensions per head,
float32 (query, key and value ``(8, 512, 8, 64)``), no mask, written as a user
writes it: ``jit(dot_product_attention)`` and ``jit(grad)`` of the sum of
its output with respect to query, key and value. The arrays are made with
``dnp.asarray``/``jnp.asarray`` and each function is compiled before
timing, so a time is a cache hit plus XLA's kernels on the CPU, waited for.
Under ``--benchmark-disable`` each runs once and checks its result against
JAX's.
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
import didax.nn
import didax.numpy as dnp

if TYPE_CHECKING:  # conftest.py is pytest's to import; only its types are needed here
    from bench.conftest import Impl, Record

SHAPE = (8, 512, 8, 64)  # (batch, tokens, heads, dimensions)
_RNG = np.random.default_rng(0)
QKV = tuple(_RNG.normal(size=SHAPE).astype(np.float32) for _ in range(3))


def _functions(impl: Impl) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """(forward, backward), jitted, of ``impl``."""
    top: Any = didax if impl == "didax" else jax
    attention = top.nn.dot_product_attention

    def forward(q: Any, k: Any, v: Any) -> Any:
        return attention(q, k, v)

    def loss(q: Any, k: Any, v: Any) -> Any:
        return forward(q, k, v).sum()

    return top.jit(forward), top.jit(top.grad(loss, argnums=(0, 1, 2)))


def _block(tree: Any) -> Any:
    for leaf in jax.tree_util.tree_leaves(tree):
        leaf.block_until_ready()
    return tree


def workload(impl: Impl, backward: bool) -> Callable[[], Any]:
    """A call of the compiled forward (or backward) on device-resident arrays."""
    f = _functions(impl)[backward]
    np_: Any = dnp if impl == "didax" else jnp
    args = tuple(np_.asarray(a) for a in QKV)
    _block(f(*args))  # compiled before timing
    return lambda: _block(f(*args))


def check(result: Any, backward: bool) -> None:
    """``result`` against JAX's (the float32 softmax: a few float32 ulps apart)."""
    expected = _functions("jax")[backward](*(jnp.asarray(a) for a in QKV))
    for got, want in zip(
        jax.tree_util.tree_leaves(result), jax.tree_util.tree_leaves(expected), strict=True
    ):
        assert np.asarray(got).dtype == np.float32
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-4)


@pytest.mark.benchmark(group="dot_product_attention under jit", warmup=True)
@pytest.mark.parametrize("backward", [False, True], ids=["forward", "backward"])
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_dot_product_attention(
    benchmark: BenchmarkFixture, record: Record, impl: Impl, backward: bool
) -> None:
    result = benchmark(workload(impl, backward))
    what = "grad of sum of " if backward else ""
    record(benchmark, workload=f"jit {what}attention f32{list(SHAPE)}", impl=impl)
    check(result, backward)
