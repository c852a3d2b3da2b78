"""The StableHLO lowering of the slicing primitives (``core.lax.slicing``).

Design rules:
- Each is the StableHLO op of the same meaning (``slice``,
  ``dynamic_slice``, ``dynamic_update_slice``, ``pad``): XLA clamps start
  indices into bounds as the impl does, and ``stablehlo.pad`` pads as the
  impl does (interior first, negative edges cropping).
- Start indices reach XLA in one integer type, unsigned ones clamped to
  their bound first (``_same_type_indices``): XLA reads them as signed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Unpack

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.lax import slicing
from didax.lowering import mlir
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext

__all__: list[str] = []


def _same_type_indices(
    indices: Sequence[IrValue], avals: Sequence[ShapedArray], bounds: Sequence[int]
) -> list[IrValue]:
    """Start indices of one integer type, as ``dynamic_slice`` requires, clamp-safe.

    XLA clamps start indices into ``[0, bound]`` (``bounds[i]``: operand size
    minus slice size), as the impl does, but it reads them as signed: an
    unsigned index with its top bit set would clamp to 0 instead of to the
    bound (uint64 2**64 - 1 does). So unsigned indices are clamped to their
    bound first, in their own type. Indices of mixed dtypes then all become
    int64 (exactly, after that clamp).
    """
    out = []
    for i, aval, bound in zip(indices, avals, bounds, strict=True):
        if dtypes.kind(aval.dtype) == "u":
            i = hlo.minimum(i, mlir.constant(np.asarray(bound, aval.dtype)))
        out.append(i)
    if len({a.dtype for a in avals}) <= 1:
        return out
    int64 = mlir.aval_to_ir_type(ShapedArray((), dtypes.int64))
    return [
        i if aval.dtype == dtypes.int64 else hlo.convert(int64, i)
        for i, aval in zip(out, avals, strict=True)
    ]


@LOWERING_RULES.defines(slicing.slice_p)
def _slice_lowering(
    ctx: LoweringRuleContext,
    x: IrValue,
    **params: Unpack[slicing.SliceParams],
) -> list[IrValue]:
    start_indices, limit_indices, strides = slicing.slice_params(params)
    return [
        hlo.slice(
            x, mlir.dense_i64(start_indices), mlir.dense_i64(limit_indices), mlir.dense_i64(strides)
        )
    ]


@LOWERING_RULES.defines(slicing.dynamic_slice_p)
def _dynamic_slice_lowering(
    ctx: LoweringRuleContext, x: IrValue, *starts: IrValue, slice_sizes: tuple[int, ...]
) -> list[IrValue]:
    # XLA clamps the start indices into [0, n - size], exactly as the impl.
    operand = ctx.avals_in[0]
    bounds = [n - k for n, k in zip(operand.shape, slice_sizes, strict=True)]
    indices = _same_type_indices(starts, ctx.avals_in[1:], bounds)
    return [hlo.dynamic_slice(x, indices, mlir.dense_i64(slice_sizes))]


@LOWERING_RULES.defines(slicing.dynamic_update_slice_p)
def _dynamic_update_slice_lowering(
    ctx: LoweringRuleContext, x: IrValue, update: IrValue, *starts: IrValue
) -> list[IrValue]:
    operand, update_aval = ctx.avals_in[0], ctx.avals_in[1]
    bounds = [n - k for n, k in zip(operand.shape, update_aval.shape, strict=True)]
    indices = _same_type_indices(starts, ctx.avals_in[2:], bounds)
    return [hlo.dynamic_update_slice(x, update, indices)]


@LOWERING_RULES.defines(slicing.pad_p)
def _pad_lowering(
    ctx: LoweringRuleContext,
    x: IrValue,
    padding_value: IrValue,
    *,
    padding_config: slicing.PaddingConfig,
) -> list[IrValue]:
    # stablehlo.pad has the impl's semantics: interior padding first, then the
    # edges, negative edges cropping.
    lows, highs, interiors = zip(*padding_config, strict=True) if padding_config else ((), (), ())
    return [
        hlo.pad(
            x, padding_value, mlir.dense_i64(lows), mlir.dense_i64(highs), mlir.dense_i64(interiors)
        )
    ]
