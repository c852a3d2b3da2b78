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
from didax.lowering.mlir import (
    LOWERING_RULES,
    IrValue,
    LoweringRuleContext,
    aval_to_ir_type,
    lower_jaxpr_body,
)


@LOWERING_RULES.defines(while_p)
def _while_lowering(ctx: LoweringRuleContext, *args: IrValue, **params: Any) -> list[IrValue]:
    p: WhileParams[Jaxpr] = WhileParams(**params)
    cconsts, bconsts, init = p.split(args)
    carry_types = [aval_to_ir_type(a) for a in ctx.avals_out]
    op = hlo.WhileOp(carry_types, list(init))
    cond_block = op.regions[0].blocks.append(*carry_types)
    with ir.InsertionPoint(cond_block):
        (pred,) = lower_jaxpr_body(
            ctx.module_context, p.cond_jaxpr, [*cconsts, *cond_block.arguments]
        )
        hlo.return_([pred])
    body_block = op.regions[1].blocks.append(*carry_types)
    with ir.InsertionPoint(body_block):
        outs = lower_jaxpr_body(ctx.module_context, p.body_jaxpr, [*bconsts, *body_block.arguments])
        hlo.return_(outs)
    return list(op.results)
