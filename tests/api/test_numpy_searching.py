"""didax.numpy's searching (``didax.api.numpy.searching``) against jax.numpy.

``nonzero`` and its relatives, ``where`` with one argument, ``unique`` and
``searchsorted``: each case is a function of a numpy module (``jnp`` or
``dnp``) run in both, eagerly and under jit; values, shapes, dtypes and weak
types must be JAX's (``same_as_jax``, in tests/api/conftest.py).
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
    "nonzero_sized": lambda np_: np_.nonzero(np_.asarray(I), size=5, fill_value=-1),
    "flatnonzero_sized": lambda np_: np_.flatnonzero(np_.asarray(I), size=2),
    "argwhere_sized": lambda np_: np_.argwhere(np_.asarray(I), size=4),
    "searchsorted": lambda np_: np_.searchsorted(np_.asarray(np.sort(V)), np_.asarray(M)),
    "searchsorted_right": lambda np_: np_.searchsorted(
        np_.asarray([1.0, 2.0, 2.0, 5.0]), np_.asarray([2.0, 0.0, 9.0, 5.0]), side="right"
    ),
    # NaNs and signed zeros in the sort's total order, as JAX's comparators.
    "searchsorted_total_order": lambda np_: np_.searchsorted(
        np_.asarray([-np.inf, -1.0, 0.0, 0.0, 2.0, np.nan]),
        np_.asarray([np.nan, -0.0, 0.0, np.inf, -np.inf, 2.0]),
        side="right",
    ),
    "searchsorted_sorter": lambda np_: np_.searchsorted(
        np_.asarray(V), np_.asarray(M), sorter=np_.asarray(np.argsort(V))
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


def test_value_dependent_shapes_need_concrete_values_or_size(same_as_jax: Compare) -> None:
    got = dnp.nonzero(np.array([[0, 1], [2, 0]]))
    want = jnp.nonzero(np.array([[0, 1], [2, 0]]))
    same_as_jax(got, want)
    same_as_jax(dnp.argwhere(np.array([0, 3, 4])), jnp.argwhere(np.array([0, 3, 4])))
    with pytest.raises(dx.errors.ConcretizationTypeError, match="size"):
        dx.jit(dnp.nonzero)(np.array([0, 1]))


def test_one_argument_where_is_nonzero(same_as_jax: Compare) -> None:
    cond = np.array([[0, 2], [3, 0]])
    same_as_jax(dnp.where(cond), jnp.where(cond))
    got = dx.jit(lambda c: dnp.where(c, size=3, fill_value=-1))(cond)
    want = jax.jit(lambda c: jnp.where(c, size=3, fill_value=-1))(cond)
    same_as_jax(got, want)


def test_unique_on_concrete_values_as_jax(same_as_jax: Compare) -> None:
    x = np.array([[3, 1, 2], [3, 1, 7]])
    same_as_jax(
        dnp.unique(x, return_index=True, return_inverse=True, return_counts=True),
        jnp.unique(x, return_index=True, return_inverse=True, return_counts=True),
    )
    same_as_jax(dnp.unique(x, size=6), jnp.unique(x, size=6))
    same_as_jax(dnp.unique(x, size=2), jnp.unique(x, size=2))
    with pytest.raises(dx.errors.ConcretizationTypeError):
        dx.jit(dnp.unique)(x)
