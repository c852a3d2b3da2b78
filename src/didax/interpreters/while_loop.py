"""``while``'s interpreter rules: jvp, batching, partial evaluation, transposition, DCE, flops.

``while_p`` (declared and typed in ``core.lax.while_loop``) binds
``(*cond_consts, *body_consts, *init)`` with params ``cond_jaxpr``
(``cond_consts, carry -> bool[]``), ``body_jaxpr``
(``body_consts, carry -> carry``), ``cond_nconsts`` and ``body_nconsts``;
every rule reads them as ``WhileParams``.

Design rules:
- Which carries have tangents (jvp), are batched (vmap) or are unknown
  (partial evaluation) is a fixpoint: a carry that comes out of the body
  with a tangent must go in with one. Each rule iterates the body's
  transformation until the flags stop changing, then transforms it once
  more with those flags as ``instantiate`` so the carry keeps its type.
- A batched predicate (the loop runs a different number of times in each
  lane) runs the loop while any lane is active; a finished lane keeps its
  carry, selected at every step. All carries are then batched.
- Partial evaluation: when the predicate and some carries are known, a
  known loop computes the known carries; the unknown carries come from the
  whole loop, staged (it recomputes the known part, since a while loop has
  no per-iteration residuals to keep). This is what linearize needs.
- Reverse mode is refused: the trip count is dynamic, so there are no
  per-iteration residuals to run backwards over. The error points to
  ``scan`` and ``fori_loop`` with static bounds.
- A while loop costs its trip count times its body, plus one more test
  than trips. The trip count comes from the known part of the loop: in
  closed form for a counted loop (a fori_loop's), else by running it (at
  most ``MAX_SIMULATED_TRIPS`` iterations); unknown, it is one iteration,
  an ``estimated`` count. A body whose cost depends on its carries is
  counted trip by trip (``interpreters.loop_flops``).
- No impl rule: eager evaluation runs a loop as its compiled program; the
  lowering (``stablehlo.while``) is in ``lowering.while_loop``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import Value
from didax.core.lax.while_loop import WhileParams, while_p
from didax.core.trace import set_current_trace
from didax.core.values import get_aval
from didax.interpreters import loop_flops
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front, select_lanes
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
from didax.interpreters.jaxpr_transforms import (
    close_over_nothing,
    fixpoint,
    jaxpr_as_fun,
    jvp_jaxpr,
    partial_eval_jaxpr,
    union,
    vmap_jaxpr,
)
from didax.interpreters.jvp import JVP_RULES, Zero, zeros_like_aval
from didax.interpreters.loop_flops import (
    depends_on_carries,
    entering_carries,
    loop_invariant,
    varying_carries,
)
from didax.interpreters.partial_eval import PE_RULES, PartialEvalTrace
from didax.interpreters.staging import trace_to_jaxpr
from didax.interpreters.transpose import TRANSPOSE_RULES
from didax.ir.jaxpr import Atom, Jaxpr, JaxprEqn, Literal, Var
from didax.ir.passes import DCE_RULES, dce_jaxpr
from didax.ir.rewrite import insert_unused_inputs, keep_inputs, permute_inputs

# --- jvp ---------------------------------------------------------------------------------


@JVP_RULES.defines(while_p)
def _while_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], **params: Any
) -> tuple[list[Any], list[Any]]:
    p: WhileParams[Jaxpr] = WhileParams(**params)
    body_jaxpr = p.body_jaxpr
    cconsts, bconsts, init = p.split(primals)
    _, bconst_t, init_t = p.split(tangents)
    bconst_nz = tuple(not isinstance(t, Zero) for t in bconst_t)
    carry_nz = tuple(not isinstance(t, Zero) for t in init_t)
    carry_nz = fixpoint(  # which carries have tangents
        carry_nz, lambda c: jvp_jaxpr(body_jaxpr, bconst_nz + c, instantiate=c)[1]
    )
    closed, _ = jvp_jaxpr(body_jaxpr, bconst_nz + carry_nz, instantiate=carry_nz)
    body, body_consts = close_over_nothing(closed)
    # jvp_jaxpr's inputs are (bconsts, carry, bconst tangents, carry tangents);
    # the loop wants (consts..., bconsts, bconst tangents, carry, carry tangents).
    nb, nc = len(bconsts), len(init)
    nbt, nct = sum(bconst_nz), sum(carry_nz)
    k = len(body_consts)
    order = [
        *range(k),
        *range(k, k + nb),
        *range(k + nb + nc, k + nb + nc + nbt),
        *range(k + nb, k + nb + nc),
        *range(k + nb + nc + nbt, k + nb + nc + nbt + nct),
    ]
    body = permute_inputs(body, order)
    carry_avals = [a.aval for a, nz in zip(body_jaxpr.outs, carry_nz, strict=True) if nz]
    tangent_avals = [Zero.like(a).aval for a in carry_avals]
    cond = insert_unused_inputs(p.cond_jaxpr, len(p.cond_jaxpr.in_binders), tangent_avals)
    nz_bconst_t = [t for t in bconst_t if not isinstance(t, Zero)]
    carry_t = [
        _instantiate(t, get_aval(x)) for t, x, nz in zip(init_t, init, carry_nz, strict=True) if nz
    ]
    outs = WhileParams(cond, body, p.cond_nconsts, k + nb + nbt).bind(
        *cconsts, *body_consts, *bconsts, *nz_bconst_t, *init, *carry_t
    )
    primals_out, nz_t = outs[:nc], iter(outs[nc:])
    tangents_out = [
        next(nz_t) if nz else Zero.like(get_aval(x))
        for x, nz in zip(primals_out, carry_nz, strict=True)
    ]
    return primals_out, tangents_out


def _instantiate(t: Value | Zero, primal: ShapedArray) -> Value:
    if isinstance(t, Zero):
        zeros: Value = zeros_like_aval(Zero.like(primal).aval)
        return zeros
    return t


# --- batching ----------------------------------------------------------------------------


@BATCH_RULES.defines(while_p)
def _while_batch(
    axis_size: int,
    args: Sequence[Any],
    dims: Sequence[Dim],
    **params: Any,
) -> tuple[list[Any], list[Dim]]:
    n = axis_size
    p: WhileParams[Jaxpr] = WhileParams(**params)
    cond_jaxpr, body_jaxpr = p.cond_jaxpr, p.body_jaxpr
    cconsts, bconsts, init = p.split(args)
    cdims, bdims, idims = p.split(dims)
    cconst_b = tuple(d is not None for d in cdims)
    bconst_b = tuple(d is not None for d in bdims)
    carry_b = tuple(d is not None for d in idims)
    carry_b = fixpoint(  # which carries are batched
        carry_b, lambda c: vmap_jaxpr(body_jaxpr, n, bconst_b + c, instantiate=c)[1]
    )
    (pred_batched,) = vmap_jaxpr(cond_jaxpr, n, cconst_b + carry_b, instantiate=False)[1]
    if pred_batched:
        carry_b = (True,) * len(init)

    def front(
        xs: Sequence[Any], ds: Sequence[Dim], want: Sequence[bool] | None = None
    ) -> list[Any]:
        flags = want if want is not None else [d is not None for d in ds]
        return [bdim_at_front(x, d, n) if f else x for x, d, f in zip(xs, ds, flags, strict=True)]

    cconsts, bconsts = front(cconsts, cdims), front(bconsts, bdims)
    init = front(init, idims, carry_b)
    body_closed, _ = vmap_jaxpr(body_jaxpr, n, bconst_b + carry_b, instantiate=carry_b)
    cond_closed, _ = vmap_jaxpr(cond_jaxpr, n, cconst_b + carry_b, instantiate=pred_batched)
    body, body_consts = close_over_nothing(body_closed)
    cond, cond_consts = close_over_nothing(cond_closed)
    cond_ops = [*cond_consts, *cconsts]
    body_ops = [*body_consts, *bconsts]
    if pred_batched:
        cond, cond_ops, body, body_ops = _lanes_loop(cond, cond_ops, body, body_ops, init)
    outs = WhileParams(cond, body, len(cond_ops), len(body_ops)).bind(*cond_ops, *body_ops, *init)
    return outs, [0 if b else None for b in carry_b]


def _lanes_loop(
    cond: Jaxpr,
    cond_ops: Sequence[Any],
    body: Jaxpr,
    body_ops: Sequence[Any],
    init: Sequence[Any],
) -> tuple[Jaxpr, list[Any], Jaxpr, list[Any]]:
    """A loop over batched lanes: it runs while any lane's predicate holds.

    ``cond`` returns one predicate per lane; the new cond is their ``or``.
    The new body evaluates the predicates too, and a lane whose predicate is
    false keeps its carry. Returns the new cond and body with their
    non-carry operands.
    """
    kc, kb = len(cond_ops), len(body_ops)
    cond_avals = [get_aval(x) for x in cond_ops]
    body_avals = [get_aval(x) for x in body_ops]
    carry_avals = [get_aval(x) for x in init]

    def any_lane(*args: Any) -> list[Any]:
        (pred,) = jaxpr_as_fun(cond)(*args)
        return [lax.reduce_max(pred, (0,))]

    def masked_body(*args: Any) -> list[Any]:
        cargs, bargs, carry = args[:kc], args[kc : kc + kb], args[kc + kb :]
        (pred,) = jaxpr_as_fun(cond)(*cargs, *carry)
        new = jaxpr_as_fun(body)(*bargs, *carry)
        return [select_lanes(pred, upd, old) for old, upd in zip(carry, new, strict=True)]

    any_closed = trace_to_jaxpr(any_lane, [*cond_avals, *carry_avals], "while_any_lane")
    new_cond, any_consts = close_over_nothing(any_closed)
    masked_closed = trace_to_jaxpr(
        masked_body, [*cond_avals, *body_avals, *carry_avals], "while_masked_body"
    )
    new_body, masked_consts = close_over_nothing(masked_closed)
    return (
        new_cond,
        [*any_consts, *cond_ops],
        new_body,
        [*masked_consts, *cond_ops, *body_ops],
    )


# --- partial evaluation ------------------------------------------------------------------


def _while_partial_eval(
    trace: PartialEvalTrace, args: Sequence[Any], params: dict[str, Any]
) -> Any:
    p: WhileParams[Jaxpr] = WhileParams(**params)
    cond_jaxpr, body_jaxpr = p.cond_jaxpr, p.body_jaxpr
    cconsts, bconsts, init = p.split(args)
    cconst_uk = tuple(trace.is_unknown(x) for x in cconsts)
    bconst_uk = tuple(trace.is_unknown(x) for x in bconsts)
    carry_uk = tuple(trace.is_unknown(x) for x in init)
    carry_uk = fixpoint(  # which carries are unknown
        carry_uk, lambda c: partial_eval_jaxpr(body_jaxpr, bconst_uk + c)[2]
    )
    (pred_uk,) = partial_eval_jaxpr(cond_jaxpr, cconst_uk + carry_uk)[2]
    if pred_uk or all(carry_uk):
        return trace.stage(while_p, args, params)
    # The known carries depend only on known values: a loop of the body's
    # known part computes them now.
    known_carry = [not u for u in carry_uk]
    body_known, _ = dce_jaxpr(body_jaxpr, known_carry)
    body_known = keep_inputs(body_known, [not u for u in bconst_uk + carry_uk])
    cond_known = keep_inputs(cond_jaxpr, [not u for u in cconst_uk + carry_uk])
    known = [x for x, u in zip(args, cconst_uk + bconst_uk + carry_uk, strict=True) if not u]
    parent = trace.parent
    assert parent is not None
    with set_current_trace(parent):
        known_params = WhileParams(
            cond_known, body_known, cconst_uk.count(False), bconst_uk.count(False)
        )
        known_outs = known_params.bind(*known)
    # The unknown carries: the whole loop, staged (it recomputes the known part).
    staged = trace.stage(while_p, args, params)
    known_it = iter(known_outs)
    return [s if u else next(known_it) for s, u in zip(staged, carry_uk, strict=True)]


PE_RULES.register(while_p, _while_partial_eval)


# --- transposition: refused --------------------------------------------------------------


class WhileLoopNotReversibleError(ValueError):
    """Reverse-mode differentiation of a while_loop (its trip count is dynamic)."""


@TRANSPOSE_RULES.defines(while_p)
def _while_transpose(cts: Sequence[Any], *args: Any, **params: object) -> list[Any]:
    from didax.core.source_info import user_frame_summary

    raise WhileLoopNotReversibleError(
        "Reverse-mode differentiation (grad, vjp, jacrev) does not work through "
        "lax.while_loop, whose trip count is dynamic: there are no per-iteration "
        "residuals to run backwards over. Use lax.scan, or lax.fori_loop with "
        "static (Python int) bounds, which is a scan; forward mode (jvp, jacfwd) works. "
        f"(at {user_frame_summary()})"
    )


# --- dead-code elimination ---------------------------------------------------------------


@DCE_RULES.defines(while_p)
def _while_dce(used_outputs: Sequence[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn | None]:
    p: WhileParams[Jaxpr] = WhileParams(**eqn.params)
    cond_jaxpr, body_jaxpr = p.cond_jaxpr, p.body_jaxpr
    nc, nb = p.cond_nconsts, p.body_nconsts
    _, cond_used = dce_jaxpr(cond_jaxpr)
    # A carry is live if the result, the predicate or a live carry needs it.
    live = fixpoint(union(used_outputs, cond_used[nc:]), lambda c: dce_jaxpr(body_jaxpr, c)[1][nb:])
    body, body_used = dce_jaxpr(body_jaxpr, live)
    body = keep_inputs(body, [*body_used[:nb], *live])
    cond = keep_inputs(cond_jaxpr, [*cond_used[:nc], *live])
    used_inputs = [*cond_used[:nc], *body_used[:nb], *live]
    # Live carries nobody reads outside the loop get fresh binders.
    outs = tuple(
        v if u else Var(v.aval)
        for v, u, keep in zip(eqn.out_binders, used_outputs, live, strict=True)
        if keep
    )
    new_eqn = JaxprEqn(
        while_p,
        tuple(x for x, u in zip(eqn.inputs, used_inputs, strict=True) if u),
        WhileParams(cond, body, sum(cond_used[:nc]), sum(body_used[:nb])).as_params(),
        outs,
    )
    return used_inputs, new_eqn


# --- flops -------------------------------------------------------------------------------

# A while loop whose known part runs longer than this (about a second of
# simulation) is counted as one iteration, unless it is a counted loop.
MAX_SIMULATED_TRIPS: Final = 100_000


class _UnknownTrips(Exception):
    """A while loop's predicate is unknown, or the loop runs too long to follow."""


@FLOPS_RULES.defines(while_p)
def _while_flops(
    operands: Sequence[Operand],
    out_avals: Sequence[ShapedArray],
    /,
    **params: Any,
) -> Counted:
    p: WhileParams[Jaxpr] = WhileParams(**params)
    cond, _ = dce_jaxpr(p.cond_jaxpr)
    body, _ = dce_jaxpr(p.body_jaxpr)
    cond_consts, body_consts, init = p.split(operands)
    invariant = loop_invariant(body, p.body_nconsts, len(init))
    varying = varying_carries(init, invariant)

    def test(carries: Sequence[Operand]) -> Counted:
        return count_jaxpr(cond, [*cond_consts, *carries], prune=False)

    def step(carries: Sequence[Operand]) -> Counted:
        return count_jaxpr(body, [*body_consts, *carries], prune=False)

    per_test, per_trip = test(varying).cost, step(varying).cost
    one_iteration = Counted(Cost(estimated=True) + per_test + per_trip, tuple(varying))
    entering = entering_carries(init, invariant)
    with_init = lambda: test(entering).cost + step(entering).cost  # noqa: E731
    if not depends_on_carries(per_test + per_trip, with_init):
        try:
            trips, finals = _trip_count(cond, body, cond_consts, body_consts, init, invariant)
        except _UnknownTrips:
            return one_iteration
        return Counted(per_trip * trips + per_test * (trips + 1), tuple(finals))

    # Costs that depend on the carries: count iteration by iteration.
    total = ZERO
    carries = entering
    for _ in range(loop_flops.MAX_EXACT_TRIPS + 1):
        tested = test(carries)
        total += tested.cost
        keep_going = tested.outs[0].value
        if keep_going is None:
            return one_iteration
        if not keep_going:
            return Counted(total, tuple(carries))
        counted = step(carries)
        total += counted.cost
        carries = entering_carries(counted.outs, invariant)
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
        finals = varying_carries(init, invariant)
        finals[counter] = operand_of(init[counter].aval, last)
        return trips, finals
    for trips in range(MAX_SIMULATED_TRIPS + 1):
        keep_going = known_values(cond, [*cond_values, *values])[0]
        if keep_going is None:
            raise _UnknownTrips
        if not keep_going:
            # Carries outside the slice were not followed: only invariant ones are known.
            finals = varying_carries(init, invariant)
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
