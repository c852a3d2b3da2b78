"""``linear_call``'s lowering: the function, inline (its transpose matters only to autodiff)."""

from __future__ import annotations

from typing import Any

from didax.core.lax.linear_call import linear_call_p, split_operands
from didax.ir.jaxpr import Jaxpr
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext, lower_jaxpr_body


@LOWERING_RULES.defines(linear_call_p)
def _linear_call_lowering(
    ctx: LoweringRuleContext,
    *args: IrValue,
    callee: Jaxpr,
    num_callee_consts: int,
    num_transpose_consts: int,
    **params: Any,
) -> list[IrValue]:
    consts, _, rest = split_operands(args, num_callee_consts, num_transpose_consts)
    return lower_jaxpr_body(ctx.module_context, callee, [*consts, *rest])
