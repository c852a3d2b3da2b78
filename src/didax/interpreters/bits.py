"""The interpreters' rules for the bit primitives (``core.lax.bits``).

Impl (NumPy), jvp, batching and flops rules, registered in each
interpreter's table; the lowering is in ``lowering.bits``.

Design rules:
- The impls compute XLA's results, not NumPy's: NumPy's shifts by an
  amount outside ``[0, bit width)`` are undefined (x86 masks the amount),
  XLA's give 0 (or the sign fill); so the amount is read as unsigned and
  the out-of-range lanes are selected explicitly.
- Every result is an integer (or, for a bit cast, bits reread): nothing is
  differentiable, so every jvp rule gives a ``Zero`` tangent (``float0`` for
  integers), as JAX's ``defjvp_zero``.
- Element-wise primitives batch as every element-wise primitive does; a
  bit cast moves the batch axis to the front, since it may add or consume
  the last axis.
- Flops follow XLA's cost analysis: one per element, integer operations
  and bit casts included (a bit cast to the same dtype is nothing).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray
from didax.core.dtypes import DType
from didax.core.lax import bits
from didax.core.primitive import Primitive
from didax.core.values import get_aval
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front, elementwise_batcher
from didax.interpreters.evaluation import IMPL_RULES
from didax.interpreters.flops import FLOPS_RULES, Cost, Operand
from didax.interpreters.jvp import JVP_RULES, Zero

__all__: list[str] = []


# --- impl rules -----------------------------------------------------------------------


def _unsigned(dtype: DType) -> DType:
    return np.dtype(f"u{dtype.itemsize}")


def _signed(dtype: DType) -> DType:
    return np.dtype(f"i{dtype.itemsize}")


def _amounts(x: HostArray, y: HostArray) -> tuple[HostArray, HostArray]:
    """The shift amounts made safe for NumPy, and where they are out of range (XLA's rule)."""
    width = 8 * x.dtype.itemsize
    amount = np.asarray(y).view(_unsigned(y.dtype))
    out_of_range = amount >= width
    return np.where(out_of_range, 0, amount).astype(_unsigned(x.dtype)), out_of_range


def _shift_left(x: HostArray, y: HostArray) -> HostArray:
    amount, out_of_range = _amounts(x, y)
    ux = np.asarray(x).view(_unsigned(x.dtype))
    shifted = np.left_shift(ux, amount)
    return np.asarray(np.where(out_of_range, 0, shifted).astype(ux.dtype)).view(x.dtype)


def _shift_right_logical(x: HostArray, y: HostArray) -> HostArray:
    amount, out_of_range = _amounts(x, y)
    ux = np.asarray(x).view(_unsigned(x.dtype))
    shifted = np.right_shift(ux, amount)
    return np.asarray(np.where(out_of_range, 0, shifted).astype(ux.dtype)).view(x.dtype)


def _shift_right_arithmetic(x: HostArray, y: HostArray) -> HostArray:
    # Past the width, every bit is a copy of the sign: a shift by width - 1.
    amount, out_of_range = _amounts(x, y)
    width = 8 * x.dtype.itemsize
    sx = np.asarray(x).view(_signed(x.dtype))
    amount = np.where(out_of_range, width - 1, amount).astype(sx.dtype)
    return np.asarray(np.right_shift(sx, amount).astype(sx.dtype)).view(x.dtype)


def _population_count(x: HostArray) -> HostArray:
    return np.asarray(np.bitwise_count(np.asarray(x).view(_unsigned(x.dtype)))).astype(x.dtype)


def _clz(x: HostArray) -> HostArray:
    # The bit length by binary search over halving widths; clz = width - length.
    width = 8 * x.dtype.itemsize
    v = np.asarray(x).view(_unsigned(x.dtype)).astype(np.uint64)
    length = np.zeros(v.shape, np.int64)
    step = width // 2
    while step:
        high = v >= np.uint64(1 << step)
        length += np.where(high, step, 0)
        v = np.where(high, v >> np.uint64(step), v)
        step //= 2
    length += (v > 0).astype(np.int64)
    return np.asarray(width - length).astype(x.dtype)


def _bitcast_convert_type(x: HostArray, *, new_dtype: DType) -> HostArray:
    # (ascontiguousarray would make a 0-d array 1-d)
    x = x if x.flags.c_contiguous else x.copy()
    old = x.dtype
    if old.itemsize == new_dtype.itemsize:
        return x.view(new_dtype)
    if old.itemsize > new_dtype.itemsize:
        return x.reshape(*x.shape, 1).view(new_dtype)
    # The last axis holds the parts of one wide element: view them as one.
    return x.view(new_dtype).reshape(x.shape[:-1])


def _mulhi(x: HostArray, y: HostArray) -> HostArray:
    dtype = x.dtype
    width = 8 * dtype.itemsize
    if width < 64:
        wide = np.dtype(f"{dtype.kind}{2 * dtype.itemsize}")
        product = np.multiply(x, y, dtype=wide)
        return np.asarray(np.right_shift(product, width).astype(dtype))
    # 64 bits: the unsigned product of 32-bit halves, then the signed
    # correction ``- (x < 0 ? y : 0) - (y < 0 ? x : 0)`` (modulo 2**64).
    u = np.dtype(np.uint64)
    ux, uy = np.broadcast_arrays(np.asarray(x).view(u), np.asarray(y).view(u))
    low, half = np.uint64(0xFFFFFFFF), np.uint64(32)
    x_lo, x_hi, y_lo, y_hi = ux & low, ux >> half, uy & low, uy >> half
    lo_hi, hi_lo = x_lo * y_hi, x_hi * y_lo
    cross = (lo_hi & low) + (hi_lo & low) + ((x_lo * y_lo) >> half)
    high = x_hi * y_hi + (lo_hi >> half) + (hi_lo >> half) + (cross >> half)
    if dtype.kind == "i":
        high = high - np.where(x < 0, uy, 0).astype(u) - np.where(y < 0, ux, 0).astype(u)
    return np.asarray(high).view(dtype)


IMPL_RULES.register(bits.mulhi_p, _mulhi)
IMPL_RULES.register(bits.xor_p, lambda x, y: np.bitwise_xor(x, y))
IMPL_RULES.register(bits.shift_left_p, _shift_left)
IMPL_RULES.register(bits.shift_right_logical_p, _shift_right_logical)
IMPL_RULES.register(bits.shift_right_arithmetic_p, _shift_right_arithmetic)
IMPL_RULES.register(bits.population_count_p, _population_count)
IMPL_RULES.register(bits.clz_p, _clz)
IMPL_RULES.register(bits.bitcast_convert_type_p, _bitcast_convert_type)


# --- jvp: zero tangents ---------------------------------------------------------------


def _zero_jvp(prim: Primitive) -> None:
    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: object) -> tuple[Any, Any]:
        out = prim.bind(*primals, **params)
        return out, Zero.like(get_aval(out))

    JVP_RULES.register(prim, rule)


for _p in bits.BIT_PRIMITIVES:
    _zero_jvp(_p)


# --- batching -------------------------------------------------------------------------


# The generic element-wise rule, which also handles rank-0 operands.
for _p in (bits.xor_p, *bits.SHIFTS, *bits.BIT_COUNTS, bits.mulhi_p):
    elementwise_batcher(_p)


@BATCH_RULES.defines(bits.bitcast_convert_type_p)
def _bitcast_convert_type_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], *, new_dtype: DType
) -> tuple[Any, Any]:
    # At the front, the batch axis is never the last axis a cast adds or consumes.
    (x,), (d,) = args, dims
    x = bdim_at_front(x, d, axis_size)
    return bits.bitcast_convert_type_p.bind(x, new_dtype=new_dtype), 0


# --- flops ----------------------------------------------------------------------------


def _per_element(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **_: object
) -> Cost:
    return Cost(out_avals[0].size)


@FLOPS_RULES.defines(bits.bitcast_convert_type_p)
def _bitcast_convert_type_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, *, new_dtype: DType
) -> Cost:
    # XLA counts a bit cast as an element-wise op; to the same dtype it is nothing.
    return Cost() if operands[0].aval.dtype == new_dtype else Cost(out_avals[0].size)


for _p in (bits.xor_p, *bits.SHIFTS, *bits.BIT_COUNTS, bits.mulhi_p):
    FLOPS_RULES.register(_p, _per_element)
