"""``checkpoint``'s lowering: the region, inline.

Design rules:
- What to recompute was decided by partial evaluation, before lowering;
  XLA runs the region as it is, lowered in place with ``lower_jaxpr_body``.
"""

from __future__ import annotations

from didax.core.lax.checkpoint import name_p, remat_p
from didax.ir.jaxpr import Jaxpr
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext, lower_jaxpr_body


@LOWERING_RULES.defines(remat_p)
def _remat_lowering(
    ctx: LoweringRuleContext, *args: IrValue, jaxpr: Jaxpr, **_: object
) -> list[IrValue]:
    return lower_jaxpr_body(ctx.module_context, jaxpr, args)


@LOWERING_RULES.defines(name_p)
def _name_lowering(ctx: LoweringRuleContext, x: IrValue, *, name: str) -> list[IrValue]:
    return [x]
