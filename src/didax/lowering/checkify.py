"""``check``'s lowering: none; a check must be functionalized by ``checkify`` first (as JAX)."""

from __future__ import annotations

from typing import Any

from didax.core.lax.checkify import NOT_FUNCTIONALIZED, check_p
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext


@LOWERING_RULES.defines(check_p)
def _check_lowering(ctx: LoweringRuleContext, *args: IrValue, **params: Any) -> list[IrValue]:
    raise ValueError(NOT_FUNCTIONALIZED)
