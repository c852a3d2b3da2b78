"""Packing booleans into bytes and back: ``packbits`` and ``unpackbits``, as ``jax.numpy``'s.

Design rules:
- JAX's formulas: ``packbits`` shifts each group of eight 0/1 values by
  its bit's place and sums them (padded with zeros to a multiple of
  eight); ``unpackbits`` masks each byte with the eight bit places.
- ``bitorder`` is ``"big"`` (NumPy's default: the first element is the
  most significant bit) or ``"little"``.
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.bits import left_shift
from didax.api.numpy.elementwise import bitwise_and, greater
from didax.api.numpy.manipulation import expand_dims, ravel, reshape, swapaxes
from didax.api.numpy.operands import as_result, astype, operand
from didax.api.numpy.rearranging import pad
from didax.api.numpy.reductions import sum
from didax.core import dtypes, lax
from didax.core.values import get_aval

__all__ = ["packbits", "unpackbits"]


def _bit_places(name: str, bitorder: str) -> Array:
    if bitorder not in ("little", "big"):
        raise ValueError(f"{name}: bitorder must be 'big' or 'little', got {bitorder!r}")
    places = as_result(lax.iota(dtypes.uint8, 8))
    return places[::-1] if bitorder == "big" else places


def packbits(a: ArrayLike, axis: int | None = None, bitorder: str = "big") -> Array:
    """The nonzero-ness of ``a``'s elements packed eight to a ``uint8`` along ``axis``.

    >>> packbits(np.array([1, 0, 1, 1, 0, 0, 0, 1, 1]))
    Array([177, 128], dtype=uint8)
    """
    v = as_result(operand(a))
    dt = get_aval(v).dtype
    if not (dtypes.is_integer(dt) or dt == dtypes.bool_):
        raise TypeError(f"packbits: expected an integer or boolean array, got {dt}")
    places = _bit_places("packbits", bitorder)
    arr = astype(greater(v, 0), dtypes.uint8)
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    shape = get_aval(arr).shape
    if shape[-1] % 8:
        arr = pad(arr, [(0, 0)] * (len(shape) - 1) + [(0, 8 - shape[-1] % 8)])
    shape = get_aval(arr).shape
    arr = reshape(arr, (*shape[:-1], shape[-1] // 8, 8))
    packed = sum(left_shift(arr, places), axis=-1, dtype=dtypes.uint8)
    return swapaxes(packed, axis, -1)


def unpackbits(
    a: ArrayLike, axis: int | None = None, count: int | None = None, bitorder: str = "big"
) -> Array:
    """The bits of ``a``'s ``uint8`` elements, eight 0/1 values each, along ``axis``."""
    v = as_result(operand(a))
    if get_aval(v).dtype != dtypes.uint8:
        raise TypeError(f"unpackbits: expected a uint8 array, got {get_aval(v).dtype}")
    masks = left_shift(astype(1, dtypes.uint8), _bit_places("unpackbits", bitorder))
    if axis is None:
        v, axis = ravel(v), 0
    v = swapaxes(v, axis, -1)
    ndim = get_aval(v).ndim
    bits = astype(greater(bitwise_and(expand_dims(v, -1), masks), 0), dtypes.uint8)
    bits = reshape(bits, (*get_aval(bits).shape[:-2], -1))
    if count is not None:
        n = get_aval(bits).shape[-1]
        if count > n:
            bits = pad(bits, [(0, 0)] * (ndim - 1) + [(0, count - n)])
        else:
            bits = bits[..., :count]
    return swapaxes(bits, axis, -1)
