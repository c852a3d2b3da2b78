"""The interpreter rules of ``custom_vmap`` calls (user-defined batching rules).

``custom_vmap_call_p`` (declared and typed in ``core.lax.custom_batching``,
lowered in ``lowering.custom_batching``) binds ``(*consts, *args)`` with
``call_jaxpr``, ``rule`` (a ``VmapRule``) and ``num_consts``.

Design rules:
- Evaluation, lowering and flops run the function (``call_jaxpr``); the
  rule runs only under vmap, as JAX's: the batching rule moves the batched
  arguments' batch to axis 0, calls the rule under the enclosing trace
  and returns its results batched where the rule says.
- A value the function closed over has no place in the rule's arguments:
  batching it is refused, with the remedy (pass it as an argument).
- Under jvp the call becomes its function's equations, differentiated as
  any others, so linearize, vjp and grad work too (JAX 0.10.2's reverse
  mode refuses a custom_vmap call: "Linearization failed to produce known
  values"); a vmap of the derivative batches those equations, not the
  rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray
from didax.core.lax.custom_batching import VmapRule, custom_vmap_call_p
from didax.core.values import get_aval
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front
from didax.interpreters.evaluation import IMPL_RULES, eval_jaxpr
from didax.interpreters.flops import FLOPS_RULES, Counted, Operand, count_jaxpr
from didax.interpreters.jaxpr_transforms import jaxpr_as_fun
from didax.interpreters.jvp import JVP_RULES, jvp_flat
from didax.ir.jaxpr import Jaxpr


@IMPL_RULES.defines(custom_vmap_call_p)
def _custom_vmap_call_impl(*args: HostArray, call_jaxpr: Jaxpr, **_: object) -> list[Any]:
    return eval_jaxpr(call_jaxpr, args)


@JVP_RULES.defines(custom_vmap_call_p)
def _custom_vmap_call_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], *, call_jaxpr: Jaxpr, **_: object
) -> tuple[list[Any], list[Any]]:
    return jvp_flat(jaxpr_as_fun(call_jaxpr), primals, tangents)


@BATCH_RULES.defines(custom_vmap_call_p)
def _custom_vmap_call_batch(
    axis_size: int,
    args: Sequence[Any],
    dims: Sequence[Dim],
    *,
    call_jaxpr: Jaxpr,
    rule: VmapRule,
    num_consts: int,
) -> tuple[list[Any], list[Dim]]:
    if any(d is not None for d in dims[:num_consts]):
        raise NotImplementedError(
            f"custom_vmap function {rule.name}: it closes over a value this vmap batches; "
            "pass that value to the function as an argument, so that its rule sees it"
        )
    fronted = [
        bdim_at_front(x, d, axis_size) if d is not None else x
        for x, d in zip(args[num_consts:], dims[num_consts:], strict=True)
    ]
    in_batched = [d is not None for d in dims[num_consts:]]
    outs, out_batched = rule(axis_size, in_batched, fronted)
    _check_rule_outputs(rule, axis_size, outs, out_batched, call_jaxpr.out_avals)
    return list(outs), [0 if b else None for b in out_batched]


def _check_rule_outputs(
    rule: VmapRule,
    axis_size: int,
    outs: Sequence[Any],
    batched: Sequence[bool],
    avals: Sequence[ShapedArray],
) -> None:
    """The rule's results must be the function's, with the batch at axis 0 where it says."""
    for i, (o, b, a) in enumerate(zip(outs, batched, avals, strict=True)):
        want = (axis_size, *a.shape) if b else a.shape
        got = get_aval(o)
        if got.shape != want or got.dtype != a.dtype:
            raise ValueError(
                f"custom_vmap function {rule.name}: its vmap rule's result {i} has type "
                f"{got.str_short()}, expected {a.dtype.name}{list(want)} "
                f"({'batched' if b else 'unbatched'}, as the rule says)"
            )


@FLOPS_RULES.defines(custom_vmap_call_p)
def _custom_vmap_call_flops(
    operands: Sequence[Operand],
    out_avals: Sequence[ShapedArray],
    /,
    *,
    call_jaxpr: Jaxpr,
    **_: object,
) -> Counted:
    # What runs is the function; the rule runs only under vmap, and then its
    # equations are ordinary equations of the batched jaxpr.
    return count_jaxpr(call_jaxpr, operands)
