"""Staging: tracing a Python function into a jaxpr (make_jaxpr, jit).

Design rules:
- The staging trace records every primitive bound while it is current,
  whatever its operands are (omnistaging needs no special case: the
  current trace is simply this one). ``make_jaxpr(lambda: mul(2., 2.))``
  stages the ``mul``.
- Operands that are not this trace's tracers are constants: a scalar
  becomes an inline ``Literal`` (weak if it was); anything else (an array,
  or a tracer of an enclosing transformation) is hoisted to a constant
  binder, once per object. A hoisted Array stays an Array, so that a jitted
  call passes its device buffer as it is. Hoisted tracers are how closure
  conversion works: a caller binds the jaxpr with its constants as explicit
  operands, under the outer trace.
- Each equation's result types come from the primitive's typing rule, so
  an ill-typed program fails here, at trace time, in the user's frame.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import abstract_eval
from didax.core.array import Array
from didax.core.primitive import Primitive
from didax.core.trace import (
    Trace,
    Tracer,
    check_valid,
    compile_time_eval_enabled,
    current_trace,
    eager_evaluation,
    new_trace,
)
from didax.core.values import as_array, get_aval, is_python_scalar
from didax.ir.jaxpr import Atom, ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var


class StagingTracer(Tracer):
    # Named binder, not var: a tracer's ``var`` is NumPy's variance method (api.numpy.methods).
    __slots__ = ("binder",)

    def __init__(self, trace: StagingTrace, var: Var) -> None:
        super().__init__(trace)
        self.binder = var

    @property
    def aval(self) -> ShapedArray:
        return self.binder.aval

    def concretization_reason(self) -> str:
        return (
            f"it is an abstract value staged out by {self._trace.name}, "
            "whose value is not known until the program runs"
        )


class StagingTrace(Trace):
    """Records primitives into a jaxpr."""

    def __init__(self, parent: Trace, name: str = "make_jaxpr") -> None:
        super().__init__(parent)
        self.name = name
        self.in_binders: list[Var] = []
        self.eqns: list[JaxprEqn] = []
        # id(object) -> (object, value, binder); the object is kept alive so
        # that its id cannot be reused by another constant while tracing.
        self.consts: dict[int, tuple[Any, Any, Var]] = {}

    def new_arg(self, aval: ShapedArray) -> StagingTracer:
        var = Var(aval)
        self.in_binders.append(var)
        return StagingTracer(self, var)

    def to_atom(self, x: object) -> Atom:
        if isinstance(x, StagingTracer) and x._trace is self:
            return x.binder
        check_valid(x)
        if not isinstance(x, Tracer):
            if is_python_scalar(x):
                return Literal.of(as_array(x), weak_type=type(x) is not bool)
            if isinstance(x, (np.ndarray, np.generic, Array)) and x.shape == ():
                return Literal.of(as_array(x), weak_type=get_aval(x).weak_type)
        entry = self.consts.get(id(x))
        if entry is None:
            value = x if isinstance(x, (Tracer, Array)) else as_array(x)
            entry = self.consts[id(x)] = (x, value, Var(get_aval(value)))
        return entry[2]

    def process_primitive(
        self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]
    ) -> Any:
        if compile_time_eval_enabled() and not any(isinstance(x, Tracer) for x in args):
            # Constant folding at trace time, as JAX's eager_constant_folding.
            with eager_evaluation():
                return prim.bind(*args, **params)
        atoms = tuple(self.to_atom(x) for x in args)
        out_avals = abstract_eval(prim, [a.aval for a in atoms], params)
        out_vars = tuple(Var(a) for a in out_avals)
        self.eqns.append(JaxprEqn(prim, atoms, params, out_vars))
        tracers = [StagingTracer(self, v) for v in out_vars]
        return tracers if prim.multiple_results else tracers[0]

    def to_closed_jaxpr(self, outs: Sequence[Any]) -> ClosedJaxpr:
        out_atoms = tuple(self.to_atom(x) for x in outs)
        const_values = tuple(value for _, value, _ in self.consts.values())
        const_vars = tuple(var for _, _, var in self.consts.values())
        jaxpr = Jaxpr((*const_vars, *self.in_binders), tuple(self.eqns), out_atoms)
        return ClosedJaxpr(jaxpr, const_values)


def trace_to_jaxpr(
    fun: Callable[..., Sequence[Any]], in_avals: Sequence[ShapedArray], name: str = "make_jaxpr"
) -> ClosedJaxpr:
    """Stages ``fun`` (flat arguments to a flat sequence of results) into a closed jaxpr."""
    with new_trace(StagingTrace(current_trace(), name)) as trace:
        assert isinstance(trace, StagingTrace)
        args = [trace.new_arg(a) for a in in_avals]
        outs = fun(*args)
        return trace.to_closed_jaxpr(outs)
