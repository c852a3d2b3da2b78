"""Joining, splitting, tiling and extending arrays (NumPy's manipulation routines).

Each is a composition of ``concatenate``, ``slice``, ``reshape`` and
``broadcast_in_dim``; every size is static (known at trace time), as in
``jax.numpy``: split points and repeat counts are Python ints.
"""

from __future__ import annotations

import builtins
import itertools
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.manipulation import concatenate, expand_dims, ravel, reshape
from didax.api.numpy.operands import as_result, normalize_axes, operand
from didax.core import lax
from didax.core.dtypes import DTypeLike
from didax.core.values import get_aval

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "vstack",
    "row_stack",
    "hstack",
    "dstack",
    "column_stack",
    "append",
    "split",
    "array_split",
    "hsplit",
    "vsplit",
    "dsplit",
    "tile",
    "repeat",
]


def _atleast(a: ArrayLike, n: int) -> Array:
    v = as_result(operand(a))
    nd = get_aval(v).ndim
    if nd >= n:
        return v
    if n == 3 and nd == 2:  # NumPy's rule: a matrix gains a trailing axis
        return expand_dims(v, 2)
    if n == 3 and nd == 1:
        return reshape(v, (1, -1, 1))
    return reshape(v, (1,) * (n - nd) + get_aval(v).shape)


def atleast_1d(*arys: ArrayLike) -> Any:
    """Each argument with at least one axis (a list when several are given)."""
    out = [_atleast(a, 1) for a in arys]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys: ArrayLike) -> Any:
    """Each argument with at least two axes (a vector becomes a row)."""
    out = [_atleast(a, 2) for a in arys]
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys: ArrayLike) -> Any:
    """Each argument with at least three axes, by NumPy's placement rule."""
    out = [_atleast(a, 3) for a in arys]
    return out[0] if len(out) == 1 else out


def vstack(tup: Sequence[ArrayLike], dtype: DTypeLike = None) -> Array:
    """Arrays stacked as rows (vectors become rows first).

    >>> vstack([np.array([1, 2]), np.array([3, 4])])
    Array([[1, 2],
           [3, 4]], dtype=int32)
    """
    return concatenate([_atleast(a, 2) for a in tup], axis=0, dtype=dtype)


row_stack = vstack


def hstack(tup: Sequence[ArrayLike], dtype: DTypeLike = None) -> Array:
    """Arrays joined along their second axis (along the first for vectors)."""
    vals = [_atleast(a, 1) for a in tup]
    axis = 0 if vals and get_aval(vals[0]).ndim == 1 else 1
    return concatenate(vals, axis=axis, dtype=dtype)


def dstack(tup: Sequence[ArrayLike], dtype: DTypeLike = None) -> Array:
    """Arrays joined along a third axis."""
    return concatenate([_atleast(a, 3) for a in tup], axis=2, dtype=dtype)


def column_stack(tup: Sequence[ArrayLike]) -> Array:
    """Vectors as the columns of a matrix (matrices joined along their columns)."""
    vals = []
    for a in tup:
        v = as_result(operand(a))
        vals.append(reshape(v, (-1, 1)) if get_aval(v).ndim < 2 else v)
    return concatenate(vals, axis=1)


def append(arr: ArrayLike, values: ArrayLike, axis: int | None = None) -> Array:
    """``values`` appended to ``arr`` (both flattened when ``axis`` is None)."""
    if axis is None:
        return concatenate([ravel(arr), ravel(values)])
    return concatenate([arr, values], axis=axis)


def _split_points(
    name: str, size: int, indices_or_sections: int | Sequence[int], even: bool
) -> list[int]:
    if isinstance(indices_or_sections, (int, np.integer)):
        n = operator.index(indices_or_sections)
        if n <= 0:
            raise ValueError(f"{name}: number of sections must be larger than 0")
        if even and size % n:
            raise ValueError(f"{name}: array split does not result in an equal division")
        q, r = divmod(size, n)
        sizes = [q + 1] * r + [q] * (n - r)
        points, acc = [], 0
        for s in sizes[:-1]:
            acc += s
            points.append(acc)
        return points
    # As Python slicing reads them: negative points count from the end.
    points = []
    for i in map(operator.index, indices_or_sections):
        i = i + size if i < 0 else i
        points.append(builtins.min(builtins.max(i, 0), size))
    return points


def _split(
    name: str, ary: ArrayLike, indices_or_sections: int | Sequence[int], axis: int, even: bool
) -> list[Array]:
    v = as_result(operand(ary))
    aval = get_aval(v)
    (ax,) = normalize_axes(axis, aval.ndim, name)
    size = aval.shape[ax]
    bounds = [0, *_split_points(name, size, indices_or_sections, even), size]
    out = []
    for lo, hi in itertools.pairwise(bounds):
        hi = builtins.max(lo, hi)
        start = [0] * aval.ndim
        limit = list(aval.shape)
        start[ax], limit[ax] = lo, hi
        out.append(lax.slice(v, start, limit))
    return out


def split(ary: ArrayLike, indices_or_sections: int | Sequence[int], axis: int = 0) -> list[Array]:
    """``ary`` cut into equal sections, or at the given indices, along ``axis``.

    >>> [a.tolist() for a in split(np.arange(6), [2, 5])]
    [[0, 1], [2, 3, 4], [5]]
    """
    return _split("split", ary, indices_or_sections, axis, even=True)


def array_split(
    ary: ArrayLike, indices_or_sections: int | Sequence[int], axis: int = 0
) -> list[Array]:
    """As ``split``, but a number of sections need not divide the axis (the first are larger)."""
    return _split("array_split", ary, indices_or_sections, axis, even=False)


def hsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Array]:
    """``split`` along the second axis (the first for vectors)."""
    axis = 0 if get_aval(operand(ary)).ndim == 1 else 1
    return _split("hsplit", ary, indices_or_sections, axis, even=True)


def vsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Array]:
    """``split`` along the first axis of an array with at least two."""
    if get_aval(operand(ary)).ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return _split("vsplit", ary, indices_or_sections, 0, even=True)


def dsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Array]:
    """``split`` along the third axis of an array with at least three."""
    if get_aval(operand(ary)).ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return _split("dsplit", ary, indices_or_sections, 2, even=True)


def tile(A: ArrayLike, reps: int | Sequence[int]) -> Array:
    """``A`` repeated ``reps`` times along each axis.

    >>> tile(np.array([1, 2]), 2)
    Array([1, 2, 1, 2], dtype=int32)
    """
    v = as_result(operand(A))
    reps_t = (
        (operator.index(reps),)
        if isinstance(reps, (int, np.integer))
        else tuple(operator.index(r) for r in reps)
    )
    shape = get_aval(v).shape
    nd = builtins.max(len(shape), len(reps_t))
    shape = (1,) * (nd - len(shape)) + shape
    reps_t = (1,) * (nd - len(reps_t)) + reps_t
    v = reshape(v, shape)
    # Broadcast a new axis of size r before each axis, then merge the pairs.
    wide = tuple(x for r, s in zip(reps_t, shape, strict=True) for x in (r, s))
    dims = tuple(2 * i + 1 for i in range(nd))
    tiled = lax.broadcast_in_dim(v, wide, dims)
    return reshape(tiled, tuple(r * s for r, s in zip(reps_t, shape, strict=True)))


def repeat(
    a: ArrayLike,
    repeats: int | Sequence[int],
    axis: int | None = None,
    *,
    total_repeat_length: int | None = None,
) -> Array:
    """Each element of ``a`` repeated (``repeats`` static: an int, or one count per element).

    >>> repeat(np.array([1, 2]), [1, 3])
    Array([1, 2, 2, 2], dtype=int32)
    """
    v = as_result(operand(a))
    if axis is None:
        v, axis = ravel(v), 0
    aval = get_aval(v)
    (ax,) = normalize_axes(axis, aval.ndim, "repeat")
    n = aval.shape[ax]
    if isinstance(repeats, (int, np.integer)) or np.ndim(repeats) == 0:
        r = operator.index(np.asarray(repeats).item())
        if r < 0:
            raise ValueError("repeat: repeats may not contain negative values")
        wide = (*aval.shape[: ax + 1], r, *aval.shape[ax + 1 :])
        dims = tuple(i if i <= ax else i + 1 for i in range(aval.ndim))
        out = reshape(
            lax.broadcast_in_dim(v, wide, dims),
            (*aval.shape[:ax], n * r, *aval.shape[ax + 1 :]),
        )
    else:
        counts = [operator.index(c) for c in np.asarray(repeats).reshape(-1).tolist()]
        if len(counts) != n:
            raise ValueError(
                f"repeat: repeats must have one count per element along the axis ({n}), "
                f"got {len(counts)}"
            )
        pieces = []
        for i, c in enumerate(counts):
            if c:
                start = [0] * aval.ndim
                limit = list(aval.shape)
                start[ax], limit[ax] = i, i + 1
                pieces.append(repeat(lax.slice(v, start, limit), c, axis=ax))
        if not pieces:
            shape = list(aval.shape)
            shape[ax] = 0
            result: Array = lax.slice(v, [0] * aval.ndim, shape)
            return result
        out = pieces[0] if len(pieces) == 1 else concatenate(pieces, axis=ax)
    if total_repeat_length is not None and get_aval(out).shape[ax] != total_repeat_length:
        raise ValueError(
            f"repeat: total_repeat_length={total_repeat_length} does not match the "
            f"{get_aval(out).shape[ax]} repeated elements"
        )
    return out
