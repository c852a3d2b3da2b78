"""The jaxpr -> jaxpr transformations that higher-order primitives are built on.

A higher-order primitive (the jit call, cond, while, scan) carries jaxprs
and is transformed *initial style*: its jvp rule asks for the jvp of its
body as a new jaxpr and binds itself again on it; so do its batching,
partial-evaluation and transposition rules. These are those jaxprs:

- ``jvp_jaxpr``: ``(primals, nonzero tangents) -> (primals, nonzero tangents)``
- ``vmap_jaxpr``: the body on operands batched at axis 0
- ``partial_eval_jaxpr``: a known jaxpr (known results and residuals) and an
  unknown one (from residuals and unknown operands)
- ``transpose_jaxpr``: ``(defined operands, nonzero cotangents) -> cotangents``

Design rules:
- Each is the interpreter it is named after, run over ``eval_jaxpr`` of the
  body and staged with ``trace_to_jaxpr``: nothing is written twice.
- Each takes ``instantiate``, which outputs must come out as tangents /
  batched / unknown even when they are not: a loop's carry must have the
  same type going in and coming out, so loops iterate these to a fixpoint
  (which carries have tangents, are batched, are unknown) and then ask for
  exactly that. Each returns what actually came out (``out_nonzeros``,
  ``out_batched``, ``out_unknowns``).
- Bodies are constant-free ``Jaxpr``s. A built jaxpr may hoist constants
  (a rule's NumPy array), so each returns a ``ClosedJaxpr``; a primitive
  binding it passes ``consts`` as explicit operands (``close_over_nothing``).
- Results are cached by the body's fingerprint and the flags: transforming
  an equal program again builds nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.cache import LRUCache
from didax.core.trace import current_trace, new_trace
from didax.interpreters.batching import Dim, bdim_at_front, vmap_flat
from didax.interpreters.evaluation import eval_jaxpr
from didax.interpreters.jvp import Zero, instantiate_zeros, jvp_flat
from didax.interpreters.partial_eval import PartialEvalTrace
from didax.interpreters.staging import trace_to_jaxpr
from didax.interpreters.transpose import UndefinedPrimal, backward_pass
from didax.ir.fingerprint import fingerprint
from didax.ir.jaxpr import ClosedJaxpr, Jaxpr
from didax.ir.passes import dce_jaxpr

Flags = tuple[bool, ...]


def jaxpr_as_fun(jaxpr: Jaxpr) -> Callable[..., list[Any]]:
    """The jaxpr as a Python function, binding each equation under the current trace."""
    return lambda *args: eval_jaxpr(jaxpr, args)


def close_over_nothing(closed: ClosedJaxpr) -> tuple[Jaxpr, tuple[Any, ...]]:
    """Closure conversion: the constant-free jaxpr, and its constants as leading operands."""
    return closed.jaxpr, closed.consts


def union(*flag_lists: Sequence[bool]) -> Flags:
    """Element-wise ``or`` of flag lists of one length."""
    return tuple(any(fs) for fs in zip(*flag_lists, strict=True))


def fixpoint(flags: Sequence[bool], step: Callable[[Flags], Sequence[bool]]) -> Flags:
    """The least flags containing ``flags`` and closed under ``step`` (a loop's carries).

    ``step(flags)`` says which carries come out of the loop body with the
    property (a tangent, a batch axis, unknown, live) when those in
    ``flags`` go in with it; a carry that comes out with it must go in with
    it too, so the flags grow until nothing changes (at most once per carry).
    """
    current = tuple(flags)
    while True:
        grown = union(current, step(current))
        if grown == current:
            return current
        current = grown


def _flags(spec: bool | Sequence[bool], n: int) -> Flags:
    return (spec,) * n if isinstance(spec, bool) else tuple(spec)


def _is_float_zero(t: object) -> bool:
    return isinstance(t, Zero) and t.aval.dtype != dtypes.float0


# --- jvp ---------------------------------------------------------------------------------

_JVP: Final[LRUCache[tuple[ClosedJaxpr, Flags]]] = LRUCache(maxsize=512)


def jvp_jaxpr(
    jaxpr: Jaxpr, nonzeros: Sequence[bool], instantiate: bool | Sequence[bool] = False
) -> tuple[ClosedJaxpr, Flags]:
    """``(primals, nonzero tangents) -> (primals_out, tangents_out)`` of ``jaxpr``.

    ``nonzeros`` flags the inputs that have a tangent; the result has a
    tangent output for every output whose tangent is nonzero or flagged in
    ``instantiate`` (those come out as zeros when they are symbolic zeros).
    Returns it and which outputs have a tangent.
    """
    inst = _flags(instantiate, len(jaxpr.outs))
    key = (fingerprint(jaxpr), tuple(nonzeros), inst)
    return _JVP.get_or_create(key, lambda: _build_jvp_jaxpr(jaxpr, tuple(nonzeros), inst))


def _build_jvp_jaxpr(jaxpr: Jaxpr, nonzeros: Flags, inst: Flags) -> tuple[ClosedJaxpr, Flags]:
    in_avals = jaxpr.in_avals
    tangent_avals = [Zero.like(a).aval for a, nz in zip(in_avals, nonzeros, strict=True) if nz]
    out_nonzeros: list[bool] = []

    def fun(*args: Any) -> list[Any]:
        primals = args[: len(in_avals)]
        nz_tangents = iter(args[len(in_avals) :])
        tangents = [
            next(nz_tangents) if nz else Zero.like(a)
            for a, nz in zip(in_avals, nonzeros, strict=True)
        ]
        outs, t_outs = jvp_flat(jaxpr_as_fun(jaxpr), primals, tangents)
        # float0 tangents (of integers) are never instantiated: they carry nothing.
        t_outs = [
            instantiate_zeros(t)
            if i and isinstance(t, Zero) and t.aval.dtype != dtypes.float0
            else t
            for t, i in zip(t_outs, inst, strict=True)
        ]
        out_nonzeros.extend(not isinstance(t, Zero) for t in t_outs)
        return [*outs, *(t for t in t_outs if not isinstance(t, Zero))]

    closed = trace_to_jaxpr(fun, [*in_avals, *tangent_avals], "jvp_jaxpr")
    return closed, tuple(out_nonzeros)


# --- vmap --------------------------------------------------------------------------------

_VMAP: Final[LRUCache[tuple[ClosedJaxpr, Flags]]] = LRUCache(maxsize=512)


def vmap_jaxpr(
    jaxpr: Jaxpr,
    axis_size: int,
    batched: Sequence[bool],
    instantiate: bool | Sequence[bool] = True,
) -> tuple[ClosedJaxpr, Flags]:
    """``jaxpr`` on operands batched at axis 0 where ``batched``.

    Outputs that come out batched, or are flagged in ``instantiate``, are
    batched at axis 0 (the latter broadcast); the others stay unbatched.
    Returns it and which outputs are batched.
    """
    inst = _flags(instantiate, len(jaxpr.outs))
    key = (fingerprint(jaxpr), axis_size, tuple(batched), inst)
    return _VMAP.get_or_create(
        key, lambda: _build_vmap_jaxpr(jaxpr, axis_size, tuple(batched), inst)
    )


def _build_vmap_jaxpr(
    jaxpr: Jaxpr, axis_size: int, batched: Flags, inst: Flags
) -> tuple[ClosedJaxpr, Flags]:
    in_avals = [
        ShapedArray((axis_size, *a.shape), a.dtype, a.weak_type) if b else a
        for a, b in zip(jaxpr.in_avals, batched, strict=True)
    ]
    dims: list[Dim] = [0 if b else None for b in batched]
    out_batched: list[bool] = []

    def fun(*args: Any) -> list[Any]:
        pairs = vmap_flat(jaxpr_as_fun(jaxpr), axis_size, args, dims)
        out_batched.extend(d is not None or i for (_, d), i in zip(pairs, inst, strict=True))
        return [
            bdim_at_front(v, d, axis_size) if d is not None or i else v
            for (v, d), i in zip(pairs, inst, strict=True)
        ]

    closed = trace_to_jaxpr(fun, in_avals, "vmap_jaxpr")
    return closed, tuple(out_batched)


# --- partial evaluation ------------------------------------------------------------------

# (known, unknown, out_unknowns, number of residuals)
PartialEvalResult = tuple[ClosedJaxpr, Jaxpr, Flags, int]
_PARTIAL_EVAL: Final[LRUCache[PartialEvalResult]] = LRUCache(maxsize=512)


def partial_eval_jaxpr(
    jaxpr: Jaxpr, in_unknowns: Sequence[bool], instantiate: bool | Sequence[bool] = False
) -> PartialEvalResult:
    """Splits ``jaxpr`` into a known and an unknown jaxpr.

    The known jaxpr takes the known inputs and returns the known outputs,
    then the residuals; the unknown jaxpr takes the residuals, then the
    unknown inputs, and returns the unknown outputs. An output flagged in
    ``instantiate`` is unknown even if it could be known (its known value
    becomes a residual the unknown jaxpr returns). Returns both, which
    outputs are unknown, and the number of residuals.
    """
    inst = _flags(instantiate, len(jaxpr.outs))
    key = (fingerprint(jaxpr), tuple(in_unknowns), inst)
    return _PARTIAL_EVAL.get_or_create(
        key, lambda: _build_partial_eval_jaxpr(jaxpr, tuple(in_unknowns), inst)
    )


def _build_partial_eval_jaxpr(jaxpr: Jaxpr, in_unknowns: Flags, inst: Flags) -> PartialEvalResult:
    in_avals = jaxpr.in_avals
    known_avals = [a for a, u in zip(in_avals, in_unknowns, strict=True) if not u]
    found: list[tuple[Jaxpr, Flags, int]] = []

    def known_fun(*known_ins: Any) -> list[Any]:
        with new_trace(PartialEvalTrace(current_trace(), "partial_eval_jaxpr")) as trace:
            assert isinstance(trace, PartialEvalTrace)
            known = iter(known_ins)
            ins = [
                trace.new_arg(a) if u else next(known)
                for a, u in zip(in_avals, in_unknowns, strict=True)
            ]
            outs = eval_jaxpr(jaxpr, ins)
            out_unknowns = tuple(trace.is_unknown(o) or i for o, i in zip(outs, inst, strict=True))
            unknown, residuals = trace.to_unknown_jaxpr(
                [o for o, u in zip(outs, out_unknowns, strict=True) if u]
            )
        found.append((unknown, out_unknowns, len(residuals)))
        known_outs = [o for o, u in zip(outs, out_unknowns, strict=True) if not u]
        return [*known_outs, *residuals]

    known = trace_to_jaxpr(known_fun, known_avals, "partial_eval_jaxpr")
    unknown, out_unknowns, num_res = found[0]
    return known, unknown, out_unknowns, num_res


# --- transposition -----------------------------------------------------------------------

_TRANSPOSE: Final[LRUCache[tuple[ClosedJaxpr, Flags]]] = LRUCache(maxsize=512)


def transpose_jaxpr(
    jaxpr: Jaxpr,
    linear: Sequence[bool],
    ct_nonzero: Sequence[bool],
    instantiate: bool | Sequence[bool] = False,
) -> tuple[ClosedJaxpr, Flags]:
    """``(defined inputs, nonzero output cotangents) -> nonzero input cotangents``.

    ``linear`` marks the inputs the jaxpr is linear in (their cotangents are
    the results), ``ct_nonzero`` the outputs whose cotangent is not a
    symbolic zero (only those are inputs of the result). The cotangent of a
    linear input flagged in ``instantiate`` comes out even when it is zero.
    Returns it and, per linear input, whether its cotangent is an output.
    """
    if len(linear) != len(jaxpr.in_binders) or len(ct_nonzero) != len(jaxpr.outs):
        raise ValueError("transpose_jaxpr: one flag per input and per output is needed")
    inst = _flags(instantiate, sum(linear))
    key = (fingerprint(jaxpr), tuple(linear), tuple(ct_nonzero), inst)
    return _TRANSPOSE.get_or_create(
        key, lambda: _build_transpose_jaxpr(jaxpr, tuple(linear), tuple(ct_nonzero), inst)
    )


def _build_transpose_jaxpr(
    jaxpr: Jaxpr, linear: Flags, ct_nonzero: Flags, inst: Flags
) -> tuple[ClosedJaxpr, Flags]:
    in_avals, out_avals = jaxpr.in_avals, jaxpr.out_avals
    defined_avals = [a for a, lin in zip(in_avals, linear, strict=True) if not lin]
    ct_avals = [Zero.like(a).aval for a, nz in zip(out_avals, ct_nonzero, strict=True) if nz]
    out_nonzero: list[bool] = []

    def fun(*ins: Any) -> list[Any]:
        defined = iter(ins[: len(defined_avals)])
        nz_cts = iter(ins[len(defined_avals) :])
        args = [
            UndefinedPrimal(a) if lin else next(defined)
            for a, lin in zip(in_avals, linear, strict=True)
        ]
        cts = [
            next(nz_cts) if nz else Zero.like(a)
            for a, nz in zip(out_avals, ct_nonzero, strict=True)
        ]
        cts_in = [
            instantiate_zeros(c) if i else c
            for c, i in zip(backward_pass(jaxpr, args, cts), inst, strict=True)
        ]
        out_nonzero[:] = [not isinstance(c, Zero) for c in cts_in]
        return [c for c in cts_in if not isinstance(c, Zero)]

    closed = trace_to_jaxpr(fun, [*defined_avals, *ct_avals], "transpose_jaxpr")
    # The backward pass evaluates forward equations only for the linear ones,
    # but a zero cotangent can leave some of those unused after all.
    body, _ = dce_jaxpr(closed.jaxpr)
    return ClosedJaxpr(body, closed.consts), tuple(out_nonzero)
