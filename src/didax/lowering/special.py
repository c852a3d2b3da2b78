"""The StableHLO lowerings of the special element-wise primitives (``core.lax.special``).

As JAX lowers them: the special functions and the hyperbolic and inverse
trigonometric ones are ``chlo`` ops (``chlo.erf``, ``chlo.erf_inv``,
``chlo.lgamma``, ``chlo.asin``, ``chlo.zeta``, ``chlo.bessel_i1e``, ...),
which XLA expands into elementary ops with its own algorithms; ``atan2``
and ``is_finite`` are StableHLO ops; ``exp2`` is ``exp(log(2) * x)``. The
functions XLA has no op for (``igamma``, ``igammac``, ``igamma_grad_a``,
``random_gamma_grad``, ``regularized_incomplete_beta``, ``bessel_i0e``)
lower, as JAX's ``mlir.lower_fun`` does, to the lax operations of
``interpreters.special_series``: staged into a jaxpr for the operands'
types, whose equations are emitted in place (their ``while`` loops
included).

The functions XLA defines have no impl rule: eager evaluation compiles
them (``interpreters.evaluation``'s compiled route), so eager values are
XLA's algorithms, as jitted ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core.abstract import ShapedArray
from didax.core.lax import special
from didax.core.primitive import Primitive
from didax.interpreters import special_series as series
from didax.interpreters.staging import trace_to_jaxpr
from didax.lowering.mlir import (
    LOWERING_RULES,
    IrValue,
    LoweringRuleContext,
    constant,
    full,
    lower_jaxpr_body,
)
from didax.lowering.rules import OneOp, register_one_op

__all__: list[str] = []

# One op, its result type given (as every lowering here gives it, never inferred).
_ONE_OP: Final[dict[Primitive, OneOp]] = {
    special.erf_p: chlo.erf,
    special.erfc_p: chlo.erfc,
    special.erf_inv_p: chlo.erf_inv,
    special.lgamma_p: chlo.lgamma,
    special.digamma_p: chlo.digamma,
    special.polygamma_p: chlo.polygamma,
    special.sinh_p: chlo.sinh,
    special.cosh_p: chlo.cosh,
    special.asin_p: chlo.asin,
    special.acos_p: chlo.acos,
    special.atan_p: chlo.atan,
    special.asinh_p: chlo.asinh,
    special.acosh_p: chlo.acosh,
    special.atanh_p: chlo.atanh,
    special.nextafter_p: chlo.next_after,
    special.zeta_p: chlo.zeta,
    special.bessel_i1e_p: chlo.bessel_i1e,
    special.atan2_p: hlo.atan2,
    special.is_finite_p: hlo.is_finite,
}

register_one_op(_ONE_OP, typed=True)


@LOWERING_RULES.defines(special.exp2_p)
def _exp2_lowering(ctx: LoweringRuleContext, x: IrValue) -> list[IrValue]:
    (aval,) = ctx.avals_in
    log2 = full(aval, float(np.log(2)))
    return [hlo.exponential(hlo.multiply(log2, x))]


def _lax_operations_rule(fn: series.Fn) -> Callable[..., list[IrValue]]:
    """Lowers a primitive to the lax operations of ``fn`` (JAX's ``mlir.lower_fun``)."""
    computed = series.upcast16(fn)

    def rule(ctx: LoweringRuleContext, *args: IrValue) -> list[IrValue]:
        avals = [ShapedArray(a.shape, a.dtype) for a in ctx.avals_in]
        closed = trace_to_jaxpr(lambda *xs: [computed(*xs)], avals, "special_function")
        consts = [constant(np.asarray(c)) for c in closed.consts]
        return lower_jaxpr_body(ctx.module_context, closed.jaxpr, [*consts, *args])

    return rule


_LAX_OPERATIONS: Final[dict[Primitive, series.Fn]] = {
    special.igamma_p: series.igamma,
    special.igammac_p: series.igammac,
    special.igamma_grad_a_p: series.igamma_grad_a,
    special.random_gamma_grad_p: series.random_gamma_grad,
    special.regularized_incomplete_beta_p: series.betainc,
    special.bessel_i0e_p: series.bessel_i0e,
}
for _prim, _fn in _LAX_OPERATIONS.items():
    LOWERING_RULES.register(_prim, _lax_operations_rule(_fn))
