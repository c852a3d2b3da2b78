"""Counting floating-point operations: an interpreter over jaxprs that runs nothing.

``count_jaxpr`` walks a jaxpr equation by equation and adds up what each
costs by its rule in ``FLOPS_RULES``, from the operands' types alone. The
counting model is XLA's (``HloCostAnalysis``), so that the count can be
checked against the compiler's, and ``docs/flops.md`` lists every place
where the two differ and why.

Design rules:
- A rule sees types, never data: ``(operands, out_avals, **params) ->
  Cost`` for a first-order primitive. Each operand is an ``Operand``: its
  type, its value when that is *known*, and whether it is *static*.
- Known values are a small constant propagation, just enough to decide
  control flow: integer and boolean scalars computed from literals, known
  arguments and constants by first-order operations (their impl rules, on
  NumPy scalars). Nothing else is ever computed.
- A value computed from literals alone is *static*: XLA folds it at
  compile time, so an operation all of whose operands are static costs
  nothing. Arguments and the constants a function closed over are not
  static (jit passes them as parameters).
- Element-wise operations cost one per output element, integer and
  boolean ones included (as XLA counts them); transcendental ones (exp,
  log, sin, tanh, sqrt, pow, ...) count as *transcendentals*, separately
  from flops; ``logistic`` is ``1 / (1 + exp(-x))``, three flops and one
  transcendental. ``dot_general`` costs 2 x output size x contracted size;
  a reduction ``n - 1`` per output element; structural operations nothing.
- Only what is live counts: every jaxpr (and body) is pruned by DCE first,
  as XLA would prune it.
- A higher-order primitive's rule returns ``Counted`` (its cost and what is
  known of its results): a jit call, a custom call or a checkpoint costs
  its body. A count that had to guess (an unknown index or trip count) is
  ``estimated``.
- One rule per primitive, registered with ``FLOPS_RULES.defines`` by its
  family's module (``interpreters.<family>``, which imports this one;
  this module imports no family); a primitive with no rule is a
  ``NotImplementedError`` naming it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Protocol, final

import attrs
import numpy as np

from didax.core.abstract import ShapedArray
from didax.core.primitive import RuleTable
from didax.interpreters.evaluation import IMPL_RULES
from didax.ir.jaxpr import Atom, Jaxpr, JaxprEqn, Literal, Var
from didax.ir.passes import dce_jaxpr

__all__ = [
    "Cost",
    "Operand",
    "Counted",
    "FlopsRule",
    "FLOPS_RULES",
    "ZERO",
    "knowable",
    "known_values",
    "count_jaxpr",
    "count_eqn",
    "operand_of",
    "integer_pow_multiplies",
]


@final
@attrs.frozen
class Cost:
    """Operations counted: ``flops`` and ``transcendentals``, as XLA's cost analysis.

    ``estimated`` says that some count had to guess: a cond whose index was
    unknown (its largest branch counted) or a while loop whose trip count
    was unknown (one iteration counted).

    >>> Cost(6) + Cost(2, 3) * 2
    Cost(flops=10, transcendentals=6, estimated=False)
    """

    flops: int = 0
    transcendentals: int = 0
    estimated: bool = False

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            self.flops + other.flops,
            self.transcendentals + other.transcendentals,
            self.estimated or other.estimated,
        )

    def __mul__(self, n: int) -> Cost:
        return Cost(self.flops * n, self.transcendentals * n, self.estimated)

    @staticmethod
    def maximum(costs: Sequence[Cost]) -> Cost:
        """The field-wise maximum (XLA's cost of a conditional), estimated if they differ."""
        # Branches that all cost the same leave nothing to guess.
        guessed = any(c.estimated for c in costs) or len(set(costs)) > 1
        return Cost(max(c.flops for c in costs), max(c.transcendentals for c in costs), guessed)


ZERO: Final = Cost()


@final
@attrs.frozen
class Operand:
    """What the counter knows of a value: its type, its value if known, whether it is static."""

    aval: ShapedArray
    value: np.generic | None = None
    static: bool = False


@final
@attrs.frozen
class Counted:
    """A higher-order rule's answer: the cost and what is known of each result."""

    cost: Cost
    outs: tuple[Operand, ...]


class FlopsRule(Protocol):
    """``(operands, out_avals, **params) -> Cost`` (``Counted`` for a higher-order primitive).

    A first-order rule returns a ``Cost``; the interpreter then works out
    what is known of the results (and charges nothing when every operand
    is static). A rule that returns ``Counted`` says itself what is known
    of its results. Each rule names its own params.
    """

    def __call__(
        self,
        operands: Sequence[Operand],
        out_avals: Sequence[ShapedArray],
        /,
        *args: Any,
        **params: Any,
    ) -> Cost | Counted: ...


FLOPS_RULES: Final[RuleTable[FlopsRule]] = RuleTable("flops")


def knowable(aval: ShapedArray) -> bool:
    """Values of this type take part in constant propagation: integer and boolean scalars."""
    return aval.shape == () and aval.dtype.kind in "biu"


def operand_of(aval: ShapedArray, value: object = None, *, static: bool = False) -> Operand:
    """The operand of type ``aval``, with ``value`` kept if it is an integer or boolean scalar."""
    if value is None or not knowable(aval):
        return Operand(aval, None, static)
    return Operand(aval, _scalar(aval, value), static)


def _scalar(aval: ShapedArray, value: object) -> np.generic:
    scalar: np.generic = aval.dtype.type(value)
    return scalar


def _read(env: dict[Var, Operand], x: Atom) -> Operand:
    if isinstance(x, Literal):
        return operand_of(x.aval, x.val, static=True)
    return env[x]


def count_jaxpr(jaxpr: Jaxpr, operands: Sequence[Operand], *, prune: bool = True) -> Counted:
    """The cost of running ``jaxpr`` on ``operands``, and what is known of its results.

    With ``prune`` (the default) only the live equations count, as XLA
    removes dead code; a caller that counts one body many times prunes it
    once and passes ``prune=False``.
    """
    if prune:
        jaxpr, _ = dce_jaxpr(jaxpr)
    env: dict[Var, Operand] = dict(zip(jaxpr.in_binders, operands, strict=True))
    total = ZERO
    for eqn in jaxpr.eqns:
        ins = [_read(env, x) for x in eqn.inputs]
        cost, outs = count_eqn(eqn, ins)
        total += cost
        env.update(zip(eqn.out_binders, outs, strict=True))
    return Counted(total, tuple(_read(env, x) for x in jaxpr.outs))


def count_eqn(eqn: JaxprEqn, ins: Sequence[Operand]) -> tuple[Cost, list[Operand]]:
    """One equation's cost and what is known of its results."""
    out_avals = [v.aval for v in eqn.out_binders]
    result = FLOPS_RULES[eqn.primitive](ins, out_avals, **eqn.params)
    if isinstance(result, Counted):
        return result.cost, list(result.outs)
    static = all(x.static for x in ins)
    values = _fold(eqn, [x.value for x in ins])
    outs = [operand_of(a, v, static=static) for a, v in zip(out_avals, values, strict=True)]
    # XLA computes an operation on compile-time constants while compiling.
    return (ZERO if static else result), outs


def _fold(eqn: JaxprEqn, values: Sequence[np.generic | None]) -> list[Any]:
    """A first-order equation's results when every operand is known and every result knowable."""
    prim = eqn.primitive
    impl = IMPL_RULES.get(prim)
    if (
        impl is None
        or any(v is None for v in values)
        or not all(knowable(v.aval) for v in eqn.out_binders)
    ):
        return [None] * len(eqn.out_binders)
    # IEEE and wrap-around results, as XLA's, never NumPy's warnings.
    with np.errstate(all="ignore"):
        outs = impl(*(np.asarray(v) for v in values), **eqn.params)
    return list(outs) if prim.multiple_results else [outs]


def known_values(jaxpr: Jaxpr, values: Sequence[np.generic | None]) -> list[np.generic | None]:
    """The values ``count_jaxpr`` would know of ``jaxpr``'s results, without counting.

    The fast path of a while loop's trip count, run once per iteration: a
    first-order equation with an unknown operand is skipped outright.
    """
    env: dict[Var, np.generic | None] = dict(zip(jaxpr.in_binders, values, strict=True))

    def read(x: Atom) -> np.generic | None:
        if isinstance(x, Literal):
            return x.val if knowable(x.aval) else None
        return env[x]

    for eqn in jaxpr.eqns:
        ins = [read(x) for x in eqn.inputs]
        outs: list[Any]
        if eqn.primitive.multiple_results:
            # A higher-order primitive may know results from some operands.
            avals = [x.aval for x in eqn.inputs]
            _, counted = count_eqn(eqn, [operand_of(a, v) for a, v in zip(avals, ins, strict=True)])
            outs = [o.value for o in counted]
        else:
            outs = _fold(eqn, ins)
        for v, o in zip(eqn.out_binders, outs, strict=True):
            env[v] = None if o is None else _scalar(v.aval, o)
    return [read(x) for x in jaxpr.outs]


# --- helpers for the families' rules (interpreters.<family>) ----------------------------


def per_element(flops: int, transcendentals: int = 0) -> FlopsRule:
    def rule(operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **_: object) -> Cost:
        n = out_avals[0].size
        return Cost(flops * n, transcendentals * n)

    return rule


def integer_pow_multiplies(y: int) -> int:
    """Multiplications (and a division when ``y < 0``) of ``x ** y`` by repeated squaring.

    >>> [integer_pow_multiplies(y) for y in (0, 1, 2, 3, 5, 8, -2)]
    [0, 0, 1, 2, 3, 3, 2]
    """
    n = abs(y)
    if n == 0:
        return 0
    squarings = n.bit_length() - 1
    products = n.bit_count() - 1
    return squarings + products + (1 if y < 0 else 0)
