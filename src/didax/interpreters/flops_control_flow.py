"""Counting floating-point operations through control flow: cond, scan and while.

The rules of ``interpreters.flops`` for the control-flow primitives, kept
apart because finding a loop's trip count is most of the work.

Design rules:
- A cond costs the branch its index selects when the index is known, else
  the field-wise maximum over its branches (XLA's choice too).
- A scan costs ``length`` times its body; a while loop its trip count times
  its body, plus one more test than trips. The trip count comes from the
  known part of the loop: in closed form for a counted loop (a
  fori_loop's), else by running it (at most ``MAX_SIMULATED_TRIPS``
  iterations); unknown, it is one iteration. A body whose cost depends on
  its carries is counted trip by trip (at most ``MAX_EXACT_TRIPS``).
- A count that had to guess (an unknown index or trip count) is
  ``estimated``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import attrs
import numpy as np

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.interpreters.cond import cond_p
from didax.interpreters.flops import (
    FLOPS_RULES,
    ZERO,
    Cost,
    Counted,
    Operand,
    count_jaxpr,
    knowable,
    known_values,
    operand_of,
)
from didax.interpreters.scan import scan_p
from didax.interpreters.while_loop import while_p
from didax.ir.jaxpr import Atom, Jaxpr, Literal, Var
from didax.ir.passes import dce_jaxpr

# A while loop whose known part runs longer than this (about a second of
# simulation) is counted as one iteration, unless it is a counted loop.
MAX_SIMULATED_TRIPS: Final = 100_000
# Loops whose body costs depend on the iteration (a cond on the counter) are
# counted iteration by iteration up to this many trips, else estimated.
MAX_EXACT_TRIPS: Final = 10_000


@FLOPS_RULES.defines(cond_p)
def _cond_flops(
    operands: Sequence[Operand],
    out_avals: Sequence[ShapedArray],
    /,
    *,
    branches: tuple[Jaxpr, ...],
) -> Counted:
    index, args = operands[0], operands[1:]
    if index.value is not None:
        # stablehlo.case runs the last branch for an index out of range.
        i = int(index.value)
        return count_jaxpr(branches[i if 0 <= i < len(branches) else -1], args)
    counts = [count_jaxpr(b, args) for b in branches]
    unknown = tuple(Operand(a) for a in out_avals)
    return Counted(Cost.maximum([c.cost for c in counts]), unknown)


def _loop_invariant(body: Jaxpr, first_carry: int, num_carry: int) -> list[bool]:
    """Which carries the body passes through unchanged (the bound of a fori_loop)."""
    ins = body.in_binders[first_carry : first_carry + num_carry]
    return [out is v for out, v in zip(body.outs[:num_carry], ins, strict=True)]


def _entering(carries: Sequence[Operand], invariant: Sequence[bool]) -> list[Operand]:
    """Carries as an iteration sees them: known values stay, but only invariant ones are static.

    XLA does not fold a value that changes from one iteration to the next.
    """
    return [
        c if inv else attrs.evolve(c, static=False)
        for c, inv in zip(carries, invariant, strict=True)
    ]


def _varying(carries: Sequence[Operand], invariant: Sequence[bool]) -> list[Operand]:
    """Carries as *any* iteration sees them: only invariant ones stay known."""
    return [c if inv else Operand(c.aval) for c, inv in zip(carries, invariant, strict=True)]


def _slice_aval(a: ShapedArray) -> ShapedArray:
    return a.update(shape=a.shape[1:])


@FLOPS_RULES.defines(scan_p)
def _scan_flops(
    operands: Sequence[Operand],
    out_avals: Sequence[ShapedArray],
    /,
    *,
    jaxpr: Jaxpr,
    num_consts: int,
    num_carry: int,
    length: int,
    reverse: bool,
    unroll: int,
) -> Counted:
    body, _ = dce_jaxpr(jaxpr)
    consts = list(operands[:num_consts])
    init = list(operands[num_consts : num_consts + num_carry])
    xs = [Operand(_slice_aval(x.aval)) for x in operands[num_consts + num_carry :]]
    invariant = _loop_invariant(body, num_consts, num_carry)
    ys = tuple(Operand(a) for a in out_avals[num_carry:])

    def count(carries: Sequence[Operand]) -> Counted:
        return count_jaxpr(body, [*consts, *carries, *xs], prune=False)

    per_trip = count(_varying(init, invariant)).cost
    if not _depends_on_carries(per_trip, lambda: count(_entering(init, invariant)).cost):
        return Counted(per_trip * length, (*_varying(init, invariant), *ys))
    if length > MAX_EXACT_TRIPS:
        return Counted(per_trip * length, (*_varying(init, invariant), *ys))
    # The body's cost depends on its carries (a cond on the counter): count
    # each iteration with what is known of its carries.
    total = ZERO
    carries = init
    for _ in range(length):
        counted = count(_entering(carries, invariant))
        total += counted.cost
        carries = list(counted.outs[:num_carry])
    return Counted(total, (*_entering(carries, invariant), *ys))


def _depends_on_carries(cost: Cost, cost_with_init: Callable[[], Cost]) -> bool:
    """Whether a body's cost can change with its carries' known values.

    Only a count that guessed (``cost.estimated``) can; it does if knowing
    the initial carries changes it.
    """
    return cost.estimated and cost_with_init() != cost


class _UnknownTrips(Exception):
    """A while loop's predicate is unknown, or the loop runs too long to follow."""


@FLOPS_RULES.defines(while_p)
def _while_flops(
    operands: Sequence[Operand],
    out_avals: Sequence[ShapedArray],
    /,
    *,
    cond_jaxpr: Jaxpr,
    body_jaxpr: Jaxpr,
    cond_nconsts: int,
    body_nconsts: int,
) -> Counted:
    cond, _ = dce_jaxpr(cond_jaxpr)
    body, _ = dce_jaxpr(body_jaxpr)
    cond_consts = list(operands[:cond_nconsts])
    body_consts = list(operands[cond_nconsts : cond_nconsts + body_nconsts])
    init = list(operands[cond_nconsts + body_nconsts :])
    invariant = _loop_invariant(body, body_nconsts, len(init))
    varying = _varying(init, invariant)

    def test(carries: Sequence[Operand]) -> Counted:
        return count_jaxpr(cond, [*cond_consts, *carries], prune=False)

    def step(carries: Sequence[Operand]) -> Counted:
        return count_jaxpr(body, [*body_consts, *carries], prune=False)

    per_test, per_trip = test(varying).cost, step(varying).cost
    one_iteration = Counted(Cost(estimated=True) + per_test + per_trip, tuple(varying))
    entering = _entering(init, invariant)
    with_init = lambda: test(entering).cost + step(entering).cost  # noqa: E731
    if not _depends_on_carries(per_test + per_trip, with_init):
        try:
            trips, finals = _trip_count(cond, body, cond_consts, body_consts, init, invariant)
        except _UnknownTrips:
            return one_iteration
        return Counted(per_trip * trips + per_test * (trips + 1), tuple(finals))

    # Costs that depend on the carries: count iteration by iteration.
    total = ZERO
    carries = entering
    for _ in range(MAX_EXACT_TRIPS + 1):
        tested = test(carries)
        total += tested.cost
        keep_going = tested.outs[0].value
        if keep_going is None:
            return one_iteration
        if not keep_going:
            return Counted(total, tuple(carries))
        counted = step(carries)
        total += counted.cost
        carries = _entering(counted.outs, invariant)
    return one_iteration


def _trip_count(
    cond: Jaxpr,
    body: Jaxpr,
    cond_consts: Sequence[Operand],
    body_consts: Sequence[Operand],
    init: Sequence[Operand],
    invariant: Sequence[bool],
) -> tuple[int, list[Operand]]:
    """How many times the loop runs, found by running the part of it the predicate needs.

    That part is a backward slice: the carries the predicate reads, the
    carries the body needs to compute those, and so on to a fixpoint.
    Raises ``_UnknownTrips`` if the predicate depends on an unknown value
    or the loop runs more than ``MAX_SIMULATED_TRIPS`` times. Also returns
    what is known of the final carries.
    """
    n = len(init)
    _, cond_uses = dce_jaxpr(cond)
    needed = list(cond_uses[len(cond_consts) :])
    while True:
        _, body_uses = dce_jaxpr(body, needed)
        more = [a or b for a, b in zip(needed, body_uses[len(body_consts) :], strict=True)]
        if more == needed:
            break
        needed = more
    sliced, _ = dce_jaxpr(body, needed)
    cond_values = [c.value for c in cond_consts]
    body_values = [c.value for c in body_consts]
    values = [c.value for c in init]
    counted = _counted_loop_trips(cond, body, cond_values, body_values, values)
    if counted is not None:
        trips, counter, last = counted
        finals = _varying(init, invariant)
        finals[counter] = operand_of(init[counter].aval, last)
        return trips, finals
    for trips in range(MAX_SIMULATED_TRIPS + 1):
        keep_going = known_values(cond, [*cond_values, *values])[0]
        if keep_going is None:
            raise _UnknownTrips
        if not keep_going:
            # Carries outside the slice were not followed: only invariant ones are known.
            finals = _varying(init, invariant)
            return trips, [
                operand_of(c.aval, v) if needed[i] else c
                for i, (c, v) in enumerate(zip(finals, values, strict=True))
            ]
        outs = iter(known_values(sliced, [*body_values, *values]))
        values = [next(outs) if needed[i] else values[i] for i in range(n)]
    raise _UnknownTrips


_FLIPPED: Final = {lax.lt_p: lax.gt_p, lax.le_p: lax.ge_p, lax.gt_p: lax.lt_p, lax.ge_p: lax.le_p}


def _counted_loop_trips(
    cond: Jaxpr,
    body: Jaxpr,
    cond_values: Sequence[np.generic | None],
    body_values: Sequence[np.generic | None],
    values: Sequence[np.generic | None],
) -> tuple[int, int, np.generic] | None:
    """The trip count of a counted loop (a fori_loop's), in closed form; None if not one.

    A counted loop tests ``i < n`` (or ``<=``, ``>``, ``>=``, either way
    round) of one carry ``i`` against a known bound, and its body only adds
    a known step to ``i``. XLA's while-loop analysis recognises the same
    pattern. The answer is checked by running the test just before and at
    the end, so an overflow or a rounding slip falls back to simulation.
    Returns the trip count, the counter's carry index and its final value.
    """
    if len(cond.eqns) != 1 or len(cond.outs) != 1:
        return None
    (test,) = cond.eqns
    if test.primitive not in _FLIPPED or cond.outs[0] is not test.out_binders[0]:
        return None
    nc = len(cond_values)
    carries = cond.in_binders[nc:]
    a, b = test.inputs
    prim = test.primitive
    if b in carries and a not in carries:
        a, b, prim = b, a, _FLIPPED[prim]
    if not isinstance(a, Var) or a not in carries:
        return None
    i = carries.index(a)
    bound = _value_in(cond, b, [*cond_values, *values])
    start = values[i]
    step = _counter_step(body, len(body_values) + i, [*body_values, *values])
    if bound is None or start is None or step is None or step == 0:
        return None
    n, i0, k = int(bound), int(start), int(step)
    strict = prim in (lax.lt_p, lax.gt_p)
    if prim in (lax.lt_p, lax.le_p):
        gap = n - i0 if k > 0 else -1
    else:
        gap, k = (i0 - n if k < 0 else -1), -k
    if gap < 0 or (gap == 0 and strict):
        trips = 0 if gap < 0 or strict else 1
    else:
        trips = -(-gap // k) if strict else gap // k + 1
    if trips < 0:
        return None
    counter = start.dtype.type

    def runs(t: int) -> np.generic | None:
        vals = list(values)
        vals[i] = counter(i0 + t * int(step))
        return known_values(cond, [*cond_values, *vals])[0]

    if runs(trips) or (trips > 0 and not runs(trips - 1)):
        return None
    return trips, i, counter(i0 + trips * int(step))


def _value_in(jaxpr: Jaxpr, x: Atom, values: Sequence[np.generic | None]) -> np.generic | None:
    """The known value of an input or literal of ``jaxpr``."""
    if isinstance(x, Literal):
        return x.val if knowable(x.aval) else None
    if x in jaxpr.in_binders:
        return values[jaxpr.in_binders.index(x)]
    return None


def _counter_step(body: Jaxpr, index: int, values: Sequence[np.generic | None]) -> int | None:
    """``k`` if the body's carry at input ``index`` comes out as ``carry + k`` (or ``- k``)."""
    counter = body.in_binders[index]
    out = body.outs[index - (len(body.in_binders) - len(body.outs))]
    eqn = next((e for e in body.eqns if out in e.out_binders), None)
    if eqn is None or len(eqn.inputs) != 2:
        return None
    x, y = eqn.inputs
    if eqn.primitive is lax.add_p and y is counter:
        x, y = y, x
    if x is not counter or eqn.primitive not in (lax.add_p, lax.sub_p):
        return None
    k = _value_in(body, y, values)
    if k is None:
        return None
    return int(k) if eqn.primitive is lax.add_p else -int(k)
