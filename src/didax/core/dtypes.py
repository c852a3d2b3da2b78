"""dtypes: the element types didax supports, their short names, and promotion.

Design rules:
- didax's defaults are 64-bit, as NumPy 2's: a Python ``float`` is float64,
  an ``int`` is int64, a ``bool`` is bool.
- Python scalars are *weakly typed* (NEP 50): they take the dtype of a
  strongly typed partner of a compatible kind, so ``float32_array * 2.0`` is
  float32. Weakness is a property of abstract values (``ShapedArray``), never
  of the NumPy arrays that hold concrete values.
- Only the dtypes in ``SUPPORTED`` exist; anything else (complex, object,
  strings) is rejected with a ``TypeError`` where it enters.
"""

from __future__ import annotations

from typing import Final

import numpy as np

DType = np.dtype[np.generic]

bool_: Final = np.dtype(np.bool_)
int8: Final = np.dtype(np.int8)
int16: Final = np.dtype(np.int16)
int32: Final = np.dtype(np.int32)
int64: Final = np.dtype(np.int64)
uint8: Final = np.dtype(np.uint8)
uint16: Final = np.dtype(np.uint16)
uint32: Final = np.dtype(np.uint32)
uint64: Final = np.dtype(np.uint64)
float16: Final = np.dtype(np.float16)
float32: Final = np.dtype(np.float32)
float64: Final = np.dtype(np.float64)

# The dtype of tangents of integer and boolean values: it has no values,
# exactly as JAX's float0 (a tangent of an integer input carries nothing).
float0: Final = np.dtype([("float0", np.void, 0)])

SUPPORTED: Final[tuple[DType, ...]] = (
    bool_,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    float16,
    float32,
    float64,
)

_SHORT_NAMES: Final[dict[DType, str]] = {
    bool_: "bool",
    int8: "i8",
    int16: "i16",
    int32: "i32",
    int64: "i64",
    uint8: "u8",
    uint16: "u16",
    uint32: "u32",
    uint64: "u64",
    float16: "f16",
    float32: "f32",
    float64: "f64",
    float0: "float0",
}


def short_name(dtype: DType) -> str:
    """The short name used in jaxpr types: ``short_name(float64) == 'f64'``."""
    return _SHORT_NAMES.get(dtype, str(dtype))


def canonicalize(dtype: object) -> DType:
    """Turns a dtype-like (``np.float32``, ``'int64'``, ``float``) into a supported dtype.

    >>> canonicalize(float)
    dtype('float64')
    """
    try:
        dt: DType = np.dtype(dtype)  # type: ignore[call-overload]
    except TypeError as e:
        raise TypeError(f"{dtype!r} is not a dtype") from e
    if dt not in SUPPORTED and dt != float0:
        raise TypeError(f"didax does not support dtype {dt}")
    return dt


def is_float(dtype: DType) -> bool:
    return dtype.kind == "f"


def is_integer(dtype: DType) -> bool:
    return dtype.kind in "iu"


def is_bool(dtype: DType) -> bool:
    return dtype.kind == "b"


def is_signed(dtype: DType) -> bool:
    return dtype.kind in "if"


def python_scalar_dtype(x: bool | int | float) -> DType:
    """The dtype a Python scalar has before weak-type promotion."""
    if isinstance(x, bool):
        return bool_
    if isinstance(x, int):
        return int64
    return float64


def tangent_dtype(dtype: DType) -> DType:
    """The dtype of tangents of values of ``dtype``: itself for floats, else float0."""
    return dtype if is_float(dtype) else float0


# The promotion lattice of JAX/NumPy 2 for strong types, restricted to what
# didax supports. Mixed signed/unsigned integers promote as NumPy does
# (uint64 with a signed type goes to float64, as NumPy's table says).
def promote_types(a: DType, b: DType) -> DType:
    """The result dtype of combining two strongly typed values (NumPy's rule).

    >>> promote_types(int32, float32)  # NumPy's table; JAX's lattice says float32
    dtype('float64')
    """
    if a == b:
        return a
    return canonicalize(np.promote_types(a, b))


def result_type(*operands: tuple[DType, bool]) -> tuple[DType, bool]:
    """Promotes ``(dtype, weak)`` pairs as NEP 50 does; returns ``(dtype, weak)``.

    Weak operands only raise the *kind* (bool < int < float) of the result:
    a weak int with a strong float32 gives float32; a weak float with a
    strong int32 gives a weak float64 (JAX's lattice: ``join(i32, f*) = f*``).

    >>> result_type((float32, False), (float64, True))
    (dtype('float32'), False)
    """
    strong = [d for d, w in operands if not w]
    weak = [d for d, w in operands if w]
    if strong:
        out = strong[0]
        for d in strong[1:]:
            out = promote_types(out, d)
        for d in weak:
            if _kind_rank(d) > _kind_rank(out):
                # A weak float meeting only integers: the result is a float of
                # the default width, still weak (NEP 50, JAX).
                return d, True
        return out, False
    out = weak[0]
    for d in weak[1:]:
        out = promote_types(out, d)
    return out, True


def _kind_rank(dtype: DType) -> int:
    return {"b": 0, "u": 1, "i": 1, "f": 2}[dtype.kind]
