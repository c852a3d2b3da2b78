"""StableHLO lowering of gather and the scatter family (``core.lax.indexing``).

Design rules:
- A gather is one ``stablehlo.gather`` (XLA clamps each slice start into
  bounds, which is ``CLIP`` and ``PROMISE_IN_BOUNDS``); ``FILL_OR_DROP``
  adds JAX's mask: each index vector is compared with its bounds, and a
  ``select`` puts the fill value where a slice is not wholly inside.
- A scatter is one ``stablehlo.scatter`` whose update computation region is
  the primitive's combiner (replace, add, multiply, min, max) on two
  scalars; XLA drops a window that is not wholly inside, which is
  ``FILL_OR_DROP`` and ``PROMISE_IN_BOUNDS``; ``CLIP`` clamps the indices
  first.
- Index comparisons and clamps are done in the indices' own dtype (XLA
  reads unsigned indices as unsigned), with bounds capped at the dtype's
  maximum.
- Empty results and empty updates never reach XLA: they are a constant
  and the operand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.dtypes import DType
from didax.core.lax.indexing import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    default_fill_value,
    scatter_slice_sizes,
)
from didax.core.primitive import Primitive
from didax.lowering.mlir import (
    LOWERING_RULES,
    IrValue,
    LoweringRuleContext,
    aval_to_ir_type,
    constant,
    dense_i64,
    dtype_to_ir_type,
    full,
)
from didax.lowering.rules import compare


def _bounds(
    indices_dtype: DType, operand_shape: Sequence[int], sizes: Sequence[int], dims: Sequence[int]
) -> IrValue:
    """A vector of the largest in-bounds start along each of ``dims``, in the indices' dtype."""
    top = int(np.iinfo(indices_dtype.name).max)
    values = [min(operand_shape[d] - sizes[d], top) for d in dims]
    return constant(np.asarray(values, indices_dtype))


def _broadcast_vector(vector: IrValue, aval: ShapedArray) -> IrValue:
    """A per-index-component vector broadcast along the indices' last axis."""
    return hlo.broadcast_in_dim(aval_to_ir_type(aval), vector, dense_i64((aval.ndim - 1,)))


def _in_bounds(
    indices: IrValue, aval: ShapedArray, upper: IrValue, batch_aval: ShapedArray
) -> IrValue:
    """Whether every component of each index vector is in ``[0, upper]`` (a bool per vector)."""
    ok = hlo.and_(
        compare(indices, full(aval, 0), "GE", aval.dtype),
        compare(indices, _broadcast_vector(upper, aval), "LE", aval.dtype),
    )
    op = hlo.ReduceOp(
        [aval_to_ir_type(batch_aval)],
        [ok],
        [constant(np.asarray(True))],
        dense_i64((aval.ndim - 1,)),
    )
    scalar = ir.RankedTensorType.get((), dtype_to_ir_type(dtypes.bool_))
    block = op.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        hlo.return_([hlo.and_(*block.arguments)])
    result: IrValue = op.result
    return result


@LOWERING_RULES.defines(lax.gather_p)
def _gather_lowering(
    ctx: LoweringRuleContext,
    operand: IrValue,
    indices: IrValue,
    *,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: tuple[int, ...],
    unique_indices: bool,
    indices_are_sorted: bool,
    mode: GatherScatterMode,
    fill_value: bool | int | float | None,
) -> list[IrValue]:
    operand_aval, indices_aval = ctx.avals_in
    out_aval = ctx.avals_out[0]
    if out_aval.size == 0:
        return [full(out_aval, 0)]
    dn = dimension_numbers
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
        dense_i64(slice_sizes),
        indices_are_sorted=ir.BoolAttr.get(indices_are_sorted),
    )
    if mode is not GatherScatterMode.FILL_OR_DROP or not dn.start_index_map:
        return [out]
    batch_aval = ShapedArray(indices_aval.shape[:-1], dtypes.bool_)
    upper = _bounds(indices_aval.dtype, operand_aval.shape, slice_sizes, dn.start_index_map)
    mask = _in_bounds(indices, indices_aval, upper, batch_aval)
    batch_dims = [i for i in range(out_aval.ndim) if i not in dn.offset_dims]
    mask = hlo.broadcast_in_dim(
        aval_to_ir_type(ShapedArray(out_aval.shape, dtypes.bool_)), mask, dense_i64(batch_dims)
    )
    value = default_fill_value(out_aval.dtype) if fill_value is None else fill_value
    return [hlo.select(mask, out, full(out_aval, value))]


def _combiner(
    combine: Callable[[IrValue, IrValue, DType], IrValue],
) -> Callable[..., list[IrValue]]:
    def rule(
        ctx: LoweringRuleContext,
        operand: IrValue,
        indices: IrValue,
        updates: IrValue,
        *,
        dimension_numbers: ScatterDimensionNumbers,
        indices_are_sorted: bool,
        unique_indices: bool,
        mode: GatherScatterMode,
    ) -> list[IrValue]:
        operand_aval, indices_aval, updates_aval = ctx.avals_in
        if updates_aval.size == 0:
            return [operand]
        dn = dimension_numbers
        if operand_aval.ndim == 0:
            return _scalar_scatter(ctx, operand, updates, unique_indices, combine)
        if mode is GatherScatterMode.CLIP and dn.scatter_dims_to_operand_dims:
            sizes = scatter_slice_sizes(operand_aval.shape, updates_aval.shape, dn)
            upper = _bounds(
                indices_aval.dtype, operand_aval.shape, sizes, dn.scatter_dims_to_operand_dims
            )
            indices = hlo.clamp(
                full(indices_aval, 0), indices, _broadcast_vector(upper, indices_aval)
            )
        return [
            _scatter_op(
                operand,
                indices,
                updates,
                dn,
                indices_aval.ndim - 1,
                operand_aval,
                indices_are_sorted,
                unique_indices,
                combine,
            )
        ]

    return rule


def _scatter_op(
    operand: IrValue,
    indices: IrValue,
    updates: IrValue,
    dn: ScatterDimensionNumbers,
    index_vector_dim: int,
    operand_aval: ShapedArray,
    indices_are_sorted: bool,
    unique_indices: bool,
    combine: Callable[[IrValue, IrValue, DType], IrValue],
) -> IrValue:
    """One ``stablehlo.scatter`` whose update region is ``combine`` on two scalars."""
    dnums = hlo.ScatterDimensionNumbers.get(
        update_window_dims=list(dn.update_window_dims),
        inserted_window_dims=list(dn.inserted_window_dims),
        input_batching_dims=list(dn.operand_batching_dims),
        scatter_indices_batching_dims=list(dn.scatter_indices_batching_dims),
        scattered_dims_to_operand_dims=list(dn.scatter_dims_to_operand_dims),
        index_vector_dim=index_vector_dim,
    )
    op = hlo.ScatterOp(
        [aval_to_ir_type(operand_aval)],
        [operand],
        indices,
        [updates],
        dnums,
        indices_are_sorted=ir.BoolAttr.get(indices_are_sorted),
        unique_indices=ir.BoolAttr.get(unique_indices),
    )
    dtype = operand_aval.dtype
    scalar = ir.RankedTensorType.get((), dtype_to_ir_type(dtype))
    block = op.update_computation.blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        current, update = block.arguments
        hlo.return_([combine(current, update, dtype)])
    result: IrValue = op.results[0]
    return result


def _scalar_scatter(
    ctx: LoweringRuleContext,
    operand: IrValue,
    updates: IrValue,
    unique_indices: bool,
    combine: Callable[[IrValue, IrValue, DType], IrValue],
) -> list[IrValue]:
    """A scatter into a rank-0 operand, as one into a 1-element vector (XLA's verifier
    refuses a scatter with empty index vectors into a scalar). Every update lands."""
    operand_aval, _, updates_aval = ctx.avals_in
    vector = ShapedArray((1,), operand_aval.dtype)
    index_aval = ShapedArray((*updates_aval.shape, 1), dtypes.int32)
    out = _scatter_op(
        hlo.reshape(aval_to_ir_type(vector), operand),
        full(index_aval, 0),
        updates,
        ScatterDimensionNumbers((), (0,), (0,)),
        updates_aval.ndim,
        vector,
        False,
        unique_indices,
        combine,
    )
    return [hlo.reshape(aval_to_ir_type(operand_aval), out)]


def _is_bool(dtype: DType) -> bool:
    return dtype == dtypes.bool_


# On booleans min is "and" and max is "or", said directly (as lowering.rules does).
_COMBINERS: Final[dict[Primitive, Callable[[IrValue, IrValue, DType], IrValue]]] = {
    lax.scatter_p: lambda x, y, d: y,
    lax.scatter_add_p: lambda x, y, d: hlo.add(x, y),
    lax.scatter_mul_p: lambda x, y, d: hlo.multiply(x, y),
    lax.scatter_min_p: lambda x, y, d: hlo.and_(x, y) if _is_bool(d) else hlo.minimum(x, y),
    lax.scatter_max_p: lambda x, y, d: hlo.or_(x, y) if _is_bool(d) else hlo.maximum(x, y),
}
for _prim, _combine in _COMBINERS.items():
    LOWERING_RULES.register(_prim, _combiner(_combine))
