"""Jaxprs: didax's typed intermediate representation.

Design rules:
- Binders (``Var``) are equal only to themselves; values (``Literal``,
  ``JaxprType``) compare by value. Nodes (``JaxprEqn``, ``Jaxpr``,
  ``ClosedJaxpr``) compare by identity: structural equality is the job of
  ``ir.fingerprint``, which is explicit about what "the same program" means.
- Containers hold tuples, never lists, so a jaxpr cannot change after it is
  built.
- A ``ClosedJaxpr`` binds its constants to the *leading* ``in_binders`` of
  its jaxpr (Autodidax's convention): the constants are just inputs whose
  values are known, which keeps every interpreter over jaxprs uniform.
- A jaxpr carried as a param of a higher-order primitive is a ``Jaxpr``,
  never a ``ClosedJaxpr``: constant-free by type, its constants passed as
  explicit operands. Params then compare and fingerprint by structure
  alone, and no cache keyed by a fingerprint can hand one program's result
  to another with different constants.
- An equation carries its effects (``core.effects``): by default those its
  primitive declares plus the union of the effects of the jaxprs in its
  params, so a higher-order primitive has its bodies' effects whoever
  builds the equation. A jaxpr's effects are the union of its equations'.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, final

import attrs
import numpy as np

from didax.core.abstract import ShapedArray
from didax.core.effects import NO_EFFECTS, Effects, declared_effects
from didax.core.primitive import Primitive
from didax.core.values import wrap_host


@final
@attrs.frozen(eq=False, repr=False)
class Var:
    """A variable of a jaxpr, bound exactly once."""

    aval: ShapedArray

    def __repr__(self) -> str:
        return f"Var({self.aval.str_short()})"


@final
@attrs.frozen(repr=False)
class Literal:
    """A scalar constant written inline in a jaxpr, e.g. the ``2.0`` of ``mul 2.0 a``.

    ``val`` is the NumPy scalar; ``operand`` is what an interpreter binds: a
    weak literal as a weakly typed Array, so that its weakness survives
    evaluation as it survives staging.
    """

    val: np.generic
    aval: ShapedArray
    operand: Any = attrs.field(init=False, eq=False)

    def __attrs_post_init__(self) -> None:
        operand: Any = self.val
        if self.aval.weak_type:
            operand = wrap_host(np.asarray(self.val), weak_type=True)
        object.__setattr__(self, "operand", operand)

    @staticmethod
    def of(value: np.ndarray[Any, Any] | np.generic, weak_type: bool = False) -> Literal:
        arr = np.asarray(value)
        scalar: np.generic = arr.dtype.type(arr)
        return Literal(scalar, ShapedArray((), scalar.dtype, weak_type))

    def __str__(self) -> str:
        return str(self.val)

    def __repr__(self) -> str:
        return f"Literal({self.val}:{self.aval.str_short()})"


Atom = Var | Literal


@final
@attrs.frozen(eq=False)
class JaxprEqn:
    """``out_binders = primitive[params] inputs``, with its effects (see the design rules)."""

    primitive: Primitive
    inputs: tuple[Atom, ...]
    params: Mapping[str, Any]
    out_binders: tuple[Var, ...]
    effects: Effects = attrs.field(
        default=attrs.Factory(lambda eqn: inferred_effects(eqn.primitive, eqn.params), True)
    )


def sub_jaxprs(params: Mapping[str, Any]) -> Iterator[tuple[str, Jaxpr | ClosedJaxpr]]:
    """The jaxprs among ``params`` (a jaxpr, or a tuple holding some), named by param."""
    for name, value in params.items():
        if isinstance(value, (Jaxpr, ClosedJaxpr)):
            yield name, value
        elif isinstance(value, tuple):
            for i, v in enumerate(value):
                if isinstance(v, (Jaxpr, ClosedJaxpr)):
                    yield f"{name}[{i}]", v


def inferred_effects(prim: Primitive, params: Mapping[str, Any]) -> Effects:
    """What ``prim`` declares for ``params``, and the effects of the jaxprs among them."""
    effects = declared_effects(prim, params)
    for _, sub in sub_jaxprs(params):
        if sub.effects:
            effects = effects | sub.effects
    return effects


@final
@attrs.frozen(eq=False, repr=False)
class Jaxpr:
    """A closed-form function: ``{ lambda in_binders . let eqns in ( outs ) }``."""

    in_binders: tuple[Var, ...]
    eqns: tuple[JaxprEqn, ...]
    outs: tuple[Atom, ...]

    @property
    def in_avals(self) -> tuple[ShapedArray, ...]:
        return tuple(v.aval for v in self.in_binders)

    @property
    def out_avals(self) -> tuple[ShapedArray, ...]:
        return tuple(x.aval for x in self.outs)

    @property
    def type(self) -> JaxprType:
        return JaxprType(self.in_avals, self.out_avals)

    @property
    def effects(self) -> Effects:
        """The union of its equations' effects."""
        effects = NO_EFFECTS
        for eqn in self.eqns:
            if eqn.effects:
                effects = effects | eqn.effects
        return effects

    def __str__(self) -> str:
        from didax.ir.pprint import pp_jaxpr

        return pp_jaxpr(self)

    __repr__ = __str__


@final
@attrs.frozen(repr=False)
class JaxprType:
    """The type of a jaxpr: ``(in_types) -> (out_types)``."""

    in_types: tuple[ShapedArray, ...]
    out_types: tuple[ShapedArray, ...]

    def __str__(self) -> str:
        ins = ", ".join(t.str_short() for t in self.in_types)
        outs = ", ".join(t.str_short() for t in self.out_types)
        return f"({ins}) -> ({outs})"

    __repr__ = __str__


@final
@attrs.frozen(eq=False, repr=False)
class ClosedJaxpr:
    """A jaxpr with values for its leading ``len(consts)`` binders."""

    jaxpr: Jaxpr
    consts: tuple[Any, ...] = ()

    def __attrs_post_init__(self) -> None:
        if len(self.consts) > len(self.jaxpr.in_binders):
            raise ValueError("a ClosedJaxpr has more constants than binders")

    @property
    def in_avals(self) -> tuple[ShapedArray, ...]:
        return tuple(v.aval for v in self.jaxpr.in_binders[len(self.consts) :])

    @property
    def out_avals(self) -> tuple[ShapedArray, ...]:
        return tuple(x.aval for x in self.jaxpr.outs)

    @property
    def type(self) -> JaxprType:
        return JaxprType(self.in_avals, self.out_avals)

    @property
    def eqns(self) -> tuple[JaxprEqn, ...]:
        return self.jaxpr.eqns

    @property
    def effects(self) -> Effects:
        return self.jaxpr.effects

    def __str__(self) -> str:
        from didax.ir.pprint import pp_jaxpr

        return pp_jaxpr(self.jaxpr, num_consts=len(self.consts))

    __repr__ = __str__
