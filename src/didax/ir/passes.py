"""Passes over jaxprs: dead-code elimination, the one DCE of didax.

Design rules:
- An equation none of whose results is used is removed unless it has
  effects (``core.effects``: a print, a callback): those are kept, with
  what they read, as JAX's DCE keeps effectful equations. A higher-order
  primitive whose body has effects keeps them the same way, since its
  bodies are pruned with this DCE too.
- A higher-order primitive can do better than "all or nothing": its DCE
  rule (``DCE_RULES``, registered by its module in ``interpreters``) is told
  which of its results are used and returns a smaller equation (unused
  outputs pruned from its bodies, loop carries dropped) and which operands
  that one still uses. A primitive without a rule keeps all its operands
  when any result is used.
- ``live_equations`` is the one backward liveness walk; ``dce_jaxpr`` and the
  backward pass of transposition (which evaluates only the forward
  equations its linear equations need) both use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol

from didax.core.primitive import RuleTable
from didax.ir.jaxpr import Jaxpr, JaxprEqn, Var


class DCERule(Protocol):
    """``(used_outputs, eqn) -> (used_inputs, new_eqn)``; ``new_eqn`` None drops the equation.

    ``new_eqn`` takes exactly the inputs flagged in ``used_inputs`` and binds
    every output flagged in ``used_outputs`` with its original variable; it
    may bind others too, with fresh variables (a loop carry the loop itself
    still needs).
    """

    def __call__(
        self, used_outputs: Sequence[bool], eqn: JaxprEqn, /
    ) -> tuple[list[bool], JaxprEqn | None]: ...


DCE_RULES: Final[RuleTable[DCERule]] = RuleTable("dead-code elimination")


def live_equations(eqns: Sequence[JaxprEqn], live: set[Var]) -> list[JaxprEqn]:
    """The equations needed for the variables in ``live``, in order.

    ``live`` is updated in place with every variable those equations read.
    An equation with a DCE rule comes back pruned to the results needed.
    """
    kept: list[JaxprEqn] = []
    for eqn in reversed(eqns):
        used_outputs = [v in live for v in eqn.out_binders]
        if not any(used_outputs) and not eqn.effects:
            continue
        rule = DCE_RULES.get(eqn.primitive)
        if rule is not None and not all(used_outputs):
            _, pruned = rule(used_outputs, eqn)
            if pruned is not None:
                eqn = pruned
            elif not eqn.effects:
                continue
        kept.append(eqn)
        live.update(x for x in eqn.inputs if isinstance(x, Var))
    kept.reverse()
    return kept


def dce_jaxpr(
    jaxpr: Jaxpr, used_outputs: Sequence[bool] | None = None, *, prune_inputs: bool = False
) -> tuple[Jaxpr, list[bool]]:
    """Dead-code elimination.

    Keeps the outputs flagged in ``used_outputs`` (all by default) and the
    equations they depend on. Returns the new jaxpr and, per input, whether
    anything still uses it; with ``prune_inputs`` the unused inputs are
    removed from the jaxpr too (what a higher-order primitive's DCE rule
    wants of its bodies).
    """
    if used_outputs is None:
        used_outputs = [True] * len(jaxpr.outs)
    outs = tuple(x for x, used in zip(jaxpr.outs, used_outputs, strict=True) if used)
    live: set[Var] = {x for x in outs if isinstance(x, Var)}
    eqns = live_equations(jaxpr.eqns, live)
    used_inputs = [v in live for v in jaxpr.in_binders]
    ins = jaxpr.in_binders
    if prune_inputs:
        ins = tuple(v for v, u in zip(ins, used_inputs, strict=True) if u)
    return Jaxpr(ins, tuple(eqns), outs), used_inputs
