"""The StableHLO lowering of the structural primitives (``core.lax.structural``).

Design rules:
- Each is one StableHLO op of the same meaning (``broadcast_in_dim``,
  ``transpose``, ``concatenate``, ``reverse``, ``iota``); ``reshape``,
  ``squeeze`` and ``expand_dims`` are all row-major ``stablehlo.reshape``
  to the result type, as NumPy's.
- ``split`` and ``unstack`` are one ``stablehlo.slice`` per result (a
  reshape drops ``unstack``'s axis), ``stack`` reshapes each operand to
  the new axis and concatenates, ``tile`` broadcasts to ``(reps[i],
  n_i)`` pairs and reshapes, as JAX's lowerings; ``optimization_barrier``
  is ``stablehlo.optimization_barrier``; ``copy`` lowers to its operand
  (XLA makes the buffer a program's result needs), as JAX's.
- XLA has no boolean iota: NumPy's (``[False, True]`` at most) is an
  unsigned iota compared with zero.
"""

from __future__ import annotations

from typing import Unpack

from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.dtypes import DType
from didax.core.lax import structural
from didax.core.lax.structural import BroadcastInDimParams
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


@LOWERING_RULES.defines(structural.broadcast_in_dim_p)
def _broadcast_in_dim_lowering(
    ctx: LoweringRuleContext, x: IrValue, **params: Unpack[BroadcastInDimParams]
) -> list[IrValue]:
    dims = dense_i64(params["broadcast_dimensions"])
    return [hlo.broadcast_in_dim(aval_to_ir_type(ctx.avals_out[0]), x, dims)]


@LOWERING_RULES.defines(structural.reshape_p)
@LOWERING_RULES.defines(structural.squeeze_p)
@LOWERING_RULES.defines(structural.expand_dims_p)
def _reshape_lowering(ctx: LoweringRuleContext, x: IrValue, **params: object) -> list[IrValue]:
    # Row-major reshapes to the result's shape, as NumPy's: squeeze and
    # expand_dims are reshapes too.
    return [hlo.reshape(aval_to_ir_type(ctx.avals_out[0]), x)]


@LOWERING_RULES.defines(structural.transpose_p)
def _transpose_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, permutation: tuple[int, ...]
) -> list[IrValue]:
    return [hlo.transpose(x, dense_i64(permutation))]


@LOWERING_RULES.defines(structural.concatenate_p)
def _concatenate_lowering(ctx: LoweringRuleContext, *xs: IrValue, dimension: int) -> list[IrValue]:
    return [hlo.concatenate(list(xs), dimension)]


@LOWERING_RULES.defines(structural.rev_p)
def _rev_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, dimensions: tuple[int, ...]
) -> list[IrValue]:
    return [hlo.reverse(x, dense_i64(dimensions))] if dimensions else [x]


@LOWERING_RULES.defines(structural.iota_p)
def _iota_lowering(ctx: LoweringRuleContext, *, dtype: DType, size: int) -> list[IrValue]:
    aval = ctx.avals_out[0]
    if dtype == dtypes.bool_:
        # XLA has no boolean iota; NumPy's is [False, True] (at most two long).
        ints = ShapedArray(aval.shape, dtypes.uint8)
        counted = hlo.iota(aval_to_ir_type(ints), 0)
        return [compare(counted, full(ints, 0), "NE", ints.dtype)]
    return [hlo.iota(aval_to_ir_type(aval), 0)]


def _slices_along(
    ctx: LoweringRuleContext, x: IrValue, axis: int, sizes: tuple[int, ...]
) -> list[IrValue]:
    """``x`` cut along ``axis`` into consecutive slices of ``sizes``."""
    shape = ctx.avals_in[0].shape
    outs: list[IrValue] = []
    start = 0
    for size in sizes:
        lo = tuple(start if d == axis else 0 for d in range(len(shape)))
        hi = tuple(start + size if d == axis else n for d, n in enumerate(shape))
        outs.append(hlo.slice(x, dense_i64(lo), dense_i64(hi), dense_i64((1,) * len(shape))))
        start += size
    return outs


@LOWERING_RULES.defines(structural.split_p)
def _split_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, sizes: tuple[int, ...], axis: int
) -> list[IrValue]:
    return _slices_along(ctx, x, axis, sizes)


@LOWERING_RULES.defines(structural.unstack_p)
def _unstack_lowering(ctx: LoweringRuleContext, x: IrValue, *, axis: int) -> list[IrValue]:
    pieces = _slices_along(ctx, x, axis, (1,) * ctx.avals_in[0].shape[axis])
    return [hlo.reshape(aval_to_ir_type(a), p) for a, p in zip(ctx.avals_out, pieces, strict=True)]


@LOWERING_RULES.defines(structural.stack_p)
def _stack_lowering(ctx: LoweringRuleContext, *xs: IrValue, axis: int) -> list[IrValue]:
    aval = ctx.avals_in[0]
    one = ShapedArray((*aval.shape[:axis], 1, *aval.shape[axis:]), aval.dtype)
    return [hlo.concatenate([hlo.reshape(aval_to_ir_type(one), x) for x in xs], axis)]


@LOWERING_RULES.defines(structural.tile_p)
def _tile_lowering(ctx: LoweringRuleContext, x: IrValue, *, reps: tuple[int, ...]) -> list[IrValue]:
    aval = ctx.avals_in[0]
    pairs = tuple(k for r, n in zip(reps, aval.shape, strict=True) for k in (r, n))
    wide = ShapedArray(pairs, aval.dtype)
    odd = dense_i64(tuple(range(1, len(pairs), 2)))
    spread = hlo.broadcast_in_dim(aval_to_ir_type(wide), x, odd)
    return [hlo.reshape(aval_to_ir_type(ctx.avals_out[0]), spread)]


@LOWERING_RULES.defines(structural.optimization_barrier_p)
def _optimization_barrier_lowering(ctx: LoweringRuleContext, *xs: IrValue) -> list[IrValue]:
    return list(hlo.OptimizationBarrierOp(list(xs)).results)


@LOWERING_RULES.defines(structural.copy_p)
def _copy_lowering(ctx: LoweringRuleContext, x: IrValue) -> list[IrValue]:
    return [x]
