"""didax.numpy's element-wise functions (``didax.api.numpy.elementwise``, ``more_elementwise``).

Against jax.numpy: the composites (``log2``, ``logaddexp``, ``isnan``,
``nan_to_num``, ``fmax``, ...) over special values; the functions over the
special primitives (``sinh`` ... ``arctanh``, ``arctan2``, ``exp2``,
``logaddexp2``, ``hypot``, ``sinc``, ``heaviside``, ``signbit``,
``copysign`` and ``isfinite``): values, dtypes and weak types over grids
with edge values (integers become floats as JAX's), eager and under jit;
gradients against JAX (at infinities and at ``sinc``'s removable
singularity too) and finite differences; vmap; and the complex parts
(``real``, ``imag``, ``conj``, ``angle``) and the constants.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from tests.slicing import slice_params

import didax as dx
import didax.numpy as dnp

# --- composites -----------------------------------------------------------------------

COMPOSITE_INPUTS = np.array([-np.inf, -3.5, -1.0, -0.0, 0.0, 0.5, 2.0, 1e30, np.inf, np.nan])
COMPOSITE_INTS = np.array([-3, 0, 2, 7])

COMPOSITE_UNARY = [
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
COMPOSITE_BINARY = ["logaddexp", "mod", "fmax", "fmin"]


def _composite_inputs(name: str, dtype: Any) -> list[np.ndarray[Any, Any]]:
    if dtype in (np.int32, np.int64):
        base = COMPOSITE_INTS.astype(dtype)
        if name in ("reciprocal", "mod"):
            base = np.where(base == 0, 1, base)
    else:
        base = COMPOSITE_INPUTS.astype(dtype)
    return [base]


# Slice: a float and an int (float64, int32: results of both widths); the rest only vary widths.
UNARY_DTYPES: Final = slice_params(
    [np.float32, np.float64, np.int32, np.int64], lambda d: d in (np.float64, np.int32), str
)
# Slice: a float and an int (float32, int64: results of both widths); float64 only varies width.
BINARY_DTYPES: Final = slice_params(
    [np.float32, np.float64, np.int64], lambda d: d in (np.float32, np.int64), str
)


def _close(got: Any, want: Any) -> None:
    # Eager didax computes transcendental functions with NumPy, XLA with its
    # own kernels: a few ulps apart.
    assert isinstance(got, dx.Array)
    assert got.dtype == want.dtype
    assert got.weak_type == want.weak_type
    tol = 1e-6 if got.dtype == np.float32 else 1e-14
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=0)


@pytest.mark.parametrize("dtype", UNARY_DTYPES)
@pytest.mark.parametrize("name", COMPOSITE_UNARY)
def test_composite_unary_matches_jax(name: str, dtype: Any) -> None:
    (x,) = _composite_inputs(name, dtype)
    with np.errstate(all="ignore"):
        want = getattr(jnp, name)(x)
    _close(getattr(dnp, name)(x), want)
    _close(dx.jit(getattr(dnp, name))(x), jax.jit(getattr(jnp, name))(x))


@pytest.mark.parametrize("dtype", BINARY_DTYPES)
@pytest.mark.parametrize("name", COMPOSITE_BINARY)
def test_composite_binary_matches_jax(name: str, dtype: Any) -> None:
    (x,) = _composite_inputs(name, dtype)
    y = x[::-1].copy()
    if name == "mod" and dtype is not np.int64:
        y = np.where((y == 0) | ~np.isfinite(y), 1.5, y).astype(dtype)
    _close(getattr(dnp, name)(x, y), getattr(jnp, name)(x, y))
    _close(dx.jit(getattr(dnp, name))(x, y), jax.jit(getattr(jnp, name))(x, y))


def test_nan_to_num_options_and_scalars() -> None:
    x = COMPOSITE_INPUTS.astype(np.float32)
    _close(
        dnp.nan_to_num(x, nan=1.0, posinf=9.0, neginf=-9.0),
        jnp.nan_to_num(x, nan=1.0, posinf=9.0, neginf=-9.0),
    )
    _close(dnp.log2(8.0), jnp.log2(8.0))
    _close(dnp.square(True), jnp.square(True))


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
def test_composite_grad_matches_jax(f: Callable[[Any, Any], Any]) -> None:
    x = np.array([0.25, 0.7, 1.5, 3.0])
    got = dx.grad(lambda v: dnp.sum(f(dnp, v)))(x)
    want = jax.grad(lambda v: jnp.sum(f(jnp, v)))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-14)


def test_logaddexp_is_stable_and_handles_infinities() -> None:
    a = np.array([1000.0, -np.inf, np.inf, -np.inf])
    b = np.array([1000.0, -np.inf, 3.0, 2.0])
    _close(dnp.logaddexp(a, b), jnp.logaddexp(a, b))


# --- over the special primitives ------------------------------------------------------

EDGES: Final = np.array([-np.inf, -10.0, -1.0, -0.5, -0.0, 0.0, 0.25, 0.999, 1.0, 3.0, 1e30])
EDGES_NAN: Final = np.append(EDGES, [np.inf, np.nan])
SPECIAL_INTS: Final = np.array([-3, -1, 0, 1, 2, 7])

# Computed eagerly with NumPy (atan2, exp, sin, ...): an ulp or two from XLA's.
SPECIAL_UNARY: Final = [
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
SPECIAL_BINARY: Final = ["arctan2", "logaddexp2", "hypot", "heaviside", "copysign", "logaddexp"]


def _within_ulps(got: Any, want: Any, ulps: float = 4, absolute: bool = False) -> None:
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


def _special_inputs(dtype: Any) -> np.ndarray[Any, Any]:
    return SPECIAL_INTS.astype(dtype) if np.dtype(dtype).kind == "i" else EDGES_NAN.astype(dtype)


@pytest.mark.parametrize("dtype", UNARY_DTYPES)
@pytest.mark.parametrize("name", SPECIAL_UNARY)
def test_special_unary_matches_jax(name: str, dtype: Any) -> None:
    x = _special_inputs(dtype)
    want = getattr(jnp, name)(x)
    _within_ulps(getattr(dnp, name)(x), want)
    _within_ulps(dx.jit(getattr(dnp, name))(x), jax.jit(getattr(jnp, name))(x))


@pytest.mark.parametrize("dtype", BINARY_DTYPES)
@pytest.mark.parametrize("name", SPECIAL_BINARY)
def test_special_binary_matches_jax(name: str, dtype: Any) -> None:
    x = _special_inputs(dtype)
    a, b = np.meshgrid(x, x)
    # logaddexp2(x, x) = x + 1 cancels to 0 at x = -1: compared absolutely.
    _within_ulps(getattr(dnp, name)(a, b), getattr(jnp, name)(a, b), absolute=True)
    _within_ulps(dx.jit(getattr(dnp, name))(a, b), jax.jit(getattr(jnp, name))(a, b))


@pytest.mark.parametrize("name", SPECIAL_UNARY)
def test_special_unary_python_scalars_and_weak_types(name: str) -> None:
    for x in (0.5, 2, True, np.float32(0.5)):
        if name == "signbit" and isinstance(x, bool):
            continue
        _within_ulps(getattr(dnp, name)(x), getattr(jnp, name)(x))


@pytest.mark.parametrize("name", SPECIAL_BINARY)
def test_special_binary_mixed_operands(name: str) -> None:
    x32 = np.array([-1.5, 0.0, 2.0], np.float32)
    for a, b in [(x32, 2.0), (1.0, x32), (x32, np.array([1, -2, 3])), (2, 3.0)]:
        _within_ulps(getattr(dnp, name)(a, b), getattr(jnp, name)(a, b), absolute=True)


def test_special_values() -> None:
    # signbit sees the sign of zeros and NaNs; copysign copies it.
    x = np.array([-0.0, 0.0, -np.nan, np.nan, -np.inf])
    _within_ulps(dnp.signbit(x), jnp.signbit(x))
    _within_ulps(dnp.copysign(np.ones(5), x), jnp.copysign(np.ones(5), x))
    # hypot neither overflows nor underflows; an infinity beats a NaN.
    a = np.array([1e300, 3e-300, np.inf, np.nan, 0.0])
    b = np.array([1e300, 4e-300, np.nan, 1.0, 0.0])
    _within_ulps(dnp.hypot(a, b), jnp.hypot(a, b))
    # heaviside's value at 0 is the second argument; NaN stays NaN.
    _within_ulps(
        dnp.heaviside(np.array([-1.0, 0.0, np.nan, 2.0]), 0.5),
        jnp.heaviside(np.array([-1.0, 0.0, np.nan, 2.0]), 0.5),
    )
    # exp2 is exp(log(2) x), as JAX's: exp2(1024) is finite. (Subnormal results
    # are left out: XLA flushes them to zero, NumPy does not.)
    e = np.array([3.0, -1022.0, 1023.0, 1024.0, 1025.0])
    _within_ulps(dnp.exp2(e), jnp.exp2(e))


# --- gradients of the special functions ----------------------------------------------


SPECIAL_GRAD_CASES: Final[dict[str, tuple[Callable[[Any, Any], Any], np.ndarray[Any, Any]]]] = {
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


@pytest.mark.parametrize("name", SPECIAL_GRAD_CASES)
def test_grad_matches_jax_and_finite_differences(name: str) -> None:
    f, x = SPECIAL_GRAD_CASES[name]
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


def test_special_vmap_matches_jax() -> None:
    x = np.array([[0.5, -0.25, 2.0], [0.0, 1.5, -3.0]])
    y = np.array([1.0, -2.0, 0.5])
    for name in ("arctan2", "hypot", "copysign", "logaddexp2"):
        got = dx.vmap(getattr(dnp, name), in_axes=(0, None))(x, y)
        want = jax.vmap(getattr(jnp, name), in_axes=(0, None))(x, y)
        _within_ulps(got, want)
    _within_ulps(dx.vmap(dnp.sinc, in_axes=1)(x), jax.vmap(jnp.sinc, in_axes=1)(x))


# --- complex parts and constants ------------------------------------------------------

V: Final = np.random.RandomState(0).randn(5)
I: Final = np.array([[0, 3, 0], [2, 0, 1]])
PARTS_CASES: dict[str, Callable[[Any], Any]] = {
    "real": lambda np_: np_.real(np_.asarray(V)),
    "imag": lambda np_: np_.imag(np_.asarray(V)),
    "conj": lambda np_: np_.conj(np_.asarray(I)),
    "angle": lambda np_: np_.angle(np_.asarray(V)),
    "angle_deg_int": lambda np_: np_.angle(np_.asarray(I) - 1, deg=True),
    "constants": lambda np_: np_.asarray([np_.pi, np_.e, np_.euler_gamma, np_.inf]),
}


@pytest.mark.parametrize("name", sorted(PARTS_CASES))
def test_parts_eager_matches_jax(name: str, same_as_jax: Callable[[Any, Any], None]) -> None:
    case = PARTS_CASES[name]
    same_as_jax(case(dnp), case(jnp))


@pytest.mark.parametrize("name", sorted(PARTS_CASES))
def test_parts_jit_matches_jax(name: str, same_as_jax: Callable[[Any, Any], None]) -> None:
    case = PARTS_CASES[name]
    same_as_jax(dx.jit(lambda: case(dnp))(), jax.jit(lambda: case(jnp))())
