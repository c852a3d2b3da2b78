"""The StableHLO lowering of the windowed reductions (``core.lax.windows``).

Design rules:
- Each lowers as JAX's does, op for op: the monoid windows and the generic
  one to one ``stablehlo.reduce_window`` (its reducer region holding
  ``add``, ``maximum``/``minimum`` of ``lowering.rules``, or the reducer
  jaxpr lowered inline); ``select_and_gather_add`` to one variadic
  ``reduce_window`` over (operand, tangent) pairs whose reducer keeps the
  pair whose operand compares ``GE`` (``LE``) to the other's;
  ``select_and_scatter_add`` to ``stablehlo.select_and_scatter`` on the
  operand padded explicitly with the window's identity and sliced back
  (JAX's workaround for XLA's CPU and GPU crashes on padded
  select-and-scatter, on every platform here).
- Every attribute is spelled out (unit dilations, zero padding), as JAX
  spells them; init values are scalar constants.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Unpack

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.dtypes import DType
from didax.core.lax.elementwise import ge_p
from didax.core.lax.windows import (
    CHOOSERS,
    Pairs,
    ScatterKwargs,
    WindowKwargs,
    WindowParams,
    identity,
    reduce_window_p,
    reduce_window_sum_p,
    scatter_kwargs,
    select_and_gather_add_p,
    select_and_scatter_add_p,
    select_and_scatter_p,
)
from didax.core.primitive import Primitive
from didax.ir.jaxpr import Jaxpr
from didax.lowering import mlir
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext
from didax.lowering.rules import compare, maximum, minimum

__all__: list[str] = []

# The reducer region: its block's arguments (each side's scalars) to its results.
Body = Callable[[Sequence[IrValue]], Sequence[IrValue]]


def _padding_attr(padding: Pairs) -> ir.DenseIntElementsAttr:
    pads = np.ascontiguousarray(np.asarray(padding, np.int64).reshape(len(padding), 2))
    attr: ir.DenseIntElementsAttr = ir.DenseIntElementsAttr.get(pads.data, shape=[len(padding), 2])
    return attr


def _region(region: ir.Region, scalar_dtypes: Sequence[DType], body: Body) -> None:
    scalars = [ir.RankedTensorType.get((), mlir.dtype_to_ir_type(d)) for d in scalar_dtypes]
    block = region.blocks.append(*scalars, *scalars)
    with ir.InsertionPoint(block):
        hlo.return_(list(body(list(block.arguments))))


def reduce_window(
    operands: Sequence[IrValue],
    inits: Sequence[IrValue],
    out_avals: Sequence[ShapedArray],
    w: WindowParams,
    body: Body,
) -> list[IrValue]:
    """One ``stablehlo.reduce_window`` of ``operands`` (the reducer built by ``body``)."""
    op = hlo.ReduceWindowOp(
        [mlir.aval_to_ir_type(a) for a in out_avals],
        list(operands),
        list(inits),
        mlir.dense_i64(w.window_dimensions),
        window_strides=mlir.dense_i64(w.window_strides),
        base_dilations=mlir.dense_i64(w.base_dilation),
        window_dilations=mlir.dense_i64(w.window_dilation),
        padding=_padding_attr(w.padding),
    )
    _region(op.regions[0], [a.dtype for a in out_avals], body)
    return list(op.results)


def _scalar(value: object, dtype: DType) -> IrValue:
    return mlir.constant(np.asarray(value, dtype))


def _monoid_rule(
    prim: Primitive,
    combine: Callable[[IrValue, IrValue, DType], IrValue],
    unit: Callable[[DType], object],
) -> None:
    def rule(ctx: LoweringRuleContext, x: IrValue, **params: Unpack[WindowKwargs]) -> list[IrValue]:
        dtype = ctx.avals_in[0].dtype
        init = _scalar(unit(dtype), dtype)
        w = WindowParams(**params)
        return reduce_window([x], [init], ctx.avals_out, w, lambda a: [combine(a[0], a[1], dtype)])

    LOWERING_RULES.register(prim, rule)


def _chooser(select_prim: Primitive) -> Callable[[IrValue, IrValue, DType], IrValue]:
    return maximum if select_prim is ge_p else minimum


def _identity(select_prim: Primitive) -> Callable[[DType], object]:
    return lambda dtype: identity(select_prim, dtype)


_monoid_rule(reduce_window_sum_p, lambda x, y, _: hlo.add(x, y), lambda _: 0)
for _prim, _select in CHOOSERS.items():
    _monoid_rule(_prim, _chooser(_select), _identity(_select))


def _direction(select_prim: Primitive) -> str:
    return "GE" if select_prim is ge_p else "LE"


@LOWERING_RULES.defines(select_and_gather_add_p)
def _select_and_gather_add_lowering(
    ctx: LoweringRuleContext,
    tangents: IrValue,
    x: IrValue,
    *,
    select_prim: Primitive,
    **params: Unpack[WindowKwargs],
) -> list[IrValue]:
    dtype = ctx.avals_in[1].dtype
    direction = _direction(select_prim)

    def body(args: Sequence[IrValue]) -> list[IrValue]:
        kx, vx, ky, vy = args
        which = compare(kx, ky, direction, dtype)
        return [hlo.select(which, kx, ky), hlo.select(which, vx, vy)]

    out = ctx.avals_out[0]
    _, result = reduce_window(
        [x, tangents],
        [mlir.constant(identity(select_prim, dtype)), _scalar(0, dtype)],
        [out.update(dtype=dtype), out],
        WindowParams(**params),
        body,
    )
    return [result]


@LOWERING_RULES.defines(select_and_scatter_add_p)
def _select_and_scatter_add_lowering(
    ctx: LoweringRuleContext,
    source: IrValue,
    x: IrValue,
    *,
    select_prim: Primitive,
    **params: Unpack[ScatterKwargs],
) -> list[IrValue]:
    window_dimensions, window_strides, padding = scatter_kwargs(params)
    if not window_dimensions:
        # A rank-0 operand is its one window: the source lands on it. (XLA's
        # CPU compiler aborts on a rank-0 select_and_scatter, JAX's lowering too.)
        return [source]
    operand = ctx.avals_in[1]
    dtype = ctx.avals_out[0].dtype
    lows, highs = [lo for lo, _ in padding], [hi for _, hi in padding]
    padded = hlo.pad(
        x,
        mlir.constant(identity(select_prim, operand.dtype)),
        mlir.dense_i64(lows),
        mlir.dense_i64(highs),
        mlir.dense_i64([0] * len(padding)),
    )
    padded_shape = [n + lo + hi for n, (lo, hi) in zip(operand.shape, padding, strict=True)]
    op = hlo.SelectAndScatterOp(
        ir.RankedTensorType.get(padded_shape, mlir.dtype_to_ir_type(dtype)),
        padded,
        source,
        _scalar(0, dtype),
        window_dimensions=mlir.dense_i64(window_dimensions),
        window_strides=mlir.dense_i64(window_strides),
        padding=_padding_attr(((0, 0),) * len(padding)),
    )
    direction = _direction(select_prim)
    _region(op.select, [operand.dtype], lambda a: [compare(a[0], a[1], direction, operand.dtype)])
    scatter = hlo.or_ if dtype == dtypes.bool_ else hlo.add
    _region(op.scatter, [dtype], lambda a: [scatter(a[0], a[1])])
    limits = [lo + n for lo, n in zip(lows, operand.shape, strict=True)]
    return [
        hlo.slice(
            op.result, mlir.dense_i64(lows), mlir.dense_i64(limits), mlir.dense_i64([1] * len(lows))
        )
    ]


@LOWERING_RULES.defines(reduce_window_p)
def _reduce_window_lowering(
    ctx: LoweringRuleContext, *args: IrValue, jaxpr: Jaxpr, **params: Unpack[WindowKwargs]
) -> list[IrValue]:
    n = len(args) // 2
    return reduce_window(
        args[:n],
        args[n:],
        ctx.avals_out,
        WindowParams(**params),
        _body_of(ctx, jaxpr),
    )


@LOWERING_RULES.defines(select_and_scatter_p)
def _select_and_scatter_lowering(
    ctx: LoweringRuleContext,
    operand: IrValue,
    source: IrValue,
    init_value: IrValue,
    *,
    select_jaxpr: Jaxpr,
    scatter_jaxpr: Jaxpr,
    **params: Unpack[ScatterKwargs],
) -> list[IrValue]:
    window_dimensions, window_strides, padding = scatter_kwargs(params)
    dtype = ctx.avals_out[0].dtype
    if not window_dimensions:
        # A rank-0 operand is its one window, which the select must choose:
        # the result is scatter(init_value, source) (XLA's CPU compiler aborts
        # on a rank-0 select_and_scatter).
        return mlir.lower_jaxpr_body(ctx.module_context, scatter_jaxpr, [init_value, source])
    op = hlo.SelectAndScatterOp(
        mlir.aval_to_ir_type(ctx.avals_out[0]),
        operand,
        source,
        init_value,
        window_dimensions=mlir.dense_i64(window_dimensions),
        window_strides=mlir.dense_i64(window_strides),
        padding=_padding_attr(padding),
    )
    for region, jaxpr in ((op.select, select_jaxpr), (op.scatter, scatter_jaxpr)):
        _region(region, [dtype], _body_of(ctx, jaxpr))
    return [op.result]


def _body_of(ctx: LoweringRuleContext, jaxpr: Jaxpr) -> Body:
    """A region's body: ``jaxpr`` lowered on the region's arguments."""
    return lambda args: mlir.lower_jaxpr_body(ctx.module_context, jaxpr, args)
