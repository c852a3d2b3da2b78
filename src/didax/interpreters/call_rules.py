"""The rules of a *call* primitive: one that runs the jaxpr it carries on its operands.

The jit call (``jit_p``) and a checkpointed region (``remat_p``) are both
calls: ``prim(*args, jaxpr=body, **other_params)`` computes ``body(*args)``.
Their jvp, batching and transposition rules are the same: transform the
body with ``jaxpr_transforms`` and bind the primitive again on the result,
its constants as leading operands; their DCE rule prunes the body. This
module builds those rules once, for any call primitive; each primitive's
module registers them (and its own typing and partial-evaluation rules,
which differ).

Design rule: what a call primitive's params are beyond ``jaxpr`` is its
own business; ``retag(params, body, transformation)`` says how they change
when the body does (the jit call renames itself ``jvp(f)``, a checkpoint
keeps its policy).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from didax.core.primitive import Primitive
from didax.core.values import ArrayLike
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front
from didax.interpreters.jaxpr_transforms import (
    close_over_nothing,
    jvp_jaxpr,
    transpose_jaxpr,
    vmap_jaxpr,
)
from didax.interpreters.jvp import JVP_RULES, Zero
from didax.interpreters.transpose import TRANSPOSE_RULES, UndefinedPrimal, is_undefined
from didax.ir.jaxpr import Jaxpr, JaxprEqn
from didax.ir.passes import DCE_RULES, dce_jaxpr

# ``(params, new body, transformation name) -> params of the transformed call``.
Retag = Callable[[dict[str, Any], Jaxpr, str], dict[str, Any]]


def register_call_rules(prim: Primitive, retag: Retag) -> None:
    """Registers the jvp, batching, transposition and DCE rules of the call primitive ``prim``."""

    def jvp_rule(
        primals: Sequence[Any], tangents: Sequence[Any], **params: Any
    ) -> tuple[list[Any], list[Any]]:
        jaxpr: Jaxpr = params["jaxpr"]
        nonzeros = [not isinstance(t, Zero) for t in tangents]
        closed, out_nonzeros = jvp_jaxpr(jaxpr, nonzeros)
        body, consts = close_over_nothing(closed)
        nz_tangents = [t for t in tangents if not isinstance(t, Zero)]
        outs = prim.bind(*consts, *primals, *nz_tangents, **retag(params, body, "jvp"))
        n = len(jaxpr.outs)
        nz_out = iter(outs[n:])
        return outs[:n], [
            next(nz_out) if nz else Zero.like(a)
            for a, nz in zip(jaxpr.out_avals, out_nonzeros, strict=True)
        ]

    def batch_rule(
        axis_size: int, args: Sequence[Any], dims: Sequence[Dim], **params: Any
    ) -> tuple[list[Any], list[Dim]]:
        batched = [d is not None for d in dims]
        args = [
            x if d is None else bdim_at_front(x, d, axis_size)
            for x, d in zip(args, dims, strict=True)
        ]
        body, consts = close_over_nothing(vmap_jaxpr(params["jaxpr"], axis_size, batched)[0])
        outs = prim.bind(*consts, *args, **retag(params, body, "vmap"))
        return outs, [0] * len(outs)

    def transpose_rule(
        cts: Sequence[Any], *args: ArrayLike | UndefinedPrimal, **params: Any
    ) -> list[Any]:
        linear = [is_undefined(a) for a in args]
        ct_nonzero = [not isinstance(c, Zero) for c in cts]
        closed, out_nonzero = transpose_jaxpr(params["jaxpr"], linear, ct_nonzero)
        outs: list[Any] = []
        if any(out_nonzero):
            body, consts = close_over_nothing(closed)
            defined = [a for a in args if not is_undefined(a)]
            nz_cts = [c for c in cts if not isinstance(c, Zero)]
            outs = prim.bind(*consts, *defined, *nz_cts, **retag(params, body, "transpose"))
        nz_outs, flags = iter(outs), iter(out_nonzero)
        return [
            (next(nz_outs) if next(flags) else Zero.like(a.aval))
            if isinstance(a, UndefinedPrimal)
            else None
            for a in args
        ]

    def dce_rule(used_outputs: Sequence[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn]:
        body, used_inputs = dce_jaxpr(eqn.params["jaxpr"], used_outputs, prune_inputs=True)
        new_eqn = JaxprEqn(
            prim,
            tuple(x for x, u in zip(eqn.inputs, used_inputs, strict=True) if u),
            {**eqn.params, "jaxpr": body},
            tuple(v for v, u in zip(eqn.out_binders, used_outputs, strict=True) if u),
        )
        return used_inputs, new_eqn

    JVP_RULES.register(prim, jvp_rule)
    BATCH_RULES.register(prim, batch_rule)
    TRANSPOSE_RULES.register(prim, transpose_rule)
    DCE_RULES.register(prim, dce_rule)
