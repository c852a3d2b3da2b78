"""Bit primitives: exclusive or, shifts, bit counts and bit casts.

Their declarations, typing rules and ``didax.lax`` wrappers, in one module
(the interpreters' rules are in ``interpreters.bits``, the lowering in
``lowering.bits``). They are what a counter-based PRNG is made of:
Threefry is additions, rotations (two shifts and an or) and xors on
``uint32``, and uniform floats are random mantissa bits bit-cast to a float.

Design rules:
- The semantics are XLA's, which JAX's are: a shift by an amount outside
  ``[0, bit width)`` (the amount read as unsigned) gives 0, or the sign fill
  for an arithmetic right shift, where C and NumPy leave it undefined.
- Operands are strict as every primitive's (one shape, one dtype), with
  weak Python scalars taking their partner's type (``lax.shift_left(x, 2)``);
  as JAX's, ``xor`` and the shifts take a rank-0 operand beside an array
  (``scalar_operands``: ``shift_left x 2``, no broadcast).
- ``xor`` takes booleans and integers, as ``and`` and ``or`` do; shifts and
  bit counts take integers only; ``bitcast_convert_type`` refuses booleans
  unless nothing changes, as JAX's does.
- A bit cast between widths changes the shape as JAX's (and XLA's):
  narrowing appends an axis of ``old_bits // new_bits`` elements (the least
  significant part first), widening consumes such a last axis.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import (
    ABSTRACT_EVAL,
    dtype_failure,
    same_shapes_and_dtypes,
    shape_failure,
)
from didax.core.basearray import Value
from didax.core.dtypes import DType
from didax.core.lax.elementwise import and_p, binary, nary, not_p, or_p, unary
from didax.core.primitive import Primitive, primitives
from didax.core.values import ArrayLike, is_python_scalar, wrap_host

__all__ = [
    "xor_p",
    "shift_left_p",
    "shift_right_logical_p",
    "shift_right_arithmetic_p",
    "population_count_p",
    "clz_p",
    "bitcast_convert_type_p",
    "mulhi_p",
    "bitwise_and",
    "bitwise_or",
    "bitwise_not",
    "bitwise_xor",
    "shift_left",
    "shift_right_logical",
    "shift_right_arithmetic",
    "population_count",
    "clz",
    "bitcast_convert_type",
    "mulhi",
]

xor_p, shift_left_p, shift_right_logical_p, shift_right_arithmetic_p = primitives(
    "xor", "shift_left", "shift_right_logical", "shift_right_arithmetic", scalar_operands=True
)
population_count_p, clz_p, bitcast_convert_type_p = primitives(
    "population_count", "clz", "bitcast_convert_type"
)
mulhi_p: Final = Primitive("mulhi", scalar_operands=True)

SHIFTS: Final = (shift_left_p, shift_right_logical_p, shift_right_arithmetic_p)
BIT_COUNTS: Final = (population_count_p, clz_p)
BIT_PRIMITIVES: Final[tuple[Primitive, ...]] = (
    xor_p,
    *SHIFTS,
    *BIT_COUNTS,
    bitcast_convert_type_p,
    mulhi_p,
)


# --- typing rules -------------------------------------------------------------------


def _elementwise(kinds: str, what: str, *avals: ShapedArray) -> ShapedArray:
    """Operands of ``kinds``, of one type; a rank-0 one may stand beside arrays."""
    for a in avals:
        if dtypes.kind(a.dtype) not in kinds:
            raise dtype_failure(f"operands must be {what}, got {a.dtype}")
    return same_shapes_and_dtypes(*avals, scalars=True)


@ABSTRACT_EVAL.defines(xor_p)
def _xor_abstract_eval(x: ShapedArray, y: ShapedArray) -> ShapedArray:
    return _elementwise("biu", "booleans or integers", x, y)


@ABSTRACT_EVAL.defines(*SHIFTS, mulhi_p)
def _shift_abstract_eval(x: ShapedArray, y: ShapedArray) -> ShapedArray:
    return _elementwise("iu", "integers", x, y)


@ABSTRACT_EVAL.defines(*BIT_COUNTS)
def _bit_count_abstract_eval(x: ShapedArray) -> ShapedArray:
    return _elementwise("iu", "integers", x)


def bitcast_shape(shape: tuple[int, ...], old: DType, new: DType) -> tuple[int, ...]:
    """The shape of a bit cast of ``shape`` from ``old`` to ``new`` (JAX's rule).

    >>> bitcast_shape((3,), dtypes.float64, dtypes.uint16)
    (3, 4)
    >>> bitcast_shape((3, 2), dtypes.uint32, dtypes.float64)
    (3,)
    """
    if old.itemsize == new.itemsize:
        return shape
    if old.itemsize > new.itemsize:
        return (*shape, old.itemsize // new.itemsize)
    ratio = new.itemsize // old.itemsize
    if not shape or shape[-1] != ratio:
        raise shape_failure(
            f"a bit cast from {old} to {new} needs a last axis of size {ratio}, got shape {shape}"
        )
    return shape[:-1]


@ABSTRACT_EVAL.defines(bitcast_convert_type_p)
def _bitcast_convert_type_abstract_eval(x: ShapedArray, *, new_dtype: DType) -> ShapedArray:
    if x.dtype == new_dtype:
        return ShapedArray(x.shape, new_dtype)
    if dtypes.is_bool(x.dtype) or dtypes.is_bool(new_dtype):
        raise dtype_failure(
            f"booleans cannot be bit cast (from {x.dtype} to {new_dtype}); "
            "convert_element_type converts them"
        )
    return ShapedArray(bitcast_shape(x.shape, x.dtype, new_dtype), new_dtype)


# --- didax.lax wrappers ---------------------------------------------------------------------


bitwise_and = binary(
    and_p,
    "Element-wise ``x & y`` of integers or booleans (``lax.and_``, JAX's other name).",
    name="bitwise_and",
)
bitwise_or = binary(
    or_p,
    "Element-wise ``x | y`` of integers or booleans (``lax.or_``, JAX's other name).",
    name="bitwise_or",
)
bitwise_not = unary(
    not_p,
    "Element-wise ``~x`` of integers or booleans (``lax.not_``, JAX's other name).",
    name="bitwise_not",
)


def bitwise_xor(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise exclusive or of integers (bitwise) or booleans (logical).

    >>> bitwise_xor(np.uint8(0b1100), np.uint8(0b1010))
    Array(6, dtype=uint8)
    """
    return nary(xor_p, x, y)


def shift_left(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise ``x << y``; 0 where ``y`` (read as unsigned) is at least the bit width.

    >>> shift_left(np.array([1, 1], np.int32), np.array([3, 40], np.int32))
    Array([8, 0], dtype=int32)
    """
    return nary(shift_left_p, x, y)


def shift_right_logical(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise ``x >> y`` shifting in zeros; 0 where ``y`` is at least the bit width.

    >>> shift_right_logical(np.int8(-128), np.int8(4))
    Array(8, dtype=int8)
    """
    return nary(shift_right_logical_p, x, y)


def shift_right_arithmetic(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise ``x >> y`` shifting in copies of the sign bit (unsigned integers too).

    >>> shift_right_arithmetic(np.int8(-128), np.int8(4))
    Array(-8, dtype=int8)
    """
    return nary(shift_right_arithmetic_p, x, y)


def mulhi(x: ArrayLike, y: ArrayLike) -> Value:
    """Element-wise high half of the double-width product ``x * y`` of integers.

    >>> mulhi(np.uint8(200), np.uint8(100)), mulhi(np.int8(-100), np.int8(100))
    (Array(78, dtype=uint8), Array(-40, dtype=int8))
    """
    return nary(mulhi_p, x, y)


population_count = unary(population_count_p, "Element-wise number of set bits, in ``x``'s dtype.")
clz = unary(clz_p, "Element-wise number of leading zero bits, in ``x``'s dtype.")


def bitcast_convert_type(operand: ArrayLike, new_dtype: object) -> Value:
    """The bits of ``operand`` read as ``new_dtype``; between widths the last axis changes.

    >>> bitcast_convert_type(np.float32(1.0), np.uint32)
    Array(1065353216, dtype=uint32)
    >>> bitcast_convert_type(np.float32(1.0), np.uint16)
    Array([    0, 16256], dtype=uint16)
    """
    if is_python_scalar(operand):
        operand = wrap_host(np.asarray(operand, dtypes.python_scalar_dtype(operand)))
    out: Value = bitcast_convert_type_p.bind(operand, new_dtype=dtypes.canonicalize(new_dtype))
    return out
