"""StableHLO lowering of gather (``core.lax.indexing``), and the index bounds scatters share.

The scatter family's lowering is in ``lowering.scatter``, which clamps
indices with the bounds built here.

Design rules:
- A gather is one ``stablehlo.gather`` (XLA clamps each slice start into
  bounds, which is ``CLIP`` and ``PROMISE_IN_BOUNDS``); ``FILL_OR_DROP``
  adds JAX's mask: each index vector is compared with its bounds, and a
  ``select`` puts the fill value where a slice is not wholly inside.
- Index comparisons and clamps are done in the indices' own dtype (XLA
  reads unsigned indices as unsigned), with bounds capped at the dtype's
  maximum.
- An empty result never reaches XLA: it is a constant.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Unpack

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.dtypes import DType
from didax.core.lax.indexing import (
    GatherParams,
    GatherScatterMode,
    default_fill_value,
)
from didax.lowering import mlir
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext
from didax.lowering.rules import compare


def _bounds(
    indices_dtype: DType, operand_shape: Sequence[int], sizes: Sequence[int], dims: Sequence[int]
) -> IrValue:
    """A vector of the largest in-bounds start along each of ``dims``, in the indices' dtype."""
    top = int(np.iinfo(indices_dtype.name).max)
    values = [min(operand_shape[d] - sizes[d], top) for d in dims]
    return mlir.constant(np.asarray(values, indices_dtype))


def _broadcast_vector(vector: IrValue, aval: ShapedArray) -> IrValue:
    """A per-index-component vector broadcast along the indices' last axis."""
    return hlo.broadcast_in_dim(
        mlir.aval_to_ir_type(aval), vector, mlir.dense_i64((aval.ndim - 1,))
    )


def _in_bounds(
    indices: IrValue, aval: ShapedArray, upper: IrValue, batch_aval: ShapedArray
) -> IrValue:
    """Whether every component of each index vector is in ``[0, upper]`` (a bool per vector)."""
    ok = hlo.and_(
        compare(indices, mlir.full(aval, 0), "GE", aval.dtype),
        compare(indices, _broadcast_vector(upper, aval), "LE", aval.dtype),
    )
    op = hlo.ReduceOp(
        [mlir.aval_to_ir_type(batch_aval)],
        [ok],
        [mlir.constant(np.asarray(True))],
        mlir.dense_i64((aval.ndim - 1,)),
    )
    scalar = ir.RankedTensorType.get((), mlir.dtype_to_ir_type(dtypes.bool_))
    block = op.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        hlo.return_([hlo.and_(*block.arguments)])
    result: IrValue = op.result
    return result


@LOWERING_RULES.defines(lax.gather_p)
def _gather_lowering(
    ctx: LoweringRuleContext, operand: IrValue, indices: IrValue, **params: Unpack[GatherParams]
) -> list[IrValue]:
    operand_aval, indices_aval = ctx.avals_in
    out_aval = ctx.avals_out[0]
    if out_aval.size == 0:
        return [mlir.full(out_aval, 0)]
    dn, slice_sizes = params["dimension_numbers"], params["slice_sizes"]
    dnums = hlo.GatherDimensionNumbers.get(
        offset_dims=list(dn.offset_dims),
        collapsed_slice_dims=list(dn.collapsed_slice_dims),
        operand_batching_dims=list(dn.operand_batching_dims),
        start_indices_batching_dims=list(dn.start_indices_batching_dims),
        start_index_map=list(dn.start_index_map),
        index_vector_dim=indices_aval.ndim - 1,
    )
    out = hlo.gather(
        operand,
        indices,
        dnums,
        mlir.dense_i64(slice_sizes),
        indices_are_sorted=ir.BoolAttr.get(params["indices_are_sorted"]),
    )
    if params["mode"] is not GatherScatterMode.FILL_OR_DROP or not dn.start_index_map:
        return [out]
    batch_aval = ShapedArray(indices_aval.shape[:-1], dtypes.bool_)
    upper = _bounds(indices_aval.dtype, operand_aval.shape, slice_sizes, dn.start_index_map)
    mask = _in_bounds(indices, indices_aval, upper, batch_aval)
    batch_dims = [i for i in range(out_aval.ndim) if i not in dn.offset_dims]
    mask = hlo.broadcast_in_dim(
        mlir.aval_to_ir_type(ShapedArray(out_aval.shape, dtypes.bool_)),
        mask,
        mlir.dense_i64(batch_dims),
    )
    fill_value = params["fill_value"]
    value = default_fill_value(out_aval.dtype) if fill_value is None else fill_value
    return [hlo.select(mask, out, mlir.full(out_aval, value))]
