"""Passes over jaxprs: functions from jaxprs to equivalent, smaller jaxprs.

Design rule: every primitive is pure (no effects), so an equation none of
whose results is used can always be removed.
"""

from __future__ import annotations

from collections.abc import Sequence

from didax.ir.jaxpr import Jaxpr, Var


def dce_jaxpr(jaxpr: Jaxpr, used_outputs: Sequence[bool] | None = None) -> tuple[Jaxpr, list[bool]]:
    """Dead-code elimination.

    Keeps the outputs flagged in ``used_outputs`` (all by default) and the
    equations they depend on; all inputs stay. Returns the new jaxpr and,
    per input, whether anything still uses it.
    """
    if used_outputs is None:
        used_outputs = [True] * len(jaxpr.outs)
    outs = tuple(x for x, used in zip(jaxpr.outs, used_outputs, strict=True) if used)
    live: set[Var] = {x for x in outs if isinstance(x, Var)}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        if any(v in live for v in eqn.out_binders):
            kept.append(eqn)
            live.update(x for x in eqn.inputs if isinstance(x, Var))
    new = Jaxpr(jaxpr.in_binders, tuple(reversed(kept)), outs)
    return new, [v in live for v in jaxpr.in_binders]
