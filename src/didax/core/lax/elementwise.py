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
from typing import Final, Protocol

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
from didax.core.lax.operands import bind_value, lax_wrapper
from didax.core.primitive import Primitive, primitives
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
add_p, sub_p, mul_p, div_p, rem_p, pow_p, max_p, min_p = primitives(
    "add", "sub", "mul", "div", "rem", "pow", "max", "min", scalar_operands=True
)
integer_pow_p, neg_p, sign_p, abs_p = primitives("integer_pow", "neg", "sign", "abs")
exp_p, log_p, log1p_p, expm1_p = primitives("exp", "log", "log1p", "expm1")
sin_p, cos_p, tan_p, tanh_p, logistic_p = primitives("sin", "cos", "tan", "tanh", "logistic")
sqrt_p, rsqrt_p, cbrt_p, square_p = primitives("sqrt", "rsqrt", "cbrt", "square")
floor_p, ceil_p, round_p = primitives("floor", "ceil", "round")
eq_p, ne_p, lt_p, le_p, gt_p, ge_p, and_p, or_p = primitives(
    "eq", "ne", "lt", "le", "gt", "ge", "and", "or", scalar_operands=True
)
not_p, select_p, stop_gradient_p = primitives("not", "select", "stop_gradient")

# Complex numbers: their parts, conjugate, and the number made of two parts.
real_p, imag_p, conj_p, complex_p = primitives("real", "imag", "conj", "complex")

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


class UnaryFunction(Protocol):
    """A ``didax.lax`` wrapper of an element-wise primitive of one operand."""

    __name__: str

    def __call__(self, x: ArrayLike) -> Value: ...


class BinaryFunction(Protocol):
    """A ``didax.lax`` wrapper of an element-wise primitive of two operands."""

    __name__: str

    def __call__(self, x: ArrayLike, y: ArrayLike) -> Value: ...


def nary(prim: Primitive, *args: ArrayLike, **params: object) -> Value:
    """``prim`` bound to ``args``, whose weak types take their strong partner's dtype."""
    return bind_value(prim, *coerce_weak(prim, args), **params)


def unary(prim: Primitive, doc: str, name: str | None = None) -> UnaryFunction:
    """The wrapper ``name`` (``prim``'s own name by default) that binds ``prim`` to ``x``."""

    def wrapper(x: ArrayLike) -> Value:
        return nary(prim, x)

    return lax_wrapper(wrapper, name or prim.name, doc)


def binary(prim: Primitive, doc: str, name: str | None = None) -> BinaryFunction:
    """The wrapper ``name`` (``prim``'s own name by default) that binds ``prim`` to ``x, y``."""

    def wrapper(x: ArrayLike, y: ArrayLike) -> Value:
        return nary(prim, x, y)

    return lax_wrapper(wrapper, name or prim.name, doc)


def add(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise ``x + y``.

    >>> add(np.float32(1), 2.0)
    Array(3., dtype=float32)
    """
    return nary(add_p, x, y)


sub = binary(sub_p, "Element-wise ``x - y``.")
mul = binary(mul_p, "Element-wise ``x * y``.")
div = binary(div_p, "Element-wise division; integers round toward zero (as C and XLA).")
rem = binary(rem_p, "Element-wise remainder with the sign of ``x`` (C's ``fmod``).")
pow = binary(pow_p, "Element-wise ``x ** y`` for floating-point ``x`` and ``y``.")  # noqa: A001 - lax's name
max = binary(max_p, "Element-wise maximum.")  # noqa: A001 - lax's name
min = binary(min_p, "Element-wise minimum.")  # noqa: A001 - lax's name


def integer_pow(x: ArrayLike, y: int) -> Value:
    """Element-wise ``x ** y`` for a static Python integer ``y``."""
    return nary(integer_pow_p, x, y=int(y))


neg = unary(neg_p, "Element-wise ``-x``.")
sign = unary(sign_p, "Element-wise sign: -1, 0 or 1.")
abs = unary(abs_p, "Element-wise absolute value.")  # noqa: A001 - lax's name
exp = unary(exp_p, "Element-wise exponential.")
log = unary(log_p, "Element-wise natural logarithm.")
log1p = unary(log1p_p, "Element-wise ``log(1 + x)``, accurate near 0.")
expm1 = unary(expm1_p, "Element-wise ``exp(x) - 1``, accurate near 0.")
sin = unary(sin_p, "Element-wise sine.")
cos = unary(cos_p, "Element-wise cosine.")
tan = unary(tan_p, "Element-wise tangent.")
tanh = unary(tanh_p, "Element-wise hyperbolic tangent.")
logistic = unary(logistic_p, "Element-wise logistic sigmoid ``1 / (1 + exp(-x))``.")
sqrt = unary(sqrt_p, "Element-wise square root.")
rsqrt = unary(rsqrt_p, "Element-wise reciprocal square root.")
cbrt = unary(cbrt_p, "Element-wise cube root (of negative numbers too).")
square = unary(square_p, "Element-wise ``x * x``.")


def reciprocal(x: ArrayLike) -> Value:
    """Element-wise ``1 / x``: as JAX's, ``integer_pow(x, -1)`` (no primitive of its own).

    >>> reciprocal(np.float32(4))
    Array(0.25, dtype=float32)
    """
    return integer_pow(x, -1)


floor = unary(floor_p, "Element-wise floor.")
ceil = unary(ceil_p, "Element-wise ceiling.")


def round(  # noqa: A001 - lax's name
    x: ArrayLike, rounding_method: RoundingMethod | int = RoundingMethod.AWAY_FROM_ZERO
) -> Value:
    """Element-wise rounding; halves go away from zero (lax's default) or to even.

    >>> round(np.float32(2.5), RoundingMethod.TO_NEAREST_EVEN)
    Array(2., dtype=float32)
    """
    if rounding_method not in (ROUND_AWAY_FROM_ZERO, ROUND_TO_NEAREST_EVEN):
        raise ValueError(f"unknown rounding_method {rounding_method}")
    return nary(round_p, x, rounding_method=int(rounding_method))


eq = binary(eq_p, "Element-wise ``x == y``.")
ne = binary(ne_p, "Element-wise ``x != y``.")
lt = binary(lt_p, "Element-wise ``x < y``.")
le = binary(le_p, "Element-wise ``x <= y``.")
gt = binary(gt_p, "Element-wise ``x > y``.")
ge = binary(ge_p, "Element-wise ``x >= y``.")
and_ = binary(and_p, "Element-wise logical (booleans) or bitwise (integers) and.", name="and_")
or_ = binary(or_p, "Element-wise logical (booleans) or bitwise (integers) or.", name="or_")
not_ = unary(not_p, "Element-wise logical (booleans) or bitwise (integers) not.", name="not_")


def select(pred: ArrayLike, on_true: ArrayLike, on_false: ArrayLike) -> Value:
    """Element-wise ``on_true if pred else on_false``; ``pred`` is boolean of the same shape."""
    on_true, on_false = coerce_weak(select_p, (on_true, on_false))
    if is_python_scalar(pred):
        pred = np.asarray(pred, dtypes.bool_)
    return bind_value(select_p, pred, on_true, on_false)


stop_gradient = unary(stop_gradient_p, "The identity, whose derivative is zero.")


def real(x: ArrayLike) -> Value:
    """The real part of a complex ``x``.

    >>> real(np.array([1 + 2j]))
    Array([1.], dtype=float32)
    """
    return nary(real_p, x)


def imag(x: ArrayLike) -> Value:
    """The imaginary part of a complex ``x``.

    >>> imag(np.array([1 + 2j]))
    Array([2.], dtype=float32)
    """
    return nary(imag_p, x)


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
    return nary(complex_p, x, y)
