"""The StableHLO lowering of the element-wise primitives (``core.lax.elementwise``).

Design rules:
- The NumPy impl rules (``interpreters.elementwise``) define what a
  primitive means; a lowering computes exactly that. Where a StableHLO
  op's semantics differ from the impl's, the rule adds the ops that close
  the gap and says why (``sign`` and ``abs`` of unsigned integers,
  boolean and complex max/min, ``conj`` of a real operand). Results differ
  from the impl only in the last bits of floating-point functions that
  XLA approximates its own way (``exp``, ``tanh``, ...).
- A primitive that is exactly one element-wise StableHLO op (``add``,
  ``sin``, ...) is lowered through the ``_ONE_OP`` table; every other
  primitive has its own ``_<prim>_lowering``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes, lax
from didax.core.dtypes import DType
from didax.core.lax.elementwise import ROUND_AWAY_FROM_ZERO, ROUND_TO_NEAREST_EVEN
from didax.core.primitive import Primitive
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext, aval_to_ir_type, full
from didax.lowering.rules import OneOp, compare, maximum, minimum, register_one_op

__all__: list[str] = []

# --- element-wise: one StableHLO op ---------------------------------------------------

_ONE_OP: Final[dict[Primitive, OneOp]] = {
    lax.add_p: hlo.add,
    lax.sub_p: hlo.subtract,
    lax.mul_p: hlo.multiply,
    lax.pow_p: hlo.power,
    lax.neg_p: hlo.negate,
    lax.exp_p: hlo.exponential,
    lax.log_p: hlo.log,
    lax.log1p_p: hlo.log_plus_one,
    lax.expm1_p: hlo.exponential_minus_one,
    lax.sin_p: hlo.sine,
    lax.cos_p: hlo.cosine,
    lax.tan_p: hlo.tan,
    lax.tanh_p: hlo.tanh,
    lax.logistic_p: hlo.logistic,
    lax.sqrt_p: hlo.sqrt,
    lax.rsqrt_p: hlo.rsqrt,
    lax.cbrt_p: hlo.cbrt,
    lax.floor_p: hlo.floor,
    lax.ceil_p: hlo.ceil,
    # On integers these are bitwise, on booleans logical: as the impl.
    lax.and_p: hlo.and_,
    lax.or_p: hlo.or_,
    lax.not_p: hlo.not_,
    lax.select_p: hlo.select,
    lax.real_p: hlo.real,
    lax.imag_p: hlo.imag,
    lax.complex_p: hlo.complex,
}

register_one_op(_ONE_OP)


# --- element-wise: the rest -------------------------------------------------------------


@LOWERING_RULES.defines(lax.max_p)
def _max_lowering(ctx: LoweringRuleContext, x: IrValue, y: IrValue) -> list[IrValue]:
    # stablehlo.maximum propagates NaN, as np.maximum does (XLA honours that
    # unless it compiles with fast min/max, as it does when given no CompileOptions).
    return [maximum(x, y, ctx.avals_in[0].dtype)]


@LOWERING_RULES.defines(lax.min_p)
def _min_lowering(ctx: LoweringRuleContext, x: IrValue, y: IrValue) -> list[IrValue]:
    return [minimum(x, y, ctx.avals_in[0].dtype)]


@LOWERING_RULES.defines(lax.div_p)
def _div_lowering(ctx: LoweringRuleContext, x: IrValue, y: IrValue) -> list[IrValue]:
    # Integer division truncates toward zero, and x / 0 has every bit set,
    # in XLA as in the impl (which follows XLA there, not NumPy).
    return [hlo.divide(x, y)]


@LOWERING_RULES.defines(lax.rem_p)
def _rem_lowering(ctx: LoweringRuleContext, x: IrValue, y: IrValue) -> list[IrValue]:
    # The remainder has the sign of x (C's fmod), and an integer x % 0 is x,
    # in XLA as in the impl.
    return [hlo.remainder(x, y)]


@LOWERING_RULES.defines(lax.integer_pow_p)
def _integer_pow_lowering(ctx: LoweringRuleContext, x: IrValue, *, y: int) -> list[IrValue]:
    aval = ctx.avals_out[0]
    if y == 0:
        return [full(aval, 1)]  # 0 ** 0 is 1, as np.power
    # Repeated squaring: about 2 log2(|y|) multiplies, exact for integers
    # (which wrap as NumPy's do) and within a few ulps of pow for floats.
    acc: IrValue | None = None
    square = x
    n = abs(y)
    while True:
        if n & 1:
            acc = square if acc is None else hlo.multiply(acc, square)
        n >>= 1
        if not n:
            break
        square = hlo.multiply(square, square)
    assert acc is not None
    if y < 0:  # floats only (the typing rule refuses integers)
        acc = hlo.divide(full(aval, 1), acc)
    return [acc]


@LOWERING_RULES.defines(lax.sign_p)
def _sign_lowering(ctx: LoweringRuleContext, x: IrValue) -> list[IrValue]:
    aval = ctx.avals_out[0]
    if dtypes.kind(aval.dtype) == "u":
        # stablehlo.sign takes signed integers and floats only.
        positive = compare(x, full(aval, 0), "NE", aval.dtype)
        return [hlo.convert(aval_to_ir_type(aval), positive)]
    return [hlo.sign(x)]


@LOWERING_RULES.defines(lax.abs_p)
def _abs_lowering(ctx: LoweringRuleContext, x: IrValue) -> list[IrValue]:
    # stablehlo.abs takes signed integers and floats; unsigned abs is the identity.
    return [x] if dtypes.kind(ctx.avals_in[0].dtype) == "u" else [hlo.abs(x)]


@LOWERING_RULES.defines(lax.conj_p)
def _conj_lowering(ctx: LoweringRuleContext, x: IrValue, *, input_dtype: DType) -> list[IrValue]:
    # StableHLO has no conjugate: complex(real(x), -imag(x)), as JAX lowers it.
    if not dtypes.is_complex(input_dtype):
        x = hlo.convert(aval_to_ir_type(ctx.avals_out[0]), x)
    return [hlo.complex(hlo.real(x), hlo.negate(hlo.imag(x)))]


@LOWERING_RULES.defines(lax.round_p)
def _round_lowering(ctx: LoweringRuleContext, x: IrValue, *, rounding_method: int) -> list[IrValue]:
    if rounding_method == ROUND_TO_NEAREST_EVEN:
        return [hlo.round_nearest_even(x)]
    if rounding_method == ROUND_AWAY_FROM_ZERO:
        return [hlo.round_nearest_afz(x)]
    raise ValueError(f"round: unknown rounding_method {rounding_method}")


def _comparison_rule(direction: str) -> Callable[..., list[IrValue]]:
    def rule(ctx: LoweringRuleContext, x: IrValue, y: IrValue) -> list[IrValue]:
        return [compare(x, y, direction, ctx.avals_in[0].dtype)]

    return rule


for _prim, _direction in {
    lax.eq_p: "EQ", lax.ne_p: "NE", lax.lt_p: "LT",
    lax.le_p: "LE", lax.gt_p: "GT", lax.ge_p: "GE",
}.items():  # fmt: skip
    LOWERING_RULES.register(_prim, _comparison_rule(_direction))


@LOWERING_RULES.defines(lax.square_p)
def _square_lowering(ctx: LoweringRuleContext, x: IrValue) -> list[IrValue]:
    # As JAX: integers multiply; floats and complex numbers take chlo.square
    # (XLA's complex square is more accurate than x * x).
    if dtypes.kind(ctx.avals_in[0].dtype) in "iu":
        return [hlo.multiply(x, x)]
    return [chlo.square(x, results=[aval_to_ir_type(ctx.avals_out[0])])]


@LOWERING_RULES.defines(lax.stop_gradient_p)
def _stop_gradient_lowering(ctx: LoweringRuleContext, x: IrValue) -> list[IrValue]:
    return [x]  # the identity; only differentiation treats it specially
