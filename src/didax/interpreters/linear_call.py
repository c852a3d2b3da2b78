"""``linear_call``'s interpreter rules: evaluation, jvp, transposition, batching, flops.

Design rules (JAX's rules for ``linear_call_p``):
- jvp: the call on the primals, and the same call on the linear operands'
  tangents (the function is linear in them); tangents of the residuals and
  constants are not differentiated through, as JAX's rule.
- transposition: another ``linear_call`` with callee and transpose swapped,
  on the residuals and the output cotangents; so transposing twice gives
  the function back.
- batching (JAX has none): both jaxprs are vmapped, the linear operands and
  the outputs always batched at axis 0, so that the batched transpose is
  the transpose of the batched function.
- Partial evaluation stages the call whole and DCE keeps it whole (the
  user's transpose pairs with the whole function).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray
from didax.core.lax.linear_call import LinearCallParams, linear_call_p
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front
from didax.interpreters.evaluation import IMPL_RULES, eval_jaxpr
from didax.interpreters.flops import FLOPS_RULES, Counted, Operand, count_jaxpr
from didax.interpreters.jaxpr_transforms import close_over_nothing, vmap_jaxpr
from didax.interpreters.jvp import JVP_RULES, Zero, instantiate_zeros
from didax.interpreters.transpose import TRANSPOSE_RULES, is_undefined
from didax.ir.jaxpr import Jaxpr


def _params(params: dict[str, Any]) -> LinearCallParams[Jaxpr]:
    return LinearCallParams(**params)


@IMPL_RULES.defines(linear_call_p)
def _linear_call_impl(*args: HostArray, **params: Any) -> list[Any]:
    p = _params(params)
    return eval_jaxpr(p.callee, p.callee_operands(args))


@JVP_RULES.defines(linear_call_p)
def _linear_call_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], **params: Any
) -> tuple[list[Any], list[Any]]:
    n_fixed = _params(params).num_fixed
    outs = linear_call_p.bind(*primals, **params)
    lin_tangents = [instantiate_zeros(t) for t in tangents[n_fixed:]]
    t_outs = linear_call_p.bind(*primals[:n_fixed], *lin_tangents, **params)
    return outs, t_outs


@TRANSPOSE_RULES.defines(linear_call_p)
def _linear_call_transpose(cts: Sequence[Any], *args: Any, **params: Any) -> list[Any]:
    p = _params(params)
    c_consts, t_consts, rest = p.split(args)
    res, lin = rest[: p.num_res], rest[p.num_res :]
    if any(is_undefined(x) for x in [*c_consts, *t_consts, *res]):
        raise TypeError("linear_call: the function is linear only in its linear_args")
    cts = [instantiate_zeros(ct) if isinstance(ct, Zero) else ct for ct in cts]
    lin_cts = p.transposed().bind(*t_consts, *c_consts, *res, *cts)
    assert len(lin_cts) == len(lin)
    return [None] * (len(args) - len(lin)) + list(lin_cts)


@BATCH_RULES.defines(linear_call_p)
def _linear_call_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], **params: Any
) -> tuple[list[Any], list[Dim]]:
    p = _params(params)
    n_fixed = p.num_fixed
    # Fixed operands batched where they are; linear operands always batched.
    flags = [d is not None for d in dims[:n_fixed]] + [True] * (len(args) - n_fixed)
    moved = [
        x if not f else bdim_at_front(x, d, axis_size)
        for x, d, f in zip(args, dims, flags, strict=True)
    ]
    c_flags, t_flags, rest_flags = p.split(flags)
    res_flags = rest_flags[: p.num_res]
    n_out = len(p.callee.outs)
    callee, c_new = close_over_nothing(vmap_jaxpr(p.callee, axis_size, [*c_flags, *rest_flags])[0])
    transpose, t_new = close_over_nothing(
        vmap_jaxpr(p.transpose, axis_size, [*t_flags, *res_flags, *[True] * n_out])[0]
    )
    c_args, t_args, rest = p.split(moved)
    batched = LinearCallParams(
        callee,
        transpose,
        num_callee_consts=len(c_new) + p.num_callee_consts,
        num_transpose_consts=len(t_new) + p.num_transpose_consts,
        num_res=p.num_res,
    )
    outs = batched.bind(*c_new, *c_args, *t_new, *t_args, *rest)
    return outs, [0] * len(outs)


@FLOPS_RULES.defines(linear_call_p)
def _linear_call_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **params: Any
) -> Counted:
    p = _params(params)
    return count_jaxpr(p.callee, p.callee_operands(operands))
