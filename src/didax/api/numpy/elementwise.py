"""Element-wise math, comparisons and logic, with NumPy broadcasting and promotion.

Design rules:
- Every function promotes and broadcasts its operands (``operands.promote``)
  and then binds one primitive, or a short composition where NumPy's meaning
  differs from lax's (``floor_divide`` and ``remainder`` round toward minus
  infinity, booleans add as ``or``).
- Where NumPy and JAX disagree on a detail, JAX is followed and the function
  says so (integers and booleans become float64 in ``exp``/``sqrt``/...,
  where NumPy picks float16 for int8).
- When every operand is weakly typed the primitive is bound with the weak
  operands themselves, so under staging ``x * 2.0`` of a weak ``x`` stays
  weak (the ``lax`` wrappers would make a Python scalar strong).
- The binary functions are ``fused``: eagerly on a large operand (or on an
  accelerator) a call is one compiled program, its broadcasts fused into
  the operation, as JAX's jitted ``jax.numpy`` functions are.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, overload

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.operands import (
    Operand,
    as_result,
    asarray,
    astype,
    bind,
    broadcast_shapes,
    broadcast_to_shape,
    fused,
    is_static_int,
    named,
    operand,
    promote,
)
from didax.api.numpy.positions import nonzero
from didax.core import dtypes, lax, values
from didax.core.lax.elementwise import ROUND_TO_NEAREST_EVEN
from didax.core.primitive import Primitive
from didax.core.promotion import result_type
from didax.core.values import get_aval, is_python_scalar, wrap_host

__all__ = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "floor_divide",
    "remainder",
    "power",
    "negative",
    "abs",
    "sign",
    "exp",
    "log",
    "log1p",
    "sqrt",
    "sin",
    "cos",
    "tan",
    "tanh",
    "floor",
    "ceil",
    "round",
    "maximum",
    "minimum",
    "clip",
    "where",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_not",
    "bitwise_and",
    "bitwise_or",
    "invert",
]


@fused
def add(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 + x2`` with broadcasting (booleans: logical or, as NumPy).

    >>> add(np.ones(2, np.float32), 2.0)
    Array([3., 3.], dtype=float32)
    """
    (a, b), dt, _ = promote("add", x1, x2, scalars=True)
    return bind(lax.or_p if dt == dtypes.bool_ else lax.add_p, a, b)


@fused
def subtract(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 - x2`` with broadcasting."""
    (a, b), dt, _ = promote("subtract", x1, x2, scalars=True)
    if dt == dtypes.bool_:
        raise TypeError("subtract: boolean subtraction is not supported (NumPy's rule)")
    return bind(lax.sub_p, a, b)


@fused
def multiply(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 * x2`` with broadcasting (booleans: logical and, as NumPy)."""
    (a, b), dt, _ = promote("multiply", x1, x2, scalars=True)
    return bind(lax.and_p if dt == dtypes.bool_ else lax.mul_p, a, b)


@fused
def divide(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise true division ``x1 / x2``; integers and booleans divide as floats (JAX's
    ``to_inexact``: float32 up to 32 bits, float64 for 64-bit integers).

    >>> divide(np.array([1, 2]), 4)
    Array([0.25, 0.5 ], dtype=float32)
    """
    (a, b), _, _ = promote("divide", x1, x2, inexact=True, scalars=True)
    return bind(lax.div_p, a, b)


true_divide = divide


@fused
def floor_divide(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 // x2``, rounding toward minus infinity."""
    (a, b), dt, _ = promote("floor_divide", x1, x2)
    if dt == dtypes.bool_:
        a, b = astype(a, dtypes.int32), astype(b, dtypes.int32)  # JAX's numeric bool
    if dtypes.is_float(dt):
        return _float_divmod(a, b)[0]
    # lax.div truncates toward zero: one less where the division was inexact
    # and the operands' signs differ.
    q = bind(lax.div_p, a, b)
    if dtypes.is_unsigned(dt):
        return q
    zero = lax.full_like(q, 0)
    r = lax.rem(a, b)
    fix = lax.and_(lax.ne(r, zero), lax.ne(lax.lt(r, zero), lax.lt(b, zero)))
    out: Array = lax.select(fix, lax.sub(q, lax.full_like(q, 1)), q)
    return out


@fused
def remainder(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 % x2``, with the sign of ``x2``."""
    (a, b), dt, _ = promote("remainder", x1, x2)
    if dt == dtypes.bool_:
        a, b = astype(a, dtypes.int32), astype(b, dtypes.int32)
    if dtypes.is_float(dt):
        return _float_divmod(a, b)[1]
    r = bind(lax.rem_p, a, b)
    if dtypes.is_unsigned(dt):
        return r
    zero = lax.full_like(r, 0)
    fix = lax.and_(lax.ne(r, zero), lax.ne(lax.lt(r, zero), lax.lt(b, zero)))
    out: Array = lax.select(fix, lax.add(r, b), r)
    return out


def _float_divmod(a: values.ArrayLike, b: values.ArrayLike) -> tuple[Array, Array]:
    # JAX's formulation: from fmod, then move the remainder to the divisor's sign.
    mod = lax.rem(a, b)
    div = lax.div(lax.sub(a, mod), b)
    zero = lax.full_like(mod, 0)
    fix = lax.and_(lax.ne(mod, zero), lax.ne(lax.lt(b, zero), lax.lt(mod, zero)))
    mod = lax.select(fix, lax.add(mod, b), mod)
    div = lax.select(fix, lax.sub(div, lax.full_like(div, 1)), div)
    return lax.round(div, ROUND_TO_NEAREST_EVEN), mod


@fused
def power(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 ** x2`` with broadcasting.

    A static integer exponent becomes ``integer_pow`` (exact for integers, and
    differentiable at negative bases); integer arrays are raised to traced
    integer exponents by binary exponentiation over the exponent's low 6 bits
    (as JAX: any larger exponent overflows unless the base is 0 or +-1).

    >>> power(np.array([1.5, 2.0]), 2)
    Array([2.25, 4.  ], dtype=float32)
    """
    if is_static_int(x2):
        base = operand(x1)
        dt, weak = result_type(base, operand(x2))
        y = int(np.asarray(x2))
        if not dtypes.is_float(dt) and y < 0:
            raise ValueError("power: integers to negative integer powers are not allowed")
        if dt == dtypes.bool_:
            dt = dtypes.int32  # JAX's numeric bool
        return bind(lax.integer_pow_p, astype(base, dt, weak), y=y)
    (a, b), dt, _ = promote("power", x1, x2)
    if dtypes.is_float(dt):
        return bind(lax.pow_p, a, b)
    if dt == dtypes.bool_:
        a, b = astype(a, dtypes.int32), astype(b, dtypes.int32)
    a, b = as_result(a), as_result(b)
    zero, one = lax.full_like(a, 0), lax.full_like(a, 1)
    # pow(0, y) is 0 for y != 0 and 1 for y == 0.
    acc: Array = lax.select(lax.and_(lax.eq(a, zero), lax.ne(b, zero)), zero, one)
    for _ in range(6):
        acc = lax.select(lax.ne(lax.and_(b, one), zero), lax.mul(acc, a), acc)
        a = lax.mul(a, a)
        b = lax.div(b, lax.full_like(b, 2))
    return acc


def negative(x: ArrayLike) -> Array:
    """Element-wise ``-x``."""
    v = operand(x)
    if get_aval(v).dtype == dtypes.bool_:
        raise TypeError("negative: the boolean negative is not supported; use logical_not")
    return bind(lax.neg_p, v)


def abs(x: ArrayLike) -> Array:
    """Element-wise absolute value (booleans and unsigned integers are unchanged)."""
    v = operand(x)
    if dtypes.is_bool(get_aval(v).dtype) or dtypes.is_unsigned(get_aval(v).dtype):
        return as_result(v)
    return bind(lax.abs_p, v)


def sign(x: ArrayLike) -> Array:
    """Element-wise sign: -1, 0 or +1 (NaN stays NaN)."""
    v = operand(x)
    if get_aval(v).dtype == dtypes.bool_:
        raise TypeError("sign: booleans have no sign (NumPy's rule)")
    return bind(lax.sign_p, v)


def _inexact_unary(prim: Primitive, x: ArrayLike) -> Array:
    v = operand(x)
    aval = get_aval(v)
    if not dtypes.is_float(aval.dtype):
        v = astype(v, dtypes.to_inexact(aval.dtype), aval.weak_type)
    return bind(prim, v)


def _inexact_function(prim: Primitive, name: str, doc: str) -> Callable[[ArrayLike], Array]:
    """NumPy's function ``name``: ``prim`` element-wise, integers and booleans made floats."""

    def function(x: ArrayLike) -> Array:
        return _inexact_unary(prim, x)

    return named(function, name, doc)


def exp(x: ArrayLike) -> Array:
    """Element-wise exponential; integers and booleans give floats (``dtypes.to_inexact``).

    >>> exp(np.array([0, 1]))
    Array([1.      , 2.718282], dtype=float32)
    """
    return _inexact_unary(lax.exp_p, x)


log = _inexact_function(lax.log_p, "log", "Element-wise natural logarithm.")
log1p = _inexact_function(lax.log1p_p, "log1p", "Element-wise ``log(1 + x)``, accurate near 0.")
sqrt = _inexact_function(lax.sqrt_p, "sqrt", "Element-wise square root.")
sin = _inexact_function(lax.sin_p, "sin", "Element-wise sine.")
cos = _inexact_function(lax.cos_p, "cos", "Element-wise cosine.")
tan = _inexact_function(lax.tan_p, "tan", "Element-wise tangent.")
tanh = _inexact_function(lax.tanh_p, "tanh", "Element-wise hyperbolic tangent.")


def _rounding(prim: Primitive, x: ArrayLike, **params: Any) -> Array:
    v = operand(x)
    if not dtypes.is_float(get_aval(v).dtype):
        return as_result(v)  # integers are already whole (NumPy 2 keeps their dtype)
    return bind(prim, v, **params)


def floor(x: ArrayLike) -> Array:
    """Element-wise floor; integer and boolean inputs are returned unchanged (NumPy 2)."""
    return _rounding(lax.floor_p, x)


def ceil(x: ArrayLike) -> Array:
    """Element-wise ceiling; integer and boolean inputs are returned unchanged (NumPy 2)."""
    return _rounding(lax.ceil_p, x)


def round(a: ArrayLike, decimals: int = 0) -> Array:
    """Rounds to ``decimals`` places, halves to even (NumPy's ``round``).

    >>> round(np.array([0.5, 1.5, 2.5, 1.234]), 1)
    Array([0.5, 1.5, 2.5, 1.2], dtype=float32)
    """
    decimals = operator.index(decimals)
    v = operand(a)
    dt = get_aval(v).dtype
    if dtypes.is_complex(dt):  # each part on its own, as NumPy's
        return as_result(lax.complex(round(lax.real(v), decimals), round(lax.imag(v), decimals)))
    if not dtypes.is_float(dt):
        if decimals >= 0:
            return as_result(v)
        # NumPy rounds integers to tens, hundreds, ... through floats as well.
        factor = 10.0 ** (-decimals)
        as_float = astype(v, dtypes.to_inexact(dt))
        scaled = _rounding(lax.round_p, divide(as_float, factor), rounding_method=1)
        return asarray(multiply(scaled, factor), dt)
    even = {"rounding_method": ROUND_TO_NEAREST_EVEN}
    if decimals == 0:
        return _rounding(lax.round_p, v, **even)
    # NumPy's order of operations, so that results agree to the last bit.
    if decimals > 0:
        factor = 10.0**decimals
        return divide(_rounding(lax.round_p, multiply(v, factor), **even), factor)
    factor = 10.0 ** (-decimals)
    return multiply(_rounding(lax.round_p, divide(v, factor), **even), factor)


@fused
def maximum(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise maximum with broadcasting; NaN propagates."""
    (a, b), _, _ = promote("maximum", x1, x2, scalars=True)
    return bind(lax.max_p, a, b)


@fused
def minimum(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise minimum with broadcasting; NaN propagates."""
    (a, b), _, _ = promote("minimum", x1, x2, scalars=True)
    return bind(lax.min_p, a, b)


def clip(
    a: ArrayLike,
    a_min: ArrayLike | None = None,
    a_max: ArrayLike | None = None,
    *,
    min: ArrayLike | None = None,
    max: ArrayLike | None = None,
) -> Array:
    """``a`` limited to ``[a_min, a_max]`` (either may be None; ``min=``/``max=`` as NumPy 2).

    >>> clip(np.array([-2, 0, 5]), 0, 3)
    Array([0, 0, 3], dtype=int32)
    """
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    if (a_min is not None and min is not None) or (a_max is not None and max is not None):
        raise TypeError("clip: pass a_min/a_max or min/max, not both")
    out = operand(a)
    if lo is not None:
        out = maximum(out, lo)
    if hi is not None:
        out = minimum(out, hi)
    return as_result(out)


@overload
def where(
    condition: ArrayLike,
    x: ArrayLike,
    y: ArrayLike,
    *,
    size: int | None = None,
    fill_value: ArrayLike | None = None,
) -> Array: ...
@overload
def where(
    condition: ArrayLike,
    x: None = None,
    y: None = None,
    *,
    size: int | None = None,
    fill_value: ArrayLike | None = None,
) -> tuple[Array, ...]: ...
def where(
    condition: ArrayLike,
    x: ArrayLike | None = None,
    y: ArrayLike | None = None,
    *,
    size: int | None = None,
    fill_value: ArrayLike | None = None,
) -> Array | tuple[Array, ...]:
    """Element-wise ``x if condition else y`` with broadcasting of all three.

    The one-argument form is ``nonzero(condition)``: the indices of the
    true elements, on a concrete ``condition`` or with a static ``size``.

    >>> where(np.array([True, False]), 1.0, np.array([5.0, 6.0]))
    Array([1., 6.], dtype=float32)
    >>> where(np.array([0, 3, 4]))
    (Array([1, 2], dtype=int32),)
    """
    if x is None or y is None:
        if x is None and y is None:
            return nonzero(condition, size=size, fill_value=fill_value)
        raise ValueError("where: either both or neither of x and y must be given")
    c = operand(condition)
    if get_aval(c).dtype != dtypes.bool_:
        c = not_equal(c, 0)
    (a, b), _, _ = promote("where", x, y)
    shape = broadcast_shapes("where", get_aval(c).shape, get_aval(a).shape)
    c = broadcast_to_shape(astype(c, dtypes.bool_), shape)
    a, b = broadcast_to_shape(a, shape), broadcast_to_shape(b, shape)
    return bind(lax.select_p, c, a, b)


def _compare(name: str, prim: Primitive, x1: ArrayLike, x2: ArrayLike) -> Array:
    (a, b), _, _ = promote(name, x1, x2, scalars=True)
    return bind(prim, a, b)


def _comparison(prim: Primitive, name: str, doc: str) -> Callable[[ArrayLike, ArrayLike], Array]:
    """NumPy's comparison ``name``: ``prim`` in the operands' promoted dtype."""

    def function(x1: ArrayLike, x2: ArrayLike) -> Array:
        return _compare(name, prim, x1, x2)

    return fused(named(function, name, doc))


equal = _comparison(
    lax.eq_p, "equal", "Element-wise ``x1 == x2`` (compared in the promoted dtype)."
)
not_equal = _comparison(lax.ne_p, "not_equal", "Element-wise ``x1 != x2``.")


@fused
def less(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 < x2``.

    >>> less(np.array([1, 2, 3]), 2.5)
    Array([ True,  True, False], dtype=bool)
    """
    return _compare("less", lax.lt_p, x1, x2)


less_equal = _comparison(lax.le_p, "less_equal", "Element-wise ``x1 <= x2``.")
greater = _comparison(lax.gt_p, "greater", "Element-wise ``x1 > x2``.")
greater_equal = _comparison(lax.ge_p, "greater_equal", "Element-wise ``x1 >= x2``.")


def _truth(x: ArrayLike) -> Operand:
    v = operand(x)
    if get_aval(v).dtype == dtypes.bool_:
        return v
    if is_python_scalar(v):
        return wrap_host(np.asarray(bool(v)))
    return not_equal(v, 0)


@fused
def logical_and(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise truth of ``x1 and x2`` (nonzero is true)."""
    (a, b), _, _ = promote("logical_and", _truth(x1), _truth(x2), scalars=True)
    return bind(lax.and_p, a, b)


@fused
def logical_or(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise truth of ``x1 or x2`` (nonzero is true)."""
    (a, b), _, _ = promote("logical_or", _truth(x1), _truth(x2), scalars=True)
    return bind(lax.or_p, a, b)


def logical_not(x: ArrayLike) -> Array:
    """Element-wise truth of ``not x`` (nonzero is true)."""
    return bind(lax.not_p, _truth(x))


def _bitwise(name: str, prim: Primitive, x1: ArrayLike, x2: ArrayLike) -> Array:
    (a, b), dt, _ = promote(name, x1, x2, scalars=True)
    if dtypes.is_float(dt):
        raise TypeError(f"{name}: not supported for floating-point operands ({dt})")
    return bind(prim, a, b)


@fused
def bitwise_and(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 & x2`` of integers or booleans."""
    return _bitwise("bitwise_and", lax.and_p, x1, x2)


@fused
def bitwise_or(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 | x2`` of integers or booleans."""
    return _bitwise("bitwise_or", lax.or_p, x1, x2)


def invert(x: ArrayLike) -> Array:
    v = operand(x)
    if dtypes.is_float(get_aval(v).dtype):
        raise TypeError(f"invert: not supported for floating-point operands ({get_aval(v).dtype})")
    return bind(lax.not_p, v)
