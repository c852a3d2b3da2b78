"""Forward-mode differentiation: the JVP trace and its rules.

Design rules:
- A tangent known to be zero is ``Zero(aval)``, never an array of zeros:
  rules receive ``Zero`` and must not materialise it unless an operation
  truly needs an array (``instantiate_zeros``). A primitive all of whose tangents
  are ``Zero`` is not differentiated at all: it is bound under the parent.
- Rules run under the parent trace (they compute primals and tangents with
  ordinary ``bind`` calls), so jvp of jvp, jvp of vmap and jvp of staging
  compose without special cases.
- Tangents of integer and boolean values have dtype ``float0`` and are
  always ``Zero``.
- A rank-0 operand of a ``scalar_operands`` primitive beside arrays stays
  rank-0 while its tangent is zero (``mul x 2.0`` gives ``mul t 2.0``, as
  JAX's); one with a nonzero tangent is broadcast, with the others and
  their tangents, before the rule runs. So a rule sees a rank-0 operand
  only with a ``Zero`` tangent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol, final

import attrs
import numpy as np
from numpy.typing import DTypeLike

from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray, Value
from didax.core.errors import ConcretizationTypeError, TracerArrayConversionError
from didax.core.primitive import Primitive, RuleTable
from didax.core.source_info import user_frame_summary
from didax.core.trace import Trace, Tracer, check_valid, current_trace, new_trace, set_current_trace
from didax.core.values import ArrayLike, get_aval, wrap_host


@final
@attrs.frozen
class Zero:
    """A symbolic zero tangent of type ``aval``."""

    aval: ShapedArray

    @staticmethod
    def like(primal_aval: ShapedArray) -> Zero:
        """The zero tangent of a primal of type ``primal_aval`` (weak if it is, as JAX's)."""
        dtype = dtypes.tangent_dtype(primal_aval.dtype)
        weak = primal_aval.weak_type and dtype != dtypes.float0
        return Zero(ShapedArray(primal_aval.shape, dtype, weak))


def instantiate_zeros(t: ArrayLike | Zero) -> ArrayLike:
    """An array for the tangent ``t`` (zeros, staged as a broadcast, if ``t`` is ``Zero``)."""
    if not isinstance(t, Zero):
        return t
    if t.aval.dtype == dtypes.float0:
        return np.zeros(t.aval.shape, dtypes.float0)
    zero = wrap_host(np.zeros((), t.aval.dtype), t.aval.weak_type)
    return lax.broadcast_in_dim(zero, t.aval.shape, ())


def zeros_like_aval(aval: ShapedArray) -> Value:
    """Zeros of type ``aval``: a scalar constant itself, a broadcast of one otherwise."""
    zero = wrap_host(np.zeros((), aval.dtype), aval.weak_type)
    return zero if aval.shape == () else lax.broadcast_in_dim(zero, aval.shape, ())


class JVPRule(Protocol):
    """``(primals, tangents, **params) -> (primal_out, tangent_out)``; a tangent may be ``Zero``.

    Lists of results for a primitive with multiple results. Each rule names
    its own params.
    """

    def __call__(
        self, primals: Sequence[Any], tangents: Sequence[Any], /, *args: Any, **params: Any
    ) -> tuple[Any, Any]: ...


JVP_RULES: Final[RuleTable[JVPRule]] = RuleTable("jvp")


class JVPTracer(Tracer):
    __slots__ = ("primal", "tangent")

    def __init__(self, trace: JVPTrace, primal: ArrayLike, tangent: ArrayLike | Zero) -> None:
        super().__init__(trace)
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self) -> ShapedArray:
        return get_aval(self.primal)

    def to_concrete_value(self) -> np.ndarray[Any, Any] | None:
        if isinstance(self.primal, Tracer):
            return self.primal.to_concrete_value()
        return np.asarray(self.primal)

    def concretization_reason(self) -> str:
        assert isinstance(self.primal, Tracer)
        return self.primal.concretization_reason()

    # As JAX's: control flow may read a differentiated value (``bool``,
    # ``int``), but turning a float into a Python or NumPy number would
    # silently drop its derivative, so ``float()`` and ``np.asarray`` refuse.
    # (A symbolically zero tangent has no derivative to lose.)
    def __float__(self) -> float:
        if isinstance(self.tangent, Zero):
            return super().__float__()
        raise self._drops_derivative("float()")

    def __array__(self, dtype: DTypeLike | None = None, copy: bool | None = None) -> HostArray:
        if isinstance(self.tangent, Zero):
            return super().__array__(dtype, copy)
        raise self._drops_derivative("conversion to a NumPy array", TracerArrayConversionError)

    def _drops_derivative(
        self, what: str, error: type[ConcretizationTypeError] = ConcretizationTypeError
    ) -> ConcretizationTypeError:
        return error(
            f"{what} of a value being differentiated (type {self.aval.str_short()}) at "
            f"{user_frame_summary()}: the result would be a constant, silently losing the "
            "derivative. Keep computing with didax operations, or use lax.stop_gradient "
            "if the derivative should be dropped."
        )


class JVPTrace(Trace):
    name = "jvp"

    def lift(self, x: Any) -> tuple[Any, Any]:
        if isinstance(x, JVPTracer) and x._trace is self:
            return x.primal, x.tangent
        check_valid(x)
        return x, Zero.like(get_aval(x))

    def process_primitive(
        self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]
    ) -> Any:
        primals: Sequence[Any]
        tangents: Sequence[Any]
        primals, tangents = zip(*(self.lift(x) for x in args), strict=True) if args else ((), ())
        parent = self.parent
        assert parent is not None
        with set_current_trace(parent):
            if all(isinstance(t, Zero) for t in tangents):
                return prim.bind(*primals, **params)
            if prim.scalar_operands and _varying_scalar(primals, tangents):
                primals, tangents = _broadcast_scalars(primals, tangents)
            primal_out, tangent_out = JVP_RULES[prim](primals, tangents, **params)
        if prim.multiple_results:
            return [self.box(p, t) for p, t in zip(primal_out, tangent_out, strict=True)]
        return self.box(primal_out, tangent_out)

    def box(self, primal: ArrayLike, tangent: ArrayLike | Zero) -> ArrayLike:
        # A value with a zero tangent is just a constant to this trace.
        return primal if isinstance(tangent, Zero) else JVPTracer(self, primal, tangent)


def _varying_scalar(primals: Sequence[Any], tangents: Sequence[Any]) -> bool:
    """Whether a rank-0 operand beside arrays has a nonzero tangent.

    Only then are operands broadcast: a constant scalar (``mul x 2.0``)
    stays rank-0, and the rules (whose element-wise operations take rank-0
    operands too) give ``mul t 2.0``, as JAX's; a varying one would give a
    rank-0 tangent where the result's is an array.
    """
    shapes = [get_aval(p).shape for p in primals]
    return any(shapes) and any(
        s == () and not isinstance(t, Zero) for s, t in zip(shapes, tangents, strict=True)
    )


def _broadcast_scalars(
    primals: Sequence[Any], tangents: Sequence[Any]
) -> tuple[list[Any], list[Any]]:
    """Rank-0 operands (and their tangents) broadcast to the others' shape, for the rules."""
    shape = next(s for s in (get_aval(p).shape for p in primals) if s)

    def full(x: ArrayLike) -> ArrayLike:
        if get_aval(x).shape == shape:
            return x
        out: Value = lax.broadcast_in_dim_p.bind(x, shape=shape, broadcast_dimensions=())
        return out

    primals = [full(p) for p in primals]
    tangents = [
        Zero.like(get_aval(p)) if isinstance(t, Zero) else full(t)
        for p, t in zip(primals, tangents, strict=True)
    ]
    return primals, tangents


def jvp_flat(
    fun: Callable[..., Sequence[Any]], primals: Sequence[Any], tangents: Sequence[Any]
) -> tuple[list[Any], list[Any]]:
    """Runs ``fun`` on JVP tracers; returns output primals and tangents (``Zero`` where zero)."""
    with new_trace(JVPTrace(current_trace())) as trace:
        assert isinstance(trace, JVPTrace)
        ins = [
            x if isinstance(t, Zero) else JVPTracer(trace, x, t)
            for x, t in zip(primals, tangents, strict=True)
        ]
        outs = fun(*ins)
        pairs = [trace.lift(o) for o in outs]
    return [p for p, _ in pairs], [t for _, t in pairs]


# --- helpers for the families' rules (interpreters.<family>) --------------------


def add_tangents(a: ArrayLike | Zero, b: ArrayLike | Zero) -> ArrayLike | Zero:
    if isinstance(a, Zero):
        return b
    if isinstance(b, Zero):
        return a
    return lax.add(a, b)


def defjvp(prim: Primitive, *jac_fns: Callable[..., Any] | None) -> None:
    """Registers ``sum_i tangent_i * jac_fns[i](*primals, out)`` (JAX's ``defjvp``).

    ``None`` marks an operand the result does not depend on differentiably.
    """

    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
        out = prim.bind(*primals, **params)
        t_out: Any = Zero.like(get_aval(out))
        for fn, t in zip(jac_fns, tangents, strict=True):
            if fn is not None and not isinstance(t, Zero):
                t_out = add_tangents(t_out, fn(t, *primals, out, **params))
        return out, t_out

    JVP_RULES.register(prim, rule)


def zero_jvp(prim: Primitive) -> None:
    """The result is piecewise constant (or not differentiable): its tangent is zero."""

    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
        out = prim.bind(*primals, **params)
        if prim.multiple_results:
            return out, [Zero.like(get_aval(o)) for o in out]
        return out, Zero.like(get_aval(out))

    JVP_RULES.register(prim, rule)


def linear_jvp(prim: Primitive) -> None:
    """A primitive linear in all its operands: its tangent is itself on the tangents."""

    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
        return prim.bind(*primals, **params), prim.bind(*map(instantiate_zeros, tangents), **params)

    JVP_RULES.register(prim, rule)
