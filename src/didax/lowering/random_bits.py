"""The StableHLO lowering of the random-bit primitives (``core.lax.random_bits``).

Design rules:
- ``rng_bit_generator`` is ``stablehlo.rng_bit_generator``, as JAX lowers
  it: a ``uint32[4]`` key is bit-cast to the ``uint64[2]`` state XLA takes
  (and back), and bits of ``uint8`` or ``uint16`` are asked of XLA in
  their own type, as JAX does; so the program, and the bits, are JAX's.
- ``rng_uniform`` is ``stablehlo.rng`` with the ``UNIFORM`` distribution.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.dtypes import DType
from didax.core.lax.random_bits import RandomAlgorithm, rng_bit_generator_p, rng_uniform_p
from didax.lowering.mlir import (
    LOWERING_RULES,
    IrValue,
    LoweringRuleContext,
    aval_to_ir_type,
    constant,
)

__all__: list[str] = []

_ALGORITHMS = {
    RandomAlgorithm.RNG_DEFAULT: "DEFAULT",
    RandomAlgorithm.RNG_THREE_FRY: "THREE_FRY",
    RandomAlgorithm.RNG_PHILOX: "PHILOX",
}


@LOWERING_RULES.defines(rng_bit_generator_p)
def _rng_bit_generator_lowering(
    ctx: LoweringRuleContext,
    key: IrValue,
    *,
    shape: tuple[int, ...],
    dtype: DType,
    algorithm: RandomAlgorithm,
) -> list[IrValue]:
    key_aval, bits_aval = ctx.avals_out
    words = key_aval.dtype == dtypes.uint32
    state = aval_to_ir_type(ShapedArray((2,), dtypes.uint64))
    if words:
        pairs = aval_to_ir_type(ShapedArray((2, 2), dtypes.uint32))
        key = hlo.bitcast_convert(state, hlo.reshape(pairs, key))
    op = hlo.RngBitGeneratorOp(
        state, aval_to_ir_type(bits_aval), hlo.RngAlgorithmAttr.get(_ALGORITHMS[algorithm]), key
    )
    new_state, bits = op.results
    if words:
        pairs = aval_to_ir_type(ShapedArray((2, 2), dtypes.uint32))
        new_state = hlo.reshape(aval_to_ir_type(key_aval), hlo.bitcast_convert(pairs, new_state))
    return [new_state, bits]


@LOWERING_RULES.defines(rng_uniform_p)
def _rng_uniform_lowering(
    ctx: LoweringRuleContext, a: IrValue, b: IrValue, *, shape: tuple[int, ...]
) -> list[IrValue]:
    dims = constant(np.asarray(ctx.avals_out[0].shape, np.int64))
    out: IrValue = hlo.rng(a, b, dims, hlo.RngDistributionAttr.get("UNIFORM"))
    return [out]
