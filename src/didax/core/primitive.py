"""Primitives and rule tables.

Design rules:
- A ``Primitive`` is only a name and an arity kind; what it *means* lives in
  rule tables, one per interpreter, owned by that interpreter's module
  (Autodidax's one dict per interpreter). Core owns the abstract-eval table,
  because typing is part of what a primitive is.
- Registration refuses duplicates, so two modules can never silently fight
  over a rule; a lookup of a missing rule raises ``NotImplementedError``
  naming the primitive and the interpreter.
- Every primitive registers itself in ``ALL_PRIMITIVES`` so that coverage
  tests can walk primitive x table.
- A table remembers where each rule was registered from
  (``registered_from``): the module whose top-level code was running, i.e.
  whose import registered it, even through a helper or factory that
  registers for its caller (``defjvp``, ``elementwise_batcher``). Rules are
  registered at import, so that is where a reader finds them;
  ``tests/test_placement.py`` checks that it is the primitive family's own
  module.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any, Final, Generic, TypeVar

from didax.core import trace as _trace

R = TypeVar("R")


class Primitive:
    """An operation the interpreters know by its rules.

    >>> p = Primitive("my_op")
    >>> p
    my_op
    """

    name: str
    multiple_results: bool
    # An element-wise primitive whose operands may be rank-0 scalars beside
    # arrays of one shape, each scalar standing for an array of that shape
    # (JAX's lax n-ary operations: ``mul x 2.0:f32[]``). The interpreters
    # (jvp, vmap, transpose) and the lowering broadcast such a scalar where a
    # rule needs it.
    scalar_operands: bool
    # The module that declared it (``registering_module``): its family's
    # home, ``core.lax.<family>``, for didax's own primitives.
    declared_in: str

    def __init__(
        self, name: str, *, multiple_results: bool = False, scalar_operands: bool = False
    ) -> None:
        self.name = name
        self.multiple_results = multiple_results
        self.scalar_operands = scalar_operands
        self.declared_in = registering_module()
        ALL_PRIMITIVES.append(self)

    def bind(self, *args: Any, **params: Any) -> Any:
        """Applies the primitive under the current trace (a list when multiple_results)."""
        return _trace.current_trace().process_primitive(self, args, params)

    def __repr__(self) -> str:
        return self.name


ALL_PRIMITIVES: Final[list[Primitive]] = []


def primitives(
    *names: str, multiple_results: bool = False, scalar_operands: bool = False
) -> tuple[Primitive, ...]:
    """One ``Primitive`` a name, all of one kind: a family's declarations in one statement.

    >>> first_p, second_p = primitives("first_example", "second_example", scalar_operands=True)
    >>> second_p, second_p.scalar_operands
    (second_example, True)
    """
    return tuple(
        Primitive(name, multiple_results=multiple_results, scalar_operands=scalar_operands)
        for name in names
    )


def registering_module() -> str:
    """The module whose top-level code is running: the one whose import makes this call.

    Frames of functions (a table's ``register`` and ``defines``, a helper
    that registers for its caller) are skipped up to the first module body;
    outside any import (a rule registered by a function at run time) it is
    the module body that started the program, often ``"__main__"``.

    >>> registering_module() == __name__
    True
    """
    frame = sys._getframe(1)
    while frame.f_code.co_name != "<module>" and frame.f_back is not None:
        frame = frame.f_back
    return str(frame.f_globals.get("__name__", ""))


# Not final: the lowering's table (lowering.mlir.LoweringRuleTable) adds
# rules per platform beside these.
class RuleTable(Generic[R]):
    """A mapping from primitive to rule, for one interpreter.

    >>> table: RuleTable[int] = RuleTable("example")
    >>> p = Primitive("p_example")
    >>> table.register(p, 1)
    >>> table[p]
    1
    """

    def __init__(self, interpreter: str) -> None:
        self.interpreter = interpreter
        self._rules: dict[Primitive, R] = {}
        self._registered_from: dict[Primitive, str] = {}

    def register(self, prim: Primitive, rule: R) -> None:
        if prim in self._rules:
            raise ValueError(f"{self.interpreter} rule for {prim.name} is already registered")
        self._rules[prim] = rule
        self._registered_from[prim] = registering_module()

    def registered_from(self, prim: Primitive) -> str:
        """The module whose import registered ``prim``'s rule (see ``registering_module``).

        >>> table: RuleTable[int] = RuleTable("example")
        >>> p = Primitive("p_origin_example")
        >>> table.register(p, 1)
        >>> table.registered_from(p) == __name__
        True
        """
        try:
            return self._registered_from[prim]
        except KeyError:
            raise NotImplementedError(
                f"primitive '{prim.name}' has no {self.interpreter} rule"
            ) from None

    def defines(self, *prims: Primitive) -> Callable[[R], R]:
        """Decorator form of ``register`` for one or more primitives."""

        def deco(rule: R) -> R:
            for p in prims:
                self.register(p, rule)
            return rule

        return deco

    def __getitem__(self, prim: Primitive) -> R:
        try:
            return self._rules[prim]
        except KeyError:
            raise NotImplementedError(
                f"primitive '{prim.name}' has no {self.interpreter} rule"
            ) from None

    def get(self, prim: Primitive) -> R | None:
        return self._rules.get(prim)

    def __contains__(self, prim: object) -> bool:
        return prim in self._rules

    def __iter__(self) -> Iterator[Primitive]:
        return iter(self._rules)
