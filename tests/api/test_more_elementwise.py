"""Element-wise composites (log2, logaddexp, isnan, nan_to_num, fmax, ...) against jax.numpy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp

SPECIAL = np.array([-np.inf, -3.5, -1.0, -0.0, 0.0, 0.5, 2.0, 1e30, np.inf, np.nan])
INTS = np.array([-3, 0, 2, 7])

UNARY = [
    "square",
    "reciprocal",
    "log2",
    "log10",
    "isnan",
    "isinf",
    "isfinite",
    "isposinf",
    "isneginf",
    "nan_to_num",
    "absolute",
    "fabs",
    "deg2rad",
    "rad2deg",
    "degrees",
    "radians",
    "expm1",
]
BINARY = ["logaddexp", "mod", "fmax", "fmin"]


def _inputs(name: str, dtype: Any) -> list[np.ndarray[Any, Any]]:
    if dtype in (np.int32, np.int64):
        base = INTS.astype(dtype)
        if name in ("reciprocal", "mod"):
            base = np.where(base == 0, 1, base)
    else:
        base = SPECIAL.astype(dtype)
    return [base]


def _compare(got: Any, want: Any) -> None:
    # Eager didax computes transcendental functions with NumPy, XLA with its
    # own kernels: a few ulps apart.
    assert isinstance(got, dx.Array)
    assert got.dtype == want.dtype
    assert got.weak_type == want.weak_type
    tol = 1e-6 if got.dtype == np.float32 else 1e-14
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64], ids=str)
@pytest.mark.parametrize("name", UNARY)
def test_unary_matches_jax(name: str, dtype: Any) -> None:
    (x,) = _inputs(name, dtype)
    with np.errstate(all="ignore"):
        want = getattr(jnp, name)(x)
    _compare(getattr(dnp, name)(x), want)
    _compare(dx.jit(getattr(dnp, name))(x), jax.jit(getattr(jnp, name))(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64], ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_binary_matches_jax(name: str, dtype: Any) -> None:
    (x,) = _inputs(name, dtype)
    y = x[::-1].copy()
    if name == "mod" and dtype is not np.int64:
        y = np.where((y == 0) | ~np.isfinite(y), 1.5, y).astype(dtype)
    _compare(getattr(dnp, name)(x, y), getattr(jnp, name)(x, y))
    _compare(dx.jit(getattr(dnp, name))(x, y), jax.jit(getattr(jnp, name))(x, y))


def test_nan_to_num_options_and_scalars() -> None:
    x = SPECIAL.astype(np.float32)
    _compare(
        dnp.nan_to_num(x, nan=1.0, posinf=9.0, neginf=-9.0),
        jnp.nan_to_num(x, nan=1.0, posinf=9.0, neginf=-9.0),
    )
    _compare(dnp.log2(8.0), jnp.log2(8.0))
    _compare(dnp.square(True), jnp.square(True))


@pytest.mark.parametrize(
    "f",
    [
        lambda np_, x: np_.log2(x) + np_.log10(x),
        lambda np_, x: np_.logaddexp(x, 2.0 * x),
        lambda np_, x: np_.square(x) * np_.reciprocal(x + 3.0),
        lambda np_, x: np_.fmax(x, 0.5) + np_.fmin(x, 1.0),
        lambda np_, x: np_.deg2rad(np_.expm1(x)),
    ],
)
def test_grad_matches_jax(f: Callable[[Any, Any], Any]) -> None:
    x = np.array([0.25, 0.7, 1.5, 3.0])
    got = dx.grad(lambda v: dnp.sum(f(dnp, v)))(x)
    want = jax.grad(lambda v: jnp.sum(f(jnp, v)))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-14)


def test_logaddexp_is_stable_and_handles_infinities() -> None:
    a = np.array([1000.0, -np.inf, np.inf, -np.inf])
    b = np.array([1000.0, -np.inf, 3.0, 2.0])
    _compare(dnp.logaddexp(a, b), jnp.logaddexp(a, b))
