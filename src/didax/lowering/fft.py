"""The StableHLO lowering of ``fft_p`` (``core.lax.fft``): one ``stablehlo.fft`` op.

``stablehlo.fft`` is XLA's Fft: its ``fft_type`` and ``fft_length`` are the
primitive's params, and its result type is the primitive's result type
(given, never inferred). Its operand and result are pinned row-major
(``pin_row_major``): XLA's CPU FFT reads and writes only that layout (a
``RET_CHECK`` in its ``fft_thunk.cc``), but XLA's layout assignment may give
an FFT another one, taken from a neighbour: a LAPACK call's column-major
operand reached from the FFT's result through element-wise ops (the
fuzzer's case: ``jit(grad)`` of an ``ifft`` along axis 0 whose result,
symmetrized, goes to ``eigh``). XLA copies where a neighbour wants another
layout, as it does where nothing is pinned.
"""

from __future__ import annotations

from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core.lax.fft import FftType, fft_p
from didax.lowering.mlir import (
    LOWERING_RULES,
    IrValue,
    LoweringRuleContext,
    aval_to_ir_type,
    pin_row_major,
)

__all__: list[str] = []


@LOWERING_RULES.defines(fft_p)
def _fft_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, fft_type: FftType, fft_lengths: tuple[int, ...]
) -> list[IrValue]:
    (aval_out,) = ctx.avals_out
    y = hlo.fft(
        pin_row_major(x, ctx.avals_in[0]),
        hlo.FftTypeAttr.get(fft_type.name),
        list(fft_lengths),
        results=[aval_to_ir_type(aval_out)],
    )
    return [pin_row_major(y, aval_out)]
