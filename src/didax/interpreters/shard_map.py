"""``shard_map``: its jvp, transpose, batching, partial-eval, DCE and flops rules.

The primitive, its typing rule and the aval arithmetic of specs
(``local_aval``, ``global_aval``) are in ``core.lax.shard_map``; its
lowering is in ``lowering.shard_map``. Here too is what needs the body's
equations or a tracer: ``trace_body`` (staging a body with the mesh's
axis names bound) and replication checking (``replication_error``).

Design rules:
- Lowering (``lowering.shard_map``) puts the body in XLA's manual mode:
  ``@SPMDFullToShardShape`` in, ``@SPMDShardToFullShape`` out, so XLA's
  SPMD partitioner runs it as written on every device, collectives and all.
  Eagerly it runs as a one-equation program over the mesh (``lowering.dispatch``).
- Transformations transform the body and bind ``shard_map_p`` again
  (initial style), as for the jit call: jvp pairs each tangent with its
  primal's spec; vmap adds an unsplit leading dimension to batched
  operands' and all results' specs.
- Transposition follows JAX without replication checking: a cotangent of
  a result replicated over mesh axes its spec does not name is divided by
  their size, and a cotangent of an operand replicated over axes is summed
  over them (``psum``). With ``psum`` transposing to ``psum`` this is the
  exact adjoint: ``grad`` of a data-parallel step equals the single-device one.
- Replication checking (``check_vma``, on by default as in JAX): every
  value of the body *varies* over a set of mesh axes, those of its
  operands' in_specs, less those a ``psum``/``pmean``/``pmax`` reduced
  over, plus those ``axis_index`` names (``all_gather``, ``psum_scatter``
  and ``ppermute`` results vary as their operands do, as in JAX's typing).
  A result whose out_spec leaves out an axis it varies over would be read
  from one device only: ``replication_error`` says so, and ``shard_map``
  raises it at trace time.
- Partial evaluation splits the body: the known part runs as its own
  shard_map, and its per-device residuals leave it stacked along a new
  leading dimension split over every mesh axis, which the unknown part
  takes apart again.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.lax.parallel import axis_frame, axis_index_p, pmax_p, pmin_p, psum_p
from didax.core.lax.shard_map import (
    REPLICATED,
    ShardMapParams,
    global_aval,
    local_aval,
    shard_map_p,
    unmentioned_axes,
)
from didax.core.sharding import Mesh, PartitionSpec
from didax.core.trace import set_current_trace
from didax.core.values import get_aval
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front
from didax.interpreters.evaluation import eval_jaxpr
from didax.interpreters.flops import FLOPS_RULES, Cost, Operand, count_jaxpr
from didax.interpreters.jaxpr_transforms import (
    close_over_nothing,
    jvp_jaxpr,
    partial_eval_jaxpr,
    vmap_jaxpr,
)
from didax.interpreters.jvp import JVP_RULES, Zero, instantiate_zeros
from didax.interpreters.partial_eval import PE_RULES, PartialEvalTrace
from didax.interpreters.staging import trace_to_jaxpr
from didax.interpreters.transpose import (
    TRANSPOSE_RULES,
    PrimalOrUndefined,
    UndefinedPrimal,
    backward_pass,
    is_undefined,
)
from didax.ir.jaxpr import Atom, Jaxpr, JaxprEqn, Literal, Var
from didax.ir.passes import DCE_RULES, dce_jaxpr

__all__ = ["trace_body", "replication_error"]


def _bind(
    args: Sequence[Any],
    jaxpr: Jaxpr,
    mesh: Mesh,
    in_specs: Sequence[PartitionSpec],
    out_specs: Sequence[PartitionSpec],
) -> list[Any]:
    return ShardMapParams(jaxpr, mesh, tuple(in_specs), tuple(out_specs)).bind(*args)


def trace_body(
    fun: Callable[..., Sequence[Any]], local_avals: Sequence[ShapedArray], mesh: Mesh, name: str
) -> tuple[Jaxpr, tuple[Any, ...]]:
    """``fun`` staged over per-device values, with the mesh's axis names bound."""
    with axis_frame(mesh.shape):
        closed = trace_to_jaxpr(fun, local_avals, name)
    return close_over_nothing(closed)


# --- replication checking -----------------------------------------------------------------


def _varying(jaxpr: Jaxpr, ins: Sequence[frozenset[str]]) -> list[frozenset[str]]:
    """The mesh axes each output of ``jaxpr`` may vary over, given its inputs'."""
    env: dict[Var, frozenset[str]] = dict(zip(jaxpr.in_binders, ins, strict=True))

    def read(x: Atom) -> frozenset[str]:
        return frozenset() if isinstance(x, Literal) else env[x]

    for eqn in jaxpr.eqns:
        operands = frozenset().union(*(read(x) for x in eqn.inputs))
        if eqn.primitive in (psum_p, pmax_p, pmin_p):
            out = operands - set(eqn.params["axes"])
        elif eqn.primitive is axis_index_p:
            out = frozenset(eqn.params["axes"])
        else:
            # Other primitives (higher-order ones included, conservatively):
            # a result varies over whatever any operand varies over.
            out = operands
        for v in eqn.out_binders:
            env[v] = out
    return [read(x) for x in jaxpr.outs]


def replication_error(
    jaxpr: Jaxpr,
    mesh: Mesh,
    in_specs: Sequence[PartitionSpec],
    out_specs: Sequence[PartitionSpec],
) -> str | None:
    """Why a result declared replicated over an axis may vary along it (None if none may)."""
    ins = [frozenset(s.used_axes()) for s in in_specs]
    for i, (varies, spec) in enumerate(zip(_varying(jaxpr, ins), out_specs, strict=True)):
        bad = sorted(varies & set(unmentioned_axes(mesh, spec)))
        if bad:
            return (
                f"out_specs[{i}] is {spec}, which says the result is replicated over mesh "
                f"axes {bad}, but it varies over them: reduce it over them (lax.psum, "
                "pmean) or name them in out_specs (check_vma=False skips this check)"
            )
    return None


# --- jvp ------------------------------------------------------------------------------


@JVP_RULES.defines(shard_map_p)
def _shard_map_jvp(
    primals: Sequence[Any],
    tangents: Sequence[Any],
    **params: Any,
) -> tuple[list[Any], list[Any]]:
    p: ShardMapParams[Jaxpr] = ShardMapParams(**params)
    nonzeros = [not isinstance(t, Zero) for t in tangents]
    closed, out_nonzeros = jvp_jaxpr(p.jaxpr, nonzeros)
    body, consts = close_over_nothing(closed)
    nz_tangents = [t for t in tangents if not isinstance(t, Zero)]
    specs_in = (
        (REPLICATED,) * len(consts)
        + p.in_specs
        + tuple(s for s, nz in zip(p.in_specs, nonzeros, strict=True) if nz)
    )
    specs_out = p.out_specs + tuple(
        s for s, nz in zip(p.out_specs, out_nonzeros, strict=True) if nz
    )
    outs = _bind([*consts, *primals, *nz_tangents], body, p.mesh, specs_in, specs_out)
    n = len(p.jaxpr.outs)
    nz_out = iter(outs[n:])
    tangents_out = [
        next(nz_out) if nz else Zero.like(global_aval(a, p.mesh, s))
        for a, s, nz in zip(p.jaxpr.out_avals, p.out_specs, out_nonzeros, strict=True)
    ]
    return outs[:n], tangents_out


# --- transpose ------------------------------------------------------------------------


@TRANSPOSE_RULES.defines(shard_map_p)
def _shard_map_transpose(
    cts: Sequence[Any],
    *args: PrimalOrUndefined,
    **params: Any,
) -> list[Any]:
    p: ShardMapParams[Jaxpr] = ShardMapParams(**params)
    linear = [is_undefined(a) for a in args]
    nz = [not isinstance(c, Zero) for c in cts]
    defined = [a for a in args if not is_undefined(a)]
    defined_specs = [s for s, lin in zip(p.in_specs, linear, strict=True) if not lin]
    nz_cts = [c for c in cts if not isinstance(c, Zero)]
    nz_ct_specs = [s for s, n in zip(p.out_specs, nz, strict=True) if n]
    linear_specs = [s for s, lin in zip(p.in_specs, linear, strict=True) if lin]

    def body(*xs: Any) -> list[Any]:
        it_def, it_ct = iter(xs[: len(defined)]), iter(xs[len(defined) :])
        bp_args = [
            UndefinedPrimal(b.aval) if lin else next(it_def)
            for b, lin in zip(p.jaxpr.in_binders, linear, strict=True)
        ]
        bp_cts: list[Any] = []
        for a, s, n in zip(p.jaxpr.out_avals, p.out_specs, nz, strict=True):
            if not n:
                bp_cts.append(Zero(a))
                continue
            ct = next(it_ct)
            k = math.prod(p.mesh.axis_size(x) for x in unmentioned_axes(p.mesh, s))
            bp_cts.append(lax.div(ct, float(k)) if k > 1 else ct)
        outs = []
        for ct, s in zip(backward_pass(p.jaxpr, bp_args, bp_cts), linear_specs, strict=True):
            ct = instantiate_zeros(ct) if isinstance(ct, Zero) else ct
            axes = unmentioned_axes(p.mesh, s)
            if axes:
                size = math.prod(p.mesh.axis_size(x) for x in axes)
                ct = psum_p.bind(ct, axes=axes, axis_size=size)
            outs.append(ct)
        return outs

    local = [
        local_aval(get_aval(x), p.mesh, s, "an operand of the transpose")
        for x, s in zip([*defined, *nz_cts], [*defined_specs, *nz_ct_specs], strict=True)
    ]
    t_body, consts = trace_body(body, local, p.mesh, "shard_map_transpose")
    specs_in = (REPLICATED,) * len(consts) + tuple(defined_specs) + tuple(nz_ct_specs)
    outs = iter(_bind([*consts, *defined, *nz_cts], t_body, p.mesh, specs_in, linear_specs))
    return [next(outs) if lin else None for lin in linear]


# --- batching -------------------------------------------------------------------------


@BATCH_RULES.defines(shard_map_p)
def _shard_map_batch(
    axis_size: int,
    args: Sequence[Any],
    dims: Sequence[Dim],
    **params: Any,
) -> tuple[list[Any], list[Dim]]:
    p: ShardMapParams[Jaxpr] = ShardMapParams(**params)
    batched = [d is not None for d in dims]
    moved = [
        x if d is None else bdim_at_front(x, d, axis_size) for x, d in zip(args, dims, strict=True)
    ]
    body, consts = close_over_nothing(vmap_jaxpr(p.jaxpr, axis_size, batched)[0])
    specs_in = (REPLICATED,) * len(consts) + tuple(
        PartitionSpec(None, *s.parts) if b else s for s, b in zip(p.in_specs, batched, strict=True)
    )
    specs_out = tuple(PartitionSpec(None, *s.parts) for s in p.out_specs)
    outs = _bind([*consts, *moved], body, p.mesh, specs_in, specs_out)
    return outs, [0] * len(outs)


# --- partial evaluation ---------------------------------------------------------------


def _stacked_residual_spec(mesh: Mesh) -> PartitionSpec:
    return PartitionSpec(tuple(mesh.axis_names))


def _shard_map_partial_eval(
    trace: PartialEvalTrace, args: Sequence[Any], params: dict[str, Any]
) -> Any:
    """Known part now (its residuals stacked over the mesh), unknown part staged."""
    p: ShardMapParams[Jaxpr] = ShardMapParams(**params)
    jaxpr, mesh, in_specs, out_specs = p.jaxpr, p.mesh, p.in_specs, p.out_specs
    in_unknowns = [trace.is_unknown(x) for x in args]
    known, unknown, out_unknowns, num_res = partial_eval_jaxpr(jaxpr, in_unknowns)
    num_known_outs = len(known.jaxpr.outs) - num_res
    res_avals = known.out_avals[num_known_outs:]

    def known_fun(*xs: Any) -> list[Any]:
        outs = eval_jaxpr(known.jaxpr, [*known.consts, *xs])
        res = [lax.expand_dims(r, (0,)) for r in outs[num_known_outs:]]
        return [*outs[:num_known_outs], *res]

    def unknown_fun(*xs: Any) -> list[Any]:
        res = [lax.squeeze(r, (0,)) for r in xs[:num_res]]
        return eval_jaxpr(unknown, [*res, *xs[num_res:]])

    stacked = _stacked_residual_spec(mesh)
    known_in_specs = [s for s, u in zip(in_specs, in_unknowns, strict=True) if not u]
    known_out_specs = [s for s, u in zip(out_specs, out_unknowns, strict=True) if not u]
    known_body, known_consts = trace_body(known_fun, known.in_avals, mesh, "shard_map_known")
    known_args = [x for x, u in zip(args, in_unknowns, strict=True) if not u]
    parent = trace.parent
    assert parent is not None
    with set_current_trace(parent):
        known_results = _bind(
            [*known_consts, *known_args],
            known_body,
            mesh,
            (REPLICATED,) * len(known_consts) + tuple(known_in_specs),
            (*known_out_specs, *([stacked] * num_res)),
        )
    known_outs, residuals = known_results[:num_known_outs], known_results[num_known_outs:]
    unknown_args = [x for x, u in zip(args, in_unknowns, strict=True) if u]
    unknown_in_specs = [s for s, u in zip(in_specs, in_unknowns, strict=True) if u]
    unknown_out_specs = [s for s, u in zip(out_specs, out_unknowns, strict=True) if u]
    unknown_avals = [ShapedArray((1, *a.shape), a.dtype, a.weak_type) for a in res_avals] + list(
        unknown.in_avals[num_res:]
    )
    unknown_body, unknown_consts = trace_body(unknown_fun, unknown_avals, mesh, "shard_map_unknown")
    unknown_outs = trace.stage(
        shard_map_p,
        [*unknown_consts, *residuals, *unknown_args],
        {
            "jaxpr": unknown_body,
            "mesh": mesh,
            "in_specs": (REPLICATED,) * len(unknown_consts)
            + (stacked,) * num_res
            + tuple(unknown_in_specs),
            "out_specs": tuple(unknown_out_specs),
        },
    )
    known_it, unknown_it = iter(known_outs), iter(unknown_outs)
    return [next(unknown_it) if u else next(known_it) for u in out_unknowns]


PE_RULES.register(shard_map_p, _shard_map_partial_eval)


# --- dead code ------------------------------------------------------------------------


def _shard_map_dce(used_outputs: Sequence[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn]:
    body, used_inputs = dce_jaxpr(eqn.params["jaxpr"], used_outputs, prune_inputs=True)
    params = {
        **eqn.params,
        "jaxpr": body,
        "in_specs": tuple(s for s, u in zip(eqn.params["in_specs"], used_inputs, strict=True) if u),
        "out_specs": tuple(
            s for s, u in zip(eqn.params["out_specs"], used_outputs, strict=True) if u
        ),
    }
    new_eqn = JaxprEqn(
        shard_map_p,
        tuple(x for x, u in zip(eqn.inputs, used_inputs, strict=True) if u),
        params,
        tuple(v for v, u in zip(eqn.out_binders, used_outputs, strict=True) if u),
    )
    return used_inputs, new_eqn


DCE_RULES.register(shard_map_p, _shard_map_dce)


# --- flops ----------------------------------------------------------------------------


@FLOPS_RULES.defines(shard_map_p)
def _shard_map_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **params: Any
) -> Cost:
    """The body's count on each device, times the devices (all of the mesh's work)."""
    jaxpr: Jaxpr = params["jaxpr"]
    local = [Operand(a, None, False) for a in jaxpr.in_avals]
    counted = count_jaxpr(jaxpr, local)
    cost: Cost = counted.cost * params["mesh"].size
    return cost
