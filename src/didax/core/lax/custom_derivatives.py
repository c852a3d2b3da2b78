"""``custom_jvp`` and ``custom_vjp`` calls: primitives of functions with user-defined derivatives.

``custom_jvp_call_p`` binds ``(*consts, *args)`` with params ``call_jaxpr``
(the function, constant-free), ``jvp`` (the user's rule, a ``CustomRule``)
and ``num_consts``; ``custom_vjp_call_p`` with ``call_jaxpr``, ``fwd``,
``bwd`` and ``num_consts``; ``custom_lin_p`` (what a custom_vjp call
becomes under jvp) with ``bwd``, ``num_res`` and ``out_avals``. The api is
``api.custom_derivatives``; the interpreters' rules, and what each param
means to them, are in ``interpreters.custom_derivatives``; the lowering in
``lowering.custom_derivatives``.

Design rules:
- A call is typed as its function: the operands are ``call_jaxpr``'s
  inputs (weak types aside), the results its outputs. ``custom_lin``
  carries its results' types as a param.
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

__all__ = ["CustomRule", "custom_jvp_call_p", "custom_lin_p", "custom_vjp_call_p"]

custom_jvp_call_p: Final = Primitive("custom_jvp_call", multiple_results=True)
custom_vjp_call_p: Final = Primitive("custom_vjp_call", multiple_results=True)
custom_lin_p: Final = Primitive("custom_lin", multiple_results=True)


@final
@attrs.frozen(eq=False)
class CustomRule:
    """A user's rule as a function of flat lists (``fun``), named for printing.

    Compared by identity: two rules are the same only if they are one object.
    """

    fun: Callable[..., tuple[list[Any], list[Any]]]
    name: str
    # A jvp rule that takes symbolic zeros (``Zero``) for tangents that are
    # zero, instead of arrays of zeros (JAX's ``symbolic_zeros=True``).
    symbolic_zeros: bool = False

    def __call__(self, *args: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        return self.fun(*args)

    def __repr__(self) -> str:
        return self.name


@ABSTRACT_EVAL.defines(custom_jvp_call_p, custom_vjp_call_p)
def _custom_call_abstract_eval(
    *avals: ShapedArray, call_jaxpr: Program, num_consts: int, **_: object
) -> list[ShapedArray]:
    check_operands(avals, call_jaxpr.in_avals, "the custom function")
    return list(call_jaxpr.out_avals)


@ABSTRACT_EVAL.defines(custom_lin_p)
def _custom_lin_abstract_eval(
    *avals: ShapedArray, bwd: CustomRule, num_res: int, out_avals: tuple[ShapedArray, ...]
) -> list[ShapedArray]:
    return list(out_avals)
