"""didax.numpy's functions over the special primitives, against jax.numpy.

``sinh`` ... ``arctanh``, ``arctan2``, ``exp2``, ``logaddexp2``, ``hypot``,
``sinc``, ``heaviside``, ``signbit``, ``copysign`` and ``isfinite``: values,
dtypes and weak types over grids with edge values (integers become floats
as JAX's), eager and under jit; gradients against JAX (at infinities and at
``sinc``'s removable singularity too) and finite differences; vmap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp

EDGES: Final = np.array([-np.inf, -10.0, -1.0, -0.5, -0.0, 0.0, 0.25, 0.999, 1.0, 3.0, 1e30])
EDGES_NAN: Final = np.append(EDGES, [np.inf, np.nan])
INTS: Final = np.array([-3, -1, 0, 1, 2, 7])

# Computed eagerly with NumPy (atan2, exp, sin, ...): an ulp or two from XLA's.
UNARY: Final = [
    "sinh",
    "cosh",
    "arcsin",
    "arccos",
    "arctan",
    "arcsinh",
    "arccosh",
    "arctanh",
    "exp2",
    "sinc",
    "signbit",
    "isfinite",
]
BINARY: Final = ["arctan2", "logaddexp2", "hypot", "heaviside", "copysign", "logaddexp"]


def _compare(got: Any, want: Any, ulps: float = 4, absolute: bool = False) -> None:
    """Equal types; values within ``ulps`` (relative, or absolute where results cancel)."""
    assert isinstance(got, dx.Array)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    assert got.weak_type == want.weak_type
    g, w = np.asarray(got), np.asarray(want)
    if g.dtype == np.bool_:
        np.testing.assert_array_equal(g, w)
        return
    eps = float(np.finfo(g.dtype).eps)
    np.testing.assert_allclose(g, w, rtol=ulps * eps, atol=ulps * eps if absolute else 0)


def _inputs(dtype: Any) -> np.ndarray[Any, Any]:
    return INTS.astype(dtype) if np.dtype(dtype).kind == "i" else EDGES_NAN.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64], ids=str)
@pytest.mark.parametrize("name", UNARY)
def test_unary_matches_jax(name: str, dtype: Any) -> None:
    x = _inputs(dtype)
    want = getattr(jnp, name)(x)
    _compare(getattr(dnp, name)(x), want)
    _compare(dx.jit(getattr(dnp, name))(x), jax.jit(getattr(jnp, name))(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64], ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_binary_matches_jax(name: str, dtype: Any) -> None:
    x = _inputs(dtype)
    a, b = np.meshgrid(x, x)
    # logaddexp2(x, x) = x + 1 cancels to 0 at x = -1: compared absolutely.
    _compare(getattr(dnp, name)(a, b), getattr(jnp, name)(a, b), absolute=True)
    _compare(dx.jit(getattr(dnp, name))(a, b), jax.jit(getattr(jnp, name))(a, b))


@pytest.mark.parametrize("name", UNARY)
def test_unary_python_scalars_and_weak_types(name: str) -> None:
    for x in (0.5, 2, True, np.float32(0.5)):
        if name == "signbit" and isinstance(x, bool):
            continue
        _compare(getattr(dnp, name)(x), getattr(jnp, name)(x))


@pytest.mark.parametrize("name", BINARY)
def test_binary_mixed_operands(name: str) -> None:
    x32 = np.array([-1.5, 0.0, 2.0], np.float32)
    for a, b in [(x32, 2.0), (1.0, x32), (x32, np.array([1, -2, 3])), (2, 3.0)]:
        _compare(getattr(dnp, name)(a, b), getattr(jnp, name)(a, b), absolute=True)


def test_special_values() -> None:
    # signbit sees the sign of zeros and NaNs; copysign copies it.
    x = np.array([-0.0, 0.0, -np.nan, np.nan, -np.inf])
    _compare(dnp.signbit(x), jnp.signbit(x))
    _compare(dnp.copysign(np.ones(5), x), jnp.copysign(np.ones(5), x))
    # hypot neither overflows nor underflows; an infinity beats a NaN.
    a = np.array([1e300, 3e-300, np.inf, np.nan, 0.0])
    b = np.array([1e300, 4e-300, np.nan, 1.0, 0.0])
    _compare(dnp.hypot(a, b), jnp.hypot(a, b))
    # heaviside's value at 0 is the second argument; NaN stays NaN.
    _compare(
        dnp.heaviside(np.array([-1.0, 0.0, np.nan, 2.0]), 0.5),
        jnp.heaviside(np.array([-1.0, 0.0, np.nan, 2.0]), 0.5),
    )
    # exp2 is exp(log(2) x), as JAX's: exp2(1024) is finite. (Subnormal results
    # are left out: XLA flushes them to zero, NumPy does not.)
    e = np.array([3.0, -1022.0, 1023.0, 1024.0, 1025.0])
    _compare(dnp.exp2(e), jnp.exp2(e))


# --- gradients ------------------------------------------------------------------------


GRAD_CASES: Final[dict[str, tuple[Callable[[Any, Any], Any], np.ndarray[Any, Any]]]] = {
    "sinh": (lambda np_, x: np_.sinh(x), np.array([-2.0, 0.0, 0.7])),
    "cosh": (lambda np_, x: np_.cosh(x), np.array([-2.0, 0.0, 0.7])),
    "arcsin": (lambda np_, x: np_.arcsin(x), np.array([-0.9, 0.0, 0.7])),
    "arccos": (lambda np_, x: np_.arccos(x), np.array([-0.9, 0.0, 0.7])),
    "arctan": (lambda np_, x: np_.arctan(x), np.array([-2.0, 0.0, 0.7])),
    "arcsinh": (lambda np_, x: np_.arcsinh(x), np.array([-2.0, 0.0, 0.7])),
    "arccosh": (lambda np_, x: np_.arccosh(x), np.array([1.1, 2.0, 5.0])),
    "arctanh": (lambda np_, x: np_.arctanh(x), np.array([-0.9, 0.0, 0.7])),
    "exp2": (lambda np_, x: np_.exp2(x), np.array([-2.0, 0.0, 0.7])),
    "sinc": (lambda np_, x: np_.sinc(x), np.array([-1.5, 0.0, 0.3])),
    "arctan2": (lambda np_, x: np_.arctan2(x, 1.0 - x), np.array([-0.5, 0.3, 2.0])),
    "logaddexp2": (lambda np_, x: np_.logaddexp2(x, 2.0 * x), np.array([-0.5, 0.3, 2.0])),
    "hypot": (lambda np_, x: np_.hypot(x, 3.0 * x + 1.0), np.array([-0.5, 0.3, 2.0])),
    "copysign": (lambda np_, x: np_.copysign(x, x - 1.0), np.array([-0.5, 0.3, 2.0])),
    "heaviside": (lambda np_, x: np_.heaviside(x, 0.5) * x, np.array([-0.5, 0.3, 2.0])),
}


@pytest.mark.parametrize("name", GRAD_CASES)
def test_grad_matches_jax_and_finite_differences(name: str) -> None:
    f, x = GRAD_CASES[name]
    got = dx.grad(lambda v: dnp.sum(f(dnp, v)))(x)
    want = jax.grad(lambda v: jnp.sum(f(jnp, v)))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-13, atol=1e-15)
    jitted = dx.jit(dx.grad(lambda v: dnp.sum(f(dnp, v))))(x)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(want), rtol=1e-13, atol=1e-15)
    eps = 1e-6
    smooth = x != 0 if name == "heaviside" else np.ones(x.shape, bool)
    fd = (np.asarray(f(dnp, x + eps)) - np.asarray(f(dnp, x - eps))) / (2 * eps)
    np.testing.assert_allclose(np.asarray(got)[smooth], fd[smooth], rtol=1e-6, atol=1e-8)


def test_sinc_derivatives_at_zero_are_jax_s() -> None:
    # The removable singularity: sinc'(0) = 0 and sinc''(0) = -pi**2 / 3.
    for order in (1, 2, 3):
        d: Any = dnp.sinc
        j: Any = jnp.sinc
        for _ in range(order):
            d, j = dx.grad(d), jax.grad(j)
        np.testing.assert_allclose(float(d(0.0)), float(j(0.0)), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(float(dx.grad(dx.grad(dnp.sinc))(0.0)), -(np.pi**2) / 3)


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_gradients_at_infinities_are_jax_s(name: str) -> None:
    a = np.array([-np.inf, -np.inf, np.inf, 0.0, np.inf, 3.0])
    b = np.array([0.0, -np.inf, 1.0, -np.inf, np.inf, 3.0])
    for argnum in (0, 1):
        got = dx.vmap(dx.grad(getattr(dnp, name), argnums=argnum))(a, b)
        want = jax.vmap(jax.grad(getattr(jnp, name), argnums=argnum))(a, b)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-15, atol=0)


def test_isfinite_binds_the_primitive() -> None:
    x = np.array([1.0, np.inf])
    assert "is_finite" in str(dx.make_jaxpr(dnp.isfinite)(x))
    assert "is_finite" not in str(dx.make_jaxpr(dnp.isfinite)(np.array([1, 2])))


def test_vmap_matches_jax() -> None:
    x = np.array([[0.5, -0.25, 2.0], [0.0, 1.5, -3.0]])
    y = np.array([1.0, -2.0, 0.5])
    for name in ("arctan2", "hypot", "copysign", "logaddexp2"):
        got = dx.vmap(getattr(dnp, name), in_axes=(0, None))(x, y)
        want = jax.vmap(getattr(jnp, name), in_axes=(0, None))(x, y)
        _compare(got, want)
    _compare(dx.vmap(dnp.sinc, in_axes=1)(x), jax.vmap(jnp.sinc, in_axes=1)(x))
