"""The StableHLO lowering of ``convert_element_type_p`` (``core.lax.conversions``).

Design rules:
- ``stablehlo.convert`` already has the impl's semantics for floats to
  integers (truncation toward zero, saturation, NaN to 0) and for
  integers (wrapping); the rule says the rest itself: a conversion to bool
  is ``x != 0`` (NaN included, as NumPy's), complex to real takes the real
  part first, and a change of weak type only is no op at all.
- ``reduce_precision`` is ``stablehlo.reduce_precision``.
"""

from __future__ import annotations

from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes
from didax.core.dtypes import DType
from didax.core.lax.conversions import convert_element_type_p, reduce_precision_p
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext, aval_to_ir_type, full
from didax.lowering.rules import compare

__all__: list[str] = []


@LOWERING_RULES.defines(convert_element_type_p)
def _convert_element_type_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, new_dtype: DType, weak_type: bool
) -> list[IrValue]:
    aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
    if aval_in.dtype == aval_out.dtype:
        return [x]  # only weakness changes: nothing to compute
    if aval_out.dtype == dtypes.bool_:
        # NumPy's bool(x) is x != 0 (NaN included); say so instead of relying
        # on convert's truncation rules for i1.
        return [compare(x, full(aval_in, 0), "NE", aval_in.dtype)]
    if dtypes.is_complex(aval_in.dtype) and not dtypes.is_complex(aval_out.dtype):
        x = hlo.real(x)  # complex to real keeps the real part (JAX's lowering)
    # Floats to integers truncate toward zero and saturate (NaN -> 0), in XLA
    # as in the impl; integers wrap, as NumPy's casts.
    return [hlo.convert(aval_to_ir_type(aval_out), x)]


@LOWERING_RULES.defines(reduce_precision_p)
def _reduce_precision_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, exponent_bits: int, mantissa_bits: int
) -> list[IrValue]:
    return [hlo.reduce_precision(x, exponent_bits, mantissa_bits)]
