"""``linear_call``'s lowering: the function, inline (its transpose matters only to autodiff)."""

from __future__ import annotations

from typing import Any

from didax.core.lax.linear_call import LinearCallParams, linear_call_p
from didax.ir.jaxpr import Jaxpr
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext, lower_jaxpr_body


@LOWERING_RULES.defines(linear_call_p)
def _linear_call_lowering(ctx: LoweringRuleContext, *args: IrValue, **params: Any) -> list[IrValue]:
    p: LinearCallParams[Jaxpr] = LinearCallParams(**params)
    return lower_jaxpr_body(ctx.module_context, p.callee, p.callee_operands(args))
