"""The typing (abstract-evaluation) rule of every standard primitive.

Design rules:
- A rule maps operand types (and params) to result types, never touching
  data, and refuses an ill-typed application by raising a
  ``TypingFailure`` (``shape_failure``/``dtype_failure``) with the reason;
  ``core.abstract_eval`` turns that into an error naming the primitive, the
  operand types and the user's line.
- Primitives are strict: element-wise operands have one shape and one
  dtype; only weak types may differ (a result is weak when every operand
  is). Promotion and broadcasting happen before a primitive is bound, with
  one exception, JAX's: the operands of a ``scalar_operands`` primitive
  (the arithmetic, comparison and logical binary operations here; ``xor``
  and the shifts in ``core.lax.bits``; ``atan2``, ``nextafter`` and
  ``polygamma`` in ``core.lax.special``) may be rank-0 scalars beside
  arrays of one shape (``mul x 2.0:f32[]``), so that a Python scalar costs
  no ``broadcast_in_dim`` equation.
- Importing this module registers the rules (``core.lax`` imports it).
"""

from __future__ import annotations

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
from didax.core.dtypes import DType
from didax.core.lax.primitives import (
    COMPARISONS,
    FLOAT_UNARY,
    LOGICAL_BINARY,
    NUMERIC_UNARY,
    abs_p,
    add_p,
    ceil_p,
    complex_p,
    conj_p,
    div_p,
    eq_p,
    floor_p,
    imag_p,
    integer_pow_p,
    max_p,
    min_p,
    mul_p,
    ne_p,
    not_p,
    pow_p,
    real_p,
    rem_p,
    round_p,
    select_p,
    stop_gradient_p,
    sub_p,
)


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
    return ShapedArray(x.shape, dtypes.real_dtype(x.dtype), x.weak_type)


# Rounding is for reals; the analytic functions take complex numbers too.
for _p in FLOAT_UNARY:
    if _p in (floor_p, ceil_p):
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
