"""What the loops' flops rules (``scan``, ``while``) share: which carries stay, how long to follow.

Design rules:
- A fori_loop's bound is a carry the body passes through unchanged
  (``loop_invariant``); only such carries keep a known value across
  iterations (``varying_carries``). XLA does not fold a value that changes from one
  iteration to the next, so a carry an iteration enters with is static only
  if invariant (``entering_carries``).
- A body whose cost depends on its carries (a cond on the counter) is
  counted trip by trip, for at most ``MAX_EXACT_TRIPS`` trips; past that the
  count is an estimate. The rules read ``MAX_EXACT_TRIPS`` from this module
  at each count, so that one setting governs both loops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import attrs

from didax.interpreters.flops import Cost, Operand
from didax.ir.jaxpr import Jaxpr

__all__ = [
    "MAX_EXACT_TRIPS",
    "depends_on_carries",
    "entering_carries",
    "loop_invariant",
    "varying_carries",
]

# Loops whose body costs depend on the iteration (a cond on the counter) are
# counted iteration by iteration up to this many trips, else estimated.
MAX_EXACT_TRIPS: Final = 10_000


def loop_invariant(body: Jaxpr, first_carry: int, num_carry: int) -> list[bool]:
    """Which carries the body passes through unchanged (the bound of a fori_loop)."""
    ins = body.in_binders[first_carry : first_carry + num_carry]
    return [out is v for out, v in zip(body.outs[:num_carry], ins, strict=True)]


def entering_carries(carries: Sequence[Operand], invariant: Sequence[bool]) -> list[Operand]:
    """Carries as an iteration sees them: known values stay, but only invariant ones are static.

    XLA does not fold a value that changes from one iteration to the next.
    """
    return [
        c if inv else attrs.evolve(c, static=False)
        for c, inv in zip(carries, invariant, strict=True)
    ]


def varying_carries(carries: Sequence[Operand], invariant: Sequence[bool]) -> list[Operand]:
    """Carries as *any* iteration sees them: only invariant ones stay known."""
    return [c if inv else Operand(c.aval) for c, inv in zip(carries, invariant, strict=True)]


def depends_on_carries(cost: Cost, cost_with_init: Callable[[], Cost]) -> bool:
    """Whether a body's cost can change with its carries' known values.

    Only a count that guessed (``cost.estimated``) can; it does if knowing
    the initial carries changes it.
    """
    return cost.estimated and cost_with_init() != cost
