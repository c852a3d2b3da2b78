"""``custom_jvp`` and ``custom_vjp`` calls' lowering: the function itself, inline.

Design rules:
- The user's rules only matter to differentiation: XLA runs the function
  (``call_jaxpr``), lowered in place with ``lower_jaxpr_body``.
- ``custom_lin`` only stands for a linear map to transpose; lowering it is
  JAX's forward-mode error, as evaluating it is.
"""

from __future__ import annotations

from typing import Any

from didax.core.lax.custom_derivatives import custom_jvp_call_p, custom_lin_p, custom_vjp_call_p
from didax.interpreters.custom_derivatives import forward_mode_refused
from didax.ir.jaxpr import Jaxpr
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext, lower_jaxpr_body


@LOWERING_RULES.defines(custom_jvp_call_p, custom_vjp_call_p)
def _custom_call_lowering(
    ctx: LoweringRuleContext, *args: IrValue, call_jaxpr: Jaxpr, **_: Any
) -> list[IrValue]:
    return lower_jaxpr_body(ctx.module_context, call_jaxpr, args)


LOWERING_RULES.register(custom_lin_p, forward_mode_refused)
