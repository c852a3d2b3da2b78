"""Structural rewrites of a jaxpr's signature: its inputs reordered, extended or restricted.

Design rules:
- A rewrite never touches equations: it builds a new ``Jaxpr`` over the same
  equations with other ``in_binders``/``outs``. Binders are equal only to
  themselves, so a binder may stand in several jaxprs at once.
- These are what higher-order primitives need to line bodies up with their
  operands: cond's branches taking the union of every branch's constants,
  a loop body whose tangent inputs sit beside their primals.
"""

from __future__ import annotations

from collections.abc import Sequence

from didax.core.abstract import ShapedArray
from didax.ir.jaxpr import Jaxpr, Var


def permute_inputs(jaxpr: Jaxpr, order: Sequence[int]) -> Jaxpr:
    """The jaxpr whose input ``i`` is ``jaxpr``'s input ``order[i]``."""
    if sorted(order) != list(range(len(jaxpr.in_binders))):
        raise ValueError(f"permute_inputs: {tuple(order)} is not a permutation of the inputs")
    return Jaxpr(tuple(jaxpr.in_binders[i] for i in order), jaxpr.eqns, jaxpr.outs)


def permute_outputs(jaxpr: Jaxpr, order: Sequence[int]) -> Jaxpr:
    """The jaxpr whose output ``i`` is ``jaxpr``'s output ``order[i]``."""
    if sorted(order) != list(range(len(jaxpr.outs))):
        raise ValueError(f"permute_outputs: {tuple(order)} is not a permutation of the outputs")
    return Jaxpr(jaxpr.in_binders, jaxpr.eqns, tuple(jaxpr.outs[i] for i in order))


def insert_unused_inputs(jaxpr: Jaxpr, position: int, avals: Sequence[ShapedArray]) -> Jaxpr:
    """The jaxpr with inputs of types ``avals`` it ignores, inserted before input ``position``."""
    ins = jaxpr.in_binders
    new = tuple(Var(a) for a in avals)
    return Jaxpr((*ins[:position], *new, *ins[position:]), jaxpr.eqns, jaxpr.outs)


def keep_inputs(jaxpr: Jaxpr, keep: Sequence[bool]) -> Jaxpr:
    """The jaxpr without the inputs not flagged in ``keep``; they must be unused."""
    dropped = {v for v, k in zip(jaxpr.in_binders, keep, strict=True) if not k}
    if dropped:
        read = {x for eqn in jaxpr.eqns for x in eqn.inputs if isinstance(x, Var)}
        read.update(x for x in jaxpr.outs if isinstance(x, Var))
        if dropped & read:
            raise ValueError("keep_inputs: an input to drop is used")
    ins = tuple(v for v, k in zip(jaxpr.in_binders, keep, strict=True) if k)
    return Jaxpr(ins, jaxpr.eqns, jaxpr.outs)


def inputs_order(groups: Sequence[Sequence[int]]) -> list[int]:
    """The concatenation of index groups: a convenience for ``permute_inputs``."""
    return [i for g in groups for i in g]
