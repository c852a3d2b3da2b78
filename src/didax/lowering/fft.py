"""The StableHLO lowering of ``fft_p`` (``core.lax.fft``): one ``stablehlo.fft`` op.

``stablehlo.fft`` is XLA's Fft: its ``fft_type`` and ``fft_length`` are the
primitive's params, and its result type is the primitive's result type
(given, never inferred).
"""

from __future__ import annotations

from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core.lax.fft import FftType, fft_p
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext, aval_to_ir_type

__all__: list[str] = []


@LOWERING_RULES.defines(fft_p)
def _fft_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, fft_type: FftType, fft_lengths: tuple[int, ...]
) -> list[IrValue]:
    return [
        hlo.fft(
            x,
            hlo.FftTypeAttr.get(fft_type.name),
            list(fft_lengths),
            results=[aval_to_ir_type(ctx.avals_out[0])],
        )
    ]
