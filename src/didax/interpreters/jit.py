"""The jit-call primitive: a higher-order primitive carrying a jaxpr, with all its rules.

Design rules:
- ``jit_p`` binds a constant-free ``Jaxpr`` (param ``jaxpr``) to explicit
  operands. Whatever the traced function closed over (arrays, tracers of
  enclosing transformations) was hoisted by staging and is passed as
  leading operands: that is closure conversion, and it is why jvp/vmap of
  jit need no special knowledge of closures.
- This module holds every rule of the primitive but its lowering (a
  ``func.call``, in ``lowering.mlir``) and its impl (compile and execute,
  which is the lowering layer's job and is registered there): abstract
  evaluation, jvp, batching, partial evaluation, transposition and DCE.
  Each transforms the body with ``jaxpr_transforms`` and binds ``jit_p``
  again on the result (initial style); those jaxprs are cached by
  fingerprint, so ``jvp(jit(f))`` called again builds nothing new.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, shape_failure
from didax.core.primitive import Primitive
from didax.core.trace import set_current_trace
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front
from didax.interpreters.jaxpr_transforms import (
    close_over_nothing,
    jvp_jaxpr,
    partial_eval_jaxpr,
    transpose_jaxpr,
    vmap_jaxpr,
)
from didax.interpreters.jvp import JVP_RULES, Zero
from didax.interpreters.partial_eval import PE_RULES, PartialEvalTrace
from didax.interpreters.transpose import TRANSPOSE_RULES, is_undefined
from didax.ir.jaxpr import Jaxpr, JaxprEqn
from didax.ir.passes import DCE_RULES, dce_jaxpr

jit_p: Final = Primitive("jit", multiple_results=True)


def check_operands(
    avals: Sequence[ShapedArray], expected: Sequence[ShapedArray], what: str
) -> None:
    """Operand types must be a body's input types (weakness aside)."""
    if len(avals) != len(expected) or any(
        a.strip_weak() != e.strip_weak() for a, e in zip(avals, expected, strict=True)
    ):
        shown = ", ".join(a.str_short() for a in expected)
        raise shape_failure(f"{what} expects operands of types ({shown})")


@ABSTRACT_EVAL.defines(jit_p)
def _jit_abstract_eval(*avals: ShapedArray, jaxpr: Jaxpr, name: str) -> list[ShapedArray]:
    check_operands(avals, jaxpr.in_avals, f"the jitted function {name}")
    return list(jaxpr.out_avals)


@JVP_RULES.defines(jit_p)
def _jit_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], *, jaxpr: Jaxpr, name: str
) -> tuple[list[Any], list[Any]]:
    nonzeros = [not isinstance(t, Zero) for t in tangents]
    closed, out_nonzeros = jvp_jaxpr(jaxpr, nonzeros)
    body, consts = close_over_nothing(closed)
    nz_tangents = [t for t in tangents if not isinstance(t, Zero)]
    outs = jit_p.bind(*consts, *primals, *nz_tangents, jaxpr=body, name=f"jvp({name})")
    n = len(jaxpr.outs)
    primals_out, nz_t_out = outs[:n], iter(outs[n:])
    tangents_out = [
        next(nz_t_out) if nz else Zero.like(a)
        for a, nz in zip(jaxpr.out_avals, out_nonzeros, strict=True)
    ]
    return primals_out, tangents_out


@BATCH_RULES.defines(jit_p)
def _jit_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], *, jaxpr: Jaxpr, name: str
) -> tuple[list[Any], list[Dim]]:
    batched = [d is not None for d in dims]
    args = [
        x if d is None else bdim_at_front(x, d, axis_size) for x, d in zip(args, dims, strict=True)
    ]
    body, consts = close_over_nothing(vmap_jaxpr(jaxpr, axis_size, batched)[0])
    outs = jit_p.bind(*consts, *args, jaxpr=body, name=f"vmap({name})")
    return outs, [0] * len(outs)


def _jit_partial_eval(trace: PartialEvalTrace, args: Sequence[Any], params: dict[str, Any]) -> Any:
    """A jit call with unknown operands: a known call now, an unknown call staged."""
    jaxpr: Jaxpr = params["jaxpr"]
    name: str = params["name"]
    in_unknowns = [trace.is_unknown(x) for x in args]
    known, unknown, out_unknowns, num_res = partial_eval_jaxpr(jaxpr, in_unknowns)
    known_args = [x for x, u in zip(args, in_unknowns, strict=True) if not u]
    parent = trace.parent
    assert parent is not None
    known_body, known_consts = close_over_nothing(known)
    with set_current_trace(parent):
        known_results = jit_p.bind(*known_consts, *known_args, jaxpr=known_body, name=name)
    num_known = len(known_results) - num_res
    known_outs, residuals = known_results[:num_known], known_results[num_known:]
    unknown_args = [x for x, u in zip(args, in_unknowns, strict=True) if u]
    unknown_outs = trace.stage(
        jit_p, [*residuals, *unknown_args], {"jaxpr": unknown, "name": f"{name}_unknown"}
    )
    known_it, unknown_it = iter(known_outs), iter(unknown_outs)
    return [next(unknown_it) if u else next(known_it) for u in out_unknowns]


PE_RULES.register(jit_p, _jit_partial_eval)


@TRANSPOSE_RULES.defines(jit_p)
def _jit_transpose(cts: Sequence[Any], *args: Any, jaxpr: Jaxpr, name: str) -> list[Any]:
    linear = [is_undefined(a) for a in args]
    ct_nonzero = [not isinstance(c, Zero) for c in cts]
    t_closed, out_nonzero = transpose_jaxpr(jaxpr, linear, ct_nonzero)
    outs: list[Any] = []
    if any(out_nonzero):
        t_body, t_consts = close_over_nothing(t_closed)
        defined = [a for a in args if not is_undefined(a)]
        nz_cts = [c for c in cts if not isinstance(c, Zero)]
        outs = jit_p.bind(*t_consts, *defined, *nz_cts, jaxpr=t_body, name=f"transpose({name})")
    nz_outs = iter(outs)
    flags = iter(out_nonzero)
    result: list[Any] = []
    for a in args:
        if is_undefined(a):
            result.append(next(nz_outs) if next(flags) else Zero.like(a.aval))
        else:
            result.append(None)
    return result


@DCE_RULES.defines(jit_p)
def _jit_dce(used_outputs: Sequence[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn | None]:
    body, used_inputs = dce_jaxpr(eqn.params["jaxpr"], used_outputs, prune_inputs=True)
    new_eqn = JaxprEqn(
        jit_p,
        tuple(x for x, u in zip(eqn.inputs, used_inputs, strict=True) if u),
        {**eqn.params, "jaxpr": body},
        tuple(v for v, u in zip(eqn.out_binders, used_outputs, strict=True) if u),
    )
    return used_inputs, new_eqn
