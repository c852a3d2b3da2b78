"""``linear_solve``'s lowering: the ``solve`` program, inlined.

Design rules:
- As JAX's lowering (its impl, lowered): the solve runs ``solve`` on its
  constants and ``b``; ``matvec`` and the transposes are only for the
  derivative rules and emit nothing.
"""

from __future__ import annotations

from didax.core.lax.solves import SolveParams, linear_solve_p
from didax.ir.jaxpr import Jaxpr
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext, lower_jaxpr_body


@LOWERING_RULES.defines(linear_solve_p)
def _linear_solve_lowering(
    ctx: LoweringRuleContext, *args: IrValue, **params: object
) -> list[IrValue]:
    p: SolveParams[Jaxpr] = SolveParams.read(params)
    groups, b = p.split(args)
    return lower_jaxpr_body(ctx.module_context, p.solve, [*groups[2], *b])
