"""Element-wise functions composed of the standard primitives, with ``jax.numpy``'s formulas.

Each uses the same primitives in the same order as ``jax.numpy``'s
definition, so values (and derivatives, by composition) are JAX's to the
last bit: ``log2`` divides by ``log(2)``, ``log10`` multiplies by the float
nearest ``1/log(10)``, ``logaddexp`` adds ``log1p(exp(-|x - y|))`` to the
larger argument. Functions that JAX computes with a primitive of their own
(``sinh``, ``arcsin``, ``arctan2``, ``exp2``, ``isfinite``, ...) bind the
primitives of ``core.lax.special``; where JAX defines a derivative of its
own with ``custom_jvp`` (``logaddexp``, ``logaddexp2``, ``sinc`` at 0), so
does this module, with JAX's rule, so that gradients at infinities and at
removable singularities are JAX's too. The parts of complex numbers
(``real``, ``imag``, ``conj``, ``angle``) take real arrays too, as NumPy's:
a real array is its own real part and conjugate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Final

import ml_dtypes
import numpy as np

from didax.api.custom_derivatives import custom_jvp
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import (
    _inexact_function,
    _inexact_unary,
    abs,
    add,
    divide,
    equal,
    exp,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    remainder,
    sin,
    sqrt,
    subtract,
    where,
)
from didax.api.numpy.operands import Operand, as_result, astype, bind, operand, promote
from didax.core import dtypes, lax
from didax.core.lax.bits import bitcast_convert_type
from didax.core.values import get_aval

__all__ = [
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
    "logaddexp",
    "mod",
    "absolute",
    "fabs",
    "deg2rad",
    "rad2deg",
    "degrees",
    "radians",
    "fmax",
    "fmin",
    "expm1",
    "sinh",
    "cosh",
    "arcsin",
    "arccos",
    "arctan",
    "arcsinh",
    "arccosh",
    "arctanh",
    "arctan2",
    "exp2",
    "logaddexp2",
    "hypot",
    "sinc",
    "heaviside",
    "signbit",
    "copysign",
    "real",
    "imag",
    "conj",
    "conjugate",
    "angle",
]


def _inexact(name: str, x: ArrayLike) -> Any:
    (v,), _, _ = promote(name, x, inexact=True)
    return v


def square(x: ArrayLike) -> Array:
    """``x * x`` (``integer_pow(x, 2)``, keeping integer dtypes)."""
    v = operand(x)
    if get_aval(v).dtype == dtypes.bool_:
        v = astype(v, dtypes.int32)  # JAX's numeric promotion of a boolean, in both modes
    return as_result(lax.integer_pow(as_result(v), 2))


def reciprocal(x: ArrayLike) -> Array:
    """``1 / x`` (``integer_pow(x, -1)``; integers become floats, as JAX's)."""
    return as_result(lax.integer_pow(as_result(_inexact("reciprocal", x)), -1))


def log2(x: ArrayLike) -> Array:
    """Base-2 logarithm: ``log(x) / log(2)``."""
    v = _inexact("log2", x)
    return divide(log(v), log(np.array(2, get_aval(v).dtype)))


def log10(x: ArrayLike) -> Array:
    """Base-10 logarithm: ``log(x)`` times the float nearest ``1 / log(10)``."""
    v = _inexact("log10", x)
    one_over_log10 = np.array(0.4342944819032518, dtype=get_aval(v).dtype)
    return multiply(log(v), one_over_log10)


def _float_test(
    x: ArrayLike,
    test: Callable[[Operand], Array],
    otherwise: bool,
    parts: Callable[[Array, Array], Array] | None = None,
) -> Array:
    """``test`` of each element of a floating-point ``x``, ``otherwise`` for other dtypes.

    With ``parts``, a complex ``x`` gives ``parts`` of its real and imaginary parts' tests.
    """
    v = operand(x)
    dtype = get_aval(v).dtype
    if parts is not None and dtypes.is_complex(dtype):
        return parts(
            _float_test(lax.real(v), test, otherwise), _float_test(lax.imag(v), test, otherwise)
        )
    if not dtypes.is_float(dtype):
        return as_result(lax.full(get_aval(v).shape, otherwise, dtypes.bool_))
    return test(v)


def isnan(x: ArrayLike) -> Array:
    """Whether each element is NaN (always False for integers; either part, for complex)."""
    return _float_test(x, lambda v: not_equal(v, v), False, logical_or)


def isinf(x: ArrayLike) -> Array:
    """Whether each element is +inf or -inf (either part, for complex)."""
    return _float_test(x, lambda v: equal(abs(v), float("inf")), False, logical_or)


def isposinf(x: ArrayLike) -> Array:
    """Whether each element is +inf."""
    return _float_test(x, lambda v: equal(v, float("inf")), False)


def isneginf(x: ArrayLike) -> Array:
    """Whether each element is -inf."""
    return _float_test(x, lambda v: equal(v, -float("inf")), False)


def isfinite(x: ArrayLike) -> Array:
    """Whether each element is neither infinite nor NaN (``lax.is_finite``; True for integers).

    >>> isfinite(np.array([1.0, np.inf, np.nan]))
    Array([ True, False, False], dtype=bool)
    """
    return _float_test(x, lambda v: bind(lax.is_finite_p, v), True, logical_and)


def nan_to_num(
    x: ArrayLike,
    copy: bool = True,
    nan: float = 0.0,
    posinf: float | None = None,
    neginf: float | None = None,
) -> Array:
    """NaN replaced by ``nan``, infinities by ``posinf``/``neginf`` (the dtype's extremes)."""
    del copy
    v = as_result(operand(x))
    dt = get_aval(v).dtype
    if not dtypes.is_float(dt):
        return v
    info = ml_dtypes.finfo(dt)  # NumPy's finfo has no bfloat16
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    out = where(isnan(v), astype(operand(nan), dt), v)
    out = where(isposinf(v), astype(operand(hi), dt), out)
    return where(isneginf(v), astype(operand(lo), dt), out)


def _replace_inf(x: Array) -> Array:
    """``x`` with ``+inf`` replaced by 0 (JAX's ``_replace_inf``, for the jvp rules below)."""
    return where(equal(x, float("inf")), lax.full_like(x, 0), x)


def _logaddexp_custom(
    name: str, exp_fn: Callable[[ArrayLike], Array], softplus: Callable[[Array], Array]
) -> custom_jvp:
    """``log(exp(a) + exp(b))`` in ``exp_fn``'s base: ``max + softplus(-|a - b|)``.

    Its derivative is JAX's custom rule: ``exp_fn(x - out)`` for each
    argument, with ``+inf`` read as 0 there.
    """

    def primal(a: Array, b: Array) -> Array:
        amax = maximum(a, b)
        delta = subtract(a, b)
        # Equal infinities make delta NaN: their sum is the answer (inf or -inf).
        return where(isnan(delta), add(a, b), add(amax, softplus(lax.neg(abs(delta)))))

    primal.__name__ = primal.__qualname__ = name
    custom = custom_jvp(primal)

    def jvp(primals: Sequence[Array], tangents: Sequence[Array]) -> tuple[Array, Array]:
        # JAX's rule: finite at -inf inputs, 0 (not NaN) for the smaller of two infinities.
        (a, b), (ta, tb) = primals, tangents
        out = custom(a, b)
        wa = exp_fn(subtract(_replace_inf(a), _replace_inf(out)))
        wb = exp_fn(subtract(_replace_inf(b), _replace_inf(out)))
        return out, add(multiply(ta, wa), multiply(tb, wb))

    custom.defjvp(jvp)
    return custom


_logaddexp = _logaddexp_custom("_logaddexp", exp, lambda d: log1p(exp(d)))


def logaddexp(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``log(exp(x1) + exp(x2))`` without overflow: ``max + log1p(exp(-|x1 - x2|))``.

    Its derivative is JAX's custom rule: ``exp(x - out)`` for each argument,
    with ``+inf`` read as 0 there, so that ``-inf`` arguments give 0, not NaN.

    >>> logaddexp(np.array([0.0, -np.inf]), 0.0)
    Array([0.6931472, 0.       ], dtype=float32)
    """
    (a, b), _, _ = promote("logaddexp", x1, x2, inexact=True)
    return as_result(_logaddexp(a, b))


exp2 = _inexact_function(
    lax.exp2_p,
    "exp2",
    "``2 ** x`` (``lax.exp2``, which is ``exp(log(2) * x)``); integers become floats.",
)


_INV_LN2: Final = 1 / float(np.log(2))


_logaddexp2 = _logaddexp_custom("_logaddexp2", exp2, lambda d: multiply(_INV_LN2, log1p(exp2(d))))


def logaddexp2(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``log2(2**x1 + 2**x2)`` without overflow (JAX's formula and derivative).

    >>> logaddexp2(np.array([1.0, 3.0]), 1.0)
    Array([2.      , 3.321928], dtype=float32)
    """
    (a, b), _, _ = promote("logaddexp2", x1, x2, inexact=True)
    return as_result(_logaddexp2(a, b))


def mod(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``remainder``: the result has the divisor's sign."""
    return remainder(x1, x2)


absolute = abs


def fabs(x: ArrayLike) -> Array:
    """Absolute value as a float (integers become floats)."""
    return abs(_inexact("fabs", x))


def deg2rad(x: ArrayLike) -> Array:
    """Degrees to radians: ``x * (pi / 180)``."""
    v = _inexact("deg2rad", x)
    return multiply(v, np.array(np.pi / 180, get_aval(v).dtype))


def rad2deg(x: ArrayLike) -> Array:
    """Radians to degrees: ``x * (180 / pi)``."""
    v = _inexact("rad2deg", x)
    return multiply(v, np.array(180 / np.pi, get_aval(v).dtype))


radians = deg2rad
degrees = rad2deg


def _nan_ignoring(
    name: str,
    pick: Callable[[ArrayLike, ArrayLike], Array],
    fallback: Callable[[ArrayLike, ArrayLike], Array],
    x1: ArrayLike,
    x2: ArrayLike,
) -> Array:
    (a, b), dt, _ = promote(name, x1, x2)
    if not dtypes.is_float(dt):
        return fallback(a, b)
    # a where b is NaN, or where a is a number that wins the comparison; else b.
    take_a = logical_or(isnan(b), logical_and(logical_not(isnan(a)), pick(a, b)))
    out: Array = where(take_a, a, b)
    return out


def fmax(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise maximum ignoring a NaN (NaN only where both are)."""
    return _nan_ignoring("fmax", greater_equal, maximum, x1, x2)


def fmin(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise minimum ignoring a NaN (NaN only where both are)."""
    return _nan_ignoring("fmin", less_equal, minimum, x1, x2)


def expm1(x: ArrayLike) -> Array:
    """``exp(x) - 1``, accurate near 0."""
    v = _inexact("expm1", x)
    return as_result(lax.expm1(as_result(v)))


sinh = _inexact_function(
    lax.sinh_p, "sinh", "Hyperbolic sine (``lax.sinh``); integers become floats."
)
cosh = _inexact_function(
    lax.cosh_p, "cosh", "Hyperbolic cosine (``lax.cosh``); integers become floats."
)


def arcsin(x: ArrayLike) -> Array:
    """Inverse sine (``lax.asin``): NaN outside ``[-1, 1]``.

    >>> arcsin(np.array([0.0, 1.0, 2.0]))
    Array([0.       , 1.5707964,       nan], dtype=float32)
    """
    return _inexact_unary(lax.asin_p, x)


arccos = _inexact_function(
    lax.acos_p, "arccos", "Inverse cosine (``lax.acos``): NaN outside ``[-1, 1]``."
)
arctan = _inexact_function(lax.atan_p, "arctan", "Inverse tangent (``lax.atan``).")
arcsinh = _inexact_function(lax.asinh_p, "arcsinh", "Inverse hyperbolic sine (``lax.asinh``).")
arccosh = _inexact_function(
    lax.acosh_p, "arccosh", "Inverse hyperbolic cosine (``lax.acosh``): NaN below 1."
)
arctanh = _inexact_function(
    lax.atanh_p,
    "arctanh",
    "Inverse hyperbolic tangent (``lax.atanh``): ``+-inf`` at ``+-1``, NaN beyond.",
)


def arctan2(x1: ArrayLike, x2: ArrayLike) -> Array:
    """The angle of the point ``(x2, x1)``: ``arctan(x1 / x2)`` in the right quadrant.

    >>> arctan2(np.array([1.0, 1.0]), np.array([1.0, -1.0])).round(6)
    Array([0.785398, 2.356194], dtype=float32)
    """
    (a, b), _, _ = promote("arctan2", x1, x2, inexact=True, scalars=True)
    return bind(lax.atan2_p, a, b)


def hypot(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``sqrt(x1**2 + x2**2)`` without overflow (JAX's formula: ``max * sqrt(1 + (min/max)**2)``).

    >>> hypot(np.array([3.0, 1e30], np.float32), np.array([4.0, 1e30], np.float32))
    Array([5.0000000e+00, 1.4142135e+30], dtype=float32)
    """
    (a, b), _, _ = promote("hypot", x1, x2, inexact=True)
    a, b = abs(a), abs(b)
    idx_inf = logical_or(isposinf(a), isposinf(b))
    a, b = maximum(a, b), minimum(a, b)
    a_zero = equal(a, 0)
    ratio = divide(b, where(a_zero, lax.full_like(as_result(a), 1), a))
    x = where(a_zero, a, multiply(a, sqrt(add(1, multiply(ratio, ratio)))))
    return where(idx_inf, lax.full_like(as_result(x), float("inf")), x)


@partial(custom_jvp, nondiff_argnums=(0,))
def _sinc_maclaurin(k: int, x: Array) -> Array:
    # The k-th derivative of sin(x)/x at 0 (JAX's, for sinc's derivatives there).
    if k % 2:
        return multiply(x, 0)
    return add(multiply(x, 0), (-1) ** (k // 2) / (k + 1))


@_sinc_maclaurin.defjvp
def _sinc_maclaurin_jvp(
    k: int, primals: Sequence[Array], tangents: Sequence[Array]
) -> tuple[Array, Array]:
    (x,), (t,) = primals, tangents
    return _sinc_maclaurin(k, x), multiply(_sinc_maclaurin(k + 1, x), t)


def sinc(x: ArrayLike) -> Array:
    """``sin(pi x) / (pi x)``, 1 at 0, with JAX's derivatives there (0, then ``-pi**2 / 3``).

    >>> sinc(np.array([0.0, 0.5, 1.0]))
    Array([ 1.0000000e+00,  6.3661975e-01, -2.7827534e-08], dtype=float32)
    """
    v = _inexact("sinc", x)
    eq_zero = equal(v, 0)
    pi_x = multiply(np.pi, v)
    safe_pi_x = where(eq_zero, lax.full_like(as_result(pi_x), 1), pi_x)
    return where(eq_zero, _sinc_maclaurin(0, pi_x), divide(sin(safe_pi_x), safe_pi_x))


def heaviside(x1: ArrayLike, x2: ArrayLike) -> Array:
    """The step function: 0 for ``x1 < 0``, 1 for ``x1 > 0``, ``x2`` at 0 (NaN stays NaN).

    >>> heaviside(np.array([-1.0, 0.0, 2.0]), 0.5)
    Array([0. , 0.5, 1. ], dtype=float32)
    """
    (a, b), _, _ = promote("heaviside", x1, x2, inexact=True)
    zero, one = lax.full_like(as_result(a), 0), lax.full_like(as_result(a), 1)
    out: Array = where(less(a, zero), zero, where(greater(a, zero), one, where(isnan(a), a, b)))
    return out


_SIGNED_OF_WIDTH: Final = {2: dtypes.int16, 4: dtypes.int32, 8: dtypes.int64}


def signbit(x: ArrayLike) -> Array:
    """Whether the sign bit is set: True for ``-0.0`` and negative NaNs too (False for bools).

    >>> signbit(np.array([-1.0, -0.0, 0.0, 2.0]))
    Array([ True,  True, False, False], dtype=bool)
    """
    v = as_result(operand(x))
    dt = get_aval(v).dtype
    if dt == dtypes.bool_:
        return as_result(lax.full(get_aval(v).shape, False, dtypes.bool_))
    if not dtypes.is_float(dt):
        return less(v, 0)
    # As JAX: the float's bits read as a signed integer of its width.
    bits = bitcast_convert_type(v, _SIGNED_OF_WIDTH[dt.itemsize])
    return as_result(lax.lt(bits, 0))


def copysign(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``|x1|`` with the sign (bit) of ``x2``; integers become floats.

    >>> copysign(np.array([1.0, 2.0]), np.array([-0.0, 3.0]))
    Array([-1.,  2.], dtype=float32)
    """
    (a, b), _, _ = promote("copysign", x1, x2, inexact=True)
    magnitude = abs(a)
    return where(signbit(b), negative(magnitude), magnitude)


# --- complex numbers: parts and angle ------------------------------------------------------


def real(val: ArrayLike) -> Array:
    """The real part (a real array itself).

    >>> real(np.array([1 + 2j]))
    Array([1.], dtype=float32)
    """
    v = operand(val)
    return as_result(lax.real(v) if dtypes.is_complex(get_aval(v).dtype) else v)


def imag(val: ArrayLike) -> Array:
    """The imaginary part (zeros for a real array).

    >>> imag(np.array([1 + 2j]))
    Array([2.], dtype=float32)
    """
    v = operand(val)
    if dtypes.is_complex(get_aval(v).dtype):
        return as_result(lax.imag(v))
    return as_result(lax.full_like(as_result(v), 0))


def conj(x: ArrayLike) -> Array:
    """The complex conjugate (a real array itself, as NumPy's).

    >>> conj(np.array([1 + 2j]))
    Array([1.-2.j], dtype=complex64)
    """
    v = operand(x)
    return as_result(lax.conj(v) if dtypes.is_complex(get_aval(v).dtype) else v)


conjugate = conj


def angle(z: ArrayLike, deg: bool = False) -> Array:
    """The argument of ``z``, ``atan2(imag, real)``, in radians or degrees.

    >>> angle(np.array([1j, -1.0]))
    Array([1.5707964, 3.1415927], dtype=float32)
    """
    v = operand(z)
    dtype = get_aval(v).dtype
    if dtypes.is_complex(dtype):
        re, im = lax.real(v), lax.imag(v)
    else:
        re = astype(v, dtypes.to_inexact(dtype))
        im = lax.full_like(as_result(re), 0)
    out = lax.atan2(im, re)
    return as_result(lax.mul(out, 180.0 / np.pi) if deg else out)
