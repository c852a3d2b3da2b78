"""StableHLO lowering of the scatter family (``core.lax.scatter``).

Design rules:
- A scatter is one ``stablehlo.scatter`` whose update computation region is
  the primitive's combiner (replace, add, multiply, min, max) on two
  scalars; XLA drops a window that is not wholly inside, which is
  ``FILL_OR_DROP`` and ``PROMISE_IN_BOUNDS``; ``CLIP`` clamps the indices
  first, with gather's bounds (``lowering.indexing``), in the indices' own
  dtype.
- Empty updates never reach XLA: the result is the operand.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.dtypes import DType
from didax.core.lax.indexing import (
    GatherScatterMode,
    ScatterDimensionNumbers,
    scatter_slice_sizes,
)
from didax.core.primitive import Primitive
from didax.lowering.indexing import _bounds, _broadcast_vector
from didax.lowering.mlir import (
    LOWERING_RULES,
    IrValue,
    LoweringRuleContext,
    aval_to_ir_type,
    dtype_to_ir_type,
    full,
)


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
    lax.scatter_sub_p: lambda x, y, d: hlo.subtract(x, y),
    lax.scatter_mul_p: lambda x, y, d: hlo.multiply(x, y),
    lax.scatter_min_p: lambda x, y, d: hlo.and_(x, y) if _is_bool(d) else hlo.minimum(x, y),
    lax.scatter_max_p: lambda x, y, d: hlo.or_(x, y) if _is_bool(d) else hlo.maximum(x, y),
}
for _prim, _combine in _COMBINERS.items():
    LOWERING_RULES.register(_prim, _combiner(_combine))
