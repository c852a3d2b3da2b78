"""``checkpoint`` (``remat``)'s interpreter rules: a region the backward pass recomputes.

``remat_p`` (declared and typed in ``core.lax.checkpoint``, with its
policies) binds ``(*args)`` with params ``jaxpr`` (the region, constant-
free), ``policy`` (which intermediate values may be saved as residuals) and
``prevent_cse``. It computes what the region computes; what changes is
reverse mode.

Design rules:
- Partial evaluation is the point. Without checkpointing, linearize keeps
  every intermediate value the linear (tangent) computation needs as a
  residual. A remat region's partial evaluation instead keeps only the
  region's known *inputs*, plus the intermediate values the policy calls
  saveable, and stages the rest of the primal computation into the unknown
  side, as a remat equation: the backward pass recomputes it. This shows in
  the linearized jaxpr (the primal equations reappear in it) and in the
  number of residuals.
- jvp, vmap, transposition and DCE transform the region and keep it a remat
  region, with the same policy, so ``grad(jit(checkpoint(f)))`` and
  ``vmap(grad(checkpoint(f)))`` work as without it. Lowering inlines the
  region (``lowering.checkpoint``); its flops rule is in ``interpreters.flops``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray
from didax.core.lax.checkpoint import Policy, name_p, remat_p
from didax.core.trace import set_current_trace
from didax.interpreters.batching import BATCH_RULES
from didax.interpreters.call_rules import register_call_rules
from didax.interpreters.evaluation import IMPL_RULES, eval_jaxpr
from didax.interpreters.flops import FLOPS_RULES, Counted, Operand, count_jaxpr, per_element
from didax.interpreters.jvp import JVP_RULES
from didax.interpreters.partial_eval import PE_RULES, PartialEvalTrace
from didax.interpreters.transpose import TRANSPOSE_RULES
from didax.ir.jaxpr import Jaxpr, Literal, Var
from didax.ir.passes import dce_jaxpr
from didax.ir.rewrite import keep_inputs

# --- evaluation --------------------------------------------------------------------------


@IMPL_RULES.defines(remat_p)
def _remat_impl(*args: HostArray, jaxpr: Jaxpr, policy: Policy, prevent_cse: bool) -> list[Any]:
    return eval_jaxpr(jaxpr, args)


# --- jvp, batching, transposition, DCE: the region stays a region, same policy ------------


def _retag(params: dict[str, Any], body: Jaxpr, transformation: str) -> dict[str, Any]:
    return {**params, "jaxpr": body}


register_call_rules(remat_p, _retag)


# --- partial evaluation: save what the policy allows, recompute the rest -----------------


def _known_vars(jaxpr: Jaxpr, in_unknowns: Sequence[bool]) -> set[Var]:
    """The variables whose values are computable from the known inputs alone."""
    known = {v for v, u in zip(jaxpr.in_binders, in_unknowns, strict=True) if not u}
    for eqn in jaxpr.eqns:
        if all(isinstance(x, Literal) or x in known for x in eqn.inputs):
            known.update(eqn.out_binders)
    return known


def _remat_partial_eval(
    trace: PartialEvalTrace, args: Sequence[Any], params: dict[str, Any]
) -> list[Any]:
    jaxpr: Jaxpr = params["jaxpr"]
    policy: Policy = params["policy"]
    in_unknowns = [trace.is_unknown(x) for x in args]
    known = _known_vars(jaxpr, in_unknowns)
    out_unknowns = [not (isinstance(x, Literal) or x in known) for x in jaxpr.outs]
    # The saved values: outputs of known equations the policy allows.
    saved: list[Var] = []
    for eqn in jaxpr.eqns:
        is_known = bool(eqn.out_binders) and eqn.out_binders[0] in known
        if is_known and policy(eqn.primitive, *(x.aval for x in eqn.inputs), **eqn.params):
            saved.extend(eqn.out_binders)
    # Known side: the known outputs and the saved values, computed now.
    known_outs = [x for x, u in zip(jaxpr.outs, out_unknowns, strict=True) if not u]
    known_jaxpr, _ = dce_jaxpr(Jaxpr(jaxpr.in_binders, jaxpr.eqns, (*known_outs, *saved)))
    known_args = [a for a, u in zip(args, in_unknowns, strict=True) if not u]
    known_body = Jaxpr(
        tuple(v for v, u in zip(jaxpr.in_binders, in_unknowns, strict=True) if not u),
        known_jaxpr.eqns,
        known_jaxpr.outs,
    )
    parent = trace.parent
    assert parent is not None
    with set_current_trace(parent):
        known_results = eval_jaxpr(known_body, known_args)
    known_values, saved_values = known_results[: len(known_outs)], known_results[len(known_outs) :]
    # Unknown side: the whole region again, with the saved values as inputs
    # (their equations dropped), staged as a remat equation: its known
    # inputs become residuals, and the backward pass recomputes the rest.
    # A saved value the unknown side does not read is not kept.
    saved_set = set(saved)
    unknown_outs = [x for x, u in zip(jaxpr.outs, out_unknowns, strict=True) if u]
    unknown_jaxpr, used = dce_jaxpr(
        Jaxpr(
            (*saved, *jaxpr.in_binders),
            tuple(e for e in jaxpr.eqns if not saved_set.intersection(e.out_binders)),
            tuple(unknown_outs),
        )
    )
    unknown_jaxpr = keep_inputs(unknown_jaxpr, used)
    operands = [x for x, u in zip([*saved_values, *args], used, strict=True) if u]
    staged = trace.stage(remat_p, operands, {**params, "jaxpr": unknown_jaxpr})
    known_it, unknown_it = iter(known_values), iter(staged)
    return [next(unknown_it) if u else next(known_it) for u in out_unknowns]


PE_RULES.register(remat_p, _remat_partial_eval)


# --- name: the identity, with a name the policies read --------------------------------------


@IMPL_RULES.defines(name_p)
def _name_impl(x: HostArray, *, name: str) -> HostArray:
    return x


@JVP_RULES.defines(name_p)
def _name_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, name: str) -> tuple[Any, Any]:
    # The primal is named, the tangent not (as JAX's): a policy saves the
    # forward pass's value, never a tangent.
    return name_p.bind(primals[0], name=name), tangents[0]


@BATCH_RULES.defines(name_p)
def _name_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Any], *, name: str
) -> tuple[Any, Any]:
    return name_p.bind(args[0], name=name), dims[0]


@TRANSPOSE_RULES.defines(name_p)
def _name_transpose(ct: Any, x: Any, *, name: str) -> list[Any]:
    return [ct]


FLOPS_RULES.register(name_p, per_element(0))


# --- flops ----------------------------------------------------------------------------


@FLOPS_RULES.defines(remat_p)
def _remat_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, *, jaxpr: Jaxpr, **_: object
) -> Counted:
    # A checkpointed region costs its body; what the backward pass recomputes
    # shows as remat equations of the differentiated jaxpr, and counts there.
    return count_jaxpr(jaxpr, operands)
