"""The StableHLO lowering of the cumulative primitives (``core.lax.cumulative``).

Each is a cumulative combination (``lowering.scan_ops.cumulative``, as
``cumsum``'s: one reduce_window for short axes, an associative scan for
long ones) of its binary operation: ``multiply``, ``maximum``, ``minimum`` (which
propagate NaNs, as NumPy's ``maximum``/``minimum`` do, and order complex numbers
lexicographically, as ``lax.max``/``lax.min``), and for
``cumlogsumexp`` JAX's ``logaddexp``: ``max(x, y) + log1p(exp(-|x - y|))``,
or ``x + y`` where ``x - y`` is NaN (a NaN, or infinities of one sign, whose
sum is the answer).
"""

from __future__ import annotations

from collections.abc import Callable

from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core.dtypes import DType
from didax.core.lax.cumulative import cumlogsumexp_p, cummax_p, cummin_p, cumprod_p, cumsum_p
from didax.core.primitive import Primitive
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext
from didax.lowering.rules import compare, max_identity, maximum, min_identity, minimum
from didax.lowering.scan_ops import Combine, Scan, cumulative

__all__: list[str] = []


def _logaddexp(dtype: DType) -> Combine:
    def combine(x: IrValue, y: IrValue) -> IrValue:
        delta = hlo.subtract(x, y)
        softplus = hlo.log_plus_one(hlo.exponential(hlo.negate(hlo.abs(delta))))
        return hlo.select(
            compare(delta, delta, "NE", dtype), hlo.add(x, y), hlo.add(hlo.maximum(x, y), softplus)
        )

    return combine


def _scan_rule(
    prim: Primitive,
    combine: Callable[[DType], Combine],
    identity: Callable[[DType], bool | int | float | complex] | None = None,
) -> None:
    def rule(ctx: LoweringRuleContext, x: IrValue, *, axis: int, reverse: bool) -> list[IrValue]:
        aval = ctx.avals_in[0]
        unit = None if identity is None else identity(aval.dtype)
        scan = Scan(aval.shape, aval.dtype, axis, reverse, combine(aval.dtype), unit)
        return [cumulative(x, scan)]

    LOWERING_RULES.register(prim, rule)


def _ordered(choose: Callable[[IrValue, IrValue, DType], IrValue]) -> Callable[[DType], Combine]:
    return lambda dtype: lambda x, y: choose(x, y, dtype)


_scan_rule(cumprod_p, lambda _: hlo.multiply, lambda _: 1)
_scan_rule(cummax_p, _ordered(maximum), max_identity)
_scan_rule(cummin_p, _ordered(minimum), min_identity)
_scan_rule(cumlogsumexp_p, _logaddexp)


@LOWERING_RULES.defines(cumsum_p)
def _cumsum_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, axis: int, reverse: bool
) -> list[IrValue]:
    # lowering.scan_ops: one reduce_window for short axes, an associative
    # scan (O(n) additions in O(log n) depth) for long ones.
    aval = ctx.avals_in[0]
    return [cumulative(x, Scan(aval.shape, aval.dtype, axis, reverse, hlo.add, 0))]
