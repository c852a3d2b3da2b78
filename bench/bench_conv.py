"""Convolutions: a jitted convolution, and a CNN training step, beside JAX's.

Each workload runs for didax and for JAX in the same process, as a user
writes it (arguments made with ``dnp.asarray``/``jnp.asarray``, each
function compiled before timing):
- ``jit(conv_general_dilated)`` of 64 images of 32x32x3 (NHWC) with a 3x3
  kernel to 32 features, ``'SAME'``, float32;
- ``jit(value_and_grad(loss))`` of a 3-layer CNN on the same images: conv
  3x3 stride 2 (3 -> 16) - relu - conv 3x3 stride 2 (16 -> 32) - relu -
  dense (8*8*32 -> 10), softmax cross-entropy against random labels.
Both libraries lower each convolution to one ``stablehlo.convolution``.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax
from pytest_benchmark.fixture import BenchmarkFixture

import didax as dx
import didax.numpy as dnp
from didax import lax as dlax

if TYPE_CHECKING:  # conftest.py is pytest's to import; only its types are needed here
    from bench.conftest import Impl, Record

BATCH = 64
NHWC = ("NHWC", "HWIO", "NHWC")


def _block(tree: Any) -> Any:
    for leaf in jax.tree_util.tree_leaves(tree):
        leaf.block_until_ready()
    return tree


@functools.cache
def _data() -> tuple[np.ndarray[Any, Any], list[np.ndarray[Any, Any]], np.ndarray[Any, Any]]:
    rng = np.random.default_rng(0)
    images = rng.normal(size=(BATCH, 32, 32, 3)).astype(np.float32)
    params = [
        (rng.normal(size=(3, 3, 3, 16)) / np.sqrt(27)).astype(np.float32),
        (rng.normal(size=(3, 3, 16, 32)) / np.sqrt(144)).astype(np.float32),
        (rng.normal(size=(8 * 8 * 32, 10)) / np.sqrt(2048)).astype(np.float32),
    ]
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, BATCH)]
    return images, params, labels


# --- a jitted convolution ----------------------------------------------------------------


@pytest.mark.benchmark(group="jit conv", warmup=True)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_conv_forward(benchmark: BenchmarkFixture, record: Record, impl: Impl) -> None:
    images, _, _ = _data()
    kernel = np.random.default_rng(1).normal(size=(3, 3, 3, 32)).astype(np.float32)
    x: Any
    k: Any
    if impl == "didax":
        f: Any = dx.jit(
            lambda x, k: dlax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=NHWC)
        )
        x, k = dnp.asarray(images), dnp.asarray(kernel)
    else:
        f = jax.jit(
            lambda x, k: jlax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=NHWC)
        )
        x, k = jnp.asarray(images), jnp.asarray(kernel)
    f(x, k).block_until_ready()
    out = benchmark(lambda: f(x, k).block_until_ready())
    record(benchmark, workload="jit conv 64x32x32x3 * 3x3x3x32 SAME f32 (NHWC)", impl=impl)
    want = jlax.conv_general_dilated(
        jnp.asarray(images), jnp.asarray(kernel), (1, 1), "SAME", dimension_numbers=NHWC
    )
    np.testing.assert_allclose(np.asarray(out), np.asarray(want), rtol=1e-5, atol=1e-5)


# --- value_and_grad of a 3-layer CNN -------------------------------------------------------


def _loss(np_: Any, lax_: Any) -> Any:
    """The CNN's loss, written once for either library (its numpy and lax modules)."""

    def loss(params: Any, x: Any, y: Any) -> Any:
        w1, w2, w3 = params
        h = np_.maximum(lax_.conv_general_dilated(x, w1, (2, 2), "SAME", dimension_numbers=NHWC), 0)
        h = np_.maximum(lax_.conv_general_dilated(h, w2, (2, 2), "SAME", dimension_numbers=NHWC), 0)
        logits = h.reshape(h.shape[0], -1) @ w3
        logits = logits - np_.max(logits, axis=1, keepdims=True)
        log_probs = logits - np_.log(np_.sum(np_.exp(logits), axis=1, keepdims=True))
        return -np_.mean(np_.sum(log_probs * y, axis=1))

    return loss


didax_loss = _loss(dnp, dlax)
jax_loss = _loss(jnp, jlax)


@pytest.mark.benchmark(group="jit(value_and_grad) CNN step", warmup=True)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_cnn_value_and_grad(benchmark: BenchmarkFixture, record: Record, impl: Impl) -> None:
    images, params, labels = _data()
    if impl == "didax":
        step: Any = dx.jit(dx.value_and_grad(didax_loss))
        args: Any = ([dnp.asarray(p) for p in params], dnp.asarray(images), dnp.asarray(labels))
    else:
        step = jax.jit(jax.value_and_grad(jax_loss))
        args = ([jnp.asarray(p) for p in params], jnp.asarray(images), jnp.asarray(labels))
    _block(step(*args))  # trace and compile outside the timing
    loss, grads = benchmark(lambda: _block(step(*args)))
    record(
        benchmark,
        workload="jit(value_and_grad) CNN conv-relu-conv-relu-dense, 64x32x32x3",
        impl=impl,
    )
    want_loss, want_grads = jax.jit(jax.value_and_grad(jax_loss))(params, images, labels)
    np.testing.assert_allclose(np.asarray(loss), np.asarray(want_loss), rtol=1e-5)
    for g, w in zip(grads, want_grads, strict=True):
        assert np.asarray(g).dtype == np.float32
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-3, atol=1e-5)
