"""The interpreter rules of ``custom_jvp`` and ``custom_vjp`` calls (user-defined derivatives).

Three primitives (declared and typed in ``core.lax.custom_derivatives``,
lowered in ``lowering.custom_derivatives``; their flops rules are in
``interpreters.flops``):

- ``custom_jvp_call_p`` binds ``(*consts, *args)`` with params ``call_jaxpr``
  (the function, constant-free; ``consts`` are what it closed over),
  ``jvp`` (the user's rule, a ``CustomRule``: flat primals and floating-point
  tangents to flat primal outputs and floating-point tangent outputs) and
  ``num_consts``.
- ``custom_vjp_call_p`` binds ``(*consts, *args)`` with ``call_jaxpr``,
  ``fwd`` (args to outputs and residuals), ``bwd`` (residuals and
  floating-point cotangents to the args' floating-point cotangents),
  ``num_consts``.
- ``custom_lin_p``: what a custom_vjp call becomes under jvp. It stands for
  the linear map whose transpose is ``bwd``: partial evaluation stages it,
  transposition calls ``bwd``, and evaluating it forward is JAX's error
  ("can't apply forward-mode autodiff (jvp) to a custom_vjp function").

Design rules:
- The function is traced into a jaxpr when it is called; the rules are
  traced only when a transformation needs them (JAX's thunks), because a
  jvp rule usually calls the function itself. A rule runs under the trace
  that is current when the transformation applies it, so it may close over
  tracers of transformations enclosing that one.
- Evaluation and lowering run the function (``call_jaxpr``); the rules run
  only under jvp, and so linearize, vjp and grad. Differentiating with
  respect to a value the function closed over is JAX's error: the rule says
  nothing about it.
- Tangents and cotangents of integer values (float0) carry nothing and are
  never inputs or outputs of a ``CustomRule``.
- Under vmap a rule is batched by running it under a vmap of its own
  (``batched_rule``). (A rule that closes over a tracer of that very vmap,
  applied by a jvp outside it, is not supported: the tracer belongs to a
  trace the batched rule cannot see.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, NoReturn

from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray
from didax.core.lax.custom_derivatives import (
    CustomRule,
    custom_jvp_call_p,
    custom_lin_p,
    custom_vjp_call_p,
)
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front, vmap_flat
from didax.interpreters.evaluation import IMPL_RULES, eval_jaxpr
from didax.interpreters.flops import FLOPS_RULES, Counted, Operand, count_jaxpr
from didax.interpreters.jaxpr_transforms import close_over_nothing, vmap_jaxpr
from didax.interpreters.jvp import JVP_RULES, Zero, instantiate_zeros
from didax.interpreters.transpose import TRANSPOSE_RULES, is_undefined
from didax.ir.jaxpr import Jaxpr


class CustomVJPForwardModeError(TypeError):
    """Forward-mode differentiation (jvp) of a custom_vjp function."""


FORWARD_MODE_MESSAGE: Final = (
    "can't apply forward-mode autodiff (jvp) to a custom_vjp function: its derivative is "
    "defined only in reverse mode (fwd/bwd). Use grad, vjp or jacrev, or define the function "
    "with custom_jvp instead"
)


def is_differentiable(aval: ShapedArray) -> bool:
    return dtypes.is_inexact(aval.dtype)


def _explicit_args(
    primals: Sequence[Any], tangents: Sequence[Any], num_consts: int, what: str
) -> tuple[Sequence[Any], Sequence[Any]]:
    """The primals and tangents of the explicit arguments, past the ``num_consts`` closed-over
    values, whose tangents must be zero (JAX's rule and error)."""
    if any(not isinstance(t, Zero) for t in tangents[:num_consts]):
        raise TypeError(
            f"Detected differentiation of a {what} function with respect to a closed-over "
            f"value. That isn't supported because the custom rule only specifies how to "
            f"differentiate the {what} function with respect to explicit input parameters. "
            "Pass the closed-over value into the function as an argument, and adapt its rule."
        )
    return primals[num_consts:], tangents[num_consts:]


def _float_tangents(
    tangents: Sequence[Any], avals: Sequence[ShapedArray], symbolic_zeros: bool = False
) -> list[Any]:
    # A rule takes a tangent for every floating-point argument: a symbolic
    # zero becomes zeros first (JAX's default, symbolic_zeros=False), or is
    # passed as it is to a rule that asked for symbolic zeros.
    return [
        t if symbolic_zeros and isinstance(t, Zero) else instantiate_zeros(t)
        for t, a in zip(tangents, avals, strict=True)
        if is_differentiable(a)
    ]


def _spread(float_values: Sequence[Any], avals: Sequence[ShapedArray]) -> list[Any]:
    """Floating-point values back in place; a float0 ``Zero`` for every other aval."""
    it = iter(float_values)
    return [next(it) if is_differentiable(a) else Zero.like(a) for a in avals]


# --- the calls: evaluation ---------------------------------------------------------


@IMPL_RULES.defines(custom_jvp_call_p, custom_vjp_call_p)
def _custom_call_impl(*args: HostArray, call_jaxpr: Jaxpr, **_: object) -> list[Any]:
    return eval_jaxpr(call_jaxpr, args)


# --- custom_jvp_call -----------------------------------------------------------------------


@JVP_RULES.defines(custom_jvp_call_p)
def _custom_jvp_call_jvp(
    primals: Sequence[Any],
    tangents: Sequence[Any],
    *,
    call_jaxpr: Jaxpr,
    jvp: CustomRule,
    num_consts: int,
) -> tuple[list[Any], list[Any]]:
    primals, tangents = _explicit_args(primals, tangents, num_consts, "custom_jvp")
    arg_avals = call_jaxpr.in_avals[num_consts:]
    outs, float_t = jvp(primals, _float_tangents(tangents, arg_avals, jvp.symbolic_zeros))
    return outs, _spread(float_t, call_jaxpr.out_avals)


def batched_rule(rule: CustomRule, axis_size: int, in_dims: Sequence[Dim]) -> CustomRule:
    """``rule`` on values batched as ``in_dims`` says (its list arguments, flattened).

    Every output comes batched at axis 0. Symbolic zeros are made arrays on
    the way in and out: under vmap the rule sees zeros, not ``Zero``.
    """

    def fun(*groups: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        sizes = [len(g) for g in groups]
        flat = [instantiate_zeros(x) for g in groups for x in g]
        if len(flat) != len(in_dims):
            raise ValueError("batched custom rule: operand count mismatch")
        n_first: list[int] = []

        def flat_rule(*xs: Any) -> list[Any]:
            parts, start = [], 0
            for size in sizes:
                parts.append(list(xs[start : start + size]))
                start += size
            a, b = rule(*parts)
            n_first[:] = [len(a)]
            return [instantiate_zeros(x) for x in (*a, *b)]

        pairs = vmap_flat(flat_rule, axis_size, flat, in_dims)
        outs = [bdim_at_front(v, d, axis_size) for v, d in pairs]
        return outs[: n_first[0]], outs[n_first[0] :]

    return CustomRule(fun, f"vmap({rule.name})")


@BATCH_RULES.defines(custom_jvp_call_p)
def _custom_jvp_call_batch(
    axis_size: int,
    args: Sequence[Any],
    dims: Sequence[Dim],
    *,
    call_jaxpr: Jaxpr,
    jvp: CustomRule,
    num_consts: int,
) -> tuple[list[Any], list[Dim]]:
    batched = tuple(d is not None for d in dims)
    args = [
        x if d is None else bdim_at_front(x, d, axis_size) for x, d in zip(args, dims, strict=True)
    ]
    call, hoisted = close_over_nothing(vmap_jaxpr(call_jaxpr, axis_size, batched)[0])
    # A tangent is batched (at 0, after this rule) exactly when its primal is.
    arg_avals = call_jaxpr.in_avals[num_consts:]
    arg_dims: list[Dim] = [0 if b else None for b in batched[num_consts:]]
    tangent_dims = [d for d, a in zip(arg_dims, arg_avals, strict=True) if is_differentiable(a)]
    outs = custom_jvp_call_p.bind(
        *hoisted,
        *args,
        call_jaxpr=call,
        jvp=batched_rule(jvp, axis_size, [*arg_dims, *tangent_dims]),
        num_consts=len(hoisted) + num_consts,
    )
    return outs, [0] * len(outs)


# --- custom_vjp_call and custom_lin --------------------------------------------------------


@JVP_RULES.defines(custom_vjp_call_p)
def _custom_vjp_call_jvp(
    primals: Sequence[Any],
    tangents: Sequence[Any],
    *,
    call_jaxpr: Jaxpr,
    fwd: CustomRule,
    bwd: CustomRule,
    num_consts: int,
) -> tuple[list[Any], list[Any]]:
    primals, tangents = _explicit_args(primals, tangents, num_consts, "custom_vjp")
    if fwd.symbolic_zeros:  # the rule is told which inputs have nonzero tangents
        outs, res = fwd(primals, [not isinstance(t, Zero) for t in tangents])
    else:
        outs, res = fwd(primals)
    out_avals = tuple(Zero.like(a).aval for a in call_jaxpr.out_avals if is_differentiable(a))
    lin_outs = custom_lin_p.bind(
        *res,
        *_float_tangents(tangents, call_jaxpr.in_avals[num_consts:]),
        bwd=bwd,
        num_res=len(res),
        out_avals=out_avals,
    )
    return list(outs), _spread(lin_outs, call_jaxpr.out_avals)


def forward_mode_refused(*args: object, **params: object) -> NoReturn:
    """custom_lin's impl and jvp rule (and lowering): JAX's error."""
    from didax.core.source_info import user_frame_summary

    raise CustomVJPForwardModeError(f"{FORWARD_MODE_MESSAGE} (at {user_frame_summary()})")


IMPL_RULES.register(custom_lin_p, forward_mode_refused)
JVP_RULES.register(custom_lin_p, forward_mode_refused)


@TRANSPOSE_RULES.defines(custom_lin_p)
def _custom_lin_transpose(
    cts: Sequence[Any], *args: Any, bwd: CustomRule, num_res: int, out_avals: Any
) -> list[Any]:
    res = args[:num_res]
    if any(is_undefined(x) for x in res):
        raise TypeError("transpose of custom_lin: its residuals must be known")
    # With symbolic zeros, the rule sees a zero cotangent as such (``Zero``).
    keep = bwd.symbolic_zeros
    _, arg_cts = bwd(
        res, [c if keep and isinstance(c, Zero) else instantiate_zeros(c) for c in cts]
    )
    return [*(None for _ in res), *arg_cts]


@BATCH_RULES.defines(custom_vjp_call_p)
def _custom_vjp_call_batch(
    axis_size: int,
    args: Sequence[Any],
    dims: Sequence[Dim],
    *,
    call_jaxpr: Jaxpr,
    fwd: CustomRule,
    bwd: CustomRule,
    num_consts: int,
) -> tuple[list[Any], list[Dim]]:
    n = axis_size
    batched = tuple(d is not None for d in dims)
    args = [x if d is None else bdim_at_front(x, d, n) for x, d in zip(args, dims, strict=True)]
    call, hoisted = close_over_nothing(vmap_jaxpr(call_jaxpr, n, batched)[0])
    arg_avals = call_jaxpr.in_avals[num_consts:]
    arg_dims: list[Dim] = [0 if b else None for b in batched[num_consts:]]
    float_arg_dims = [d for d, a in zip(arg_dims, arg_avals, strict=True) if is_differentiable(a)]

    def bwd_with_arg_dims(res: Sequence[Any], cts: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        # The batched fwd batches every residual, and every cotangent arrives
        # batched; a cotangent of an unbatched argument is summed over the batch.
        in_dims: list[Dim] = [0] * (len(res) + len(cts))
        inner = batched_rule(CustomRule(lambda r, c: ([], bwd(r, c)[1]), bwd.name), n, in_dims)
        _, arg_cts = inner(res, cts)
        return [], [
            ct if d is not None else lax.reduce_sum(ct, (0,))
            for ct, d in zip(arg_cts, float_arg_dims, strict=True)
        ]

    outs = custom_vjp_call_p.bind(
        *hoisted,
        *args,
        call_jaxpr=call,
        fwd=batched_rule(fwd, n, arg_dims),
        bwd=CustomRule(bwd_with_arg_dims, f"vmap({bwd.name})"),
        num_consts=len(hoisted) + num_consts,
    )
    return outs, [0] * len(outs)


# --- flops ----------------------------------------------------------------------------


@FLOPS_RULES.defines(custom_jvp_call_p, custom_vjp_call_p)
def _custom_call_flops(
    operands: Sequence[Operand],
    out_avals: Sequence[ShapedArray],
    /,
    *,
    call_jaxpr: Jaxpr,
    **_: Any,
) -> Counted:
    # What runs is the function; its rules only run under differentiation,
    # and then they are ordinary equations of the differentiated jaxpr.
    return count_jaxpr(call_jaxpr, operands)


# custom_lin stands for a linear map that only transposition may use; a
# program that would run it forward is refused, as evaluating it is.
FLOPS_RULES.register(custom_lin_p, forward_mode_refused)
