"""``cond``'s lowering: ``stablehlo.case``, one region per branch.

Design rules:
- Each branch is lowered inline into its region with ``lower_jaxpr_body``;
  the regions read the operands from the enclosing scope.
- ``stablehlo.case`` runs the last branch for an index out of range;
  ``lax.switch`` clamps the index before binding, so that never matters
  here.
"""

from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core.lax.cond import cond_p
from didax.ir.jaxpr import Jaxpr
from didax.lowering import mlir
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext


@LOWERING_RULES.defines(cond_p)
def _cond_lowering(
    ctx: LoweringRuleContext, index: IrValue, *ops: IrValue, branches: tuple[Jaxpr, ...]
) -> list[IrValue]:
    mctx = ctx.module_context
    out_types = [mlir.aval_to_ir_type(a) for a in ctx.avals_out]
    # With ordered effects each branch continues the token and returns it last.
    token, n = mlir.threads_token(*branches), len(out_types)
    outer = mctx.token
    op = hlo.CaseOp([*out_types, mlir.token_type()] if token else out_types, index, len(branches))
    for branch, region in zip(branches, op.regions, strict=True):
        block = region.blocks.append()
        with ir.InsertionPoint(block):
            mctx.token = outer
            outs = mlir.lower_jaxpr_body(mctx, branch, ops)
            hlo.return_([*outs, mctx.current_token()] if token else outs)
    results: list[IrValue] = list(op.results)
    mctx.token = results[n] if token else outer
    return results[:n]
