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
from typing import Final, TypeVar

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL
from didax.core.lax.programs import Program, check_operands
from didax.core.primitive import Primitive

__all__ = ["linear_call_p"]

linear_call_p: Final = Primitive("linear_call", multiple_results=True)

_T = TypeVar("_T")


def split_operands(
    args: Sequence[_T], num_callee_consts: int, num_transpose_consts: int
) -> tuple[list[_T], list[_T], list[_T]]:
    """``(callee_consts, transpose_consts, res_and_lin)``."""
    n, m = num_callee_consts, num_callee_consts + num_transpose_consts
    return list(args[:n]), list(args[n:m]), list(args[m:])


@ABSTRACT_EVAL.defines(linear_call_p)
def _linear_call_abstract_eval(
    *avals: ShapedArray,
    callee: Program,
    transpose: Program,
    num_callee_consts: int,
    num_transpose_consts: int,
    num_res: int,
) -> list[ShapedArray]:
    consts, _, rest = split_operands(avals, num_callee_consts, num_transpose_consts)
    check_operands([*consts, *rest], callee.in_avals, "linear_call's function")
    return list(callee.out_avals)
