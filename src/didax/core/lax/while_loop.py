"""``while``: the primitive looping a body program while a predicate program holds, and its typing.

``while_p`` binds ``(*cond_consts, *body_consts, *init)`` with params
``cond_jaxpr`` (``cond_consts, carry -> bool[]``), ``body_jaxpr``
(``body_consts, carry -> carry``), ``cond_nconsts`` and ``body_nconsts``;
``WhileParams`` holds them and splits the operands. ``lax.while_loop`` and
``lax.fori_loop`` with traced bounds bind it (``api.control_flow``). The
interpreters' rules are in ``interpreters.while_loop``, the lowering
(``stablehlo.while``) in ``lowering.while_loop``.

Design rules:
- Equations keep their params as keywords (``eqn.params``, printed one by
  one); ``WhileParams`` is how a rule reads and rebuilds them, so the
  operand split is written once (``split``).
- The predicate returns a boolean scalar; the body returns the carry's
  types, weak types aside. A result is weakly typed only if both the
  initial carry and the body's result are.
- Typed against ``core.lax.programs.Program``: core sees the programs'
  types, never their equations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final, Generic

import attrs

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, dtype_failure
from didax.core.lax.programs import P, Program, ProgramParams, T, check_types, types
from didax.core.primitive import Primitive

__all__ = ["while_p"]

while_p: Final = Primitive("while", multiple_results=True)


@attrs.frozen
class WhileParams(ProgramParams, Generic[P]):
    """``while_p``'s params; ``WhileParams(**eqn.params)`` reads an equation's."""

    primitive: ClassVar[Primitive] = while_p

    cond_jaxpr: P
    body_jaxpr: P
    cond_nconsts: int
    body_nconsts: int

    def split(self, operands: Sequence[T]) -> tuple[list[T], list[T], list[T]]:
        """The operands (or anything laid out as they are) as (cond consts, body consts, carry)."""
        nc, nb = self.cond_nconsts, self.body_nconsts
        return list(operands[:nc]), list(operands[nc : nc + nb]), list(operands[nc + nb :])


@ABSTRACT_EVAL.defines(while_p)
def _while_abstract_eval(*avals: ShapedArray, **params: Any) -> list[ShapedArray]:
    p: WhileParams[Program] = WhileParams(**params)
    cconsts, bconsts, carry = p.split(avals)
    check_types("cond_fun", [*cconsts, *carry], p.cond_jaxpr.in_avals)
    check_types("body_fun", [*bconsts, *carry], p.body_jaxpr.in_avals)
    pred_avals = p.cond_jaxpr.out_avals
    (pred,) = pred_avals if len(pred_avals) == 1 else (None,)
    if pred is None or pred.shape != () or pred.dtype != dtypes.bool_:
        raise dtype_failure(f"cond_fun must return a boolean scalar, got {types(pred_avals)}")
    check_types("body_fun's result (the carry)", p.body_jaxpr.out_avals, carry)
    return [
        c.update(weak_type=c.weak_type and o.weak_type)
        for c, o in zip(carry, p.body_jaxpr.out_avals, strict=True)
    ]
