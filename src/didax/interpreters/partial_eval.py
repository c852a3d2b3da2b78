"""Partial evaluation: compute what is known now, stage what is unknown into a jaxpr.

Design rules:
- ``PartialEvalTrace`` is a staging trace with one difference: a primitive
  none of whose operands is one of its (unknown) tracers is *known*, and is
  bound under the parent trace right away, so its result is an ordinary
  value (concrete in eager code). Only primitives with an unknown operand
  are staged. Known values that staged equations use become the jaxpr's
  constants: the *residuals*, each hoisted once.
- Equations are recorded in the order they are bound, which is already a
  topological order (an equation's operands exist before it is bound), so
  no recipe graph and sort are needed; dead-code elimination then drops the
  staged equations no output needs. (Autodidax and JAX's ``JaxprTrace``
  keep a graph of recipes instead because their traces can outlive the
  order of binding; with stackless traces they cannot.)
- ``partial_eval_jaxpr`` is the same trace run over a jaxpr under an outer
  staging trace: what is known becomes the *known jaxpr* (outputs: known
  results, then residuals) and what is unknown the *unknown jaxpr*
  (inputs: residuals, then unknown inputs). Higher-order primitives use it
  in their partial-evaluation rules (``PE_RULES``), so a jit call is split
  into a known call and an unknown call, and known results are never
  recomputed.
- ``linearize`` is jvp followed by partial evaluation (Autodidax part 4):
  primals are known, tangents unknown, and the staged jaxpr is the linear
  map.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from didax.core import dtypes
from didax.core.cache import LRUCache
from didax.core.primitive import Primitive, RuleTable
from didax.core.trace import Trace, current_trace, new_trace, set_current_trace
from didax.core.values import get_aval
from didax.interpreters.evaluation import eval_jaxpr
from didax.interpreters.jit import close_over_nothing, jit_p
from didax.interpreters.jvp import Zero, jvp_flat
from didax.interpreters.staging import StagingTrace, StagingTracer, trace_to_jaxpr
from didax.ir.fingerprint import fingerprint
from didax.ir.jaxpr import ClosedJaxpr
from didax.ir.passes import dce_jaxpr

# ``(trace, args, params) -> results``: how a primitive with some unknown
# operands is split into a known part (bound now) and an unknown part (staged).
PartialEvalRule = Callable[["PartialEvalTrace", Sequence[Any], dict[str, Any]], Any]

PE_RULES: Final[RuleTable[PartialEvalRule]] = RuleTable("partial evaluation")


class PartialEvalTrace(StagingTrace):
    """Binds known primitives under the parent; stages those with unknown operands."""

    def __init__(self, parent: Trace, name: str = "linearize") -> None:
        super().__init__(parent, name)

    def is_unknown(self, x: Any) -> bool:
        return isinstance(x, StagingTracer) and x._trace is self

    def process_primitive(
        self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]
    ) -> Any:
        if not any(self.is_unknown(x) for x in args):
            parent = self.parent
            assert parent is not None
            with set_current_trace(parent):
                return prim.bind(*args, **params)
        rule = PE_RULES.get(prim)
        if rule is not None:
            return rule(self, args, params)
        return self.stage(prim, args, params)

    def stage(self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
        """Records ``prim`` as an unknown equation (known operands become residuals)."""
        return super().process_primitive(prim, args, params)

    def to_unknown_jaxpr(self, outs: Sequence[Any]) -> tuple[ClosedJaxpr, tuple[Any, ...]]:
        """The staged jaxpr, dead code removed, with residuals as leading inputs.

        Returns it (without constants) and the residual values.
        """
        closed = self.to_closed_jaxpr(outs)
        jaxpr, _ = dce_jaxpr(closed.jaxpr)
        return ClosedJaxpr(jaxpr, ()), closed.consts


# --- linearize ---------------------------------------------------------------


def linearize_flat(
    fun: Callable[..., Sequence[Any]], primals: Sequence[Any]
) -> tuple[list[Any], ClosedJaxpr, tuple[Any, ...], list[bool], list[bool]]:
    """JVP of ``fun`` with known primals and unknown tangents, partially evaluated.

    Returns the primal outputs, the linear jaxpr (inputs: residuals, then one
    tangent per float primal; outputs: the nonzero output tangents), the
    residual values, which primals are differentiable (have a tangent input)
    and which output tangents are nonzero.
    """
    avals = [get_aval(p) for p in primals]
    differentiable = [dtypes.is_float(a.dtype) for a in avals]
    with new_trace(PartialEvalTrace(current_trace())) as trace:
        assert isinstance(trace, PartialEvalTrace)
        tangents = [
            trace.new_arg(a.strip_weak()) if d else Zero.like(a)
            for a, d in zip(avals, differentiable, strict=True)
        ]
        outs, t_outs = jvp_flat(fun, primals, tangents)
        nonzero = [not isinstance(t, Zero) for t in t_outs]
        linear, residuals = trace.to_unknown_jaxpr([t for t in t_outs if not isinstance(t, Zero)])
    return outs, linear, residuals, differentiable, nonzero


# --- partial evaluation of jaxprs ---------------------------------------------------

_PARTIAL_EVAL_JAXPRS: Final[LRUCache[tuple[ClosedJaxpr, ClosedJaxpr, tuple[bool, ...], int]]] = (
    LRUCache(maxsize=512)
)


def partial_eval_jaxpr(
    closed: ClosedJaxpr, in_unknowns: Sequence[bool]
) -> tuple[ClosedJaxpr, ClosedJaxpr, tuple[bool, ...], int]:
    """Splits ``closed`` into a known and an unknown jaxpr.

    The known jaxpr takes the known inputs and returns the known outputs, then
    the residuals; the unknown jaxpr takes the residuals, then the unknown
    inputs, and returns the unknown outputs. Also returns which outputs are
    unknown and the number of residuals. Cached by fingerprint.
    """
    key = (fingerprint(closed), tuple(in_unknowns))
    return _PARTIAL_EVAL_JAXPRS.get_or_create(
        key, lambda: _build_partial_eval_jaxpr(closed, in_unknowns)
    )


def _build_partial_eval_jaxpr(
    closed: ClosedJaxpr, in_unknowns: Sequence[bool]
) -> tuple[ClosedJaxpr, ClosedJaxpr, tuple[bool, ...], int]:
    in_avals = closed.in_avals
    known_avals = [a for a, u in zip(in_avals, in_unknowns, strict=True) if not u]
    found: list[tuple[ClosedJaxpr, tuple[bool, ...], int]] = []

    def known_fun(*known_ins: Any) -> list[Any]:
        with new_trace(PartialEvalTrace(current_trace(), "partial_eval_jaxpr")) as trace:
            assert isinstance(trace, PartialEvalTrace)
            known = iter(known_ins)
            ins = [
                trace.new_arg(a) if u else next(known)
                for a, u in zip(in_avals, in_unknowns, strict=True)
            ]
            outs = eval_jaxpr(closed.jaxpr, [*closed.consts, *ins])
            out_unknowns = tuple(trace.is_unknown(o) for o in outs)
            unknown, residuals = trace.to_unknown_jaxpr(
                [o for o, u in zip(outs, out_unknowns, strict=True) if u]
            )
        found.append((unknown, out_unknowns, len(residuals)))
        known_outs = [o for o, u in zip(outs, out_unknowns, strict=True) if not u]
        return [*known_outs, *residuals]

    known = trace_to_jaxpr(known_fun, known_avals, "partial_eval_jaxpr")
    unknown, out_unknowns, num_res = found[0]
    return known, unknown, out_unknowns, num_res


def _jit_partial_eval(trace: PartialEvalTrace, args: Sequence[Any], params: dict[str, Any]) -> Any:
    """A jit call with unknown operands: a known call now, an unknown call staged."""
    closed: ClosedJaxpr = params["jaxpr"]
    name: str = params["name"]
    in_unknowns = [trace.is_unknown(x) for x in args]
    known, unknown, out_unknowns, num_res = partial_eval_jaxpr(closed, in_unknowns)
    known_args = [x for x, u in zip(args, in_unknowns, strict=True) if not u]
    parent = trace.parent
    assert parent is not None
    known_jaxpr, known_consts = close_over_nothing(known)
    with set_current_trace(parent):
        known_results = jit_p.bind(*known_consts, *known_args, jaxpr=known_jaxpr, name=name)
    num_known = len(known_results) - num_res
    known_outs, residuals = known_results[:num_known], known_results[num_known:]
    unknown_args = [x for x, u in zip(args, in_unknowns, strict=True) if u]
    unknown_outs = trace.stage(
        jit_p, [*residuals, *unknown_args], {"jaxpr": unknown, "name": f"{name}_unknown"}
    )
    known_it, unknown_it = iter(known_outs), iter(unknown_outs)
    return [next(unknown_it) if u else next(known_it) for u in out_unknowns]


PE_RULES.register(jit_p, _jit_partial_eval)
