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
- ``jaxpr_transforms.partial_eval_jaxpr`` is the same trace run over a
  jaxpr under an outer staging trace: what is known becomes the *known
  jaxpr* (outputs: known results, then residuals) and what is unknown the
  *unknown jaxpr* (inputs: residuals, then unknown inputs). Higher-order
  primitives use it in their partial-evaluation rules (``PE_RULES``), so a
  jit call is split into a known call and an unknown call, and known
  results are never recomputed.
- ``linearize`` is jvp followed by partial evaluation (Autodidax part 4):
  primals are known, tangents unknown, and the staged jaxpr is the linear
  map.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol

from didax.core import dtypes
from didax.core.primitive import Primitive, RuleTable
from didax.core.trace import Trace, current_trace, new_trace, set_current_trace
from didax.core.values import get_aval
from didax.interpreters.jvp import Zero, jvp_flat
from didax.interpreters.staging import StagingTrace, StagingTracer
from didax.ir.jaxpr import Jaxpr
from didax.ir.passes import dce_jaxpr


class PartialEvalRule(Protocol):
    """``(trace, args, params) -> results``: a primitive with some unknown operands.

    The rule splits it into a known part, bound now under ``trace.parent``,
    and an unknown part, staged with ``trace.stage``; ``trace.is_unknown``
    tells the operands apart. A primitive without a rule is staged whole.
    """

    def __call__(
        self, trace: PartialEvalTrace, args: Sequence[Any], params: dict[str, Any], /
    ) -> Any: ...


PE_RULES: Final[RuleTable[PartialEvalRule]] = RuleTable("partial evaluation")


class PartialEvalTrace(StagingTrace):
    """Binds known primitives under the parent; stages those with unknown operands."""

    def __init__(self, parent: Trace, name: str = "linearize") -> None:
        super().__init__(parent, name)

    def is_unknown(self, x: object) -> bool:
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

    def to_unknown_jaxpr(self, outs: Sequence[Any]) -> tuple[Jaxpr, tuple[Any, ...]]:
        """The staged jaxpr, dead code removed, with residuals as leading inputs.

        Returns it (constant-free) and the residual values. A known value
        among ``outs`` becomes a residual the jaxpr returns.
        """
        closed = self.to_closed_jaxpr(outs)
        jaxpr, _ = dce_jaxpr(closed.jaxpr)
        return jaxpr, closed.consts


# --- linearize ---------------------------------------------------------------


def linearize_flat(
    fun: Callable[..., Sequence[Any]], primals: Sequence[Any]
) -> tuple[list[Any], Jaxpr, tuple[Any, ...], list[bool], list[bool]]:
    """JVP of ``fun`` with known primals and unknown tangents, partially evaluated.

    Returns the primal outputs, the linear jaxpr (inputs: residuals, then one
    tangent per float primal; outputs: the nonzero output tangents), the
    residual values, which primals are differentiable (have a tangent input)
    and which output tangents are nonzero.
    """
    avals = [get_aval(p) for p in primals]
    differentiable = [dtypes.is_inexact(a.dtype) for a in avals]
    with new_trace(PartialEvalTrace(current_trace())) as trace:
        assert isinstance(trace, PartialEvalTrace)
        tangents = [
            trace.new_arg(a) if d else Zero.like(a)
            for a, d in zip(avals, differentiable, strict=True)
        ]
        outs, t_outs = jvp_flat(fun, primals, tangents)
        nonzero = [not isinstance(t, Zero) for t in t_outs]
        linear, residuals = trace.to_unknown_jaxpr([t for t in t_outs if not isinstance(t, Zero)])
    return outs, linear, residuals, differentiable, nonzero
