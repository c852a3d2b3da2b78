"""StableHLO lowering rules for the standard primitives (being written)."""

from __future__ import annotations

from typing import Any

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import lax
from didax.lowering.mlir import LOWERING_RULES, LoweringRuleContext


def _simple(op: Any) -> Any:
    def rule(ctx: LoweringRuleContext, *args: ir.Value, **_: Any) -> list[ir.Value]:
        return [op(*args)]

    return rule


for _p, _op in {
    lax.add_p: hlo.add, lax.sub_p: hlo.subtract, lax.mul_p: hlo.multiply,
    lax.sin_p: hlo.sine, lax.cos_p: hlo.cosine, lax.neg_p: hlo.negate,
    lax.tanh_p: hlo.tanh, lax.exp_p: hlo.exponential,
}.items():
    LOWERING_RULES.register(_p, _simple(_op))
