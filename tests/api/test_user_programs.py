"""Ordinary JAX programs, with only the import changed, give JAX's numbers.

Each program is written once against a namespace (``jax`` or ``didax``,
with its ``numpy``, ``random``, ``nn`` and ``lax``) and run on both; the
results are compared: random draws bit for bit, the rest to float64
round-off (XLA may fuse or reorder a reduction differently in the two
programs). These are issue 10's acceptance programs: an MLP with dropout
using ``random``, a classifier with ``nn.log_softmax`` + ``one_hot``, a
sparse update with ``.at[].add``, a Gumbel-softmax sampler with
``categorical``, and k-nearest neighbours with ``argsort`` +
``take_along_axis``.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Final

import jax
import jax.nn
import jax.numpy as jnp
import jax.random
import numpy as np
import pytest

import didax
import didax.nn
import didax.numpy as dnp
import didax.random

JAX: Final = SimpleNamespace(
    jit=jax.jit,
    grad=jax.grad,
    value_and_grad=jax.value_and_grad,
    vmap=jax.vmap,
    np=jnp,
    random=jax.random,
    nn=jax.nn,
    lax=jax.lax,
    tree_map=jax.tree_util.tree_map,
)
DIDAX: Final = SimpleNamespace(
    jit=didax.jit,
    grad=didax.grad,
    value_and_grad=didax.value_and_grad,
    vmap=didax.vmap,
    np=dnp,
    random=didax.random,
    nn=didax.nn,
    lax=didax.lax,
    tree_map=didax.tree_util.tree_map,
)


def _close(got: Any, want: Any, rtol: float = 1e-12) -> None:
    got_leaves = jax.tree_util.tree_leaves(got)
    want_leaves = jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, (g.shape, w.shape)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


def _same(got: Any, want: Any) -> None:
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)


# --- an MLP with dropout ----------------------------------------------------------


def mlp_with_dropout(ns: Any) -> Any:
    """Initialise with ``random.normal``, train with dropout masks from ``bernoulli``."""
    np_, random = ns.np, ns.random
    key = random.PRNGKey(0)
    k1, k2, k3, key = random.split(key, 4)
    sizes = [(4, 16), (16, 16), (16, 3)]
    params = [
        (random.normal(k, shape) / np_.sqrt(shape[0]), np_.zeros(shape[1]))
        for k, shape in zip((k1, k2, k3), sizes, strict=True)
    ]
    x = random.uniform(random.fold_in(key, 1), (32, 4), minval=-1.0, maxval=1.0)
    y = random.randint(random.fold_in(key, 2), (32,), 0, 3)

    def forward(params: Any, x: Any, key: Any, rate: float) -> Any:
        for i, (w, b) in enumerate(params):
            x = x @ w + b
            if i < len(params) - 1:
                x = ns.nn.relu(x)
                keep = random.bernoulli(random.fold_in(key, i), 1.0 - rate, x.shape)
                x = np_.where(keep, x / (1.0 - rate), 0.0)
        return x

    def loss(params: Any, x: Any, y: Any, key: Any) -> Any:
        logits = forward(params, x, key, 0.25)
        return -np_.mean(np_.sum(ns.nn.log_softmax(logits) * ns.nn.one_hot(y, 3), axis=-1))

    @ns.jit
    def step(params: Any, key: Any) -> Any:
        value, grads = ns.value_and_grad(loss)(params, x, y, key)
        return value, ns.tree_map(lambda p, g: p - 0.1 * g, params, grads)

    losses = []
    for i in range(5):
        value, params = step(params, random.fold_in(key, 100 + i))
        losses.append(value)
    return np_.stack(losses), params, forward(params, x, key, 0.0)


# --- a classifier with log_softmax + one_hot ----------------------------------------


def softmax_classifier(ns: Any) -> Any:
    """Multinomial logistic regression: loss, gradient and accuracy."""
    np_ = ns.np
    rng = np.random.default_rng(3)
    x = np_.asarray(rng.normal(size=(64, 5)))
    labels = np_.asarray(rng.integers(0, 4, size=64))
    w = np_.asarray(rng.normal(size=(5, 4)) * 0.1)

    def loss(w: Any) -> Any:
        logp = ns.nn.log_softmax(x @ w, axis=-1)
        return -np_.mean(np_.sum(logp * ns.nn.one_hot(labels, 4), axis=1))

    grad = ns.jit(ns.grad(loss))
    for _ in range(10):
        w = w - 0.5 * grad(w)
    accuracy = np_.mean(np_.argmax(x @ w, axis=1) == labels)
    return loss(w), w, accuracy, ns.nn.softmax(x[:3] @ w)


# --- a sparse update with .at[].add ----------------------------------------------


def sparse_update(ns: Any) -> Any:
    """Embedding rows updated at (repeated) token ids; segment sums; its gradient."""
    np_ = ns.np
    rng = np.random.default_rng(5)
    table = np_.asarray(rng.normal(size=(10, 3)))
    ids = np_.asarray(np.array([1, 4, 1, 9, 0, 4, 4]))
    deltas = np_.asarray(rng.normal(size=(7, 3)))

    @ns.jit
    def apply(table: Any, ids: Any, deltas: Any) -> Any:
        return table.at[ids].add(deltas)

    segment_sum = np_.zeros(10).at[ids].add(np_.arange(7.0))

    def loss(table: Any) -> Any:
        return np_.sum(np_.tanh(table[ids]) ** 2)

    return apply(table, ids, deltas), segment_sum, ns.grad(loss)(table)


# --- a Gumbel-softmax sampler with categorical -------------------------------------


def gumbel_softmax(ns: Any) -> Any:
    """Hard samples with ``categorical``; relaxed samples with ``gumbel`` noise and their grads."""
    np_, random = ns.np, ns.random
    logits = np_.log(np_.asarray([0.1, 0.2, 0.3, 0.4]))
    key = random.PRNGKey(7)
    hard = random.categorical(key, logits, shape=(1000,))
    counts = np_.sum(ns.nn.one_hot(hard, 4), axis=0)

    def relaxed(logits: Any, key: Any, tau: float) -> Any:
        g = random.gumbel(key, (8, logits.shape[-1]))
        return ns.nn.softmax((logits + g) / tau, axis=-1)

    keys = random.split(random.PRNGKey(8), 3)
    samples = ns.vmap(lambda k: relaxed(logits, k, 0.5))(keys)
    expected = ns.jit(ns.grad(lambda lg: np_.sum(relaxed(lg, keys[0], 0.5)[:, 0])))(logits)
    return hard, counts, samples, expected


# --- k-nearest neighbours with argsort + take_along_axis ------------------------------


def knn(ns: Any) -> Any:
    """Classify queries by majority vote of their 5 nearest training points."""
    np_ = ns.np
    rng = np.random.default_rng(11)
    train = np_.asarray(rng.normal(size=(50, 2)))
    labels = np_.asarray(rng.integers(0, 3, size=50))
    queries = np_.asarray(rng.normal(size=(8, 2)))

    @ns.jit
    def predict(queries: Any) -> Any:
        d2 = np_.sum((queries[:, None, :] - train[None, :, :]) ** 2, axis=-1)
        order = np_.argsort(d2, axis=1)[:, :5]
        nearest = np_.take_along_axis(d2, order, axis=1)
        votes = np_.sum(ns.nn.one_hot(labels[order], 3), axis=1)
        return order, nearest, np_.argmax(votes, axis=1)

    return predict(queries)


@pytest.mark.parametrize(
    "program", [mlp_with_dropout, softmax_classifier, sparse_update, gumbel_softmax, knn]
)
def test_program_gives_jax_numbers(program: Any) -> None:
    _close(program(DIDAX), program(JAX))


def test_random_draws_are_jax_s_bit_for_bit() -> None:
    # The random parts of the programs above, compared exactly.
    _same(gumbel_softmax(DIDAX)[:2], gumbel_softmax(JAX)[:2])
    _same(knn(DIDAX)[0], knn(JAX)[0])
