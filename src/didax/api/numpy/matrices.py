"""Building matrices and grids: diagonals, triangles, traces, index grids, constants.

Masks and index sets depend only on static shapes, so they are computed
once with ``iota`` and comparisons (traced like any other values), not
stored as constants.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.creation import arange, eye, zeros
from didax.api.numpy.elementwise import where
from didax.api.numpy.manipulation import broadcast_to, moveaxis, reshape
from didax.api.numpy.operands import (
    as_result,
    astype,
    dtype_arg,
    normalize_axes,
    operand,
    shape_arg,
)
from didax.api.numpy.reductions import sum
from didax.core import dtypes, lax
from didax.core.dtypes import DTypeLike
from didax.core.values import get_aval, wrap_host

__all__ = [
    "pi",
    "e",
    "inf",
    "nan",
    "newaxis",
    "euler_gamma",
    "dtype",
    "empty",
    "empty_like",
    "full_like",
    "identity",
    "tri",
    "tril",
    "triu",
    "diag",
    "diagflat",
    "diagonal",
    "trace",
    "diag_indices",
    "tril_indices",
    "triu_indices",
    "meshgrid",
]

pi: Final = np.pi
e: Final = np.e
inf: Final = np.inf
nan: Final = np.nan
newaxis: Final = None
euler_gamma: Final = np.euler_gamma
dtype: Final = np.dtype


def empty(shape: int | Sequence[int], dtype: DTypeLike = None) -> Array:
    """Zeros (didax Arrays are never uninitialized, as JAX's)."""
    return zeros(shape, dtype)


def full_like(
    a: ArrayLike,
    fill_value: ArrayLike,
    dtype: DTypeLike = None,
    shape: int | Sequence[int] | None = None,
) -> Array:
    """An array of ``a``'s shape and dtype (or ``dtype``/``shape``) filled with ``fill_value``."""
    aval = get_aval(operand(a))
    shp = aval.shape if shape is None else shape_arg(shape, "full_like")
    dt = dtype_arg(dtype) or aval.dtype
    v = astype(operand(fill_value), dt, dtype is None and aval.weak_type)
    return as_result(broadcast_to(v, shp))


def empty_like(
    prototype: ArrayLike, dtype: DTypeLike = None, shape: int | Sequence[int] | None = None
) -> Array:
    """Zeros of ``prototype``'s shape and dtype."""
    return full_like(prototype, 0, dtype, shape)


def identity(n: int, dtype: DTypeLike = None) -> Array:
    """The ``n`` x ``n`` identity matrix."""
    return eye(n, dtype=dtype)


def _tri_mask(n: int, m: int, k: int) -> Array:
    """Boolean ``n`` x ``m``: True where column <= row + k."""
    rows = lax.broadcast_in_dim(lax.iota(dtypes.default_int(), n), (n, m), (0,))
    cols = lax.broadcast_in_dim(lax.iota(dtypes.default_int(), m), (n, m), (1,))
    out: Array = lax.ge(lax.add(rows, lax.full_like(rows, k)), cols)
    return out


def tri(N: int, M: int | None = None, k: int = 0, dtype: DTypeLike = None) -> Array:
    """Ones at and below the ``k``-th diagonal of an ``N`` x ``M`` matrix."""
    n = operator.index(N)
    m = n if M is None else operator.index(M)
    dt = dtype_arg(dtype) or dtypes.float32  # JAX's default here, even with x64 on
    out: Array = lax.convert_element_type(_tri_mask(n, m, operator.index(k)), dt)
    return out


def _triangle(name: str, m: ArrayLike, k: int, lower: bool) -> Array:
    v = as_result(operand(m))
    aval = get_aval(v)
    if aval.ndim < 2:
        raise ValueError(f"{name}: input array must be at least 2-d")
    n, cols = aval.shape[-2:]
    mask = _tri_mask(n, cols, k if lower else k - 1)
    if not lower:
        mask = lax.not_(mask)
    mask = lax.broadcast_in_dim(mask, aval.shape, (aval.ndim - 2, aval.ndim - 1))
    return where(mask, v, lax.full_like(v, 0))


def tril(m: ArrayLike, k: int = 0) -> Array:
    """``m`` with the elements above the ``k``-th diagonal zeroed.

    >>> tril(np.ones((3, 3), np.int32))
    Array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]], dtype=int32)
    """
    return _triangle("tril", m, operator.index(k), lower=True)


def triu(m: ArrayLike, k: int = 0) -> Array:
    """``m`` with the elements below the ``k``-th diagonal zeroed."""
    return _triangle("triu", m, operator.index(k), lower=False)


def diagonal(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array:
    """The ``offset``-th diagonal of the ``axis1``/``axis2`` planes, as the result's last axis.

    >>> diagonal(np.arange(9).reshape(3, 3))
    Array([0, 4, 8], dtype=int32)
    """
    v = as_result(operand(a))
    nd = get_aval(v).ndim
    if nd < 2:
        raise ValueError("diagonal requires an array of at least two dimensions")
    a1 = normalize_axes(axis1, nd, "diagonal")[0]
    a2 = normalize_axes(axis2, nd, "diagonal")[0]
    if a1 == a2:
        raise ValueError("diagonal: axis1 and axis2 cannot be the same")
    v = moveaxis(v, (a1, a2), (-2, -1))
    shape = get_aval(v).shape
    n, m = shape[-2:]
    offset = operator.index(offset)
    length = max(0, min(n + min(offset, 0), m - max(offset, 0)))
    batch = shape[:-2]
    if length == 0:
        return zeros((*batch, 0), get_aval(v).dtype)
    # Zero everything off the diagonal, cut the length x length square that
    # holds it, and sum its rows: row i keeps only element (i, i). (A gather
    # would avoid the n*m work; the shapes here are static.)
    on = lax.broadcast_in_dim(_diag_mask(n, m, offset), shape, (len(shape) - 2, len(shape) - 1))
    picked = where(on, v, lax.full_like(v, 0))
    row0, col0 = max(-offset, 0), max(offset, 0)
    square = lax.slice(
        picked, (*[0] * len(batch), row0, col0), (*batch, row0 + length, col0 + length)
    )
    return sum(square, axis=-1, dtype=get_aval(v).dtype)


def trace(
    a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: DTypeLike = None
) -> Array:
    """The sum along a diagonal (``offset``) of the planes of ``axis1`` and ``axis2``."""
    d = diagonal(a, offset, axis1, axis2)
    return sum(d, axis=-1, dtype=dtype)


def diag(v: ArrayLike, k: int = 0) -> Array:
    """A matrix's ``k``-th diagonal, or a matrix with the vector ``v`` on its ``k``-th diagonal.

    >>> diag(np.array([1, 2]))
    Array([[1, 0],
           [0, 2]], dtype=int32)
    """
    x = as_result(operand(v))
    aval = get_aval(x)
    k = operator.index(k)
    if aval.ndim == 2:
        return diagonal(x, k)
    if aval.ndim != 1:
        raise ValueError("diag: input must be 1-d or 2-d")
    n = aval.shape[0] + abs(k)
    # Row r of the result holds x[r] (k >= 0) or x[r - |k|] (k < 0) on its diagonal.
    zero = wrap_host(np.zeros((), aval.dtype))
    column = lax.pad(x, zero, [(0, k, 0)] if k >= 0 else [(-k, 0, 0)])
    rows = lax.broadcast_in_dim(column, (n, n), (0,))
    out: Array = where(_diag_mask(n, n, k), rows, lax.full_like(rows, 0))
    return out


def _diag_mask(n: int, m: int, k: int) -> Array:
    """Boolean ``n`` x ``m``: True on the ``k``-th diagonal (column == row + k)."""
    rows = lax.broadcast_in_dim(lax.iota(dtypes.default_int(), n), (n, m), (0,))
    cols = lax.broadcast_in_dim(lax.iota(dtypes.default_int(), m), (n, m), (1,))
    out: Array = lax.eq(lax.add(rows, lax.full_like(rows, k)), cols)
    return out


def diagflat(v: ArrayLike, k: int = 0) -> Array:
    """A matrix with the flattened ``v`` on its ``k``-th diagonal."""
    return diag(reshape(v, (-1,)), k)


def _index_arrays(idx: tuple[np.ndarray[Any, Any], ...]) -> tuple[Array, ...]:
    return tuple(wrap_host(np.asarray(i, dtypes.default_int())) for i in idx)


def diag_indices(n: int, ndim: int = 2) -> tuple[Array, ...]:
    """The indices of the main diagonal of an ``n`` x ... x ``n`` array."""
    idx = arange(operator.index(n))
    return (idx,) * operator.index(ndim)


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, ...]:
    """Row and column indices of the lower triangle (static sizes: computed at trace time)."""
    return _index_arrays(np.tril_indices(operator.index(n), operator.index(k), m))


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, ...]:
    """Row and column indices of the upper triangle (static sizes: computed at trace time)."""
    return _index_arrays(np.triu_indices(operator.index(n), operator.index(k), m))


def meshgrid(
    *xi: ArrayLike, copy: bool = True, sparse: bool = False, indexing: str = "xy"
) -> list[Array]:
    """Coordinate grids from coordinate vectors (``indexing='xy'`` swaps the first two axes).

    >>> [g.tolist() for g in meshgrid(np.array([1, 2]), np.array([3, 4, 5]))]
    [[[1, 2], [1, 2], [1, 2]], [[3, 3], [4, 4], [5, 5]]]
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    vecs = [reshape(x, (-1,)) for x in xi]
    n = len(vecs)
    sizes = [get_aval(v).shape[0] for v in vecs]
    if indexing == "xy" and n >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, v in enumerate(vecs):
        axis = i
        if indexing == "xy" and n >= 2 and i < 2:
            axis = 1 - i
        if sparse:
            shape = [1] * n
            shape[axis] = get_aval(v).shape[0]
            out.append(reshape(v, tuple(shape)))
        else:
            out.append(lax.broadcast_in_dim(v, tuple(sizes), (axis,)))
    return out
