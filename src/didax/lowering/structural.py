"""The StableHLO lowering of the structural primitives (``core.lax.structural``).

Design rules:
- Each is one StableHLO op of the same meaning (``broadcast_in_dim``,
  ``transpose``, ``concatenate``, ``reverse``, ``iota``); ``reshape``,
  ``squeeze`` and ``expand_dims`` are all row-major ``stablehlo.reshape``
  to the result type, as NumPy's.
- XLA has no boolean iota: NumPy's (``[False, True]`` at most) is an
  unsigned iota compared with zero.
"""

from __future__ import annotations

from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.dtypes import DType
from didax.core.lax.structural import (
    broadcast_in_dim_p,
    concatenate_p,
    expand_dims_p,
    iota_p,
    reshape_p,
    rev_p,
    squeeze_p,
    transpose_p,
)
from didax.lowering.mlir import (
    LOWERING_RULES,
    IrValue,
    LoweringRuleContext,
    aval_to_ir_type,
    dense_i64,
    full,
)
from didax.lowering.rules import compare

__all__: list[str] = []


@LOWERING_RULES.defines(broadcast_in_dim_p)
def _broadcast_in_dim_lowering(
    ctx: LoweringRuleContext,
    x: IrValue,
    *,
    shape: tuple[int, ...],
    broadcast_dimensions: tuple[int, ...],
) -> list[IrValue]:
    return [
        hlo.broadcast_in_dim(aval_to_ir_type(ctx.avals_out[0]), x, dense_i64(broadcast_dimensions))
    ]


def _reshape_to_out(ctx: LoweringRuleContext, x: IrValue) -> list[IrValue]:
    # Row-major reshapes, as NumPy's: squeeze and expand_dims are reshapes too.
    return [hlo.reshape(aval_to_ir_type(ctx.avals_out[0]), x)]


@LOWERING_RULES.defines(reshape_p)
def _reshape_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, new_sizes: tuple[int, ...]
) -> list[IrValue]:
    return _reshape_to_out(ctx, x)


@LOWERING_RULES.defines(squeeze_p)
def _squeeze_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, dimensions: tuple[int, ...]
) -> list[IrValue]:
    return _reshape_to_out(ctx, x)


@LOWERING_RULES.defines(expand_dims_p)
def _expand_dims_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, dimensions: tuple[int, ...]
) -> list[IrValue]:
    return _reshape_to_out(ctx, x)


@LOWERING_RULES.defines(transpose_p)
def _transpose_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, permutation: tuple[int, ...]
) -> list[IrValue]:
    return [hlo.transpose(x, dense_i64(permutation))]


@LOWERING_RULES.defines(concatenate_p)
def _concatenate_lowering(ctx: LoweringRuleContext, *xs: IrValue, dimension: int) -> list[IrValue]:
    return [hlo.concatenate(list(xs), dimension)]


@LOWERING_RULES.defines(rev_p)
def _rev_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, dimensions: tuple[int, ...]
) -> list[IrValue]:
    return [hlo.reverse(x, dense_i64(dimensions))] if dimensions else [x]


@LOWERING_RULES.defines(iota_p)
def _iota_lowering(ctx: LoweringRuleContext, *, dtype: DType, size: int) -> list[IrValue]:
    aval = ctx.avals_out[0]
    if dtype == dtypes.bool_:
        # XLA has no boolean iota; NumPy's is [False, True] (at most two long).
        ints = ShapedArray(aval.shape, dtypes.uint8)
        counted = hlo.iota(aval_to_ir_type(ints), 0)
        return [compare(counted, full(ints, 0), "NE", ints.dtype)]
    return [hlo.iota(aval_to_ir_type(aval), 0)]
