"""``while``'s lowering: ``stablehlo.while``, the predicate and the body as its two regions.

Design rules:
- Only the carry goes around the loop: the regions read the loop's
  constants from the enclosing scope (StableHLO regions may capture
  values).
- The predicate and the body are lowered inline into their regions with
  ``lower_jaxpr_body``.
"""

from __future__ import annotations

from typing import Any

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core.lax.while_loop import WhileParams, while_p
from didax.ir.jaxpr import Jaxpr
from didax.lowering import mlir
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext


@LOWERING_RULES.defines(while_p)
def _while_lowering(ctx: LoweringRuleContext, *args: IrValue, **params: Any) -> list[IrValue]:
    p: WhileParams[Jaxpr] = WhileParams(**params)
    mctx = ctx.module_context
    cconsts, bconsts, init = p.split(args)
    carry_types = [mlir.aval_to_ir_type(a) for a in ctx.avals_out]
    # With ordered effects the token is the last carry.
    token = mlir.threads_token(p.cond_jaxpr, p.body_jaxpr)
    n = len(carry_types)
    op = hlo.WhileOp(
        [*carry_types, mlir.token_type()] if token else carry_types,
        [*init, mctx.current_token()] if token else list(init),
    )
    cond_block = op.regions[0].blocks.append(*(r.type for r in op.results))
    with ir.InsertionPoint(cond_block):
        if token:
            mctx.token = cond_block.arguments[n]
        (pred,) = mlir.lower_jaxpr_body(mctx, p.cond_jaxpr, [*cconsts, *cond_block.arguments[:n]])
        hlo.return_([pred])
    body_block = op.regions[1].blocks.append(*(r.type for r in op.results))
    with ir.InsertionPoint(body_block):
        if token:
            mctx.token = body_block.arguments[n]
        outs = mlir.lower_jaxpr_body(mctx, p.body_jaxpr, [*bconsts, *body_block.arguments[:n]])
        hlo.return_([*outs, mctx.current_token()] if token else outs)
    results: list[IrValue] = list(op.results)
    if token:
        mctx.token = results[n]
    return results[:n]
