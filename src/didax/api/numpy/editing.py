"""Editing arrays: selecting, deleting, inserting and putting elements, and resizing.

``compress``, ``extract``, ``choose``, ``delete``, ``insert``, ``place``,
``put``, ``put_along_axis``, ``fill_diagonal``, ``resize``, ``trim_zeros``
and ``block``, as ``jax.numpy`` has them.

Design rules:
- Arrays are immutable: the NumPy functions that write in place
  (``place``, ``put``, ``put_along_axis``, ``fill_diagonal``) take
  ``inplace=False`` and return the new array; the default ``inplace=True``
  is refused with JAX's message, as by JAX.
- Each is JAX's formula over ``.at[...]`` updates, gathers and
  concatenations, so it stays traceable wherever JAX's does; a result
  whose length depends on values (``compress``, ``extract``, ``delete``
  with a boolean or non-unique ``obj``, ``trim_zeros``) needs concrete
  values or, where JAX offers it, a static ``size``.
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.creation import arange, asarray, zeros
from didax.api.numpy.elementwise import add, clip, greater_equal, less, remainder, where
from didax.api.numpy.index_tricks import unravel_index
from didax.api.numpy.indexing import take_along_axis
from didax.api.numpy.joining import tile
from didax.api.numpy.manipulation import concatenate, moveaxis, ravel, reshape, stack
from didax.api.numpy.matrices import diag_indices
from didax.api.numpy.more_routines import broadcast_arrays
from didax.api.numpy.operands import as_result, astype, concrete_value, normalize_axes, operand
from didax.api.numpy.positions import nonzero
from didax.api.numpy.reductions import sum
from didax.api.numpy.sorting import argsort, sort
from didax.api.numpy.statistics import any
from didax.core import dtypes
from didax.core.values import get_aval

__all__ = [
    "compress",
    "extract",
    "choose",
    "delete",
    "insert",
    "place",
    "put",
    "put_along_axis",
    "fill_diagonal",
    "resize",
    "trim_zeros",
    "block",
]


def _axis(name: str, axis: int, ndim: int) -> int:
    if not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"{name}: axis {axis} is out of bounds for an array of rank {ndim}")
    return axis % max(ndim, 1)


def _no_inplace(name: str, inplace: bool) -> None:
    if inplace:
        raise NotImplementedError(
            f"{name}: didax Arrays are immutable: pass inplace=False and use the returned array"
        )


def compress(
    condition: ArrayLike,
    a: ArrayLike,
    axis: int | None = None,
    *,
    size: int | None = None,
    fill_value: ArrayLike = 0,
    out: object = None,
) -> Array:
    """The slices of ``a`` along ``axis`` where the 1-d ``condition`` is true.

    >>> compress(np.array([True, False, True]), np.array([1, 2, 3]))
    Array([1, 3], dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("compress: the 'out' argument is not supported")
    cond = asarray(condition, dtypes.bool_)
    if get_aval(cond).ndim != 1:
        raise ValueError("compress: condition must be a 1-d array")
    arr = as_result(operand(a))
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = moveaxis(arr, _axis("compress", axis, get_aval(arr).ndim), 0)
    n, m = get_aval(arr).shape[0], get_aval(cond).shape[0]
    if m > n:
        if bool(any(cond[n:])):  # (needs concrete values, as JAX's check)
            raise ValueError("compress: condition has true entries beyond the array's length")
        cond = cond[:n]
    elif m < n:
        arr = arr[:m]
    length = get_aval(arr).shape[0]
    if size is not None and not 0 < size <= length:
        raise ValueError(
            f"compress: size must be positive and at most the axis' length {length}, got {size}"
        )
    (index,) = nonzero(cond, size=size, fill_value=length)
    kept = arr.at[index].get(mode="fill", fill_value=fill_value)
    return moveaxis(kept, 0, axis)


def extract(
    condition: ArrayLike, arr: ArrayLike, *, size: int | None = None, fill_value: ArrayLike = 0
) -> Array:
    """The elements of ``arr`` where ``condition`` is true, flattened."""
    return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)


def choose(
    a: ArrayLike, choices: Sequence[ArrayLike], out: object = None, mode: str = "raise"
) -> Array:
    """``choices[a[i]][i]`` for each position ``i`` (all broadcast together).

    ``mode`` ``"raise"`` checks the indices (they must be concrete), ``"wrap"``
    takes them modulo ``len(choices)`` and ``"clip"`` clips them.
    """
    if out is not None:
        raise NotImplementedError("choose: the 'out' argument is not supported")
    index = as_result(operand(a))
    if not dtypes.is_integer(get_aval(index).dtype):
        raise TypeError(f"choose: a must be an integer array, got {get_aval(index).dtype}")
    n = len(choices)
    if mode == "raise":
        host = concrete_value(index, "choose: mode='raise' needs concrete indices")
        if np.any((host < 0) | (host >= n)):
            raise ValueError("choose: invalid entry in choice array")
    elif mode == "wrap":
        index = remainder(index, n)
    elif mode == "clip":
        index = clip(index, 0, n - 1)
    else:
        raise ValueError(f"choose: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    index, *arrays = broadcast_arrays(index, *choices)
    picked = take_along_axis(stack(arrays), index[None], axis=0)
    return as_result(picked[0])


def delete(
    arr: ArrayLike,
    obj: ArrayLike | slice,
    axis: int | None = None,
    *,
    assume_unique_indices: bool = False,
) -> Array:
    """``arr`` without the entries ``obj`` (an int, a slice, indices or a mask) along ``axis``."""
    a = as_result(operand(arr))
    if axis is None:
        a, axis = ravel(a), 0
    axis = _axis("delete", axis, get_aval(a).ndim)
    n = get_aval(a).shape[axis]
    lead = (slice(None),) * axis
    if isinstance(obj, (int, np.integer)):
        i = operator.index(obj)
        if not -n <= i < n:
            raise IndexError(f"delete: index {i} is out of bounds for an axis of length {n}")
        i %= n
        return concatenate([a[(*lead, slice(0, i))], a[(*lead, slice(i + 1, None))]], axis=axis)
    if isinstance(obj, slice):
        obj, assume_unique_indices = np.arange(n)[obj], True
    o = operand(obj)
    if dtypes.is_integer(get_aval(o).dtype) and assume_unique_indices:
        # Unique indices: the kept positions counted without gathers (JAX's, traceable).
        idx = ravel(as_result(o))
        idx = sort(clip(where(less(idx, 0), add(idx, n), idx), 0, n))
        idx = idx - arange(get_aval(idx).shape[0], dtype=get_aval(idx).dtype)
        kept = arange(n - get_aval(idx).shape[0], dtype=get_aval(idx).dtype)
        kept = kept + sum(
            greater_equal(kept[None, :], idx[:, None]), axis=0, dtype=get_aval(idx).dtype
        )
        return a[(*lead, kept)]
    host = concrete_value(as_result(o), "delete: the 'obj' argument must be concrete")
    if dtypes.is_integer(host.dtype):
        mask = np.ones(n, dtype=bool)
        mask[host] = False
    elif host.dtype == np.bool_:
        if host.shape != (n,):
            raise ValueError("delete: a boolean obj must be 1-d with the axis' length")
        mask = ~host
    else:
        raise ValueError(f"delete: obj must be integer or boolean, got {host.dtype}")
    return a[(*lead, mask)]


def insert(
    arr: ArrayLike, obj: ArrayLike | slice, values: ArrayLike, axis: int | None = None
) -> Array:
    """``arr`` with ``values`` inserted before the indices ``obj`` along ``axis``.

    >>> insert(np.array([1, 2, 3]), 1, 9)
    Array([1, 9, 2, 3], dtype=int32)
    """
    a = as_result(operand(arr))
    if axis is None:
        a, axis = ravel(a), 0
    axis = _axis("insert", axis, get_aval(a).ndim)
    n_input = get_aval(a).shape[axis]
    index = arange(n_input + 1)[obj] if isinstance(obj, slice) else as_result(operand(obj))
    if get_aval(index).ndim > 1:
        raise ValueError("insert: index array must be zero or one-dimensional")
    if not dtypes.is_integer(get_aval(index).dtype):
        if get_aval(index).size != 0:
            raise ValueError(f"insert: index array must be integer typed, got {obj}")
        index = astype(index, dtypes.default_int())
    vals = as_result(astype(operand(values), get_aval(a).dtype))
    ndim = get_aval(a).ndim
    if get_aval(vals).ndim < ndim:
        vals = reshape(vals, (1,) * (ndim - get_aval(vals).ndim) + get_aval(vals).shape)
    if get_aval(index).size == 1:
        scalar_index = ravel(index)[0]
        if get_aval(index).ndim == 0:
            vals = moveaxis(vals, 0, axis)
        index = as_result(scalar_index) + zeros(get_aval(vals).shape[axis], get_aval(index).dtype)
    n_insert = np.broadcast_shapes(get_aval(index).shape, (get_aval(vals).shape[axis],))[0]
    out_shape = list(get_aval(a).shape)
    out_shape[axis] += n_insert
    out = zeros(tuple(out_shape), get_aval(a).dtype)
    index = clip(where(less(index, 0), add(index, n_input), index), 0, n_input)
    index_dt = get_aval(index).dtype
    order = argsort(index)
    values_at = index.at[order].add(arange(n_insert, dtype=index_dt))
    arr_mask = zeros(n_input + n_insert, dtypes.bool_).at[:].set(True).at[values_at].set(False)
    (arr_at,) = nonzero(arr_mask, size=n_input)
    lead = (slice(None),) * axis
    out = out.at[(*lead, values_at)].set(vals)
    return as_result(out.at[(*lead, arr_at)].set(a))


def _tile_to_size(v: Array, size: int) -> Array:
    n = get_aval(v).size
    return tile(v, -(-size // n))[:size] if n else v


def place(arr: ArrayLike, mask: ArrayLike, vals: ArrayLike, *, inplace: bool = True) -> Array:
    """``arr`` with the masked positions set from ``vals`` in order, repeated as needed."""
    _no_inplace("place", inplace)
    data = as_result(operand(arr))
    flat_mask = ravel(asarray(mask, dtypes.bool_))
    size = get_aval(flat_mask).size
    (index,) = nonzero(flat_mask, size=size, fill_value=size)
    v = _tile_to_size(ravel(as_result(operand(vals))), size)
    return reshape(ravel(data).at[index].set(v, mode="drop"), get_aval(data).shape)


def put(
    a: ArrayLike, ind: ArrayLike, v: ArrayLike, mode: str | None = None, *, inplace: bool = True
) -> Array:
    """``a`` with the flat positions ``ind`` set to ``v`` (repeated as needed)."""
    _no_inplace("put", inplace)
    arr = as_result(operand(a))
    index, values = ravel(as_result(operand(ind))), ravel(as_result(operand(v)))
    size = get_aval(arr).size
    if not size or not get_aval(index).size or not get_aval(values).size:
        return arr
    values = _tile_to_size(values, get_aval(index).size)
    scatter_mode = "drop"
    if mode == "clip":
        index, scatter_mode = clip(index, 0, size - 1), "promise_in_bounds"
    elif mode == "wrap":
        index, scatter_mode = remainder(index, size), "promise_in_bounds"
    elif mode == "raise":
        raise NotImplementedError("put: mode='raise' is not supported (as in JAX)")
    elif mode is not None:
        raise ValueError(f"put: mode must be None, 'clip' or 'wrap', got {mode!r}")
    # Through unravel_index, which clamps, as JAX's: an index past the end sets the last element.
    return as_result(
        arr.at[unravel_index(index, get_aval(arr).shape)].set(values, mode=scatter_mode)
    )


def put_along_axis(
    arr: ArrayLike,
    indices: ArrayLike,
    values: ArrayLike,
    axis: int | None,
    inplace: bool = True,
    *,
    mode: str | None = None,
) -> Array:
    """``arr`` with ``values`` put at ``indices`` along ``axis`` (``take_along_axis``'s inverse)."""
    _no_inplace("put_along_axis", inplace)
    a = as_result(operand(arr))
    idx = as_result(operand(indices))
    if axis is None:
        a, axis = ravel(a), 0
        idx = ravel(idx)
    ndim = get_aval(a).ndim
    axis = _axis("put_along_axis", axis, ndim)
    if get_aval(idx).ndim != ndim:
        raise ValueError("put_along_axis: indices and arr must have the same number of dimensions")
    shape = get_aval(idx).shape
    full_index = tuple(
        idx
        if d == axis
        else reshape(arange(shape[d]), tuple(-1 if e == d else 1 for e in range(ndim)))
        for d in range(ndim)
    )
    return as_result(a.at[full_index].set(values, mode=mode))


def fill_diagonal(
    a: ArrayLike, val: ArrayLike, wrap: bool = False, *, inplace: bool = True
) -> Array:
    """``a`` with its main diagonal set to ``val`` (repeated as needed)."""
    _no_inplace("fill_diagonal", inplace)
    if wrap:
        raise NotImplementedError("fill_diagonal: wrap=True is not supported (as in JAX)")
    arr, v = as_result(operand(a)), as_result(operand(val))
    shape = get_aval(arr).shape
    if len(shape) < 2:
        raise ValueError("fill_diagonal: array must be at least 2-d")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ValueError("fill_diagonal: all dimensions of input must be of equal length")
    n = min(shape)
    fill = v if get_aval(v).ndim == 0 else _tile_to_size(ravel(v), n)
    return as_result(arr.at[diag_indices(n, len(shape))].set(fill))


def resize(a: ArrayLike, new_shape: int | Sequence[int]) -> Array:
    """``a`` flattened, repeated as needed, cut to ``new_shape``'s size and reshaped."""
    shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
    shape = tuple(operator.index(d) for d in shape)
    if builtins.any(d < 0 for d in shape):
        raise ValueError("resize: all elements of new_shape must be non-negative")
    flat = ravel(as_result(operand(a)))
    new_size = math.prod(shape)
    if get_aval(flat).size == 0 or new_size == 0:
        return zeros(shape, get_aval(flat).dtype)
    return reshape(_tile_to_size(flat, new_size), shape)


def trim_zeros(filt: ArrayLike, trim: str = "fb", axis: int | Sequence[int] | None = None) -> Array:
    """``filt`` without its leading (``"f"``) and trailing (``"b"``) zeros (concrete values)."""
    f = as_result(operand(filt))
    host = concrete_value(f, "trim_zeros: the values decide the result's shape")
    axes = set(normalize_axes(axis, host.ndim, "trim_zeros"))
    trim = trim.lower()
    if not axes or ("f" not in trim and "b" not in trim):
        return f
    index: list[slice] = []
    for ax in range(host.ndim):
        if ax not in axes:
            index.append(slice(None))
            continue
        nonzero_at = np.flatnonzero(
            np.any(host != 0, axis=tuple(d for d in range(host.ndim) if d != ax))
        )
        if nonzero_at.size == 0:
            index.append(slice(0, 0))
            continue
        start = int(nonzero_at[0]) if "f" in trim else None
        stop = int(nonzero_at[-1]) + 1 if "b" in trim else None
        index.append(slice(start, stop))
    return as_result(f[tuple(index)])


def _block(xs: Any) -> tuple[Array, int]:
    if isinstance(xs, tuple):
        raise ValueError("block: blocks are lists, not tuples")
    if not isinstance(xs, list):
        return asarray(xs), 1
    if not xs:
        raise ValueError("block: empty lists are not allowed")
    parts = [_block(x) for x in xs]
    depth = parts[0][1]
    if builtins.any(d != depth for _, d in parts):
        raise ValueError("block: list depths are mismatched")
    rank = max(depth, *(get_aval(p).ndim for p, _ in parts))
    arrays = [reshape(p, (1,) * (rank - get_aval(p).ndim) + get_aval(p).shape) for p, _ in parts]
    return concatenate(arrays, axis=-depth), depth + 1


def block(arrays: Any) -> Array:
    """An array assembled from nested lists of blocks (the innermost joined along the last axis).

    >>> block([[np.eye(2), np.zeros((2, 1))]]).shape
    (2, 3)
    """
    return _block(arrays)[0]
