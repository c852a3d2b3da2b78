"""What core knows of the programs a higher-order primitive carries: their types.

A higher-order primitive (``cond``, ``while``, ``scan``) holds jaxprs in its
params. Jaxprs live in the ``ir`` layer, above ``core``, so core cannot name
them; its typing rules only need a program's input and output types, and
``Program`` is that much, a Protocol that ``ir``'s ``Jaxpr`` and
``ClosedJaxpr`` satisfy structurally.

Design rules:
- Core declares the higher-order primitives and types them against
  ``Program``: control flow (``core.lax.cond``, ``core.lax.while_loop``,
  ``core.lax.scan``) and calls (``core.lax.jit``, ``core.lax.checkpoint``,
  ``core.lax.custom_derivatives``); their interpreter rules are in
  ``interpreters`` and their lowerings in ``lowering``, under the same
  family names.
- Nothing here looks inside a program: checking a body equation by
  equation is ``ir.typecheck``'s work.
- Types are compared as the typing rules of first-order primitives compare
  them: weak types aside (``strip_weak``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Protocol, TypeVar

import attrs

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import shape_failure
from didax.core.primitive import Primitive
from didax.core.values import ArrayLike

__all__ = ["Program", "ProgramParams", "check_operands", "check_types", "differ", "types"]


class Program(Protocol):
    """A program's type: what it takes and what it returns (a jaxpr, as core sees one)."""

    @property
    def in_avals(self) -> Sequence[ShapedArray]: ...

    @property
    def out_avals(self) -> Sequence[ShapedArray]: ...


# The params classes of the higher-order primitives (ScanParams, WhileParams,
# SolveParams) are generic in their programs' type P (a Jaxpr above core), and
# split anything laid out as their operands, of any type T.
P = TypeVar("P", bound=Program)
T = TypeVar("T")


@attrs.frozen
class ProgramParams:
    """The base of those params classes: a frozen record of the params of ``primitive``."""

    primitive: ClassVar[Primitive]

    def as_params(self) -> dict[str, Any]:
        """The keyword params an equation holds and ``primitive.bind`` takes."""
        return attrs.asdict(self, recurse=False)

    def bind(self, *operands: ArrayLike) -> list[Any]:
        """``primitive`` applied to ``operands`` with these params."""
        outs: list[Any] = self.primitive.bind(*operands, **self.as_params())
        return outs


def types(avals: Sequence[ShapedArray]) -> str:
    """``(f32[3], i32[])``: a list of types as error messages show it."""
    return f"({', '.join(a.str_short() for a in avals)})"


def differ(got: Sequence[ShapedArray], expected: Sequence[ShapedArray]) -> bool:
    """Whether two lists of types differ, weak types aside."""
    return len(got) != len(expected) or any(
        g.strip_weak() != e.strip_weak() for g, e in zip(got, expected, strict=True)
    )


def check_types(what: str, got: Sequence[ShapedArray], expected: Sequence[ShapedArray]) -> None:
    """Raises a shape failure naming ``what`` unless ``got`` are the ``expected`` types."""
    if differ(got, expected):
        raise shape_failure(f"{what} has types {types(got)} where {types(expected)} are expected")


def check_operands(
    avals: Sequence[ShapedArray], expected: Sequence[ShapedArray], what: str
) -> None:
    """Operand types must be a body's input types (weakness aside): a call's typing."""
    if differ(avals, expected):
        raise shape_failure(f"{what} expects operands of types {types(expected)}")
