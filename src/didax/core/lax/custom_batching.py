"""``custom_vmap`` calls: a primitive of a function with a user-defined batching rule.

``custom_vmap_call_p`` binds ``(*consts, *args)`` with params ``call_jaxpr``
(the function, constant-free), ``rule`` (the user's batching rule, a
``VmapRule``) and ``num_consts``. The api is ``api.custom_batching``; the
interpreters' rules are in ``interpreters.custom_batching``, the lowering in
``lowering.custom_batching``.

Design rules:
- A call is typed as its function: the operands are ``call_jaxpr``'s
  inputs (weak types aside), the results its outputs.
- Typed against ``core.lax.programs.Program``: core sees the function's
  types, never its equations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, final

import attrs

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL
from didax.core.lax.programs import Program, check_operands
from didax.core.primitive import Primitive

__all__ = ["VmapRule", "custom_vmap_call_p"]

custom_vmap_call_p: Final = Primitive("custom_vmap_call", multiple_results=True)


@final
@attrs.frozen(eq=False)
class VmapRule:
    """A user's batching rule over flat lists, named for printing (compared by identity).

    ``fun(axis_size, in_batched, args)`` takes the arguments (batched ones
    with the batch at axis 0) and which are batched, and returns the
    results and which of them are batched (at axis 0).
    """

    fun: Callable[[int, Sequence[bool], Sequence[Any]], tuple[list[Any], list[bool]]]
    name: str

    def __call__(
        self, axis_size: int, in_batched: Sequence[bool], args: Sequence[Any]
    ) -> tuple[list[Any], list[bool]]:
        return self.fun(axis_size, in_batched, args)

    def __repr__(self) -> str:
        return self.name


@ABSTRACT_EVAL.defines(custom_vmap_call_p)
def _custom_vmap_call_abstract_eval(
    *avals: ShapedArray, call_jaxpr: Program, rule: VmapRule, num_consts: int
) -> list[ShapedArray]:
    check_operands(avals, call_jaxpr.in_avals, "the custom_vmap function")
    return list(call_jaxpr.out_avals)
