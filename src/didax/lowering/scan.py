"""``scan``'s lowering: a counted ``stablehlo.while`` that slices ``xs`` and writes ``ys``.

Design rules:
- The loop's carry is ``(i, *carry, *ys)``: the ``ys`` start as zeros of
  their stacked shape and each iteration writes its slice with a
  ``dynamic_update_slice``; each ``x`` is read with a ``dynamic_slice`` at
  the counter (from the end when ``reverse``).
- ``unroll`` copies of the body run per trip; the ``length % unroll``
  iterations left over run after the loop. A scan of length 0 runs
  nothing: no slice of an empty ``x`` is valid.
- The consts are read from the enclosing scope, as ``while``'s are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.lax.scan import ScanParams, scan_p, slice_aval
from didax.ir.jaxpr import Jaxpr
from didax.lowering import mlir
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext
from didax.lowering.rules import compare


@LOWERING_RULES.defines(scan_p)
def _scan_lowering(ctx: LoweringRuleContext, *args: IrValue, **params: Any) -> list[IrValue]:
    """A counted ``stablehlo.while``: slice ``xs`` at the counter, write ``ys`` there.

    The loop's carry is ``(i, *carry, *ys)``; the ``ys`` start as zeros of
    their stacked shape and each iteration writes its slice with a
    ``dynamic_update_slice``. ``unroll`` copies of the body run per trip;
    the ``length % unroll`` iterations left over run after the loop.
    """
    p: ScanParams[Jaxpr] = ScanParams(**params)
    jaxpr, num_carry, length, reverse = p.jaxpr, p.num_carry, p.length, p.reverse
    mctx = ctx.module_context
    consts, init, xs = p.split(args)
    _, _, xs_avals = p.split(ctx.avals_in)
    ys_avals = ctx.avals_out[num_carry:]
    counter = ShapedArray((), dtypes.int32)
    i_type = mlir.aval_to_ir_type(counter)
    zero_index = mlir.constant(np.zeros((), np.int32))

    def step(
        i: IrValue, carry: Sequence[IrValue], ys: Sequence[IrValue]
    ) -> tuple[IrValue, list[IrValue], list[IrValue]]:
        at = hlo.subtract(mlir.full(counter, length - 1), i) if reverse else i
        x_slices = []
        for x, aval in zip(xs, xs_avals, strict=True):
            sizes = (1, *aval.shape[1:])
            piece = hlo.dynamic_slice(
                x, [at, *[zero_index] * (aval.ndim - 1)], mlir.dense_i64(sizes)
            )
            x_slices.append(hlo.reshape(mlir.aval_to_ir_type(slice_aval(aval)), piece))
        outs = mlir.lower_jaxpr_body(mctx, jaxpr, [*consts, *carry, *x_slices])
        new_ys: list[IrValue] = []
        for buf, y, aval in zip(ys, outs[num_carry:], ys_avals, strict=True):
            one = ShapedArray((1, *aval.shape[1:]), aval.dtype)
            row = hlo.reshape(mlir.aval_to_ir_type(one), y)
            new_ys.append(hlo.dynamic_update_slice(buf, row, [at, *[zero_index] * (aval.ndim - 1)]))
        next_i: IrValue = hlo.add(i, mlir.full(counter, 1))
        return next_i, outs[:num_carry], new_ys

    if length == 0:  # no iteration: the carry as given, empty ys (no slice of xs is valid)
        return [*init, *(mlir.full(a, 0) for a in ys_avals)]
    unroll = max(1, min(p.unroll, length))
    trips = length // unroll
    ys_init = [mlir.full(a, 0) for a in ys_avals]
    i0 = mlir.constant(np.zeros((), np.int32))
    carry_types: list[ir.Type] = [i_type, *(mlir.aval_to_ir_type(a) for a in ctx.avals_out)]
    # With ordered effects the token is the last carry.
    token = mlir.threads_token(jaxpr)
    n = len(carry_types)
    if token:
        carry_types.append(mlir.token_type())
    op = hlo.WhileOp(carry_types, [i0, *init, *ys_init, *([mctx.current_token()] if token else [])])
    cond_block = op.regions[0].blocks.append(*carry_types)
    with ir.InsertionPoint(cond_block):
        i = cond_block.arguments[0]
        hlo.return_([compare(i, mlir.full(counter, trips * unroll), "LT", counter.dtype)])
    body_block = op.regions[1].blocks.append(*carry_types)
    with ir.InsertionPoint(body_block):
        state: list[IrValue] = list(body_block.arguments)
        if token:
            mctx.token = state[n]
        i, carry, ys = state[0], state[1 : 1 + num_carry], state[1 + num_carry : n]
        for _ in range(unroll):
            i, carry, ys = step(i, carry, ys)
        hlo.return_([i, *carry, *ys, *([mctx.current_token()] if token else [])])
    results: list[IrValue] = list(op.results)
    if token:
        mctx.token = results[n]
    i, carry, ys = results[0], results[1 : 1 + num_carry], results[1 + num_carry : n]
    for _ in range(length - trips * unroll):
        i, carry, ys = step(i, carry, ys)
    return [*carry, *ys]
