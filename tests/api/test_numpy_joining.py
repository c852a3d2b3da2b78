"""didax.numpy's joining, splitting and tiling (``didax.api.numpy.joining``) against jax.numpy.

``atleast_*d``, the stacks, ``append``, the splits, ``tile`` and ``repeat``:
each case is a function of a numpy module (``jnp`` or ``dnp``) run in both,
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

Case = Callable[[Any], Any]
GradCase = Callable[[Any, Any], Any]
Compare = Callable[[Any, Any], None]

CASES: dict[str, Case] = {
    "atleast_1d": lambda np_: np_.atleast_1d(np_.asarray(2.0)),
    "atleast_2d": lambda np_: np_.atleast_2d(np_.asarray(V)),
    "atleast_3d_vec": lambda np_: np_.atleast_3d(np_.asarray(V)),
    "atleast_3d_mat": lambda np_: np_.atleast_3d(np_.asarray(M)),
    "vstack": lambda np_: np_.vstack([np_.asarray(V), np_.asarray(V)]),
    "hstack": lambda np_: np_.hstack([np_.asarray(M), np_.asarray(M)]),
    "hstack_vec": lambda np_: np_.hstack([np_.asarray(V), np_.asarray(V[:2])]),
    "dstack": lambda np_: np_.dstack([np_.asarray(M), np_.asarray(M)]),
    "column_stack": lambda np_: np_.column_stack([np_.asarray(V), np_.asarray(V)]),
    "append": lambda np_: np_.append(np_.asarray(M), np_.asarray(V)),
    "append_axis": lambda np_: np_.append(np_.asarray(M), np_.asarray(M), axis=1),
    "split": lambda np_: np_.split(np_.asarray(T), 2, axis=2),
    "split_points": lambda np_: np_.split(np_.asarray(V), [1, 3, 4]),
    "array_split": lambda np_: np_.array_split(np_.asarray(V), 3),
    "hsplit": lambda np_: np_.hsplit(np_.asarray(M), 2),
    "vsplit": lambda np_: np_.vsplit(np_.asarray(S), [1]),
    "dsplit": lambda np_: np_.dsplit(np_.asarray(T), 2),
    "tile": lambda np_: np_.tile(np_.asarray(M), (2, 1, 2)),
    "tile_int": lambda np_: np_.tile(np_.asarray(V), 3),
    "repeat": lambda np_: np_.repeat(np_.asarray(M), 2, axis=1),
    "repeat_flat": lambda np_: np_.repeat(np_.asarray(M), 2),
    "repeat_counts": lambda np_: np_.repeat(np_.asarray(V), np.array([1, 0, 2, 1, 3])),
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
    "tile": lambda np_, x: np_.tile(x, (2, 3)),
    "repeat_counts": lambda np_, x: np_.repeat(x, np.array([2, 0, 1, 3]), axis=1),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grad_matches_jax(name: str, grad_matches_jax: Callable[[GradCase], None]) -> None:
    grad_matches_jax(GRAD_CASES[name])


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: dnp.split(np.arange(5), 2), ValueError),
        (lambda: dnp.vsplit(np.arange(5), 1), ValueError),
        (lambda: dnp.repeat(np.arange(3), [1, 2]), ValueError),
    ],
)
def test_bad_arguments_raise_as_jax(call: Callable[[], Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        call()
