"""Element-wise functions composed of the standard primitives, with ``jax.numpy``'s formulas.

Each uses the same primitives in the same order as ``jax.numpy``'s
definition, so values (and derivatives, by composition) are JAX's to the
last bit: ``log2`` divides by ``log(2)``, ``log10`` multiplies by the float
nearest ``1/log(10)``, ``logaddexp`` adds ``log1p(exp(-|x - y|))`` to the
larger argument. Functions that JAX computes with a primitive of their own
(``sinh``, ``arctan2``, ``exp2``, ...) arrive with those primitives.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from didax.api.numpy.elementwise import (
    abs,
    add,
    divide,
    equal,
    exp,
    greater_equal,
    less_equal,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    maximum,
    minimum,
    multiply,
    not_equal,
    remainder,
    subtract,
    where,
)
from didax.api.numpy.operands import Array, ArrayLike, as_result, astype, operand, promote
from didax.core import dtypes, lax
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


def isnan(x: ArrayLike) -> Array:
    """Whether each element is NaN (always False for integers)."""
    v = operand(x)
    if not dtypes.is_float(get_aval(v).dtype):
        return as_result(lax.full(get_aval(v).shape, False, dtypes.bool_))
    return not_equal(v, v)


def isinf(x: ArrayLike) -> Array:
    """Whether each element is +inf or -inf."""
    v = operand(x)
    if not dtypes.is_float(get_aval(v).dtype):
        return as_result(lax.full(get_aval(v).shape, False, dtypes.bool_))
    return equal(abs(v), float("inf"))


def isposinf(x: ArrayLike) -> Array:
    """Whether each element is +inf."""
    v = operand(x)
    if not dtypes.is_float(get_aval(v).dtype):
        return as_result(lax.full(get_aval(v).shape, False, dtypes.bool_))
    return equal(v, float("inf"))


def isneginf(x: ArrayLike) -> Array:
    """Whether each element is -inf."""
    v = operand(x)
    if not dtypes.is_float(get_aval(v).dtype):
        return as_result(lax.full(get_aval(v).shape, False, dtypes.bool_))
    return equal(v, -float("inf"))


def isfinite(x: ArrayLike) -> Array:
    """Whether each element is neither infinite nor NaN."""
    v = operand(x)
    if not dtypes.is_float(get_aval(v).dtype):
        return as_result(lax.full(get_aval(v).shape, True, dtypes.bool_))
    return logical_not(logical_or(isinf(v), isnan(v)))


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


def logaddexp(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``log(exp(x1) + exp(x2))`` without overflow: ``max + log1p(exp(-|x1 - x2|))``."""
    (a, b), _, _ = promote("logaddexp", x1, x2, inexact=True)
    amax = maximum(a, b)
    delta = subtract(a, b)
    # Equal infinities make delta NaN: their sum is the answer (inf or -inf).
    return where(
        isnan(delta),
        add(a, b),
        add(amax, log1p(exp(lax.neg(abs(delta))))),
    )


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


def _nan_ignoring(name: str, pick: Any, fallback: Any, x1: ArrayLike, x2: ArrayLike) -> Array:
    (a, b), dt, _ = promote(name, x1, x2)
    if not dtypes.is_float(dt):
        return fallback(a, b)
    # a where b is NaN, or where a is a number that wins the comparison; else b.
    take_a = logical_or(isnan(b), logical_and(logical_not(isnan(a)), pick(a, b)))
    return where(take_a, a, b)


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
