"""StableHLO lowering rules for the bit primitives (``core.lax.bits``).

Each is one StableHLO op with the impl's semantics: XLA defines shifts by
an amount outside ``[0, bit width)`` (read as unsigned) as 0, or the sign
fill for ``shift_right_arithmetic``, which is what the impls compute; a bit
cast between widths adds or consumes the last axis, least significant part
first, as the impl's little-endian NumPy view does.
"""

from __future__ import annotations

from typing import Final

from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core.dtypes import DType
from didax.core.lax import bits
from didax.core.primitive import Primitive
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext, aval_to_ir_type
from didax.lowering.rules import OneOp, register_one_op

__all__: list[str] = []

_ONE_OP: Final[dict[Primitive, OneOp]] = {
    bits.xor_p: hlo.xor,
    bits.shift_left_p: hlo.shift_left,
    bits.shift_right_logical_p: hlo.shift_right_logical,
    bits.shift_right_arithmetic_p: hlo.shift_right_arithmetic,
    bits.population_count_p: hlo.popcnt,
    bits.clz_p: hlo.count_leading_zeros,
}

register_one_op(_ONE_OP)


@LOWERING_RULES.defines(bits.mulhi_p)
def _mulhi_lowering(ctx: LoweringRuleContext, x: IrValue, y: IrValue) -> list[IrValue]:
    # As JAX: chlo.mulhi, which XLA expands (a widened product, or 32-bit halves for 64 bits).
    return [chlo.mulhi(x, y, results=[aval_to_ir_type(ctx.avals_out[0])])]


@LOWERING_RULES.defines(bits.bitcast_convert_type_p)
def _bitcast_convert_type_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, new_dtype: DType
) -> list[IrValue]:
    if ctx.avals_in[0].dtype == new_dtype:
        return [x]
    return [hlo.bitcast_convert(aval_to_ir_type(ctx.avals_out[0]), x)]
