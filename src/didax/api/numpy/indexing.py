"""Indexing: ``x[idx]``, ``take`` and ``take_along_axis``, as jax.numpy's.

``x[idx]`` (``rewriting_take``) parses the index once (``index_parsing``)
and takes the cheapest of three routes, in JAX's order: a static slice, a
dynamic slice (``slicing``), or a gather (``gathering``). ``x.at[idx]``
updates are ``index_updates``'. The modules' design rules:

- A route that cannot take an index answers None and the next is tried;
  the gather takes everything.
- What is refused is refused as in JAX (``index_parsing``), and index
  arithmetic is in int32 when every axis fits, so jaxprs have JAX's index
  types.
- ``take`` and ``take_along_axis`` build their gathers directly, with
  JAX's dimension numbers and modes (``take``'s out-of-bounds indices
  give ``fill_value`` by default, as JAX's).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.gathering import _gather
from didax.api.numpy.index_parsing import (
    _INT32_MAX,
    _expand_bool,
    _full_like,
    _mode,
    _parse,
    _wrap_negative,
)
from didax.api.numpy.index_parsing import (
    NonConcreteBooleanIndexError as NonConcreteBooleanIndexError,
)
from didax.api.numpy.manipulation import ravel
from didax.api.numpy.operands import as_result, astype, broadcast_shapes, operand
from didax.api.numpy.slicing import _dynamic_slice, _static_slice
from didax.core import dtypes, lax
from didax.core.lax.indexing import (
    GatherDimensionNumbers,
    GatherScatterMode,
)
from didax.core.values import get_aval

__all__ = ["take", "take_along_axis"]


# --- parsing --------------------------------------------------------------------------


# --- route 1: a static slice -----------------------------------------------------------


# --- route 2: a dynamic slice ----------------------------------------------------------


# --- route 3: a gather -----------------------------------------------------------------


def rewriting_take(
    arr: ArrayLike,
    index: Any,
    *,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: str | GatherScatterMode | None = None,
    fill_value: Any = None,
    normalize_indices: bool = True,
) -> Array:
    """``arr[index]``, by a static slice, a dynamic slice or a gather (JAX's ``rewriting_take``)."""
    v = as_result(operand(arr))
    shape = get_aval(v).shape
    parsed = _parse(index, shape)
    parsed_mode = _mode(mode)
    for route in (_static_slice, _dynamic_slice):
        out = route(v, parsed, shape, parsed_mode, normalize_indices)
        if out is not None:
            return out
    return _gather(
        v,
        _expand_bool(parsed, shape),
        indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices,
        mode=mode,
        fill_value=fill_value,
        normalize=normalize_indices,
    )


def getitem(x: ArrayLike, index: object) -> Array:
    """``x[index]`` with NumPy's (basic and advanced) indexing, as ``jax.numpy``'s.

    >>> import didax.numpy as dnp
    >>> x = dnp.arange(6.0).reshape(2, 3)
    >>> x[1, ::-1]
    Array([5., 4., 3.], dtype=float32)
    >>> x[:, dnp.array([2, 0, 2])]
    Array([[2., 0., 2.],
           [5., 3., 5.]], dtype=float32)
    >>> x[x > 2.5]
    Array([3., 4., 5.], dtype=float32)
    """
    return rewriting_take(x, index)


# --- functional updates (x.at[idx]) ----------------------------------------------------


# --- take, take_along_axis -------------------------------------------------------------


def _axis(axis: int, ndim: int) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def take(
    a: ArrayLike,
    indices: ArrayLike,
    axis: int | None = None,
    out: None = None,
    mode: str | None = None,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    fill_value: Any = None,
) -> Array:
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened ``a`` if None).

    Out-of-bounds indices give ``fill_value`` (NaN for floats) by default
    (``mode="fill"``); ``"clip"`` clamps and ``"wrap"`` wraps them, as in
    ``jax.numpy.take``.

    >>> import didax.numpy as dnp
    >>> x = dnp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> take(x, dnp.array([2, 0, 7]), axis=1)
    Array([[ 3.,  1., nan],
           [ 6.,  4., nan]], dtype=float32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to take is not supported.")
    arr = as_result(operand(a))
    idx = as_result(operand(indices))
    if not dtypes.is_integer(get_aval(idx).dtype):
        raise TypeError(f"take: indices must be integers, got {get_aval(idx).dtype}")
    if axis is None:
        arr = ravel(arr)
        axis_idx = 0
    else:
        axis_idx = _axis(axis, get_aval(arr).ndim)
    shape = get_aval(arr).shape
    n = shape[axis_idx]
    if mode is None or mode == "fill":
        gather_mode = GatherScatterMode.FILL_OR_DROP
        idx = _wrap_negative(idx, n)  # as JAX's: negative indices count from the end
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to take is not supported.")
    elif mode == "wrap":
        idx = lax.rem(idx, _full_like(idx, n))
        idx = _wrap_negative(idx, n)  # rem keeps the dividend's sign; mod does not
        gather_mode = GatherScatterMode.PROMISE_IN_BOUNDS
    elif mode == "clip":
        gather_mode = GatherScatterMode.CLIP
    else:
        raise ValueError(f"Invalid mode '{mode}' for np.take")
    idx_aval = get_aval(idx)
    slice_sizes = list(shape)
    if n == 0:
        if idx_aval.size != 0:
            raise IndexError("Cannot do a non-empty take() from an empty axis.")
        return arr
    if idx_aval.size == 0:
        out_shape = (*shape[:axis_idx], *idx_aval.shape, *shape[axis_idx + 1 :])
        return as_result(lax.full(out_shape, 0, get_aval(arr).dtype))
    slice_sizes[axis_idx] = 1
    index_dims = idx_aval.ndim
    dnums = GatherDimensionNumbers(
        offset_dims=(
            *range(axis_idx),
            *range(axis_idx + index_dims, len(shape) + index_dims - 1),
        ),
        collapsed_slice_dims=(axis_idx,),
        start_index_map=(axis_idx,),
    )
    return as_result(
        lax.gather(
            arr,
            lax.expand_dims(idx, (index_dims,)),
            dnums,
            slice_sizes,
            mode=gather_mode,
            fill_value=fill_value,
            unique_indices=unique_indices,
            indices_are_sorted=indices_are_sorted,
        )
    )


def take_along_axis(
    arr: ArrayLike,
    indices: ArrayLike,
    axis: int | None = -1,
    mode: str | GatherScatterMode | None = None,
    fill_value: Any = None,
) -> Array:
    """``arr``'s elements at ``indices`` along ``axis``, matching the other axes (broadcast).

    Out-of-bounds indices give ``fill_value`` (NaN for floats) unless
    ``mode`` says otherwise, as ``jax.numpy.take_along_axis``.

    >>> import didax.numpy as dnp
    >>> x = dnp.array([[5, 3, 4], [2, 7, 6]])
    >>> take_along_axis(x, dnp.array([[1, 2, 0], [0, 2, 1]]), axis=1)
    Array([[3, 4, 5],
           [2, 6, 7]], dtype=int32)
    """
    a = as_result(operand(arr))
    idx = as_result(operand(indices))
    idx_aval = get_aval(idx)
    if not dtypes.is_integer(idx_aval.dtype):
        raise TypeError(f"take_along_axis indices must be of integer type, got {idx_aval.dtype}")
    if axis is None:
        if idx_aval.ndim != 1:
            raise ValueError(
                f"take_along_axis indices must be 1D if axis=None, got shape {idx_aval.shape}"
            )
        a = ravel(a)
        axis = 0
    rank = get_aval(a).ndim
    if rank != idx_aval.ndim:
        raise ValueError(
            f"indices and arr must have the same number of dimensions; {idx_aval.ndim} vs. {rank}"
        )
    axis_int = _axis(axis, rank)
    idx_shape = idx_aval.shape
    arr_shape = list(get_aval(a).shape)
    axis_size = arr_shape[axis_int]
    arr_shape[axis_int] = 1
    out_shape = broadcast_shapes("take_along_axis", idx_shape, tuple(arr_shape))
    if axis_size == 0:
        return as_result(lax.full(out_shape, 0, get_aval(a).dtype))
    wrap = mode != "promise_in_bounds"
    if wrap:
        index_dtype = dtypes.int32 if axis_size <= _INT32_MAX else dtypes.default_int()
        idx = _wrap_negative(astype(idx, index_dtype), axis_size)
    index_dims = [i for i, n in enumerate(idx_shape) if i == axis_int or n != 1]
    gather_index_shape = (*(out_shape[i] for i in index_dims), 1)
    gather_indices = lax.reshape(idx, gather_index_shape)
    slice_sizes: list[int] = []
    offset_dims: list[int] = []
    start_index_map: list[int] = []
    collapsed_slice_dims: list[int] = []
    operand_batching_dims: list[int] = []
    start_indices_batching_dims: list[int] = []
    squeezed: list[int] = []
    new_i = j = 0
    for i in range(rank):
        if i == axis_int:
            slice_sizes.append(1)
            start_index_map.append(new_i)
            collapsed_slice_dims.append(new_i)
            new_i += 1
            j += 1
        elif idx_shape[i] == 1:
            # The whole axis of arr, with no index.
            offset_dims.append(i)
            slice_sizes.append(arr_shape[i])
            new_i += 1
        elif arr_shape[i] == 1:
            # arr broadcasts along this axis: squeeze it out.
            squeezed.append(i)
            j += 1
        else:
            # Equal sizes: arr's and the indices' axes are indexed together.
            slice_sizes.append(0 if arr_shape[i] == 0 else 1)
            operand_batching_dims.append(new_i)
            start_indices_batching_dims.append(j)
            new_i += 1
            j += 1
    if squeezed:
        a = lax.squeeze(a, squeezed)
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(offset_dims),
        collapsed_slice_dims=tuple(collapsed_slice_dims),
        start_index_map=tuple(start_index_map),
        operand_batching_dims=tuple(operand_batching_dims),
        start_indices_batching_dims=tuple(start_indices_batching_dims),
    )
    return as_result(
        lax.gather(
            a,
            gather_indices,
            dnums,
            slice_sizes,
            mode="fill" if mode is None else mode,
            fill_value=fill_value,
        )
    )
