"""Lowering rules of the call-like higher-order primitives: the jit call, custom calls, checkpoint.

The control-flow primitives lower in their families' modules
(``lowering.cond``, ``lowering.while_loop``, ``lowering.scan``).

Design rules:
- A nested jit call is a ``func.call`` of a private function, emitted once
  per module for equal bodies (``ModuleContext.function_for``).
- A custom_jvp or custom_vjp call lowers to its function, inline; so does a
  checkpointed region.
"""

from __future__ import annotations

from typing import Any

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func

from didax.interpreters.checkpoint import remat_p
from didax.interpreters.custom_derivatives import (
    custom_jvp_call_p,
    custom_lin_p,
    custom_vjp_call_p,
    forward_mode_refused,
)
from didax.interpreters.jit import jit_p
from didax.ir.jaxpr import Jaxpr
from didax.lowering.mlir import (
    LOWERING_RULES,
    IrValue,
    LoweringRuleContext,
    aval_to_ir_type,
    lower_jaxpr_body,
)


@LOWERING_RULES.defines(jit_p)
def _jit_lowering(
    ctx: LoweringRuleContext, *args: IrValue, jaxpr: Jaxpr, name: str
) -> list[IrValue]:
    fn = ctx.module_context.function_for(jaxpr, name)
    out_types = [aval_to_ir_type(a) for a in ctx.avals_out]
    callee = ir.FlatSymbolRefAttr.get(fn.sym_name.value)
    return list(func.CallOp(out_types, callee, list(args)).results)


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
