"""didax.numpy's polynomials (``didax.api.numpy.polynomials``) against jax.numpy.

``polyval``, ``convolve`` and ``correlate``: each case is a function of a
numpy module (``jnp`` or ``dnp``) run in both, eagerly and under jit;
values, shapes, dtypes and weak types must be JAX's (``same_as_jax``, in
tests/api/conftest.py). Differentiable cases are also compared under grad.
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
    "polyval": lambda np_: np_.polyval(np_.asarray([1.0, -2.0, 0.5]), np_.asarray(V)),
    "polyval_int": lambda np_: np_.polyval(np_.asarray([1, 2, 3]), np_.asarray(I)),
    "convolve": lambda np_: np_.convolve(np_.asarray(V), np_.asarray(V[:3])),
    "convolve_same": lambda np_: np_.convolve(np_.asarray(V[:3]), np_.asarray(V), mode="same"),
    "convolve_valid": lambda np_: np_.convolve(np_.asarray(V), np_.asarray(V[:2]), mode="valid"),
    "correlate": lambda np_: np_.correlate(np_.asarray(V), np_.asarray(V[:3]), mode="full"),
    "correlate_swap": lambda np_: np_.correlate(np_.asarray(V[:2]), np_.asarray(V), mode="full"),
    "correlate_valid": lambda np_: np_.correlate(np_.asarray(V), np_.asarray(V[:3])),
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
    "polyval": lambda np_, x: np_.polyval(x[0], x[1]),
    "convolve": lambda np_, x: np_.convolve(x[0], x[1, :2], mode="same"),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grad_matches_jax(name: str, grad_matches_jax: Callable[[GradCase], None]) -> None:
    grad_matches_jax(GRAD_CASES[name])


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: dnp.convolve(np.ones((2, 2)), np.ones(2)), ValueError),
    ],
)
def test_bad_arguments_raise_as_jax(call: Callable[[], Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        call()
