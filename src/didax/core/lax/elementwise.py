"""The element-wise primitives: declarations, typing rules and ``didax.lax`` wrappers.

The arithmetic (``add`` ... ``min``, ``integer_pow``), the numeric and
floating-point unary functions (``neg``, ``abs``, ``exp``, ``sin``,
``round``, ...), comparisons, logical and bitwise ``and``/``or``/``not``,
``select``, ``stop_gradient``, and the complex-number primitives (``real``,
``imag``, ``conj``, ``complex``): JAX's primitives of those names. The
interpreters' rules are in ``interpreters.elementwise``, the lowerings in
``lowering.elementwise``. (The special functions, ``erf`` and its kin, are
``core.lax.special``'s; the bit operations ``core.lax.bits``'; conversions
``core.lax.conversions``'.)

Design rules:
- Primitives are strict: operands have one shape and one dtype; only weak
  types may differ (a result is weak when every operand is). Promotion and
  broadcasting happen before a primitive is bound, with one exception,
  JAX's: the operands of a ``scalar_operands`` primitive (the arithmetic,
  comparison and logical binary operations) may be rank-0 scalars beside
  arrays of one shape (``mul x 2.0:f32[]``), so that a Python scalar costs
  no ``broadcast_in_dim`` equation.
- The wrappers relax strictness only for weakly typed values, through
  ``core.promotion.coerce_weak``: a Python scalar or a weakly typed tracer
  takes its strong partner's dtype. NumPy-style broadcasting and promotion
  belong to ``didax.numpy``. Interpreters' rules call these wrappers too
  (``lax.mul(t, y)`` in a jvp rule), so the rules read like the math.
- The groups (``ARITHMETIC_BINARY``, ``COMPARISONS``, ``ELEMENTWISE``, ...)
  let rule modules register one rule for many primitives.
"""

from __future__ import annotations

import enum
from typing import Final

import numpy as np

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import (
    ABSTRACT_EVAL,
    AbstractEvalRule,
    check_kinds,
    dtype_failure,
    same_shapes_and_dtypes,
    shape_failure,
)
from didax.core.basearray import Value
from didax.core.dtypes import DType
from didax.core.lax.conversions import convert_element_type_p
from didax.core.lax.operands import bind_value
from didax.core.primitive import Primitive
from didax.core.promotion import coerce_weak
from didax.core.values import ArrayLike, get_aval, is_python_scalar

__all__ = [
    "add_p",
    "sub_p",
    "mul_p",
    "div_p",
    "rem_p",
    "pow_p",
    "max_p",
    "min_p",
    "integer_pow_p",
    "neg_p",
    "sign_p",
    "abs_p",
    "exp_p",
    "log_p",
    "log1p_p",
    "expm1_p",
    "sin_p",
    "cos_p",
    "tan_p",
    "tanh_p",
    "logistic_p",
    "sqrt_p",
    "rsqrt_p",
    "cbrt_p",
    "square_p",
    "floor_p",
    "ceil_p",
    "round_p",
    "eq_p",
    "ne_p",
    "lt_p",
    "le_p",
    "gt_p",
    "ge_p",
    "and_p",
    "or_p",
    "not_p",
    "select_p",
    "stop_gradient_p",
    "real_p",
    "imag_p",
    "conj_p",
    "complex_p",
    "add",
    "sub",
    "mul",
    "div",
    "rem",
    "pow",
    "max",
    "min",
    "integer_pow",
    "neg",
    "sign",
    "abs",
    "exp",
    "log",
    "log1p",
    "expm1",
    "sin",
    "cos",
    "tan",
    "tanh",
    "logistic",
    "sqrt",
    "rsqrt",
    "cbrt",
    "square",
    "reciprocal",
    "floor",
    "ceil",
    "round",
    "RoundingMethod",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "and_",
    "or_",
    "not_",
    "select",
    "stop_gradient",
    "real",
    "imag",
    "conj",
    "complex",
]

# Element-wise, by the operand kinds they accept.
add_p: Final = Primitive("add", scalar_operands=True)
sub_p: Final = Primitive("sub", scalar_operands=True)
mul_p: Final = Primitive("mul", scalar_operands=True)
div_p: Final = Primitive("div", scalar_operands=True)
rem_p: Final = Primitive("rem", scalar_operands=True)
pow_p: Final = Primitive("pow", scalar_operands=True)
max_p: Final = Primitive("max", scalar_operands=True)
min_p: Final = Primitive("min", scalar_operands=True)
integer_pow_p: Final = Primitive("integer_pow")
neg_p: Final = Primitive("neg")
sign_p: Final = Primitive("sign")
abs_p: Final = Primitive("abs")
exp_p: Final = Primitive("exp")
log_p: Final = Primitive("log")
log1p_p: Final = Primitive("log1p")
expm1_p: Final = Primitive("expm1")
sin_p: Final = Primitive("sin")
cos_p: Final = Primitive("cos")
tan_p: Final = Primitive("tan")
tanh_p: Final = Primitive("tanh")
logistic_p: Final = Primitive("logistic")
sqrt_p: Final = Primitive("sqrt")
rsqrt_p: Final = Primitive("rsqrt")
cbrt_p: Final = Primitive("cbrt")
square_p: Final = Primitive("square")
floor_p: Final = Primitive("floor")
ceil_p: Final = Primitive("ceil")
round_p: Final = Primitive("round")
eq_p: Final = Primitive("eq", scalar_operands=True)
ne_p: Final = Primitive("ne", scalar_operands=True)
lt_p: Final = Primitive("lt", scalar_operands=True)
le_p: Final = Primitive("le", scalar_operands=True)
gt_p: Final = Primitive("gt", scalar_operands=True)
ge_p: Final = Primitive("ge", scalar_operands=True)
and_p: Final = Primitive("and", scalar_operands=True)
or_p: Final = Primitive("or", scalar_operands=True)
not_p: Final = Primitive("not")
select_p: Final = Primitive("select")
stop_gradient_p: Final = Primitive("stop_gradient")

# Complex numbers: their parts, conjugate, and the number made of two parts.
real_p: Final = Primitive("real")
imag_p: Final = Primitive("imag")
conj_p: Final = Primitive("conj")
complex_p: Final = Primitive("complex")

# Structural.

# Reductions and scans.

ARITHMETIC_BINARY: Final = (add_p, sub_p, mul_p, div_p, rem_p, pow_p, max_p, min_p)
FLOAT_UNARY: Final = (
    exp_p,
    log_p,
    log1p_p,
    expm1_p,
    sin_p,
    cos_p,
    tan_p,
    tanh_p,
    logistic_p,
    sqrt_p,
    rsqrt_p,
    cbrt_p,
    floor_p,
    ceil_p,
    round_p,
)
NUMERIC_UNARY: Final = (neg_p, sign_p, abs_p, square_p)
COMPARISONS: Final = (eq_p, ne_p, lt_p, le_p, gt_p, ge_p)
LOGICAL_BINARY: Final = (and_p, or_p)
COMPLEX_PARTS: Final = (real_p, imag_p, conj_p, complex_p)
ELEMENTWISE: Final = (
    *ARITHMETIC_BINARY,
    integer_pow_p,
    *NUMERIC_UNARY,
    *FLOAT_UNARY,
    *COMPARISONS,
    *LOGICAL_BINARY,
    *COMPLEX_PARTS,
    not_p,
    select_p,
    convert_element_type_p,
    stop_gradient_p,
)


class RoundingMethod(enum.IntEnum):
    """How ``round`` rounds halves: JAX's ``lax.RoundingMethod``.

    An ``IntEnum``, so ``round``'s ``rounding_method`` param stays the
    integer it always was (staged programs print ``rounding_method=0``
    either way).
    """

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


# ``round``'s ``rounding_method``, as plain integers.
ROUND_AWAY_FROM_ZERO: Final = int(RoundingMethod.AWAY_FROM_ZERO)
ROUND_TO_NEAREST_EVEN: Final = int(RoundingMethod.TO_NEAREST_EVEN)


# --- typing -------------------------------------------------------------------------------


def _elementwise_rule(
    kinds: str, what: str, out_dtype: DType | None = None, scalars: bool = False
) -> AbstractEvalRule:
    def rule(*avals: ShapedArray) -> ShapedArray:
        check_kinds(kinds, what, *avals)
        out = same_shapes_and_dtypes(*avals, scalars=scalars)
        return out if out_dtype is None else ShapedArray(out.shape, out_dtype)

    return rule


for _p in (add_p, sub_p, mul_p, div_p):
    ABSTRACT_EVAL.register(_p, _elementwise_rule("iufc", "numbers", scalars=True))
ABSTRACT_EVAL.register(rem_p, _elementwise_rule("iuf", "real numbers", scalars=True))
ABSTRACT_EVAL.register(pow_p, _elementwise_rule("fc", "floating-point or complex", scalars=True))
# As JAX's, max and min of complex numbers order them lexicographically.
for _p in (max_p, min_p):
    ABSTRACT_EVAL.register(_p, _elementwise_rule("biufc", "arrays", scalars=True))
for _p in NUMERIC_UNARY:
    if _p is not abs_p:
        ABSTRACT_EVAL.register(_p, _elementwise_rule("iufc", "numbers"))


@ABSTRACT_EVAL.defines(abs_p)
def _abs_abstract_eval(x: ShapedArray) -> ShapedArray:
    # As JAX's: abs of an unsigned integer is refused (it would be the identity);
    # abs of a complex number is its real modulus.
    check_kinds("ifc", "signed numbers", x)
    if x.dtype in dtypes.INTNS:  # as JAX's (its CPU abs of int4 is not to be relied on)
        raise TypeError(
            f"abs does not accept dtype {x.dtype}: support for narrow-width integers is "
            "platform-dependent and limited to a few specific operations (as in JAX)"
        )
    return ShapedArray(x.shape, dtypes.real_dtype(x.dtype), x.weak_type)


# Rounding is for reals; the analytic functions take complex numbers too.
for _p in FLOAT_UNARY:
    if _p in (floor_p, ceil_p) or _p is cbrt_p:
        ABSTRACT_EVAL.register(_p, _elementwise_rule("f", "floating-point"))
    elif _p is not round_p:
        ABSTRACT_EVAL.register(_p, _elementwise_rule("fc", "floating-point or complex"))


@ABSTRACT_EVAL.defines(round_p)
def _round_abstract_eval(x: ShapedArray, *, rounding_method: int) -> ShapedArray:
    check_kinds("f", "floating-point", x)
    return x


for _p in COMPARISONS:
    if _p in (eq_p, ne_p):
        ABSTRACT_EVAL.register(_p, _elementwise_rule("biufc", "arrays", dtypes.bool_, True))
    else:
        ABSTRACT_EVAL.register(_p, _elementwise_rule("biuf", "real arrays", dtypes.bool_, True))
for _p in (*LOGICAL_BINARY, not_p):
    ABSTRACT_EVAL.register(
        _p, _elementwise_rule("biu", "booleans or integers", scalars=_p.scalar_operands)
    )
ABSTRACT_EVAL.register(stop_gradient_p, _elementwise_rule("biufc", "arrays"))


def _parts_rule(x: ShapedArray) -> ShapedArray:
    check_kinds("c", "complex", x)
    return ShapedArray(x.shape, dtypes.real_dtype(x.dtype), x.weak_type)


ABSTRACT_EVAL.register(real_p, _parts_rule)
ABSTRACT_EVAL.register(imag_p, _parts_rule)


@ABSTRACT_EVAL.defines(conj_p)
def _conj_abstract_eval(x: ShapedArray, *, input_dtype: DType) -> ShapedArray:
    # As JAX's lax.conj: a real operand's conjugate is the complex number itself.
    check_kinds("fc", "floating-point or complex", x)
    return ShapedArray(x.shape, dtypes.complex_dtype(x.dtype), x.weak_type)


@ABSTRACT_EVAL.defines(complex_p)
def _complex_abstract_eval(x: ShapedArray, y: ShapedArray) -> ShapedArray:
    if x.dtype not in (dtypes.float32, dtypes.float64):
        raise dtype_failure(f"the parts must be float32 or float64, got {x.dtype}")
    out = same_shapes_and_dtypes(x, y)
    return ShapedArray(out.shape, dtypes.complex_dtype(out.dtype), out.weak_type)


@ABSTRACT_EVAL.defines(integer_pow_p)
def _integer_pow_abstract_eval(x: ShapedArray, *, y: int) -> ShapedArray:
    check_kinds("iufc", "numbers", x)
    if x.dtype.kind in "iu" and y < 0:
        raise dtype_failure(f"integers cannot be raised to the negative power {y}")
    return x


@ABSTRACT_EVAL.defines(select_p)
def _select_abstract_eval(
    pred: ShapedArray, on_true: ShapedArray, on_false: ShapedArray
) -> ShapedArray:
    if pred.dtype != dtypes.bool_:
        raise dtype_failure(f"the predicate must be boolean, got {pred.dtype}")
    if pred.shape != on_true.shape:
        raise shape_failure(
            f"the predicate's shape {pred.shape} differs from the cases' shape {on_true.shape}"
        )
    return same_shapes_and_dtypes(on_true, on_false)


# --- wrappers -----------------------------------------------------------------------------


def _nary(prim: Primitive, *args: ArrayLike, **params: object) -> Value:
    return bind_value(prim, *coerce_weak(prim, args), **params)


def add(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise ``x + y``.

    >>> add(np.float32(1), 2.0)
    Array(3., dtype=float32)
    """
    return _nary(add_p, x, y)


def sub(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise ``x - y``."""
    return _nary(sub_p, x, y)


def mul(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise ``x * y``."""
    return _nary(mul_p, x, y)


def div(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise division; integers round toward zero (as C and XLA)."""
    return _nary(div_p, x, y)


def rem(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise remainder with the sign of ``x`` (C's ``fmod``)."""
    return _nary(rem_p, x, y)


def pow(x: ArrayLike, y: ArrayLike) -> Value:  # noqa: A001 - lax's name
    """Element-wise ``x ** y`` for floating-point ``x`` and ``y``."""
    return _nary(pow_p, x, y)


def max(x: ArrayLike, y: ArrayLike) -> Value:  # noqa: A001 - lax's name
    """Element-wise maximum."""
    return _nary(max_p, x, y)


def min(x: ArrayLike, y: ArrayLike) -> Value:  # noqa: A001 - lax's name
    """Element-wise minimum."""
    return _nary(min_p, x, y)


def integer_pow(x: ArrayLike, y: int) -> Value:
    """Element-wise ``x ** y`` for a static Python integer ``y``."""
    return _nary(integer_pow_p, x, y=int(y))


def neg(x: ArrayLike) -> Value:
    """Element-wise ``-x``."""
    return _nary(neg_p, x)


def sign(x: ArrayLike) -> Value:
    """Element-wise sign: -1, 0 or 1."""
    return _nary(sign_p, x)


def abs(x: ArrayLike) -> Value:  # noqa: A001 - lax's name
    """Element-wise absolute value."""
    return _nary(abs_p, x)


def exp(x: ArrayLike) -> Value:
    """Element-wise exponential."""
    return _nary(exp_p, x)


def log(x: ArrayLike) -> Value:
    """Element-wise natural logarithm."""
    return _nary(log_p, x)


def log1p(x: ArrayLike) -> Value:
    """Element-wise ``log(1 + x)``, accurate near 0."""
    return _nary(log1p_p, x)


def expm1(x: ArrayLike) -> Value:
    """Element-wise ``exp(x) - 1``, accurate near 0."""
    return _nary(expm1_p, x)


def sin(x: ArrayLike) -> Value:
    """Element-wise sine."""
    return _nary(sin_p, x)


def cos(x: ArrayLike) -> Value:
    """Element-wise cosine."""
    return _nary(cos_p, x)


def tan(x: ArrayLike) -> Value:
    """Element-wise tangent."""
    return _nary(tan_p, x)


def tanh(x: ArrayLike) -> Value:
    """Element-wise hyperbolic tangent."""
    return _nary(tanh_p, x)


def logistic(x: ArrayLike) -> Value:
    """Element-wise logistic sigmoid ``1 / (1 + exp(-x))``."""
    return _nary(logistic_p, x)


def sqrt(x: ArrayLike) -> Value:
    """Element-wise square root."""
    return _nary(sqrt_p, x)


def rsqrt(x: ArrayLike) -> Value:
    """Element-wise reciprocal square root."""
    return _nary(rsqrt_p, x)


def cbrt(x: ArrayLike) -> Value:
    """Element-wise cube root (of negative numbers too)."""
    return _nary(cbrt_p, x)


def square(x: ArrayLike) -> Value:
    """Element-wise ``x * x``."""
    return _nary(square_p, x)


def reciprocal(x: ArrayLike) -> Value:
    """Element-wise ``1 / x``: as JAX's, ``integer_pow(x, -1)`` (no primitive of its own).

    >>> reciprocal(np.float32(4))
    Array(0.25, dtype=float32)
    """
    return integer_pow(x, -1)


def floor(x: ArrayLike) -> Value:
    """Element-wise floor."""
    return _nary(floor_p, x)


def ceil(x: ArrayLike) -> Value:
    """Element-wise ceiling."""
    return _nary(ceil_p, x)


def round(  # noqa: A001 - lax's name
    x: ArrayLike, rounding_method: RoundingMethod | int = RoundingMethod.AWAY_FROM_ZERO
) -> Value:
    """Element-wise rounding; halves go away from zero (lax's default) or to even.

    >>> round(np.float32(2.5), RoundingMethod.TO_NEAREST_EVEN)
    Array(2., dtype=float32)
    """
    if rounding_method not in (ROUND_AWAY_FROM_ZERO, ROUND_TO_NEAREST_EVEN):
        raise ValueError(f"unknown rounding_method {rounding_method}")
    return _nary(round_p, x, rounding_method=int(rounding_method))


def eq(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise ``x == y``."""
    return _nary(eq_p, x, y)


def ne(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise ``x != y``."""
    return _nary(ne_p, x, y)


def lt(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise ``x < y``."""
    return _nary(lt_p, x, y)


def le(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise ``x <= y``."""
    return _nary(le_p, x, y)


def gt(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise ``x > y``."""
    return _nary(gt_p, x, y)


def ge(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise ``x >= y``."""
    return _nary(ge_p, x, y)


def and_(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise logical (booleans) or bitwise (integers) and."""
    return _nary(and_p, x, y)


def or_(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise logical (booleans) or bitwise (integers) or."""
    return _nary(or_p, x, y)


def not_(x: ArrayLike) -> Value:
    """Element-wise logical (booleans) or bitwise (integers) not."""
    return _nary(not_p, x)


def select(pred: ArrayLike, on_true: ArrayLike, on_false: ArrayLike) -> Value:
    """Element-wise ``on_true if pred else on_false``; ``pred`` is boolean of the same shape."""
    on_true, on_false = coerce_weak(select_p, (on_true, on_false))
    if is_python_scalar(pred):
        pred = np.asarray(pred, dtypes.bool_)
    return bind_value(select_p, pred, on_true, on_false)


def stop_gradient(x: ArrayLike) -> Value:
    """The identity, whose derivative is zero."""
    return _nary(stop_gradient_p, x)


def real(x: ArrayLike) -> Value:
    """The real part of a complex ``x``.

    >>> real(np.array([1 + 2j]))
    Array([1.], dtype=float32)
    """
    return _nary(real_p, x)


def imag(x: ArrayLike) -> Value:
    """The imaginary part of a complex ``x``.

    >>> imag(np.array([1 + 2j]))
    Array([2.], dtype=float32)
    """
    return _nary(imag_p, x)


def conj(x: ArrayLike) -> Value:
    """The complex conjugate of ``x``; as JAX's, a real ``x`` gives a complex result.

    >>> conj(np.array([1 + 2j]))
    Array([1.-2.j], dtype=complex64)
    """
    return bind_value(conj_p, x, input_dtype=get_aval(x).dtype)


def complex(x: ArrayLike, y: ArrayLike) -> Value:  # noqa: A001 - lax's name
    """The complex number ``x + i y`` of two real arrays of one dtype.

    >>> complex(np.array([1.0]), np.array([2.0]))
    Array([1.+2.j], dtype=complex64)
    """
    return _nary(complex_p, x, y)
