"""``jit``'s lowering: a nested jit call is a ``func.call`` of a private function.

Design rules:
- The function is emitted once per module for equal bodies
  (``ModuleContext.function_for`` keys them by fingerprint), so a body
  called twice is defined once.
- The impl (compile and execute) is ``lowering.eager``'s.
"""

from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func

from didax.core.lax.jit import jit_p
from didax.ir.jaxpr import Jaxpr
from didax.lowering import mlir
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext


@LOWERING_RULES.defines(jit_p)
def _jit_lowering(
    ctx: LoweringRuleContext, *args: IrValue, jaxpr: Jaxpr, name: str
) -> list[IrValue]:
    if mlir.threads_token(jaxpr):
        # Inline: the ordered effects' token stays in the caller's function.
        return mlir.lower_jaxpr_body(ctx.module_context, jaxpr, args)
    fn = ctx.module_context.function_for(jaxpr, name)
    out_types = [mlir.aval_to_ir_type(a) for a in ctx.avals_out]
    callee = ir.FlatSymbolRefAttr.get(fn.sym_name.value)
    return list(func.CallOp(out_types, callee, list(args)).results)
