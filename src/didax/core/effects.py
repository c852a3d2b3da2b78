"""Effects: what an equation does besides computing its results (JAX's ``effects``).

Design rules:
- An ``Effect`` is a value (an attrs frozen class): two effects of the same
  kind are equal, so a set of them is the kinds present. Ordered effects
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
from typing import Any, Final, final

import attrs

from didax.core.primitive import Primitive, RuleTable

__all__: list[str] = []


@final
@attrs.frozen(repr=False)
class Effect:
    """A kind of side effect: ``Debug``, ``OrderedDebug``, ``IO``, ``OrderedIO``.

    >>> ORDERED_DEBUG, ORDERED_DEBUG.ordered
    (OrderedDebug, True)
    """

    name: str
    ordered: bool

    def __repr__(self) -> str:
        return self.name


# JAX's debug_effect, ordered_debug_effect, and io_callback's two effects.
DEBUG: Final = Effect("Debug", ordered=False)
ORDERED_DEBUG: Final = Effect("OrderedDebug", ordered=True)
IO: Final = Effect("IO", ordered=False)
ORDERED_IO: Final = Effect("OrderedIO", ordered=True)

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
