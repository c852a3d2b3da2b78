"""``ffi_call_p``: a call of a foreign function registered with XLA (``jax.ffi.ffi_call``).

The function is a handler of XLA's FFI (a C++ target built against the
headers jaxlib ships, registered by name with ``didax.ffi.register_ffi_target``).
The interpreters' rules are in ``interpreters.ffi``, the lowering (a
``stablehlo.custom_call`` of the target) in ``lowering.ffi``; ``api.ffi``
binds it.

Design rules:
- Params: ``target_name``; ``result_avals``; ``attributes``, the keyword
  arguments of the call as sorted ``(name, value)`` pairs (hashable, so a
  jaxpr's fingerprint tells calls apart); ``has_side_effect`` (the effect
  ``Ffi``, which keeps an unused call alive); ``vmap_method`` (as
  ``pure_callback``'s).
- It has no impl of its own: eagerly it is its one-equation compiled
  program, where XLA calls the target.
"""

from __future__ import annotations

from typing import Final

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL
from didax.core.effects import EFFECT_RULES, FFI, NO_EFFECTS, Effects
from didax.core.primitive import Primitive

__all__: list[str] = []

ffi_call_p: Final = Primitive("ffi_call", multiple_results=True)


@ABSTRACT_EVAL.defines(ffi_call_p)
def _ffi_call_abstract_eval(
    *avals: ShapedArray, result_avals: tuple[ShapedArray, ...], **params: object
) -> list[ShapedArray]:
    return list(result_avals)


@EFFECT_RULES.defines(ffi_call_p)
def _ffi_call_effects(*, has_side_effect: bool, **params: object) -> Effects:
    return frozenset({FFI}) if has_side_effect else NO_EFFECTS
