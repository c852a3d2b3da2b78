"""The StableHLO lowering of the sort primitive and the total-order comparisons.

``eq_to``, ``le_to`` and ``lt_to`` are ``stablehlo.compare`` with the
``TOTALORDER`` comparison type for floats, as JAX lowers them.

A ``stablehlo.sort`` whose comparator is JAX's: lexicographic over the
first ``num_keys`` operands, each compared "less than" in a total order.
Float keys are canonicalised first (``-0.0`` to ``0.0``, every NaN to the
positive quiet NaN) and compared with ``TOTALORDER``, which then orders
``-inf < ... < 0.0 < ... < inf < NaN`` with all zeros and all NaNs equal,
exactly the impl's order; so a stable sort is the impl's permutation.

``top_k`` is ``chlo.top_k`` along the last axis (JAX's lowering: another
axis is transposed there and back). ``approx_top_k`` is what XLA's
fallback computes for JAX's ``ApproxTopK`` custom call off TPUs: a stable
sort of the values and their indices by plain comparison (greater for
``approx_max_k``), cut at ``k``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.dtypes import DType
from didax.core.lax.sorting import approx_top_k_p, eq_to_p, le_to_p, lt_to_p, sort_p, top_k_p
from didax.lowering import mlir
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRule, LoweringRuleContext

__all__: list[str] = []


def _compare(x: IrValue, y: IrValue, direction: str, compare_type: str) -> IrValue:
    return hlo.compare(
        x,
        y,
        hlo.ComparisonDirectionAttr.get(direction),
        compare_type=hlo.ComparisonTypeAttr.get(compare_type),
    )


def _canonical_float(x: IrValue, dtype: DType) -> IrValue:
    zero = mlir.constant(np.zeros((), dtype))
    nan = mlir.constant(np.full((), np.nan, dtype))
    x = hlo.select(_compare(x, zero, "EQ", "FLOAT"), zero, x)
    return hlo.select(_compare(x, x, "NE", "FLOAT"), nan, x)


def _key_order(x: IrValue, y: IrValue, dtype: DType) -> tuple[IrValue, IrValue]:
    """``(x < y, x == y)`` of two scalar keys in JAX's total order."""
    if dtypes.is_float(dtype):
        x, y = _canonical_float(x, dtype), _canonical_float(y, dtype)
        compare_type = "TOTALORDER"
    elif dtypes.kind(dtype) == "i":
        compare_type = "SIGNED"
    else:  # unsigned integers, and booleans (false < true)
        compare_type = "UNSIGNED"
    return _compare(x, y, "LT", compare_type), _compare(x, y, "EQ", compare_type)


def comparator_body(args: Sequence[IrValue], key_dtypes: Sequence[DType]) -> IrValue:
    """The "less than" of the comparator: its arguments are ``x0, y0, x1, y1, ...``."""
    less: IrValue | None = None
    for k in reversed(range(len(key_dtypes))):
        lt, eq = _key_order(args[2 * k], args[2 * k + 1], key_dtypes[k])
        less = lt if less is None else hlo.or_(lt, hlo.and_(eq, less))
    assert less is not None
    return less


@LOWERING_RULES.defines(sort_p)
def _sort_lowering(
    ctx: LoweringRuleContext, *operands: IrValue, dimension: int, is_stable: bool, num_keys: int
) -> list[IrValue]:
    op: Any = hlo.SortOp(
        [mlir.aval_to_ir_type(a) for a in ctx.avals_out],
        list(operands),
        dimension=dimension,
        is_stable=is_stable,
    )
    scalar_types = [
        ir.RankedTensorType.get((), mlir.dtype_to_ir_type(a.dtype)) for a in ctx.avals_in
    ]
    block = op.comparator.blocks.append(*(t for t in scalar_types for _ in range(2)))
    with ir.InsertionPoint(block):
        key_dtypes = [a.dtype for a in ctx.avals_in[:num_keys]]
        hlo.return_([comparator_body(list(block.arguments), key_dtypes)])
    return list(op.results)


def _total_order_rule(direction: str) -> LoweringRule:
    def rule(ctx: LoweringRuleContext, x: IrValue, y: IrValue) -> list[IrValue]:
        dtype = ctx.avals_in[0].dtype
        if dtypes.is_float(dtype):
            compare_type = "TOTALORDER"
        else:
            compare_type = "SIGNED" if dtypes.kind(dtype) == "i" else "UNSIGNED"
        return [_compare(x, y, direction, compare_type)]

    return rule


for _prim, _direction in ((eq_to_p, "EQ"), (le_to_p, "LE"), (lt_to_p, "LT")):
    LOWERING_RULES.register(_prim, _total_order_rule(_direction))


def _transposed(x: IrValue, perm: Sequence[int] | None) -> IrValue:
    return x if perm is None else hlo.transpose(x, mlir.dense_i64(perm))


@LOWERING_RULES.defines(top_k_p)
def _top_k_lowering(ctx: LoweringRuleContext, x: IrValue, *, k: int, axis: int) -> list[IrValue]:
    ndim = ctx.avals_in[0].ndim
    perm: list[int] | None = None
    if axis != ndim - 1:
        perm = list(range(ndim))
        perm[axis], perm[-1] = perm[-1], perm[axis]
    values, indices = chlo.top_k(_transposed(x, perm), k)
    return [_transposed(values, perm), _transposed(indices, perm)]


@LOWERING_RULES.defines(approx_top_k_p)
def _approx_top_k_lowering(
    ctx: LoweringRuleContext,
    x: IrValue,
    *,
    k: int,
    reduction_dimension: int,
    is_max_k: bool,
    **_: object,
) -> list[IrValue]:
    aval = ctx.avals_in[0]
    index_aval = ShapedArray(aval.shape, np.dtype(np.int32))
    iota = hlo.iota(mlir.aval_to_ir_type(index_aval), reduction_dimension)
    op: Any = hlo.SortOp(
        [mlir.aval_to_ir_type(aval), mlir.aval_to_ir_type(index_aval)],
        [x, iota],
        dimension=reduction_dimension,
        is_stable=True,
    )
    scalar = ir.RankedTensorType.get((), mlir.dtype_to_ir_type(aval.dtype))
    index = ir.RankedTensorType.get((), mlir.dtype_to_ir_type(index_aval.dtype))
    block = op.comparator.blocks.append(scalar, scalar, index, index)
    with ir.InsertionPoint(block):
        a, b = block.arguments[0], block.arguments[1]
        hlo.return_(
            [hlo.compare(a, b, hlo.ComparisonDirectionAttr.get("GT" if is_max_k else "LT"))]
        )
    limits = list(aval.shape)
    limits[reduction_dimension] = ctx.avals_out[0].shape[reduction_dimension]
    starts, strides = [0] * aval.ndim, [1] * aval.ndim
    return [
        hlo.slice(r, mlir.dense_i64(starts), mlir.dense_i64(limits), mlir.dense_i64(strides))
        for r in op.results
    ]
