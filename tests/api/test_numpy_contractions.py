"""didax.numpy's contractions (``didax.api.numpy.contractions``) against jax.numpy.

``einsum``, ``tensordot``, ``inner``, ``vdot``, ``kron`` and ``cross``: each
case is a function of a numpy module (``jnp`` or ``dnp``) run in both,
eagerly and under jit; values, shapes, dtypes and weak types must be JAX's
(``same_as_jax``, in tests/api/conftest.py). Differentiable cases are also
compared under grad.
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
    "einsum_matmul": lambda np_: np_.einsum("ij,jk->ik", np_.asarray(M), np_.asarray(S)),
    "einsum_three": lambda np_: np_.einsum(
        "ij,jk,kl->il", np_.asarray(M), np_.asarray(S), np_.asarray(S)
    ),
    "einsum_one_trace": lambda np_: np_.einsum("ii", np_.asarray(S)),
    "einsum_one_diag": lambda np_: np_.einsum("ii->i", np_.asarray(S)),
    "einsum_one_transpose": lambda np_: np_.einsum("ij->ji", np_.asarray(M)),
    "einsum_one_sum": lambda np_: np_.einsum("ijk->j", np_.asarray(T)),
    "einsum_ellipsis": lambda np_: np_.einsum("...ij,...jk->...ik", np_.asarray(T), np_.asarray(S)),
    "einsum_ellipsis_broadcast": lambda np_: np_.einsum(
        "...j,j->...", np_.asarray(T), np_.asarray(V[:4])
    ),
    "einsum_implicit": lambda np_: np_.einsum("ij,jk", np_.asarray(M), np_.asarray(S)),
    "einsum_outer": lambda np_: np_.einsum("i,j->ij", np_.asarray(V), np_.asarray(V[:2])),
    "einsum_batch": lambda np_: np_.einsum(
        "bij,bjk->bik", np_.asarray(T), np_.asarray(T).transpose(0, 2, 1)
    ),
    "einsum_four": lambda np_: np_.einsum(
        "ab,bc,cd,d->a", np_.asarray(S), np_.asarray(S), np_.asarray(S), np_.asarray(V[:4])
    ),
    "einsum_sublist": lambda np_: np_.einsum(
        np_.asarray(M), [0, 1], np_.asarray(S), [1, 2], [0, 2]
    ),
    "einsum_repeated_across": lambda np_: np_.einsum("ii,ij->j", np_.asarray(S), np_.asarray(S)),
    "einsum_int": lambda np_: np_.einsum("ij,j->i", np_.asarray(I), np_.asarray(I[0])),
    "tensordot": lambda np_: np_.tensordot(np_.asarray(T), np_.asarray(rng_t()), 2),
    "tensordot_axes": lambda np_: np_.tensordot(np_.asarray(T), np_.asarray(M), ((1, 2), (0, 1))),
    "tensordot_zero": lambda np_: np_.tensordot(np_.asarray(V), np_.asarray(V[:2]), 0),
    "inner": lambda np_: np_.inner(np_.asarray(M), np_.asarray(M)),
    "vdot": lambda np_: np_.vdot(np_.asarray(M), np_.asarray(M)),
    "kron": lambda np_: np_.kron(np_.asarray(M[:2, :2]), np_.asarray(S[:3, :2])),
    "kron_mixed_rank": lambda np_: np_.kron(np_.asarray(V[:2]), np_.asarray(I)),
    "cross": lambda np_: np_.cross(np_.asarray(M[:, :3]), np_.asarray(S[:3, :3])),
    "cross_2d": lambda np_: np_.cross(np_.asarray(M[:, :2]), np_.asarray(M[:, 2:])),
    "cross_mixed": lambda np_: np_.cross(np_.asarray(M[:, :3]), np_.asarray(V[:2])),
}


def rng_t() -> np.ndarray[Any, Any]:
    return np.random.RandomState(1).randn(3, 4, 2)


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_matches_jax(name: str, same_as_jax: Compare) -> None:
    case = CASES[name]
    same_as_jax(case(dnp), case(jnp))


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_matches_jax(name: str, same_as_jax: Compare) -> None:
    case = CASES[name]
    same_as_jax(dx.jit(lambda: case(dnp))(), jax.jit(lambda: case(jnp))())


GRAD_CASES: dict[str, GradCase] = {
    "einsum_three": lambda np_, x: np_.einsum("ij,jk,kl->il", x, x.T, x),
    "einsum_diag": lambda np_, x: np_.einsum("ii->i", x[:, :3]),
    "tensordot": lambda np_, x: np_.tensordot(x, x, ((0,), (0,))),
    "kron": lambda np_, x: np_.kron(x[:2, :2], x[1:, 2:]),
    "cross": lambda np_, x: np_.cross(x[:, :3], x[:, 1:]),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grad_matches_jax(name: str, grad_matches_jax: Callable[[GradCase], None]) -> None:
    grad_matches_jax(GRAD_CASES[name])


def test_vmap_matches_jax() -> None:
    x = np.random.RandomState(5).randn(5, 3, 4)
    for f in (lambda np_, v: np_.einsum("ij,jk->ik", v, v.T),):
        got = dx.vmap(lambda v, f=f: f(dnp, v))(x)
        want = jax.vmap(lambda v, f=f: f(jnp, v))(x)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: dnp.tensordot(np.ones((2, 3)), np.ones((2, 3)), 1), TypeError),
        (lambda: dnp.einsum("ij,jk->ik", np.ones((2, 3)), np.ones((4, 5))), ValueError),
        (lambda: dnp.einsum("ij->iz", np.ones((2, 3))), ValueError),
        (lambda: dnp.cross(np.ones(4), np.ones(3)), ValueError),
    ],
)
def test_bad_arguments_raise_as_jax(call: Callable[[], Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        call()
