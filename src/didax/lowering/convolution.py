"""The StableHLO lowering of ``conv_general_dilated_p`` (``core.lax.convolution``).

Design rules:
- One ``stablehlo.convolution``, as JAX lowers it: the dimension numbers
  are the param's specs, the precision config is always given (DEFAULT for
  None, as ``dot_general``'s), the window is never reversed, and the
  result type is the equation's (``preferred_element_type``'s when set).
- A complex convolution is three real ones (Gauss's product, as JAX lowers
  it on CPUs and GPUs, every platform didax lowers for): XLA's CPU complex
  convolution is a slow loop and GPUs have none.
"""

from __future__ import annotations

from typing import Unpack

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.lax.convolution import conv_general_dilated_p
from didax.core.lax.convolution_shapes import ConvParams
from didax.core.lax.precision import Precision
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext, aval_to_ir_type

__all__: list[str] = []


@LOWERING_RULES.defines(conv_general_dilated_p)
def _conv_general_dilated_lowering(
    ctx: LoweringRuleContext, lhs: IrValue, rhs: IrValue, **params: Unpack[ConvParams]
) -> list[IrValue]:
    window_strides, padding = params["window_strides"], params["padding"]
    lhs_dilation, rhs_dilation = params["lhs_dilation"], params["rhs_dilation"]
    precision = params["precision"]
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    dnums = hlo.ConvDimensionNumbers.get(
        input_batch_dimension=lhs_spec[0],
        input_feature_dimension=lhs_spec[1],
        input_spatial_dimensions=list(lhs_spec[2:]),
        kernel_output_feature_dimension=rhs_spec[0],
        kernel_input_feature_dimension=rhs_spec[1],
        kernel_spatial_dimensions=list(rhs_spec[2:]),
        output_batch_dimension=out_spec[0],
        output_feature_dimension=out_spec[1],
        output_spatial_dimensions=list(out_spec[2:]),
    )
    pair = (Precision.DEFAULT, Precision.DEFAULT) if precision is None else precision
    config = ir.ArrayAttr.get([hlo.PrecisionAttr.get(str(p)) for p in pair])
    n = len(window_strides)

    def convolve(out: ShapedArray, x: IrValue, y: IrValue) -> IrValue:
        return hlo.convolution(
            aval_to_ir_type(out),
            x,
            y,
            dnums,
            params["feature_group_count"],
            params["batch_group_count"],
            window_strides=list(window_strides),
            padding=np.asarray(padding, np.int64).reshape(n, 2),
            lhs_dilation=list(lhs_dilation),
            rhs_dilation=list(rhs_dilation),
            window_reversal=[False] * n,
            precision_config=config,
        )

    out_aval = ctx.avals_out[0]
    if not dtypes.is_complex(ctx.avals_in[0].dtype):
        return [convolve(out_aval, lhs, rhs)]
    # Gauss's product: k1 = (a + b) c, k2 = a (d - c), k3 = b (c + d) for
    # (a + ib)(c + id) = (k1 - k3) + i (k1 + k2), each product a convolution.
    part = ShapedArray(out_aval.shape, dtypes.real_dtype(out_aval.dtype))
    a, b, c, d = hlo.real(lhs), hlo.imag(lhs), hlo.real(rhs), hlo.imag(rhs)
    k1 = convolve(part, hlo.add(a, b), c)
    k2 = convolve(part, a, hlo.subtract(d, c))
    k3 = convolve(part, b, hlo.add(c, d))
    return [hlo.complex(hlo.subtract(k1, k3), hlo.add(k1, k2))]
