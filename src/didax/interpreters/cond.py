"""``cond``'s interpreter rules: jvp, batching, partial evaluation, transposition, DCE, flops.

``cond_p`` (declared and typed in ``core.lax.cond``) binds
``(index, *operands)`` with param ``branches``, a tuple of constant-free
jaxprs of one type; it runs ``branches[index]`` on the operands.

Design rules:
- Branches take the same operands. Whatever a branch closed over (its
  constants, tracers of enclosing transformations) is joined into one
  operand list before binding (``join_consts``): each branch takes every
  branch's constants and ignores the others'.
- After jvp, batching, partial evaluation or transposition every branch
  must still have the same type (Autodidax part 5): each rule first asks
  every branch what it produces (which outputs have tangents, are batched,
  are unknown), takes the union, and transforms every branch again with
  that union as ``instantiate``.
- A batched index becomes a ``select`` over every branch's (batched)
  results: every lane takes its own branch.
- Partial evaluation with a known index splits every branch into a known
  and an unknown part; each branch's residuals get their own slots in one
  joined residual list (zeros in the slots of the other branches). With an
  unknown index the whole cond is staged.
- A cond costs the branch its index selects when the index is known, else
  the field-wise maximum over its branches (XLA's choice too), estimated
  when they differ.
- No impl rule: eager evaluation runs a cond as its compiled program; the
  lowering (``stablehlo.case``) is in ``lowering.cond``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.lax.cond import cond_p
from didax.core.trace import set_current_trace
from didax.core.values import ArrayLike
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front, select_lanes
from didax.interpreters.flops import FLOPS_RULES, Cost, Counted, Operand, count_jaxpr
from didax.interpreters.jaxpr_transforms import (
    jaxpr_as_fun,
    jvp_jaxpr,
    partial_eval_jaxpr,
    transpose_jaxpr,
    union,
    vmap_jaxpr,
)
from didax.interpreters.jvp import JVP_RULES, Zero
from didax.interpreters.partial_eval import PE_RULES, PartialEvalTrace
from didax.interpreters.staging import trace_to_jaxpr
from didax.interpreters.transpose import TRANSPOSE_RULES, UndefinedPrimal, is_undefined
from didax.ir.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn
from didax.ir.passes import DCE_RULES, dce_jaxpr
from didax.ir.rewrite import insert_unused_inputs, keep_inputs

__all__ = ["join_consts"]


def join_consts(closed: Sequence[ClosedJaxpr]) -> tuple[tuple[Jaxpr, ...], tuple[Any, ...]]:
    """Branches that each take every branch's constants, then the operands; and the constants.

    Branch ``i`` of the result takes all constants (those of branch 0, then
    branch 1, ...) as leading inputs and reads only its own.
    """
    all_consts: list[Any] = []
    avals = [tuple(v.aval for v in c.jaxpr.in_binders[: len(c.consts)]) for c in closed]
    jaxprs = []
    for i, c in enumerate(closed):
        before = [a for b in avals[:i] for a in b]
        after = [a for b in avals[i + 1 :] for a in b]
        jaxpr = insert_unused_inputs(c.jaxpr, 0, before)
        jaxpr = insert_unused_inputs(jaxpr, len(before) + len(c.consts), after)
        jaxprs.append(jaxpr)
        all_consts.extend(c.consts)
    return tuple(jaxprs), tuple(all_consts)


# --- jvp ---------------------------------------------------------------------------------


@JVP_RULES.defines(cond_p)
def _cond_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], *, branches: tuple[Jaxpr, ...]
) -> tuple[list[Any], list[Any]]:
    index, ops = primals[0], primals[1:]
    op_tangents = tangents[1:]
    nonzeros = [not isinstance(t, Zero) for t in op_tangents]
    out_nz = union(*[jvp_jaxpr(b, nonzeros)[1] for b in branches])
    jvps = [jvp_jaxpr(b, nonzeros, instantiate=out_nz) for b in branches]
    new_branches, consts = join_consts([j for j, _ in jvps])
    nz_tangents = [t for t in op_tangents if not isinstance(t, Zero)]
    outs = cond_p.bind(index, *consts, *ops, *nz_tangents, branches=new_branches)
    n = len(branches[0].outs)
    primals_out, nz_t = outs[:n], iter(outs[n:])
    tangents_out = [
        next(nz_t) if nz else Zero.like(a)
        for a, nz in zip(branches[0].out_avals, jvps[0][1], strict=True)
    ]
    return primals_out, tangents_out


# --- batching ----------------------------------------------------------------------------


@BATCH_RULES.defines(cond_p)
def _cond_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], *, branches: tuple[Jaxpr, ...]
) -> tuple[list[Any], list[Dim]]:
    index, ops = args[0], args[1:]
    index_dim, op_dims = dims[0], dims[1:]
    batched = [d is not None for d in op_dims]
    ops = [
        x if d is None else bdim_at_front(x, d, axis_size)
        for x, d in zip(ops, op_dims, strict=True)
    ]
    if index_dim is not None:
        # Every lane takes its own branch: run them all, batched, and select.
        index = bdim_at_front(index, index_dim, axis_size)
        results = []
        for b in branches:
            closed, _ = vmap_jaxpr(b, axis_size, batched, instantiate=True)
            results.append(jaxpr_as_fun(closed.jaxpr)(*closed.consts, *ops))
        outs = list(results[0])
        for i, branch_outs in enumerate(results[1:], start=1):
            takes_i = lax.eq(index, lax.full_like(index, i))
            for k, (acc, new) in enumerate(zip(outs, branch_outs, strict=True)):
                outs[k] = select_lanes(takes_i, new, acc)
        return outs, [0] * len(outs)
    out_batched = union(
        *[vmap_jaxpr(b, axis_size, batched, instantiate=False)[1] for b in branches]
    )
    vmapped = [vmap_jaxpr(b, axis_size, batched, instantiate=out_batched)[0] for b in branches]
    new_branches, consts = join_consts(vmapped)
    outs = cond_p.bind(index, *consts, *ops, branches=new_branches)
    return outs, [0 if b else None for b in out_batched]


# --- partial evaluation ------------------------------------------------------------------


def _cond_partial_eval(trace: PartialEvalTrace, args: Sequence[Any], params: dict[str, Any]) -> Any:
    branches: tuple[Jaxpr, ...] = params["branches"]
    index, ops = args[0], args[1:]
    if trace.is_unknown(index):
        return trace.stage(cond_p, args, params)
    in_unknowns = [trace.is_unknown(x) for x in ops]
    out_uk = union(*[partial_eval_jaxpr(b, in_unknowns)[2] for b in branches])
    splits = [partial_eval_jaxpr(b, in_unknowns, instantiate=out_uk) for b in branches]
    num_known = out_uk.count(False)
    # Each branch's residuals get their own slots: branch i's known part fills
    # its slots and zeros the others'; its unknown part reads only its own.
    res_avals = [known.out_avals[num_known:] for known, _, _, _ in splits]
    all_res = [a for avals in res_avals for a in avals]
    known_avals = [a for a, u in zip(branches[0].in_avals, in_unknowns, strict=True) if not u]
    known_closed = []
    unknown_jaxprs = []
    for i, (known, unknown, _, num_res) in enumerate(splits):
        offset = sum(len(r) for r in res_avals[:i])

        def known_fun(
            *ins: Any, known: ClosedJaxpr = known, start: int = offset, end: int = offset + num_res
        ) -> list[Any]:
            outs = jaxpr_as_fun(known.jaxpr)(*known.consts, *ins)
            own = iter(outs[num_known:])
            slots = [
                next(own) if start <= k < end else lax.full(a.shape, 0, a.dtype)
                for k, a in enumerate(all_res)
            ]
            return [*outs[:num_known], *slots]

        known_closed.append(trace_to_jaxpr(known_fun, known_avals, "cond_known"))
        before, after = all_res[:offset], all_res[offset + num_res :]
        u = insert_unused_inputs(unknown, 0, before)
        unknown_jaxprs.append(insert_unused_inputs(u, len(before) + num_res, after))
    known_branches, known_consts = join_consts(known_closed)
    known_ops = [x for x, u in zip(ops, in_unknowns, strict=True) if not u]
    parent = trace.parent
    assert parent is not None
    with set_current_trace(parent):
        known_results = cond_p.bind(index, *known_consts, *known_ops, branches=known_branches)
    known_outs, residuals = known_results[:num_known], known_results[num_known:]
    unknown_ops = [x for x, u in zip(ops, in_unknowns, strict=True) if u]
    unknown_outs = trace.stage(
        cond_p, [index, *residuals, *unknown_ops], {"branches": tuple(unknown_jaxprs)}
    )
    known_it, unknown_it = iter(known_outs), iter(unknown_outs)
    return [next(unknown_it) if u else next(known_it) for u in out_uk]


PE_RULES.register(cond_p, _cond_partial_eval)


# --- transposition -----------------------------------------------------------------------


@TRANSPOSE_RULES.defines(cond_p)
def _cond_transpose(
    cts: Sequence[Any],
    index: ArrayLike | UndefinedPrimal,
    *ops: ArrayLike | UndefinedPrimal,
    branches: tuple[Jaxpr, ...],
) -> list[Any]:
    if is_undefined(index):
        raise TypeError("transpose of cond: the branch index cannot be a linear input")
    linear = [is_undefined(x) for x in ops]
    ct_nonzero = [not isinstance(c, Zero) for c in cts]
    transposed = [transpose_jaxpr(b, linear, ct_nonzero, instantiate=True)[0] for b in branches]
    new_branches, consts = join_consts(transposed)
    defined = [x for x in ops if not is_undefined(x)]
    nz_cts = [c for c in cts if not isinstance(c, Zero)]
    lin_cts = iter(cond_p.bind(index, *consts, *defined, *nz_cts, branches=new_branches))
    return [None, *(next(lin_cts) if lin else None for lin in linear)]


# --- dead-code elimination ---------------------------------------------------------------


@DCE_RULES.defines(cond_p)
def _cond_dce(used_outputs: Sequence[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn | None]:
    branches: tuple[Jaxpr, ...] = eqn.params["branches"]
    pruned = [dce_jaxpr(b, used_outputs) for b in branches]
    used_ops = union(*[used for _, used in pruned])
    new_branches = tuple(keep_inputs(b, used_ops) for b, _ in pruned)
    index, ops = eqn.inputs[0], eqn.inputs[1:]
    new_eqn = JaxprEqn(
        cond_p,
        (index, *(x for x, u in zip(ops, used_ops, strict=True) if u)),
        {**eqn.params, "branches": new_branches},
        tuple(v for v, u in zip(eqn.out_binders, used_outputs, strict=True) if u),
    )
    return [True, *used_ops], new_eqn


# --- flops -------------------------------------------------------------------------------


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
