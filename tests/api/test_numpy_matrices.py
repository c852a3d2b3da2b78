"""didax.numpy's matrices (``didax.api.numpy.matrices``) against jax.numpy.

``full_like``, ``identity``, triangles, diagonals, ``trace`` and
``meshgrid``: each case is a function of a numpy module (``jnp`` or ``dnp``)
run in both, eagerly and under jit; values, shapes, dtypes and weak types
must be JAX's (``same_as_jax``, in tests/api/conftest.py). Differentiable
cases are also compared under grad.
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
    "full_like": lambda np_: np_.full_like(np_.asarray(M), 3),
    "full_like_dtype": lambda np_: np_.full_like(np_.asarray(M), 3, dtype=np_.int32),
    "empty": lambda np_: np_.empty((2, 3)),
    "empty_like": lambda np_: np_.empty_like(np_.asarray(I)),
    "identity": lambda np_: np_.identity(3),
    "tri": lambda np_: np_.tri(3, 4, 1),
    "tril": lambda np_: np_.tril(np_.asarray(T)),
    "tril_k": lambda np_: np_.tril(np_.asarray(M), -1),
    "triu": lambda np_: np_.triu(np_.asarray(M), 1),
    "diag_of_matrix": lambda np_: np_.diag(np_.asarray(M)),
    "diag_of_matrix_k": lambda np_: np_.diag(np_.asarray(M), -1),
    "diag_of_vector": lambda np_: np_.diag(np_.asarray(V)),
    "diag_of_vector_k": lambda np_: np_.diag(np_.asarray(V), 2),
    "diag_of_vector_neg_k": lambda np_: np_.diag(np_.asarray(V), -1),
    "diagflat": lambda np_: np_.diagflat(np_.asarray(M[:1, :2])),
    "diagonal": lambda np_: np_.diagonal(np_.asarray(T), 1, 1, 2),
    "diagonal_neg": lambda np_: np_.diagonal(np_.asarray(M), -1),
    "trace": lambda np_: np_.trace(np_.asarray(S)),
    "trace_int": lambda np_: np_.trace(np_.asarray(I)),
    "diag_indices": lambda np_: np_.diag_indices(3),
    "tril_indices": lambda np_: np_.tril_indices(3),
    "triu_indices": lambda np_: np_.triu_indices(4, 1, 3),
    "meshgrid": lambda np_: np_.meshgrid(np_.asarray(V[:2]), np_.asarray(V)),
    "meshgrid_ij": lambda np_: np_.meshgrid(np_.asarray(V[:2]), np_.asarray(V), indexing="ij"),
    "meshgrid_sparse": lambda np_: np_.meshgrid(
        np_.asarray(V[:2]), np_.asarray(V), np_.asarray(V[:3]), sparse=True
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
    "tril": lambda np_, x: np_.tril(x, 1),
    "diagonal": lambda np_, x: np_.diagonal(x, 1),
    "trace": lambda np_, x: np_.trace(x),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grad_matches_jax(name: str, grad_matches_jax: Callable[[GradCase], None]) -> None:
    grad_matches_jax(GRAD_CASES[name])


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: dnp.diagonal(np.ones(3)), ValueError),
    ],
)
def test_bad_arguments_raise_as_jax(call: Callable[[], Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        call()
