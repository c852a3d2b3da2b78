"""The StableHLO lowering of the reductions (``core.lax.reductions``).

Design rules:
- A reduction is a ``stablehlo.reduce`` (``stablehlo_reduce``) whose
  reducer is the binary operation and whose init value its identity: 0, 1,
  and the dtype's least and greatest values for max and min
  (``lowering.rules.max_identity``); booleans and complex numbers go
  through ``lowering.rules.maximum``/``minimum``, as ``max_p``/``min_p``.
- The bitwise reductions reduce with ``and``/``or``/``xor`` from all ones
  (``-1``, ``True``) or zero.
- The generic ``reduce_p`` is a ``stablehlo.reduce`` whose region is its
  reducer lowered inline, its (concrete) constants emitted as constants
  there: the region reads nothing from outside.
- An arg-extremum is a variadic reduce over (value, index) pairs under a
  total order (NaN first, then the extremum, then the smaller index), so
  that XLA may combine pairs in any order and still return NumPy's answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.dtypes import DType
from didax.core.lax import reductions as red
from didax.ir.jaxpr import ClosedJaxpr
from didax.lowering import mlir
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext
from didax.lowering.rules import compare, max_identity, maximum, min_identity, minimum

__all__ = ["stablehlo_reduce"]

# Builds a region's results from its block arguments (scalars).
RegionBody: TypeAlias = Callable[[Sequence[IrValue]], Sequence[IrValue]]


def _scalar_type(dtype: DType) -> ir.RankedTensorType:
    return ir.RankedTensorType.get((), mlir.dtype_to_ir_type(dtype))


def stablehlo_reduce(
    operands: Sequence[IrValue],
    init_values: Sequence[IrValue],
    axes: Sequence[int],
    in_dtypes: Sequence[DType],
    out_avals: Sequence[ShapedArray],
    body: RegionBody,
) -> list[IrValue]:
    """A (variadic) ``stablehlo.reduce`` over ``axes`` whose reducer is ``body``.

    The reducer gets the accumulators first, then the elements:
    ``body([acc_0, ..., acc_n, x_0, ..., x_n])``.
    """
    op = hlo.ReduceOp(
        [mlir.aval_to_ir_type(a) for a in out_avals],
        list(operands),
        list(init_values),
        mlir.dense_i64(axes),
    )
    scalar_types = [_scalar_type(d) for d in in_dtypes]
    block = op.regions[0].blocks.append(*scalar_types, *scalar_types)
    with ir.InsertionPoint(block):
        hlo.return_(list(body(list(block.arguments))))
    return list(op.results)


def _monoid_reduction_rule(
    identity: Callable[[DType], bool | int | float | complex],
    combine: Callable[[IrValue, IrValue, DType], IrValue],
) -> Callable[..., list[IrValue]]:
    def rule(ctx: LoweringRuleContext, x: IrValue, *, axes: tuple[int, ...]) -> list[IrValue]:
        if not axes:
            return [x]
        aval_out = ctx.avals_out[0]
        dtype = aval_out.dtype
        init = mlir.constant(np.asarray(identity(dtype), dtype))
        return stablehlo_reduce(
            [x], [init], axes, [dtype], [aval_out], lambda a: [combine(a[0], a[1], dtype)]
        )

    return rule


# Sums and products over an empty axis give the identity, as NumPy's; max and
# min over one are refused by the impl (and give -inf/+inf, or the dtype's
# extremes, here).
LOWERING_RULES.register(
    red.reduce_sum_p, _monoid_reduction_rule(lambda d: 0, lambda x, y, d: hlo.add(x, y))
)
LOWERING_RULES.register(
    red.reduce_prod_p, _monoid_reduction_rule(lambda d: 1, lambda x, y, d: hlo.multiply(x, y))
)
LOWERING_RULES.register(red.reduce_max_p, _monoid_reduction_rule(max_identity, maximum))
LOWERING_RULES.register(red.reduce_min_p, _monoid_reduction_rule(min_identity, minimum))


def _all_ones(dtype: DType) -> bool | int:
    all_ones: bool | int = np.array(-1).astype(dtype).item()
    return all_ones


LOWERING_RULES.register(
    red.reduce_and_p, _monoid_reduction_rule(_all_ones, lambda x, y, d: hlo.and_(x, y))
)
LOWERING_RULES.register(
    red.reduce_or_p, _monoid_reduction_rule(lambda d: 0, lambda x, y, d: hlo.or_(x, y))
)
LOWERING_RULES.register(
    red.reduce_xor_p, _monoid_reduction_rule(lambda d: 0, lambda x, y, d: hlo.xor(x, y))
)


@LOWERING_RULES.defines(red.reduce_p)
def _reduce_lowering(
    ctx: LoweringRuleContext, *args: IrValue, jaxpr: ClosedJaxpr, dimensions: tuple[int, ...]
) -> list[IrValue]:
    n = len(args) // 2
    in_dtypes = [a.dtype for a in ctx.avals_in[n:]]

    def body(scalars: Sequence[IrValue]) -> Sequence[IrValue]:
        consts = [mlir.constant(np.asarray(c)) for c in jaxpr.consts]
        return mlir.lower_jaxpr_body(ctx.module_context, jaxpr.jaxpr, [*consts, *scalars])

    return stablehlo_reduce(args[:n], args[n:], dimensions, in_dtypes, ctx.avals_out, body)


def _arg_extremum(
    ctx: LoweringRuleContext,
    x: IrValue,
    axis: int,
    index_dtype: DType,
    direction: str,
    identity: bool | int | float | complex,
) -> list[IrValue]:
    """A variadic reduce over (value, index) pairs keeping the first extremal index.

    NumPy's argmax/argmin treat NaN as more extreme than any number and
    return the first of several NaNs. The reducer picks the better of two
    pairs under a total order -- NaN first, then the extremal value, then
    the smaller index -- so it is associative and commutative, and XLA may
    combine pairs in any order. (JAX's reducer prefers whichever NaN comes
    first in its argument order, which is only right for a left-to-right
    reduction.)
    """
    aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
    dtype = aval_in.dtype
    index_aval = ShapedArray(aval_in.shape, index_dtype)
    indices = hlo.iota(mlir.aval_to_ir_type(index_aval), axis)
    # The identity pairs with index 0: it only ties with an operand whose
    # extremum is the identity itself, all of whose values are the identity,
    # so the answer is index 0 anyway.
    inits = [mlir.constant(np.asarray(identity, dtype)), mlir.constant(np.asarray(0, index_dtype))]

    def body(args: Sequence[IrValue]) -> list[IrValue]:
        x_val, x_idx, y_val, y_idx = args
        better = compare(x_val, y_val, direction, dtype)
        tie = compare(x_val, y_val, "EQ", dtype)
        if dtypes.is_float(dtype):
            x_nan = compare(x_val, x_val, "NE", dtype)
            y_nan = compare(y_val, y_val, "NE", dtype)
            better = hlo.or_(better, hlo.and_(x_nan, hlo.not_(y_nan)))
            tie = hlo.or_(tie, hlo.and_(x_nan, y_nan))
        first = compare(x_idx, y_idx, "LT", index_dtype)
        pick_x = hlo.or_(better, hlo.and_(tie, first))
        return [hlo.select(pick_x, x_val, y_val), hlo.select(pick_x, x_idx, y_idx)]

    value_aval = ShapedArray(aval_out.shape, dtype)
    _, index = stablehlo_reduce(
        [x, indices], inits, (axis,), [dtype, index_dtype], [value_aval, aval_out], body
    )
    return [index]


def _arg_extremum_rule(
    direction: str, identity: Callable[[DType], bool | int | float | complex]
) -> Callable[..., list[IrValue]]:
    def rule(
        ctx: LoweringRuleContext, x: IrValue, *, axis: int, index_dtype: DType
    ) -> list[IrValue]:
        return _arg_extremum(ctx, x, axis, index_dtype, direction, identity(ctx.avals_in[0].dtype))

    return rule


LOWERING_RULES.register(red.argmax_p, _arg_extremum_rule("GT", max_identity))
LOWERING_RULES.register(red.argmin_p, _arg_extremum_rule("LT", min_identity))
