"""``custom_vmap`` calls' lowering: the function itself, inline.

Design rule: the user's batching rule only matters to vmap; XLA runs the
function (``call_jaxpr``), lowered in place with ``lower_jaxpr_body``.
"""

from __future__ import annotations

from didax.core.lax.custom_batching import custom_vmap_call_p
from didax.ir.jaxpr import Jaxpr
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext, lower_jaxpr_body


@LOWERING_RULES.defines(custom_vmap_call_p)
def _custom_vmap_call_lowering(
    ctx: LoweringRuleContext, *args: IrValue, call_jaxpr: Jaxpr, **_: object
) -> list[IrValue]:
    return lower_jaxpr_body(ctx.module_context, call_jaxpr, args)
