"""didax.numpy's rearranging (``didax.api.numpy.rearranging``) against jax.numpy.

Flips, rotations, rolls, ``diff``, ``pad`` and ``gradient``: each case is a
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
B = np.array([True, False, True, True])

Case = Callable[[Any], Any]
GradCase = Callable[[Any, Any], Any]
Compare = Callable[[Any, Any], None]

CASES: dict[str, Case] = {
    "flip": lambda np_: np_.flip(np_.asarray(T), axis=(0, 2)),
    "flip_all": lambda np_: np_.flip(np_.asarray(M)),
    "fliplr": lambda np_: np_.fliplr(np_.asarray(M)),
    "flipud": lambda np_: np_.flipud(np_.asarray(M)),
    "rot90": lambda np_: np_.rot90(np_.asarray(M)),
    "rot90_k3": lambda np_: np_.rot90(np_.asarray(T), 3, axes=(1, 2)),
    "rot90_k2": lambda np_: np_.rot90(np_.asarray(M), -2),
    "roll": lambda np_: np_.roll(np_.asarray(V), 2),
    "roll_neg_axis": lambda np_: np_.roll(np_.asarray(M), -1, axis=1),
    "roll_flat": lambda np_: np_.roll(np_.asarray(M), 5),
    "roll_multi": lambda np_: np_.roll(np_.asarray(T), (1, 2), axis=(0, 2)),
    "rollaxis": lambda np_: np_.rollaxis(np_.asarray(T), 2),
    "rollaxis_start": lambda np_: np_.rollaxis(np_.asarray(T), 0, 2),
    "diff": lambda np_: np_.diff(np_.asarray(M)),
    "diff_n2_axis0": lambda np_: np_.diff(np_.asarray(T), n=2, axis=1),
    "diff_prepend": lambda np_: np_.diff(np_.asarray(V), prepend=0.0, append=np_.asarray([1.0])),
    "diff_bool": lambda np_: np_.diff(np_.asarray(B)),
    "ediff1d": lambda np_: np_.ediff1d(np_.asarray(M), to_begin=np_.asarray([9.0])),
    "pad_constant": lambda np_: np_.pad(np_.asarray(M), ((1, 2), (0, 1))),
    "pad_constant_value": lambda np_: np_.pad(np_.asarray(V), 2, constant_values=7.0),
    "pad_edge": lambda np_: np_.pad(np_.asarray(M), 2, mode="edge"),
    "pad_reflect": lambda np_: np_.pad(np_.asarray(V), (3, 2), mode="reflect"),
    "pad_symmetric": lambda np_: np_.pad(np_.asarray(M), (2, 3), mode="symmetric"),
    "pad_wrap": lambda np_: np_.pad(np_.asarray(V), (6, 2), mode="wrap"),
    "gradient": lambda np_: np_.gradient(np_.asarray(V)),
    "gradient_2d": lambda np_: np_.gradient(np_.asarray(M), 0.5),
    "gradient_axis": lambda np_: np_.gradient(np_.asarray(M), axis=1),
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
    "roll": lambda np_, x: np_.roll(x, (1, -2), axis=(0, 1)),
    "rot90": lambda np_, x: np_.rot90(x, 3),
    "pad_reflect": lambda np_, x: np_.pad(x, 2, mode="reflect"),
    "pad_constant": lambda np_, x: np_.pad(x, 1, constant_values=2.0),
    "diff": lambda np_, x: np_.diff(x, n=2, axis=1),
    "gradient": lambda np_, x: np_.gradient(x, axis=1),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grad_matches_jax(name: str, grad_matches_jax: Callable[[GradCase], None]) -> None:
    grad_matches_jax(GRAD_CASES[name])


def test_vmap_matches_jax() -> None:
    x = np.random.RandomState(5).randn(5, 3, 4)
    for f in (lambda np_, v: np_.roll(np_.tril(v), 1, axis=0),):
        got = dx.vmap(lambda v, f=f: f(dnp, v))(x)
        want = jax.vmap(lambda v, f=f: f(jnp, v))(x)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: dnp.pad(np.arange(3), 1, mode="median"), NotImplementedError),
    ],
)
def test_bad_arguments_raise_as_jax(call: Callable[[], Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        call()
