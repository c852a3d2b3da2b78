"""Fixtures shared by the ``didax.numpy`` tests written once against a namespace.

A case is a function of a numpy module (``jnp`` or ``dnp``); the test files
named after ``didax.api.numpy``'s modules (``test_numpy_joining.py``,
``test_numpy_statistics.py``, ...) run each case in both and compare the
results with ``same_as_jax``, and their gradients with ``grad_matches_jax``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp

Compare = Callable[[Any, Any], None]
GradCase = Callable[[Any, Any], Any]


def _same_as_jax(got: Any, want: Any) -> None:
    """Leaf by leaf: a didax Array of JAX's shape, dtype and weak type, and its values."""
    g, w = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(g) == len(w)
    for a, b in zip(g, w, strict=True):
        assert isinstance(a, dx.Array), type(a)
        assert a.shape == b.shape
        assert a.dtype == b.dtype
        assert a.weak_type == b.weak_type
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-12)


@pytest.fixture
def same_as_jax() -> Compare:
    return _same_as_jax


def _grad_matches_jax(case: GradCase) -> None:
    """grad of ``sum(case(x) * w)`` at a (3, 4) ``x``, eager and under jit, against JAX's."""
    x = np.random.RandomState(1).randn(3, 4)
    w = np.random.RandomState(2).randn(*np.shape(case(np, x)))

    def loss(np_: Any) -> Callable[[Any], Any]:
        return lambda v: np_.sum(case(np_, v) * w)

    got = dx.grad(loss(dnp))(x)
    want = jax.grad(loss(jnp))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-10, atol=1e-10)
    got_jit = dx.jit(dx.grad(loss(dnp)))(x)
    np.testing.assert_allclose(np.asarray(got_jit), np.asarray(want), rtol=1e-10, atol=1e-10)


@pytest.fixture
def grad_matches_jax() -> Callable[[GradCase], None]:
    return _grad_matches_jax
