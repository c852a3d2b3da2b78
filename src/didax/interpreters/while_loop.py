"""``while``: a higher-order primitive looping a body jaxpr while a predicate jaxpr holds.

``while_p`` binds ``(*cond_consts, *body_consts, *init)`` with params
``cond_jaxpr`` (``cond_consts, carry -> bool[]``), ``body_jaxpr``
(``body_consts, carry -> carry``), ``cond_nconsts`` and ``body_nconsts``.

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
- The impl (compile and execute) and the lowering (``stablehlo.while``)
  live in the lowering layer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, dtype_failure, shape_failure
from didax.core.primitive import Primitive
from didax.core.trace import set_current_trace
from didax.core.values import get_aval
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front, select_lanes
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
from didax.interpreters.partial_eval import PE_RULES, PartialEvalTrace
from didax.interpreters.staging import trace_to_jaxpr
from didax.interpreters.transpose import TRANSPOSE_RULES
from didax.ir.jaxpr import Jaxpr, JaxprEqn, Var
from didax.ir.passes import DCE_RULES, dce_jaxpr
from didax.ir.rewrite import insert_unused_inputs, keep_inputs, permute_inputs

while_p: Final = Primitive("while", multiple_results=True)

Flags = tuple[bool, ...]


def _split(args: Sequence[Any], cond_nconsts: int, body_nconsts: int) -> tuple[Any, Any, Any]:
    return (
        list(args[:cond_nconsts]),
        list(args[cond_nconsts : cond_nconsts + body_nconsts]),
        list(args[cond_nconsts + body_nconsts :]),
    )


# --- typing ------------------------------------------------------------------------------


@ABSTRACT_EVAL.defines(while_p)
def _while_abstract_eval(
    *avals: ShapedArray,
    cond_jaxpr: Jaxpr,
    body_jaxpr: Jaxpr,
    cond_nconsts: int,
    body_nconsts: int,
) -> list[ShapedArray]:
    cconsts, bconsts, carry = _split(avals, cond_nconsts, body_nconsts)
    _check_types("cond_fun", [*cconsts, *carry], cond_jaxpr.in_avals)
    _check_types("body_fun", [*bconsts, *carry], body_jaxpr.in_avals)
    (pred,) = cond_jaxpr.out_avals if len(cond_jaxpr.outs) == 1 else (None,)
    if pred is None or pred.shape != () or pred.dtype != dtypes.bool_:
        raise dtype_failure(
            "cond_fun must return a boolean scalar, got "
            f"({', '.join(a.str_short() for a in cond_jaxpr.out_avals)})"
        )
    _check_types("body_fun's result (the carry)", body_jaxpr.out_avals, carry)
    return [
        c.update(weak_type=c.weak_type and o.weak_type)
        for c, o in zip(carry, body_jaxpr.out_avals, strict=True)
    ]


def _check_types(what: str, got: Sequence[ShapedArray], expected: Sequence[ShapedArray]) -> None:
    if len(got) != len(expected) or any(
        g.strip_weak() != e.strip_weak() for g, e in zip(got, expected, strict=True)
    ):
        raise shape_failure(
            f"{what} has types ({', '.join(a.str_short() for a in got)}) where "
            f"({', '.join(a.str_short() for a in expected)}) are expected"
        )


# --- jvp ---------------------------------------------------------------------------------


@JVP_RULES.defines(while_p)
def _while_jvp(
    primals: Sequence[Any],
    tangents: Sequence[Any],
    *,
    cond_jaxpr: Jaxpr,
    body_jaxpr: Jaxpr,
    cond_nconsts: int,
    body_nconsts: int,
) -> tuple[list[Any], list[Any]]:
    cconsts, bconsts, init = _split(primals, cond_nconsts, body_nconsts)
    _, bconst_t, init_t = _split(tangents, cond_nconsts, body_nconsts)
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
    cond = insert_unused_inputs(cond_jaxpr, len(cond_jaxpr.in_binders), tangent_avals)
    nz_bconst_t = [t for t in bconst_t if not isinstance(t, Zero)]
    carry_t = [
        _instantiate(t, get_aval(x)) for t, x, nz in zip(init_t, init, carry_nz, strict=True) if nz
    ]
    outs = while_p.bind(
        *cconsts,
        *body_consts,
        *bconsts,
        *nz_bconst_t,
        *init,
        *carry_t,
        cond_jaxpr=cond,
        body_jaxpr=body,
        cond_nconsts=cond_nconsts,
        body_nconsts=k + nb + nbt,
    )
    primals_out, nz_t = outs[:nc], iter(outs[nc:])
    tangents_out = [
        next(nz_t) if nz else Zero.like(get_aval(p))
        for p, nz in zip(primals_out, carry_nz, strict=True)
    ]
    return primals_out, tangents_out


def _instantiate(t: Any, primal: ShapedArray) -> Any:
    if isinstance(t, Zero):
        return zeros_like_aval(Zero.like(primal).aval)
    return t


# --- batching ----------------------------------------------------------------------------


@BATCH_RULES.defines(while_p)
def _while_batch(
    axis_size: int,
    args: Sequence[Any],
    dims: Sequence[Dim],
    *,
    cond_jaxpr: Jaxpr,
    body_jaxpr: Jaxpr,
    cond_nconsts: int,
    body_nconsts: int,
) -> tuple[list[Any], list[Dim]]:
    n = axis_size
    cconsts, bconsts, init = _split(args, cond_nconsts, body_nconsts)
    cdims, bdims, idims = _split(dims, cond_nconsts, body_nconsts)
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
    outs = while_p.bind(
        *cond_ops,
        *body_ops,
        *init,
        cond_jaxpr=cond,
        body_jaxpr=body,
        cond_nconsts=len(cond_ops),
        body_nconsts=len(body_ops),
    )
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
    cond_jaxpr: Jaxpr = params["cond_jaxpr"]
    body_jaxpr: Jaxpr = params["body_jaxpr"]
    nc, nb = params["cond_nconsts"], params["body_nconsts"]
    cconsts, bconsts, init = _split(args, nc, nb)
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
        known_outs = while_p.bind(
            *known,
            cond_jaxpr=cond_known,
            body_jaxpr=body_known,
            cond_nconsts=cconst_uk.count(False),
            body_nconsts=bconst_uk.count(False),
        )
    # The unknown carries: the whole loop, staged (it recomputes the known part).
    staged = trace.stage(while_p, args, params)
    known_it = iter(known_outs)
    return [s if u else next(known_it) for s, u in zip(staged, carry_uk, strict=True)]


PE_RULES.register(while_p, _while_partial_eval)


# --- transposition: refused --------------------------------------------------------------


class WhileLoopNotReversibleError(ValueError):
    """Reverse-mode differentiation of a while_loop (its trip count is dynamic)."""


@TRANSPOSE_RULES.defines(while_p)
def _while_transpose(cts: Sequence[Any], *args: Any, **params: Any) -> list[Any]:
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
    cond_jaxpr: Jaxpr = eqn.params["cond_jaxpr"]
    body_jaxpr: Jaxpr = eqn.params["body_jaxpr"]
    nc, nb = eqn.params["cond_nconsts"], eqn.params["body_nconsts"]
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
        {
            **eqn.params,
            "cond_jaxpr": cond,
            "body_jaxpr": body,
            "cond_nconsts": sum(cond_used[:nc]),
            "body_nconsts": sum(body_used[:nb]),
        },
        outs,
    )
    return used_inputs, new_eqn
