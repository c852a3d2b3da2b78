"""Structural fingerprints: equal programs hash equal.

Design rules:
- Two jaxprs have equal fingerprints exactly when they differ at most in the
  identity of their variables: same types, same equations in the same
  order, same params, same literals (compared bit for bit, so ``0.0`` and
  ``-0.0`` differ and a NaN equals itself), same nested jaxprs.
- A fingerprint is the canonical form itself (variables renumbered by first
  binding), not a lossy hash, so equal fingerprints can never come from
  different programs; its hash is computed once.
- Constants' *values* are not part of a closed jaxpr's fingerprint, only
  their types: they are inputs of the compiled program.
- A jaxpr's fingerprint is computed once and remembered with the jaxpr, so
  keying a cache by it costs a lookup after the first time.
"""

from __future__ import annotations

import weakref
from typing import Any, Final, final

import attrs
import numpy as np

from didax.core.abstract import ShapedArray
from didax.ir.jaxpr import Atom, ClosedJaxpr, Jaxpr, Literal, Var


@final
@attrs.frozen(repr=False, cache_hash=True)
class Fingerprint:
    """The canonical form of a jaxpr; compare or hash it."""

    form: tuple[Any, ...]

    def __repr__(self) -> str:
        return f"Fingerprint({hash(self):#x})"


# Jaxprs are immutable, so each one's fingerprint is computed once: a cache
# keyed by the object (weakly, so it dies with the jaxpr). The rebuilt jaxprs
# of jvp, vmap, partial evaluation and transposition are looked up by
# fingerprint every time a transformed higher-order primitive is bound.
_MEMO: Final[weakref.WeakKeyDictionary[Jaxpr | ClosedJaxpr, Fingerprint]] = (
    weakref.WeakKeyDictionary()
)


def fingerprint(jaxpr: Jaxpr | ClosedJaxpr) -> Fingerprint:
    """The structural fingerprint of ``jaxpr`` (computed once per jaxpr object)."""
    fp = _MEMO.get(jaxpr)
    if fp is None:
        if isinstance(jaxpr, ClosedJaxpr):
            fp = Fingerprint(("closed", len(jaxpr.consts), _form(jaxpr.jaxpr)))
        else:
            fp = Fingerprint(_form(jaxpr))
        _MEMO[jaxpr] = fp
    return fp


def _form(jaxpr: Jaxpr) -> tuple[Any, ...]:
    ids: dict[Var, int] = {}

    def bind(v: Var) -> ShapedArray:
        ids[v] = len(ids)
        return v.aval

    def atom(x: Atom) -> tuple[str, ShapedArray, bytes] | int:
        if isinstance(x, Literal):
            return ("lit", x.aval, np.asarray(x.val).tobytes())
        return ids[x]

    ins = tuple(bind(v) for v in jaxpr.in_binders)
    eqns = tuple(
        (
            eqn.primitive,
            tuple(atom(x) for x in eqn.inputs),
            tuple(sorted((k, _param(v)) for k, v in eqn.params.items())),
            tuple(bind(v) for v in eqn.out_binders),
        )
        for eqn in jaxpr.eqns
    )
    outs = tuple(atom(x) for x in jaxpr.outs)
    return (ins, eqns, outs)


def _param(v: object) -> object:
    if isinstance(v, (Jaxpr, ClosedJaxpr)):
        return fingerprint(v)
    if isinstance(v, tuple):
        return tuple(_param(x) for x in v)
    return v
