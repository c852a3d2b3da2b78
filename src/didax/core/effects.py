"""Effects: what an equation does besides computing its results (JAX's ``effects``).

Design rules:
- An ``Effect`` is a value: each kind is a class (JAX's ``DebugEffect``,
  ``OrderedDebugEffect``), its instances equal, so a set of effects is the
  kinds present. Ordered effects
  (``ordered``) must happen in program order; unordered ones only must
  happen, in any order (JAX's ``DebugEffect`` and ``OrderedDebugEffect``).
- A primitive declares its own effects through ``EFFECT_RULES`` (params to
  effects), a table beside ``ABSTRACT_EVAL``: what a primitive does is part
  of what it is, as its type is. A primitive with no rule has no effects of
  its own; a higher-order one carries the union of its bodies' effects,
  which the IR computes from the jaxprs in its params (``ir.jaxpr``), so no
  higher-order primitive needs a rule.
- Effects are what keeps an equation alive: DCE never removes one that has
  any, and jit threads a token through those that are ordered.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Final, final

import attrs

from didax.core.primitive import Primitive, RuleTable

__all__: list[str] = []


@attrs.frozen(repr=False)
class Effect:
    """A kind of side effect; each kind is a subclass, and its instances are all equal.

    >>> ORDERED_DEBUG, ORDERED_DEBUG.ordered, DebugEffect() == DEBUG
    (OrderedDebug, True, True)
    """

    ordered: ClassVar[bool] = False

    def __repr__(self) -> str:
        return type(self).__name__.removesuffix("Effect")


@final
@attrs.frozen(repr=False)
class DebugEffect(Effect):
    """A debug callback's (``debug.print``): it must happen, in any order."""


@final
@attrs.frozen(repr=False)
class OrderedDebugEffect(Effect):
    """An ordered debug callback's: it happens in program order."""

    ordered: ClassVar[bool] = True


@final
@attrs.frozen(repr=False)
class IOEffect(Effect):
    """An ``io_callback``'s: never dropped, in any order."""


@final
@attrs.frozen(repr=False)
class OrderedIOEffect(Effect):
    """An ordered ``io_callback``'s: never dropped, in program order."""

    ordered: ClassVar[bool] = True


@final
@attrs.frozen(repr=False)
class FfiEffect(Effect):
    """A foreign function call with ``has_side_effect``: never dropped."""


# JAX's debug_effect, ordered_debug_effect, io_callback's two effects and ffi_call's.
DEBUG: Final = DebugEffect()
ORDERED_DEBUG: Final = OrderedDebugEffect()
IO: Final = IOEffect()
ORDERED_IO: Final = OrderedIOEffect()
FFI: Final = FfiEffect()

Effects = frozenset[Effect]
NO_EFFECTS: Final[Effects] = frozenset()


# ``(**params) -> effects``: the effects a primitive's equation has, from its
# params (each rule names its own).
EffectRule = Callable[..., Effects]
EFFECT_RULES: Final[RuleTable[EffectRule]] = RuleTable("effects")


def declared_effects(prim: Primitive, params: Mapping[str, Any]) -> Effects:
    """The effects ``prim`` declares for ``params`` (none without a rule)."""
    rule = EFFECT_RULES.get(prim)
    return NO_EFFECTS if rule is None else rule(**params)


def ordered(effects: Effects) -> bool:
    """Whether any of ``effects`` is ordered."""
    return any(e.ordered for e in effects)
