"""The interpreters' rules for ``convert_element_type_p`` (``core.lax.conversions``).

Design rules:
- The impl converts as XLA does, not as NumPy casts: floats to integers
  truncate toward zero and saturate (NaN becomes 0, values out of range
  the nearest bound); complex to real keeps the real part (without
  NumPy's warning); integers wrap.
- Only conversions among floating-point and complex types are
  differentiable: a conversion to an integer or bool has a zero tangent,
  and the transpose refuses a conversion that is not linear. Transposing
  converts back (complex to real keeps the real part, whose transpose is
  the complex number ``(ct, 0)``: JAX's rule).
- Batching is element-wise; a conversion costs one flop per element, none
  when only the weak type changes.
- ``reduce_precision``'s impl is XLA's bit manipulation on the unsigned
  integer of the float's width (round the mantissa to nearest even, then
  clamp the exponent), so results are XLA's bit for bit. It is linear, as
  JAX has it: tangents and cotangents are rounded alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray
from didax.core.lax.conversions import convert_element_type_p, reduce_precision_p
from didax.core.values import get_aval
from didax.interpreters.batching import elementwise_batcher
from didax.interpreters.evaluation import IMPL_RULES
from didax.interpreters.flops import FLOPS_RULES, ZERO, Cost, Operand, per_element
from didax.interpreters.jvp import JVP_RULES, Zero, linear_jvp
from didax.interpreters.transpose import TRANSPOSE_RULES, not_linear

__all__: list[str] = []


@IMPL_RULES.defines(convert_element_type_p)
def _convert_element_type_impl(
    x: HostArray, *, new_dtype: np.dtype[Any], weak_type: bool
) -> HostArray:
    if dtypes.is_complex(x.dtype) and not dtypes.is_complex(new_dtype):
        x = np.real(x)  # the real part, as XLA converts (NumPy's cast would warn)
    if dtypes.is_integer(new_dtype) and dtypes.is_float(x.dtype):
        # XLA saturates: NaN becomes 0, values out of range the nearest bound.
        # The bounds are powers of two, exact in float64 as every float is.
        least, greatest = dtypes.int_bounds(new_dtype)  # NumPy's iinfo knows no int4
        whole = np.trunc(x.astype(np.float64))
        high, low = whole >= float(greatest) + 1, whole < float(least)
        inside = np.where(np.isnan(whole) | high | low, 0, whole).astype(new_dtype)
        return np.where(high, greatest, np.where(low, least, inside)).astype(new_dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        return x.astype(new_dtype)


@JVP_RULES.defines(convert_element_type_p)
def _convert_element_type_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], *, new_dtype: np.dtype[Any], weak_type: bool
) -> tuple[Any, Any]:
    (x,), (t,) = primals, tangents
    out = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type)
    if not dtypes.is_inexact(new_dtype):
        return out, Zero.like(get_aval(out))
    return out, convert_element_type_p.bind(t, new_dtype=new_dtype, weak_type=weak_type)


@TRANSPOSE_RULES.defines(convert_element_type_p)
def _convert_element_type_transpose(
    ct: Any, x: Any, *, new_dtype: np.dtype[Any], weak_type: bool
) -> list[Any]:
    # Only conversions among floats and complex numbers are linear; the
    # others have zero derivatives, so a linear program never applies them to
    # a linear value. A complex-to-real conversion keeps the real part, whose
    # transpose is the complex number (ct, 0): the conversion back (JAX's rule).
    old = x.aval
    if not (dtypes.is_inexact(old.dtype) and dtypes.is_inexact(new_dtype)):
        raise not_linear(convert_element_type_p, f"a conversion from {old.dtype} to {new_dtype}")
    return [convert_element_type_p.bind(ct, new_dtype=old.dtype, weak_type=old.weak_type)]


elementwise_batcher(convert_element_type_p)


@FLOPS_RULES.defines(convert_element_type_p)
def _convert_element_type_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **_: object
) -> Cost:
    # A change of weak type only is no operation at all.
    same = operands[0].aval.dtype == out_avals[0].dtype
    return ZERO if same else Cost(out_avals[0].size)


# --- reduce_precision -------------------------------------------------------------------------


# The explicitly stored mantissa bits of each float dtype.
_MANTISSA_BITS: Final = {
    dtypes.bfloat16: 7,
    dtypes.float16: 10,
    dtypes.float32: 23,
    dtypes.float64: 52,
}


@IMPL_RULES.defines(reduce_precision_p)
def _reduce_precision_impl(x: HostArray, *, exponent_bits: int, mantissa_bits: int) -> HostArray:
    # XLA's EmitReducePrecisionIR, on the float's bits as an unsigned integer
    # (whose arithmetic wraps, as the emitted IR's does).
    nbits = 8 * x.dtype.itemsize
    src_mantissa = _MANTISSA_BITS[x.dtype]
    src_exponent = nbits - 1 - src_mantissa
    u = np.dtype(f"u{x.dtype.itemsize}").type
    bits = x.view(u)
    if mantissa_bits < src_mantissa:
        shift = src_mantissa - mantissa_bits
        last_bit = u(1 << shift)
        bias = (bits & last_bit) >> u(shift)
        bits = (bits + bias + u((1 << (shift - 1)) - 1)) & ~u((1 << shift) - 1)
    if exponent_bits < src_exponent:
        sign = bits & u(1 << (nbits - 1))
        exponent_mask = u(((1 << src_exponent) - 1) << src_mantissa)
        src_bias = (1 << (src_exponent - 1)) - 1
        reduced_bias = (1 << (exponent_bits - 1)) - 1
        exponent = bits & exponent_mask
        overflows = exponent > u((src_bias + reduced_bias) << src_mantissa)
        underflows = exponent <= u((src_bias - reduced_bias) << src_mantissa)
        bits = np.where(overflows, sign | exponent_mask, np.where(underflows, sign, bits))
    # XLA keeps NaNs (rounding alone may make them infinities); bfloat16 ones
    # come back quiet, their payload dropped (XLA computes bfloat16 in float32),
    # unless there is nothing to round in float32 (XLA then drops the operation).
    nan = x.view(u)
    if x.dtype == dtypes.bfloat16 and (mantissa_bits < 23 or exponent_bits < 8):
        nan = (nan & u(0x8000)) | u(0x7FC0)
    return np.asarray(np.where(np.isnan(x), nan, bits), u).view(x.dtype)


linear_jvp(reduce_precision_p)
elementwise_batcher(reduce_precision_p)
FLOPS_RULES.register(reduce_precision_p, per_element(1))


@TRANSPOSE_RULES.defines(reduce_precision_p)
def _reduce_precision_transpose(
    ct: Any, x: Any, *, exponent_bits: int, mantissa_bits: int
) -> list[Any]:
    if isinstance(ct, Zero):
        return [ct]
    return [reduce_precision_p.bind(ct, exponent_bits=exponent_bits, mantissa_bits=mantissa_bits)]
