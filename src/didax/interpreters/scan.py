"""``scan``'s interpreter rules: jvp, batching, partial evaluation, transposition, DCE, flops.

``scan_p`` (declared and typed in ``core.lax.scan``) binds
``(*consts, *init, *xs)`` with params ``jaxpr`` (the body,
``consts, carry, x -> carry, y``), ``num_consts``, ``num_carry``,
``length``, ``reverse`` and ``unroll``; every rule reads them as
``ScanParams`` and splits the operands with it.

Design rules:
- As for ``while``, which carries have tangents, are batched or are unknown
  is a fixpoint over the body, and the body is then transformed once more
  with those flags as ``instantiate``.
- Partial evaluation splits the body into a known and an unknown part; the
  known scan returns the residuals of every iteration stacked as extra
  ``ys``, and the unknown scan takes them as extra ``xs``. A residual that
  is only a constant of the body (a weight matrix) is passed once, as a
  constant of the unknown scan, not stacked ``length`` times.
- Transposition runs the loop backwards (``reverse`` flipped): the carry's
  cotangent flows from the last iteration to the first, the cotangents of
  the linear constants are accumulated in the carry, and those of the
  linear ``xs`` come out as ``ys``. Every carry is linear (one whose
  initial value is a defined zero, as jvp instantiates, too). This is what makes ``grad`` of a scan
  (an RNN, ``fori_loop`` with static bounds) work.
- A scan costs ``length`` times its body; a body whose cost depends on
  its carries (a cond on the counter) is counted trip by trip
  (``interpreters.loop_flops``).
- No impl rule: eager evaluation runs a scan as its compiled program; the
  lowering (``stablehlo.while`` with dynamic slices of ``xs`` and updates
  of ``ys``) is in ``lowering.scan``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import Value
from didax.core.lax.scan import ScanParams, scan_p, slice_aval
from didax.core.trace import set_current_trace
from didax.core.values import get_aval
from didax.interpreters import loop_flops
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front, move_axis
from didax.interpreters.flops import FLOPS_RULES, ZERO, Counted, Operand, count_jaxpr
from didax.interpreters.jaxpr_transforms import (
    close_over_nothing,
    fixpoint,
    jaxpr_as_fun,
    jvp_jaxpr,
    partial_eval_jaxpr,
    transpose_jaxpr,
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
from didax.interpreters.transpose import TRANSPOSE_RULES, is_undefined
from didax.ir.jaxpr import Jaxpr, JaxprEqn, Literal, Var
from didax.ir.passes import DCE_RULES, dce_jaxpr
from didax.ir.rewrite import keep_inputs, permute_inputs, permute_outputs


def _ranges(*sizes: int) -> list[range]:
    out, start = [], 0
    for n in sizes:
        out.append(range(start, start + n))
        start += n
    return out


# --- jvp ---------------------------------------------------------------------------------


@JVP_RULES.defines(scan_p)
def _scan_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], **params: Any
) -> tuple[list[Any], list[Any]]:
    p: ScanParams[Jaxpr] = ScanParams(**params)
    jaxpr, num_consts, num_carry, ny = p.jaxpr, p.num_consts, p.num_carry, p.num_ys
    consts, init, xs = p.split(primals)
    consts_t, init_t, xs_t = p.split(tangents)
    const_nz = tuple(not isinstance(t, Zero) for t in consts_t)
    carry_nz = tuple(not isinstance(t, Zero) for t in init_t)
    xs_nz = tuple(not isinstance(t, Zero) for t in xs_t)
    carry_nz = fixpoint(  # which carries have tangents
        carry_nz,
        lambda c: jvp_jaxpr(jaxpr, const_nz + c + xs_nz, instantiate=c + (False,) * ny)[1][
            :num_carry
        ],
    )
    closed, out_nz = jvp_jaxpr(
        jaxpr, const_nz + carry_nz + xs_nz, instantiate=carry_nz + (False,) * ny
    )
    body, hoisted = close_over_nothing(closed)
    k = len(hoisted)
    nct, ncart, nxt = sum(const_nz), sum(carry_nz), sum(xs_nz)
    h, c, cr, x, ct, crt, xt = _ranges(k, num_consts, num_carry, len(xs), nct, ncart, nxt)
    body = permute_inputs(body, [*h, *c, *ct, *cr, *crt, *x, *xt])
    ny_t = sum(out_nz[num_carry:])
    o_c, o_y, o_ct, o_yt = _ranges(num_carry, ny, ncart, ny_t)
    body = permute_outputs(body, [*o_c, *o_ct, *o_y, *o_yt])
    carry_t = [
        _zeros_tangent(get_aval(v)) if isinstance(t, Zero) else t
        for v, t, nz in zip(init, init_t, carry_nz, strict=True)
        if nz
    ]
    jvp_params = attrs.evolve(
        p, jaxpr=body, num_consts=k + num_consts + nct, num_carry=num_carry + ncart
    )
    outs = jvp_params.bind(
        *hoisted,
        *consts,
        *(t for t in consts_t if not isinstance(t, Zero)),
        *init,
        *carry_t,
        *xs,
        *(t for t in xs_t if not isinstance(t, Zero)),
    )
    carry_out, carry_t_out = outs[:num_carry], iter(outs[num_carry : num_carry + ncart])
    ys, ys_t = (
        outs[num_carry + ncart : num_carry + ncart + ny],
        iter(outs[num_carry + ncart + ny :]),
    )
    primals_out = [*carry_out, *ys]
    tangents_out = [
        next(carry_t_out) if nz else Zero.like(get_aval(v))
        for v, nz in zip(carry_out, carry_nz, strict=True)
    ] + [
        next(ys_t) if nz else Zero.like(get_aval(v))
        for v, nz in zip(ys, out_nz[num_carry:], strict=True)
    ]
    return primals_out, tangents_out


def _zeros_tangent(primal: ShapedArray) -> Value:
    zeros: Value = zeros_like_aval(Zero.like(primal).aval)
    return zeros


# --- batching ----------------------------------------------------------------------------


@BATCH_RULES.defines(scan_p)
def _scan_batch(
    axis_size: int,
    args: Sequence[Any],
    dims: Sequence[Dim],
    **params: Any,
) -> tuple[list[Any], list[Dim]]:
    n = axis_size
    p: ScanParams[Jaxpr] = ScanParams(**params)
    jaxpr, num_carry, ny = p.jaxpr, p.num_carry, p.num_ys
    consts, init, xs = p.split(args)
    cdims, idims, xdims = p.split(dims)
    const_b = tuple(d is not None for d in cdims)
    carry_b = tuple(d is not None for d in idims)
    xs_b = tuple(d is not None for d in xdims)
    carry_b = fixpoint(  # which carries are batched
        carry_b,
        lambda c: vmap_jaxpr(jaxpr, n, const_b + c + xs_b, instantiate=c + (False,) * ny)[1][
            :num_carry
        ],
    )
    closed, out_b = vmap_jaxpr(
        jaxpr, n, const_b + carry_b + xs_b, instantiate=carry_b + (False,) * ny
    )
    body, hoisted = close_over_nothing(closed)
    consts = [
        x if d is None else bdim_at_front(x, d, n) for x, d in zip(consts, cdims, strict=True)
    ]
    init = [
        bdim_at_front(x, d, n) if b else x for x, d, b in zip(init, idims, carry_b, strict=True)
    ]
    # xs are sliced along axis 0: their batch axis goes to 1.
    xs = [x if d is None else move_axis(x, d, 1, n) for x, d in zip(xs, xdims, strict=True)]
    batched = attrs.evolve(p, jaxpr=body, num_consts=len(hoisted) + p.num_consts)
    outs = batched.bind(*hoisted, *consts, *init, *xs)
    out_dims: list[Dim] = [0 if b else None for b in carry_b]
    out_dims += [1 if b else None for b in out_b[num_carry:]]
    return outs, out_dims


# --- partial evaluation ------------------------------------------------------------------


def _scan_partial_eval(
    trace: PartialEvalTrace, args: Sequence[Any], params: dict[str, Any]
) -> list[Any]:
    p: ScanParams[Jaxpr] = ScanParams(**params)
    jaxpr, num_carry, ny = p.jaxpr, p.num_carry, p.num_ys
    consts, init, xs = p.split(args)
    const_uk = tuple(trace.is_unknown(x) for x in consts)
    carry_uk = tuple(trace.is_unknown(x) for x in init)
    xs_uk = tuple(trace.is_unknown(x) for x in xs)
    carry_uk = fixpoint(  # which carries are unknown
        carry_uk,
        lambda c: partial_eval_jaxpr(jaxpr, const_uk + c + xs_uk, instantiate=c + (False,) * ny)[2][
            :num_carry
        ],
    )
    known, unknown, out_uk, num_res = partial_eval_jaxpr(
        jaxpr, const_uk + carry_uk + xs_uk, instantiate=carry_uk + (False,) * ny
    )
    known_body, hoisted = close_over_nothing(known)
    k = len(hoisted)
    known_consts = [x for x, u in zip(consts, const_uk, strict=True) if not u]
    num_known_outs = len(known_body.outs) - num_res
    # A residual that is a constant of the known body (hoisted or a known
    # const operand), or a literal, is loop-invariant: it is passed once.
    invariant_values: dict[Var, Any] = dict(
        zip(known_body.in_binders[: k + len(known_consts)], [*hoisted, *known_consts], strict=True)
    )
    res_atoms = known_body.outs[num_known_outs:]
    const_res: list[int] = []
    const_res_values: list[Any] = []
    stacked_res: list[int] = []
    for i, atom in enumerate(res_atoms):
        if isinstance(atom, Literal):
            const_res.append(i)
            const_res_values.append(atom.operand)
        elif atom in invariant_values:
            const_res.append(i)
            const_res_values.append(invariant_values[atom])
        else:
            stacked_res.append(i)
    # The known scan returns the known carry, the known ys and the stacked residuals.
    known_outs_atoms = (
        *known_body.outs[:num_known_outs],
        *(res_atoms[i] for i in stacked_res),
    )
    known_scan_body, _ = dce_jaxpr(Jaxpr(known_body.in_binders, known_body.eqns, known_outs_atoms))
    known_init = [x for x, u in zip(init, carry_uk, strict=True) if not u]
    known_xs = [x for x, u in zip(xs, xs_uk, strict=True) if not u]
    num_known_carry = carry_uk.count(False)
    parent = trace.parent
    assert parent is not None
    with set_current_trace(parent):
        known_params = attrs.evolve(
            p,
            jaxpr=known_scan_body,
            num_consts=k + len(known_consts),
            num_carry=num_known_carry,
        )
        known_results = known_params.bind(*hoisted, *known_consts, *known_init, *known_xs)
    known_carry = known_results[:num_known_carry]
    known_ys = known_results[num_known_carry:num_known_outs]
    stacked = known_results[num_known_outs:]
    # The unknown body takes (residuals, unknown consts, unknown carry, unknown xs):
    # reorder to (invariant residuals, unknown consts | carry | stacked residuals, xs).
    nuc, nucar, nux = const_uk.count(True), carry_uk.count(True), xs_uk.count(True)
    _, uc, ucar, ux = _ranges(num_res, nuc, nucar, nux)
    order = [*const_res, *uc, *ucar, *stacked_res, *ux]
    unknown_body = permute_inputs(unknown, order)
    unknown_consts = [x for x, u in zip(consts, const_uk, strict=True) if u]
    unknown_init = [x for x, u in zip(init, carry_uk, strict=True) if u]
    unknown_xs = [x for x, u in zip(xs, xs_uk, strict=True) if u]
    unknown_params = attrs.evolve(
        p, jaxpr=unknown_body, num_consts=len(const_res) + nuc, num_carry=nucar
    )
    unknown_outs = trace.stage(
        scan_p,
        [*const_res_values, *unknown_consts, *unknown_init, *stacked, *unknown_xs],
        unknown_params.as_params(),
    )
    known_it = iter([*known_carry, *known_ys])
    unknown_it = iter(unknown_outs)
    return [next(unknown_it) if u else next(known_it) for u in out_uk]


PE_RULES.register(scan_p, _scan_partial_eval)


# --- transposition -----------------------------------------------------------------------


@TRANSPOSE_RULES.defines(scan_p)
def _scan_transpose(cts: Sequence[Any], *args: Any, **params: Any) -> list[Any]:
    p: ScanParams[Jaxpr] = ScanParams(**params)
    jaxpr, num_carry = p.jaxpr, p.num_carry
    consts, init, xs = p.split(args)
    # A carry of a linear scan whose initial value is defined (the zeros a
    # jvp instantiated) is still linear in the loop: it is transposed as one,
    # and its cotangent is dropped.
    init_lin = [is_undefined(c) for c in init]
    ct_carry, ct_ys = list(cts[:num_carry]), list(cts[num_carry:])
    const_lin = tuple(is_undefined(c) for c in consts)
    xs_lin = tuple(is_undefined(x) for x in xs)
    ys_nz = tuple(not isinstance(c, Zero) for c in ct_ys)
    linear = const_lin + (True,) * num_carry + xs_lin
    t_closed, _ = transpose_jaxpr(jaxpr, linear, (True,) * num_carry + ys_nz, instantiate=True)
    res_consts = [c for c in consts if not is_undefined(c)]
    res_xs = [x for x in xs if not is_undefined(x)]
    lin_consts = [c for c in consts if is_undefined(c)]
    carry_avals = [c.aval if lin else get_aval(c) for c, lin in zip(init, init_lin, strict=True)]
    nlc = len(lin_consts)

    def body_t(*a: Any) -> list[Any]:
        rc, acc, ctc, rx, cty = (
            a[s] for s in _slices(len(res_consts), nlc, num_carry, len(res_xs), sum(ys_nz))
        )
        outs = jaxpr_as_fun(t_closed.jaxpr)(*t_closed.consts, *rc, *rx, *ctc, *cty)
        ct_lc, ct_c, ct_lx = outs[:nlc], outs[nlc : nlc + num_carry], outs[nlc + num_carry :]
        return [*(lax.add(s, t) for s, t in zip(acc, ct_lc, strict=True)), *ct_c, *ct_lx]

    in_avals = [
        *(get_aval(c) for c in res_consts),
        *(Zero.like(c.aval).aval for c in lin_consts),
        *(Zero.like(a).aval for a in carry_avals),
        *(slice_aval(get_aval(x)) for x in res_xs),
        *(slice_aval(get_aval(c)) for c, nz in zip(ct_ys, ys_nz, strict=True) if nz),
    ]
    body, hoisted = close_over_nothing(trace_to_jaxpr(body_t, in_avals, "scan_transpose"))
    init_acc = [lax.full(c.aval.shape, 0, Zero.like(c.aval).aval.dtype) for c in lin_consts]
    init_ct = [
        lax.full(a.shape, 0, Zero.like(a).aval.dtype) if isinstance(c, Zero) else c
        for c, a in zip(ct_carry, carry_avals, strict=True)
    ]
    backwards = attrs.evolve(
        p,
        jaxpr=body,
        num_consts=len(hoisted) + len(res_consts),
        num_carry=nlc + num_carry,
        reverse=not p.reverse,
    )
    outs = backwards.bind(
        *hoisted,
        *res_consts,
        *init_acc,
        *init_ct,
        *res_xs,
        *(c for c in ct_ys if not isinstance(c, Zero)),
    )
    ct_consts, ct_init, ct_xs = (
        iter(outs[:nlc]),
        outs[nlc : nlc + num_carry],
        iter(outs[nlc + num_carry :]),
    )
    return [
        *(next(ct_consts) if lin else None for lin in const_lin),
        *(ct if lin else None for ct, lin in zip(ct_init, init_lin, strict=True)),
        *(next(ct_xs) if lin else None for lin in xs_lin),
    ]


def _slices(*sizes: int) -> list[slice]:
    return [slice(r.start, r.stop) for r in _ranges(*sizes)]


# --- dead-code elimination ---------------------------------------------------------------


@DCE_RULES.defines(scan_p)
def _scan_dce(used_outputs: Sequence[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn | None]:
    p: ScanParams[Jaxpr] = ScanParams(**eqn.params)
    jaxpr, num_consts, num_carry = p.jaxpr, p.num_consts, p.num_carry
    used_carry, used_ys = tuple(used_outputs[:num_carry]), tuple(used_outputs[num_carry:])
    # A carry is live if the result or a live part of the body needs it.
    live = fixpoint(
        used_carry,
        lambda c: dce_jaxpr(jaxpr, c + used_ys)[1][num_consts : num_consts + num_carry],
    )
    body, used_in = dce_jaxpr(jaxpr, live + used_ys)
    used_consts = used_in[:num_consts]
    used_xs = used_in[num_consts + num_carry :]
    used_inputs = [*used_consts, *live, *used_xs]
    body = keep_inputs(body, used_inputs)
    carry_binders = eqn.out_binders[:num_carry]
    outs = (
        *(
            v if u else Var(v.aval)
            for v, u, keep in zip(carry_binders, used_carry, live, strict=True)
            if keep
        ),
        *(v for v, u in zip(eqn.out_binders[num_carry:], used_ys, strict=True) if u),
    )
    new_eqn = JaxprEqn(
        scan_p,
        tuple(x for x, u in zip(eqn.inputs, used_inputs, strict=True) if u),
        attrs.evolve(p, jaxpr=body, num_consts=sum(used_consts), num_carry=sum(live)).as_params(),
        outs,
    )
    return used_inputs, new_eqn


# --- flops -------------------------------------------------------------------------------


@FLOPS_RULES.defines(scan_p)
def _scan_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **params: Any
) -> Counted:
    p: ScanParams[Jaxpr] = ScanParams(**params)
    body, _ = dce_jaxpr(p.jaxpr)
    consts, init, xs_operands = p.split(operands)
    xs = [Operand(slice_aval(x.aval)) for x in xs_operands]
    invariant = loop_invariant(body, p.num_consts, p.num_carry)
    ys = tuple(Operand(a) for a in out_avals[p.num_carry :])

    def count(carries: Sequence[Operand]) -> Counted:
        return count_jaxpr(body, [*consts, *carries, *xs], prune=False)

    per_trip = count(varying_carries(init, invariant)).cost
    if not depends_on_carries(per_trip, lambda: count(entering_carries(init, invariant)).cost):
        return Counted(per_trip * p.length, (*varying_carries(init, invariant), *ys))
    if p.length > loop_flops.MAX_EXACT_TRIPS:
        return Counted(per_trip * p.length, (*varying_carries(init, invariant), *ys))
    # The body's cost depends on its carries (a cond on the counter): count
    # each iteration with what is known of its carries.
    total = ZERO
    carries = init
    for _ in range(p.length):
        counted = count(entering_carries(carries, invariant))
        total += counted.cost
        carries = list(counted.outs[: p.num_carry])
    return Counted(total, (*entering_carries(carries, invariant), *ys))
