"""didax.numpy's logic (``didax.api.numpy.logic``) against jax.numpy.

``isclose``, ``allclose``, the array comparisons, ``select`` and
``piecewise``: each case is a function of a numpy module (``jnp`` or
``dnp``) run in both, eagerly and under jit; values, shapes, dtypes and weak
types must be JAX's (``same_as_jax``, in tests/api/conftest.py).
Differentiable cases are also compared under grad.
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

rng = np.random.RandomState(0)
M = rng.randn(3, 4)
S = rng.randn(4, 4)
V = rng.randn(5)
T = rng.randn(2, 3, 4)
I = np.array([[0, 3, 0], [2, 0, 1]])

Case = Callable[[Any], Any]
GradCase = Callable[[Any, Any], Any]
Compare = Callable[[Any, Any], None]

CASES: dict[str, Case] = {
    "isclose": lambda np_: np_.isclose(
        np_.asarray([1.0, np.inf, -np.inf, np.nan, 1.0]),
        np_.asarray([1.0 + 1e-9, np.inf, np.inf, np.nan, 2.0]),
    ),
    "isclose_equal_nan": lambda np_: np_.isclose(
        np_.asarray([np.nan, 1.0]), np_.asarray([np.nan, 1.0]), equal_nan=True
    ),
    "isclose_int": lambda np_: np_.isclose(np_.asarray(I), 0),
    "allclose": lambda np_: np_.allclose(np_.asarray(M), np_.asarray(M) + 1e-10),
    "array_equal": lambda np_: np_.array_equal(np_.asarray(M), np_.asarray(M)),
    "array_equal_shapes": lambda np_: np_.array_equal(np_.asarray(M), np_.asarray(V)),
    "array_equiv": lambda np_: np_.array_equiv(np_.asarray(M[:1]), np_.asarray(M[:1])),
    "select": lambda np_: np_.select(
        [np_.asarray(V) > 0.5, np_.asarray(V) < -0.5], [np_.asarray(V), -np_.asarray(V)], 0.0
    ),
    "piecewise": lambda np_: np_.piecewise(
        np_.asarray(V), [np_.asarray(V) < 0, np_.asarray(V) >= 0], [lambda x: -x, lambda x: x * 2]
    ),
    "piecewise_default": lambda np_: np_.piecewise(
        np_.asarray(V), [np_.asarray(V) < 0], [0.0, lambda x: x + 1]
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_matches_jax(name: str, same_as_jax: Compare) -> None:
    case = CASES[name]
    same_as_jax(case(dnp), case(jnp))


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_matches_jax(name: str, same_as_jax: Compare) -> None:
    case = CASES[name]
    same_as_jax(dx.jit(lambda: case(dnp))(), jax.jit(lambda: case(jnp))())


GRAD_CASES: dict[str, GradCase] = {
    "select": lambda np_, x: np_.select([x > 0], [x * x], -x),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grad_matches_jax(name: str, grad_matches_jax: Callable[[GradCase], None]) -> None:
    grad_matches_jax(GRAD_CASES[name])
