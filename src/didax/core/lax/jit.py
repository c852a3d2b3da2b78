"""``jit``: the call primitive, a constant-free jaxpr applied to explicit operands; its typing.

``jit_p`` binds ``(*operands)`` with params ``jaxpr`` (the body) and
``name`` (the traced function's, for printing). ``didax.jit`` binds it
(``api.jit``). The interpreters' rules are in ``interpreters.jit`` (and
``interpreters.call_rules``, shared by every call primitive), the lowering
(a ``func.call``) in ``lowering.jit``, the impl (compile and execute) in
``lowering.eager``.

Design rules:
- The operands are the body's inputs, weak types aside; the results are
  its outputs. Whatever the traced function closed over was hoisted by
  staging and is passed as leading operands (closure conversion).
- Typed against ``core.lax.programs.Program``: core sees the body's types,
  never its equations.
"""

from __future__ import annotations

from typing import Final

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL
from didax.core.lax.programs import Program, check_operands
from didax.core.primitive import Primitive

__all__ = ["jit_p"]

jit_p: Final = Primitive("jit", multiple_results=True)


@ABSTRACT_EVAL.defines(jit_p)
def _jit_abstract_eval(*avals: ShapedArray, jaxpr: Program, name: str) -> list[ShapedArray]:
    check_operands(avals, jaxpr.in_avals, f"the jitted function {name}")
    return list(jaxpr.out_avals)
