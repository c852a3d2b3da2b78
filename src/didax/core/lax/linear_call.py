"""``linear_call``: a function linear in some operands, with its transpose given by the user.

``linear_call_p`` binds ``(*callee_consts, *transpose_consts, *res, *lin)``
with params ``callee`` and ``transpose`` (constant-free jaxprs),
``num_callee_consts``, ``num_transpose_consts`` and ``num_res``. The api
(``api.linear_call``) traces both functions; the rules are in
``interpreters.linear_call``, the lowering (the callee, inline) in
``lowering.linear_call``.

Design rules:
- It computes ``callee(*callee_consts, *res, *lin)``; ``transpose`` takes
  ``(*transpose_consts, *res, *cts)`` and returns one cotangent per ``lin``
  operand (JAX's ``linear_call_p``).
- Typed against ``core.lax.programs.Program``: the callee's operands are
  checked against its input types, the results are its outputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final, Generic

import attrs

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL
from didax.core.lax.programs import P, Program, ProgramParams, T, check_operands
from didax.core.primitive import Primitive

__all__ = ["linear_call_p"]

linear_call_p: Final = Primitive("linear_call", multiple_results=True)


@attrs.frozen
class LinearCallParams(ProgramParams, Generic[P]):
    """``linear_call_p``'s params; ``LinearCallParams(**eqn.params)`` reads an equation's."""

    primitive: ClassVar[Primitive] = linear_call_p

    callee: P
    transpose: P
    num_callee_consts: int
    num_transpose_consts: int
    num_res: int

    @property
    def num_fixed(self) -> int:
        """How many operands come before the linear ones (both constant lists, the residuals)."""
        return self.num_callee_consts + self.num_transpose_consts + self.num_res

    def split(self, operands: Sequence[T]) -> tuple[list[T], list[T], list[T]]:
        """The operands (or anything laid out as they are) as (callee consts, transpose
        consts, residuals and linear operands)."""
        n, m = self.num_callee_consts, self.num_callee_consts + self.num_transpose_consts
        return list(operands[:n]), list(operands[n:m]), list(operands[m:])

    def callee_operands(self, operands: Sequence[T]) -> list[T]:
        """What the callee takes of the operands: its constants, the residuals, the linear ones."""
        consts, _, rest = self.split(operands)
        return [*consts, *rest]

    def transposed(self) -> LinearCallParams[P]:
        """The params of the transposed call: the two programs (and their constants) swapped."""
        return attrs.evolve(
            self,
            callee=self.transpose,
            transpose=self.callee,
            num_callee_consts=self.num_transpose_consts,
            num_transpose_consts=self.num_callee_consts,
        )


@ABSTRACT_EVAL.defines(linear_call_p)
def _linear_call_abstract_eval(*avals: ShapedArray, **params: Any) -> list[ShapedArray]:
    p: LinearCallParams[Program] = LinearCallParams(**params)
    check_operands(p.callee_operands(avals), p.callee.in_avals, "linear_call's function")
    return list(p.callee.out_avals)
