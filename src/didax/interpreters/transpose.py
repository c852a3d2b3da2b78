"""Transposition: the backward pass of reverse-mode differentiation.

``backward_pass`` runs a jaxpr that is linear in some of its inputs
backwards: given a cotangent per output, it returns the cotangent of every
linear input (Autodidax's ``eval_jaxpr_transposed``, JAX's ``backward_pass``).

Design rules:
- A linear input whose value is unknown is an ``UndefinedPrimal``; every
  other input is a value (a constant of the linear map, e.g. a residual of
  linearize). An equation is *linear* when any of its inputs is undefined
  (directly, or as the result of an earlier linear equation); the others
  are evaluated forward first, and only those the linear ones need.
- Cotangents use the ``Zero`` of ``interpreters.jvp`` for symbolic zeros
  and are summed with ``add_tangents``, so a zero is never materialised:
  an equation all of whose output cotangents are zero is skipped, and the
  jit call's transposed jaxpr takes only the nonzero cotangents as inputs
  and returns only the nonzero ones.
- ``vjp_flat`` is the whole of reverse mode: ``linearize_flat`` (jvp and
  partial evaluation), then ``backward_pass`` over the linear jaxpr.
- Rules (``TRANSPOSE_RULES``) have the signature ``(ct, *args, **params)``
  where ``ct`` is the output cotangent (a list for multiple-result
  primitives, whose entries may be ``Zero``; a single-result rule is never
  called with a ``Zero``) and ``args`` are the inputs, linear ones as
  ``UndefinedPrimal``. They return one entry per input: a cotangent (or
  ``Zero``) for an undefined input, ``None`` for a defined one.
- Rules, and the forward evaluation, bind under the *current* trace, as
  every interpreter here does: transposing under jit stages the backward
  pass, and transposing under jvp or vmap differentiates or batches it,
  which is what higher-order derivatives need.
- A rank-0 operand of a ``scalar_operands`` primitive stands for an array
  of the result's shape: its cotangent, which the rule computes as the
  array's, is summed to a scalar.
- Only primitives that can be linear in an operand have a rule. A rule
  asked to transpose a use that is not linear (``mul`` of two undefined
  operands, ``div`` by an undefined divisor) raises ``NonlinearError``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol, TypeAlias, final

import attrs
import numpy as np

from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import Value
from didax.core.primitive import Primitive, RuleTable
from didax.core.values import ArrayLike, get_aval, is_python_scalar, wrap_host
from didax.interpreters.jvp import Zero, add_tangents
from didax.interpreters.partial_eval import linearize_flat
from didax.interpreters.staging import trace_to_jaxpr
from didax.ir.jaxpr import Atom, Jaxpr, JaxprEqn, Literal, Var
from didax.ir.passes import live_equations


@final
@attrs.frozen
class UndefinedPrimal:
    """A linear input of a transposed function: its type is known, its value is not.

    >>> from didax.core import dtypes
    >>> UndefinedPrimal(ShapedArray((3,), dtypes.float64)).aval.str_short()
    'f64[3]'
    """

    aval: ShapedArray


# An input as a transpose rule sees it: a known value, or a linear input.
PrimalOrUndefined: TypeAlias = ArrayLike | UndefinedPrimal


class NonlinearError(TypeError):
    """A primitive was asked to transpose a use in which it is not linear."""


class TransposeRule(Protocol):
    """``(ct, *args, **params) -> cotangents``, one entry per arg (``None`` for a defined arg).

    ``ct`` is a list for a primitive with multiple results. Each rule names
    its own operands and params.
    """

    def __call__(self, ct: Any, /, *args: Any, **params: Any) -> list[Any]: ...


TRANSPOSE_RULES: Final[RuleTable[TransposeRule]] = RuleTable("transpose")


def is_undefined(x: object) -> bool:
    return isinstance(x, UndefinedPrimal)


def aval_of(x: object) -> ShapedArray:
    return x.aval if isinstance(x, UndefinedPrimal) else get_aval(x)


def _zero_cotangent(aval: ShapedArray) -> Zero:
    # Cotangents live in the tangent space: float0 for integers.
    return Zero.like(aval)


def ct_aval(x: object) -> ShapedArray:
    return _zero_cotangent(aval_of(x)).aval


# --- the backward pass -------------------------------------------------------


def backward_pass(jaxpr: Jaxpr, args: Sequence[Any], cts_out: Sequence[Any]) -> list[Any]:
    """Transposes ``jaxpr`` with respect to its ``UndefinedPrimal`` inputs.

    ``args`` has one entry per ``jaxpr.in_binders``: a value, or an
    ``UndefinedPrimal`` for a linear input. ``cts_out`` has one cotangent
    per output (a value of the output's type, or ``Zero``; a Python scalar
    takes the output's dtype). Returns the cotangents of the
    undefined inputs, in order; ``Zero`` where no cotangent reached one.

    >>> import didax as dx
    >>> import numpy as np
    >>> closed = dx.make_jaxpr(lambda x: 3.0 * x)(1.0)
    >>> x = UndefinedPrimal(closed.in_avals[0])
    >>> backward_pass(closed.jaxpr, [x], [np.float64(2.0)])
    [Array(6., dtype=float32)]
    """
    if len(args) != len(jaxpr.in_binders):
        raise ValueError(f"backward_pass: {len(args)} arguments for {len(jaxpr.in_binders)} inputs")
    if len(cts_out) != len(jaxpr.outs):
        raise ValueError(f"backward_pass: {len(cts_out)} cotangents for {len(jaxpr.outs)} outputs")

    # Which variables carry linear (undefined) values, and which equations are linear.
    undefined: set[Var] = {
        v for v, a in zip(jaxpr.in_binders, args, strict=True) if isinstance(a, UndefinedPrimal)
    }
    linear_eqns: list[JaxprEqn] = []
    forward_eqns: list[JaxprEqn] = []
    for eqn in jaxpr.eqns:
        if any(isinstance(x, Var) and x in undefined for x in eqn.inputs):
            linear_eqns.append(eqn)
            undefined.update(eqn.out_binders)
        else:
            forward_eqns.append(eqn)

    # Only the forward equations that the linear ones depend on are evaluated:
    # a linear jaxpr's other defined results (e.g. primal outputs that a
    # partial evaluator left in it) would only be dead code in a staged
    # backward pass.
    needed: set[Var] = {
        x for eqn in linear_eqns for x in eqn.inputs if isinstance(x, Var) and x not in undefined
    }
    live_forward = live_equations(forward_eqns, needed)

    primal_env: dict[Var, Any] = {
        v: a for v, a in zip(jaxpr.in_binders, args, strict=True) if v not in undefined
    }

    def read_primal(x: Atom) -> Any:
        if isinstance(x, Literal):
            return x.operand
        if x in undefined:
            return UndefinedPrimal(x.aval)
        return primal_env[x]

    for eqn in live_forward:
        outs = eqn.primitive.bind(*(read_primal(x) for x in eqn.inputs), **eqn.params)
        if not eqn.primitive.multiple_results:
            outs = [outs]
        for v, o in zip(eqn.out_binders, outs, strict=True):
            primal_env[v] = o

    ct_env: dict[Var, Any] = {}

    def write_cotangent(x: Atom, ct: ArrayLike | Zero | None) -> None:
        # Cotangents of literals and of defined values are not wanted by anyone.
        if ct is None or isinstance(ct, Zero) or not isinstance(x, Var) or x not in undefined:
            return
        ct_env[x] = add_tangents(ct_env[x], ct) if x in ct_env else ct

    for x, ct in zip(jaxpr.outs, cts_out, strict=True):
        # A Python scalar is weakly typed: it takes its output's dtype (and
        # weakness), as an operand takes its partner's.
        if is_python_scalar(ct) and dtypes.is_inexact(x.aval.dtype):
            ct = wrap_host(np.asarray(ct, x.aval.dtype), x.aval.weak_type)
        write_cotangent(x, ct)

    for eqn in reversed(linear_eqns):
        cts = [ct_env.pop(v, None) for v in eqn.out_binders]
        if all(ct is None for ct in cts):
            continue  # nothing flows back through this equation
        rule = TRANSPOSE_RULES[eqn.primitive]
        primals_in = [read_primal(x) for x in eqn.inputs]
        if eqn.primitive.multiple_results:
            ct_arg: Any = [
                _zero_cotangent(v.aval) if ct is None else ct
                for v, ct in zip(eqn.out_binders, cts, strict=True)
            ]
        else:
            (ct_arg,) = cts
        cts_in = rule(ct_arg, *primals_in, **eqn.params)
        if len(cts_in) != len(eqn.inputs):
            raise ValueError(
                f"the transpose rule of {eqn.primitive.name} returned {len(cts_in)} "
                f"cotangents for {len(eqn.inputs)} operands"
            )
        if eqn.primitive.scalar_operands:
            cts_in = [_sum_to_scalar(x, ct) for x, ct in zip(eqn.inputs, cts_in, strict=True)]
        for x, ct in zip(eqn.inputs, cts_in, strict=True):
            write_cotangent(x, ct)

    return [
        ct_env.get(v, _zero_cotangent(v.aval))
        for v, a in zip(jaxpr.in_binders, args, strict=True)
        if isinstance(a, UndefinedPrimal)
    ]


def _sum_to_scalar(x: Atom, ct: ArrayLike | Zero | None) -> ArrayLike | Zero | None:
    """The cotangent of a rank-0 operand that stood for an array: the sum of the array's."""
    if ct is None or isinstance(ct, Zero) or x.aval.shape != () or get_aval(ct).shape == ():
        return ct
    return lax.reduce_sum(ct, tuple(range(get_aval(ct).ndim)))


def vjp_flat(
    fun: Callable[..., Sequence[Any]], primals: Sequence[Any]
) -> tuple[list[Any], Callable[[Sequence[Any]], list[Any]]]:
    """Reverse mode: ``fun``'s outputs, and the function from output to input cotangents.

    The pullback takes one cotangent per output (a value or ``Zero``; a
    Python scalar takes its output's dtype) and returns one per primal:
    ``Zero`` where none reached it, and for every primal that is not
    floating point (whose cotangent dtype is float0). The primal computation
    runs once, now; the pullback runs the transposed linear jaxpr under the
    current trace, so it can itself be jitted, vmapped or differentiated.

    >>> from didax.core import lax
    >>> outs, pullback = vjp_flat(lambda x, y: [lax.mul(x, y)], [2.0, 3.0])
    >>> pullback([np.float64(1.0)])
    [Array(3., dtype=float32), Array(2., dtype=float32)]
    """
    outs, linear, residuals, differentiable, nonzero = linearize_flat(fun, primals)
    in_avals = [get_aval(p) for p in primals]

    def pullback(cts: Sequence[Any]) -> list[Any]:
        if len(cts) != len(outs):
            raise ValueError(f"vjp: {len(cts)} cotangents for {len(outs)} outputs")
        nz_cts = [ct for ct, nz in zip(cts, nonzero, strict=True) if nz]
        undefined = [UndefinedPrimal(a) for a, d in zip(in_avals, differentiable, strict=True) if d]
        in_cts = iter(backward_pass(linear, [*residuals, *undefined], nz_cts))
        return [
            next(in_cts) if d else Zero.like(a)
            for a, d in zip(in_avals, differentiable, strict=True)
        ]

    return outs, pullback


def linear_transpose_flat(
    fun: Callable[..., Sequence[Any]], in_avals: Sequence[ShapedArray]
) -> Callable[..., list[Any]]:
    """The transpose of ``fun``, a function linear in all its (flat) arguments.

    ``fun`` is traced once, on ``in_avals``; the result maps one cotangent
    per output of ``fun`` to one cotangent per input (``Zero`` where none
    flowed). Pytrees and the checking of cotangent types are the api
    layer's job.

    >>> from didax.core import dtypes, lax
    >>> f_t = linear_transpose_flat(
    ...     lambda x: [lax.mul(x, 2.0)], [ShapedArray((), dtypes.float32)]
    ... )
    >>> f_t(np.float32(1.5))
    [Array(3., dtype=float32)]
    """
    closed = trace_to_jaxpr(fun, in_avals, "linear_transpose")
    args = [*closed.consts, *(UndefinedPrimal(a) for a in closed.in_avals)]

    def transposed(*cts: Any) -> list[Any]:
        return backward_pass(closed.jaxpr, args, cts)

    return transposed


# --- helpers for the families' rules (interpreters.<family>) --------------------


def not_linear(prim: Primitive, why: str) -> NonlinearError:
    return NonlinearError(f"transpose of {prim.name}: {why}; the function is not linear there")


def zeros_of(aval: ShapedArray) -> Value:
    return lax.full(aval.shape, 0, aval.dtype)
