"""The StableHLO lowering of ``dot_general_p`` (``core.lax.contractions``).

Design rules:
- One ``stablehlo.dot_general``, as JAX lowers it on CPUs and GPUs: the
  precision config is always given (DEFAULT for None), and the result type
  is the equation's (``preferred_element_type``'s when set), which XLA
  accumulates in.
"""

from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core.dtypes import DType
from didax.core.lax.contractions import DotDimensionNumbers, dot_general_p
from didax.core.lax.precision import CanonicalPrecision, Precision
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext, aval_to_ir_type

__all__: list[str] = []


@LOWERING_RULES.defines(dot_general_p)
def _dot_general_lowering(
    ctx: LoweringRuleContext,
    lhs: IrValue,
    rhs: IrValue,
    *,
    dimension_numbers: DotDimensionNumbers,
    precision: CanonicalPrecision,
    preferred_element_type: DType | None,
) -> list[IrValue]:
    # JAX's _dot_general_lower on CPUs and GPUs: the precision config is
    # always given (DEFAULT for None, which lets GPUs use TF32 for float32),
    # and the result type is the equation's (preferred_element_type's when
    # set), which XLA accumulates in. Its operand conversions are for
    # operands of two dtypes, which didax's dot_general does not take.
    (lc, rc), (lb, rb) = dimension_numbers
    dims = hlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(lb),
        rhs_batching_dimensions=list(rb),
        lhs_contracting_dimensions=list(lc),
        rhs_contracting_dimensions=list(rc),
    )
    pair = (Precision.DEFAULT, Precision.DEFAULT) if precision is None else precision
    config = ir.ArrayAttr.get([hlo.PrecisionAttr.get(str(p)) for p in pair])
    return [
        hlo.dot_general(aval_to_ir_type(ctx.avals_out[0]), lhs, rhs, dims, precision_config=config)
    ]
