"""``cond``: the primitive choosing one of several branch programs, and its typing rule.

``cond_p`` binds ``(index, *operands)`` with param ``branches``, a tuple of
constant-free jaxprs of one type; it runs ``branches[index]`` on the
operands. ``lax.cond`` (two branches, a boolean predicate) and
``lax.switch`` (an index, clamped by the api) both bind it
(``api.control_flow``). The interpreters' rules are in
``interpreters.cond``, the lowering (``stablehlo.case``) in
``lowering.cond``.

Design rules:
- The index is an ``int32`` scalar; every branch takes the operands' types
  and returns branch 0's, weak types aside. A result is weakly typed only
  if it is in every branch.
- Typed against ``core.lax.programs.Program``: core sees a branch's types,
  never its equations.
"""

from __future__ import annotations

from typing import Final

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, dtype_failure, shape_failure
from didax.core.lax.programs import Program, differ, types
from didax.core.primitive import Primitive

__all__ = ["cond_p"]

cond_p: Final = Primitive("cond", multiple_results=True)


@ABSTRACT_EVAL.defines(cond_p)
def _cond_abstract_eval(
    index: ShapedArray, *ops: ShapedArray, branches: tuple[Program, ...]
) -> list[ShapedArray]:
    if index.shape != () or index.dtype != dtypes.int32:
        raise dtype_failure(f"the branch index must be an int32 scalar, got {index.str_short()}")
    if not branches:
        raise shape_failure("cond needs at least one branch")
    out = branches[0].out_avals
    for i, b in enumerate(branches):
        if differ(ops, b.in_avals):
            raise shape_failure(f"branch {i} takes operands of types {types(b.in_avals)}")
        if differ(b.out_avals, out):
            raise shape_failure(
                f"branch {i} returns {types(b.out_avals)} but branch 0 returns {types(out)}"
            )
    return [
        a.update(weak_type=all(b.out_avals[k].weak_type for b in branches))
        for k, a in enumerate(out)
    ]
