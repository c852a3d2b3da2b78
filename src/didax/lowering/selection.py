"""The StableHLO lowerings of ``select_n`` and ``clamp`` (``core.lax.selection``).

Design rules:
- As JAX lowers them: ``select_n`` with a boolean ``which`` is one
  ``stablehlo.select`` (``which`` true picks the second case); with an
  integer ``which``, a balanced tree of selects, each on ``which < k``
  (so out-of-range values pick an end case, as the impl does). A rank-0
  ``which`` stays rank-0 (``stablehlo.select`` takes a scalar predicate).
- ``clamp`` is ``stablehlo.clamp``; its rank-0 bounds arrive broadcast
  (a ``scalar_operands`` primitive's operands do, ``lowering.mlir``).
"""

from __future__ import annotations

from collections.abc import Sequence

from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core.lax.selection import clamp_p, select_n_p
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext, full
from didax.lowering.rules import compare

__all__: list[str] = []


@LOWERING_RULES.defines(select_n_p)
def _select_n_lowering(ctx: LoweringRuleContext, which: IrValue, *cases: IrValue) -> list[IrValue]:
    which_aval = ctx.avals_in[0]
    if len(cases) == 1:
        return [cases[0]]
    if which_aval.dtype.kind == "b":
        return [hlo.select(which, cases[1], cases[0])]

    def tree(offset: int, picks: Sequence[IrValue]) -> IrValue:
        if len(picks) == 1:
            return picks[0]
        mid = len(picks) // 2
        below = compare(which, full(which_aval, offset + mid), "LT", which_aval.dtype)
        return hlo.select(below, tree(offset, picks[:mid]), tree(offset + mid, picks[mid:]))

    return [tree(0, cases)]


@LOWERING_RULES.defines(clamp_p)
def _clamp_lowering(
    ctx: LoweringRuleContext, lo: IrValue, x: IrValue, hi: IrValue
) -> list[IrValue]:
    return [hlo.clamp(lo, x, hi)]
