"""didax.numpy's statistics (``didax.api.numpy.statistics``) against jax.numpy.

``all``/``any``, ``count_nonzero``, ``cumprod``, moments, ``average``,
``cov``, ``corrcoef`` and the NaN-ignoring reductions: each case is a
function of a numpy module (``jnp`` or ``dnp``) run in both, eagerly and
under jit; values, shapes, dtypes and weak types must be JAX's
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
B = np.array([True, False, True, True])
NANS = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, 2.0]])

Case = Callable[[Any], Any]
GradCase = Callable[[Any, Any], Any]
Compare = Callable[[Any, Any], None]

CASES: dict[str, Case] = {
    "all": lambda np_: np_.all(np_.asarray(B)),
    "any_axis": lambda np_: np_.any(np_.asarray(I), axis=0),
    "all_keepdims": lambda np_: np_.all(np_.asarray(M) > 0, axis=1, keepdims=True),
    "all_empty": lambda np_: np_.all(np_.zeros((0, 2)), axis=0),
    "any_empty": lambda np_: np_.any(np_.zeros((0,))),
    "count_nonzero": lambda np_: np_.count_nonzero(np_.asarray(I), axis=1),
    "cumprod": lambda np_: np_.cumprod(np_.asarray(M), axis=1),
    "cumprod_flat_int": lambda np_: np_.cumprod(np_.asarray(I)),
    "var": lambda np_: np_.var(np_.asarray(M)),
    "var_axis_ddof": lambda np_: np_.var(np_.asarray(T), axis=(0, 2), ddof=1),
    "var_int": lambda np_: np_.var(np_.asarray(I), axis=0),
    "std": lambda np_: np_.std(np_.asarray(M), axis=1, keepdims=True),
    "average": lambda np_: np_.average(np_.asarray(M)),
    "average_weights": lambda np_: np_.average(np_.asarray(M), axis=1, weights=np_.asarray(V[:4])),
    "average_returned": lambda np_: np_.average(np_.asarray(M), axis=0, returned=True),
    "cov": lambda np_: np_.cov(np_.asarray(M)),
    "cov_cols_bias": lambda np_: np_.cov(np_.asarray(M), rowvar=False, bias=True),
    "cov_xy": lambda np_: np_.cov(np_.asarray(V), np_.asarray(V[::-1])),
    "corrcoef": lambda np_: np_.corrcoef(np_.asarray(M)),
    "nansum": lambda np_: np_.nansum(np_.asarray(NANS), axis=1),
    "nanprod": lambda np_: np_.nanprod(np_.asarray(NANS)),
    "nanmean": lambda np_: np_.nanmean(np_.asarray(NANS), axis=0),
    "nanmax": lambda np_: np_.nanmax(np_.asarray(NANS), axis=0),
    "nanmin": lambda np_: np_.nanmin(np_.asarray(NANS), axis=1),
    "nanvar": lambda np_: np_.nanvar(np_.asarray(NANS), axis=1),
    "nanstd": lambda np_: np_.nanstd(np_.asarray(NANS)),
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
    "var": lambda np_, x: np_.var(x, axis=0),
    "std": lambda np_, x: np_.std(x),
    "cumprod": lambda np_, x: np_.cumprod(x, axis=1),
    "cov": lambda np_, x: np_.cov(x),
    "corrcoef": lambda np_, x: np_.corrcoef(x),
    "average": lambda np_, x: np_.average(x, axis=1, weights=np_.asarray([1.0, 2.0, 3.0, 4.0])),
    "nanmean": lambda np_, x: np_.nanmean(x, axis=0),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grad_matches_jax(name: str, grad_matches_jax: Callable[[GradCase], None]) -> None:
    grad_matches_jax(GRAD_CASES[name])


def test_vmap_matches_jax() -> None:
    x = np.random.RandomState(5).randn(5, 3, 4)
    for f in (
        lambda np_, v: np_.var(np_.pad(v, 1, mode="edge"), axis=1),
        lambda np_, v: np_.cumprod(v, axis=1),
    ):
        got = dx.vmap(lambda v, f=f: f(dnp, v))(x)
        want = jax.vmap(lambda v, f=f: f(jnp, v))(x)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)
