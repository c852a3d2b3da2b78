"""``didax.extend.lowering``: what a lowering rule needs to build StableHLO.

``hlo`` is the StableHLO dialect of ``jaxlib.mlir`` (``hlo.add``,
``hlo.multiply``, ...), ``ir`` its core module; the rest are didax's
helpers for types and constants.
"""

from didax.lowering.mlir import (
    LoweringRuleContext,
    aval_to_ir_type,
    constant,
    dense_i64,
    full,
    ir,
)
from didax.lowering.mlir import stablehlo as hlo

__all__ = ["LoweringRuleContext", "aval_to_ir_type", "constant", "dense_i64", "full", "hlo", "ir"]
