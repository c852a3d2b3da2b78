"""Lowering rules of the higher-order primitives: the jit call, cond, while and scan.

Design rules:
- A nested jit call is a ``func.call`` of a private function, emitted once
  per module for equal bodies (``ModuleContext.function_for``).
- Control flow lowers to StableHLO's own regions: ``stablehlo.case`` for
  cond, ``stablehlo.while`` for while and scan, each body lowered inline
  into its region with ``lower_jaxpr_body``.
- A custom_jvp or custom_vjp call lowers to its function, inline.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.interpreters.checkpoint import remat_p
from didax.interpreters.custom_derivatives import (
    custom_jvp_call_p,
    custom_lin_p,
    custom_vjp_call_p,
    forward_mode_refused,
)
from didax.interpreters.jit import jit_p
from didax.interpreters.scan import scan_p
from didax.ir.jaxpr import Jaxpr
from didax.lowering.mlir import (
    LOWERING_RULES,
    IrValue,
    LoweringRuleContext,
    aval_to_ir_type,
    constant,
    dense_i64,
    full,
    lower_jaxpr_body,
)
from didax.lowering.rules import compare


@LOWERING_RULES.defines(jit_p)
def _jit_lowering(
    ctx: LoweringRuleContext, *args: IrValue, jaxpr: Jaxpr, name: str
) -> list[IrValue]:
    fn = ctx.module_context.function_for(jaxpr, name)
    out_types = [aval_to_ir_type(a) for a in ctx.avals_out]
    callee = ir.FlatSymbolRefAttr.get(fn.sym_name.value)
    return list(func.CallOp(out_types, callee, list(args)).results)


# --- scan: stablehlo.while over a counter ----------------------------------------------------


@LOWERING_RULES.defines(scan_p)
def _scan_lowering(
    ctx: LoweringRuleContext,
    *args: IrValue,
    jaxpr: Jaxpr,
    num_consts: int,
    num_carry: int,
    length: int,
    reverse: bool,
    unroll: int,
) -> list[IrValue]:
    """A counted ``stablehlo.while``: slice ``xs`` at the counter, write ``ys`` there.

    The loop's carry is ``(i, *carry, *ys)``; the ``ys`` start as zeros of
    their stacked shape and each iteration writes its slice with a
    ``dynamic_update_slice``. ``unroll`` copies of the body run per trip;
    the ``length % unroll`` iterations left over run after the loop.
    """
    mctx = ctx.module_context
    consts, init = args[:num_consts], args[num_consts : num_consts + num_carry]
    xs = args[num_consts + num_carry :]
    xs_avals = ctx.avals_in[num_consts + num_carry :]
    ys_avals = ctx.avals_out[num_carry:]
    counter = ShapedArray((), dtypes.int32)
    i_type = aval_to_ir_type(counter)
    zero_index = constant(np.zeros((), np.int32))

    def step(
        i: IrValue, carry: Sequence[IrValue], ys: Sequence[IrValue]
    ) -> tuple[IrValue, list[IrValue], list[IrValue]]:
        at = hlo.subtract(full(counter, length - 1), i) if reverse else i
        x_slices = []
        for x, aval in zip(xs, xs_avals, strict=True):
            sizes = (1, *aval.shape[1:])
            piece = hlo.dynamic_slice(x, [at, *[zero_index] * (aval.ndim - 1)], dense_i64(sizes))
            x_slices.append(hlo.reshape(aval_to_ir_type(_slice(aval)), piece))
        outs = lower_jaxpr_body(mctx, jaxpr, [*consts, *carry, *x_slices])
        new_ys: list[IrValue] = []
        for buf, y, aval in zip(ys, outs[num_carry:], ys_avals, strict=True):
            one = ShapedArray((1, *aval.shape[1:]), aval.dtype)
            row = hlo.reshape(aval_to_ir_type(one), y)
            new_ys.append(hlo.dynamic_update_slice(buf, row, [at, *[zero_index] * (aval.ndim - 1)]))
        next_i: IrValue = hlo.add(i, full(counter, 1))
        return next_i, outs[:num_carry], new_ys

    if length == 0:  # no iteration: the carry as given, empty ys (no slice of xs is valid)
        return [*init, *(full(a, 0) for a in ys_avals)]
    unroll = max(1, min(unroll, length))
    trips = length // unroll
    ys_init = [full(a, 0) for a in ys_avals]
    i0 = constant(np.zeros((), np.int32))
    carry_types = [i_type, *(aval_to_ir_type(a) for a in ctx.avals_out)]
    op = hlo.WhileOp(carry_types, [i0, *init, *ys_init])
    cond_block = op.regions[0].blocks.append(*carry_types)
    with ir.InsertionPoint(cond_block):
        i = cond_block.arguments[0]
        hlo.return_([compare(i, full(counter, trips * unroll), "LT", counter.dtype)])
    body_block = op.regions[1].blocks.append(*carry_types)
    with ir.InsertionPoint(body_block):
        state: list[IrValue] = list(body_block.arguments)
        i, carry, ys = state[0], state[1 : 1 + num_carry], state[1 + num_carry :]
        for _ in range(unroll):
            i, carry, ys = step(i, carry, ys)
        hlo.return_([i, *carry, *ys])
    results: list[IrValue] = list(op.results)
    i, carry, ys = results[0], results[1 : 1 + num_carry], results[1 + num_carry :]
    for _ in range(length - trips * unroll):
        i, carry, ys = step(i, carry, ys)
    return [*carry, *ys]


def _slice(aval: ShapedArray) -> ShapedArray:
    return ShapedArray(aval.shape[1:], aval.dtype)


# --- custom_jvp / custom_vjp: the function itself ---------------------------------------------


@LOWERING_RULES.defines(custom_jvp_call_p, custom_vjp_call_p)
def _custom_call_lowering(
    ctx: LoweringRuleContext, *args: IrValue, call_jaxpr: Jaxpr, **_: Any
) -> list[IrValue]:
    # The user's rules only matter to differentiation: XLA runs the function.
    return lower_jaxpr_body(ctx.module_context, call_jaxpr, args)


# custom_lin only stands for a linear map to transpose; running it is JAX's error.
LOWERING_RULES.register(custom_lin_p, forward_mode_refused)


# --- checkpoint: the region, inline --------------------------------------------------------


@LOWERING_RULES.defines(remat_p)
def _remat_lowering(
    ctx: LoweringRuleContext, *args: IrValue, jaxpr: Jaxpr, **_: Any
) -> list[IrValue]:
    # What to recompute was decided by partial evaluation; XLA runs the region.
    return lower_jaxpr_body(ctx.module_context, jaxpr, args)
