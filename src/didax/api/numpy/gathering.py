"""The third route of ``x[idx]``: a ``gather``, for what slices cannot do.

Design rules:
- Integer arrays (NumPy's advanced indexing: broadcast together, their
  axes first when they are not adjacent), boolean masks (of concrete
  values: they become ``nonzero`` indices) and whatever the slices cannot
  do become one ``gather``, described by a ``GatherIndexer`` (JAX's
  ``_Indexer``): the indices array, the dimension numbers and the shape
  the result is reshaped to.
- Out-of-bounds indices clamp, unless ``mode`` says otherwise (for
  ``x.at[idx].get``); the same description, transposed, is an update's
  scatter (``index_updates``).
"""

from __future__ import annotations

import builtins
import itertools
import math
from collections.abc import Sequence
from typing import Any, final

import attrs
import numpy as np

from didax.api.numpy.array_types import Array
from didax.api.numpy.index_parsing import (
    _expand_ellipsis,
    _Index,
    _Kind,
    _ndim,
    _wrap_negative,
    index_dtype_for_shape,
)
from didax.api.numpy.manipulation import broadcast_to
from didax.api.numpy.operands import as_result, astype, broadcast_shapes, full_of
from didax.core import lax
from didax.core.lax.indexing import (
    GatherDimensionNumbers,
    GatherScatterMode,
)
from didax.core.trace import Tracer
from didax.core.values import get_aval


@final
@attrs.frozen(eq=False)
class GatherIndexer:
    """An index as one gather (JAX's ``_GatherIndexer``), or its transpose, a scatter."""

    slice_shape: tuple[int, ...]  # the shape of ``x[idx]``
    gather_slice_shape: tuple[int, ...]  # the gather's slice_sizes
    gather_indices: Any  # the gather's start indices
    dnums: GatherDimensionNumbers
    # Without advanced indices nothing can repeat and starts increase.
    unique_indices: bool
    indices_are_sorted: bool
    reversed_y_dims: tuple[int, ...]  # result axes of slices with negative steps
    newaxis_dims: tuple[int, ...]  # result axes made by None
    scalar_bool_dims: tuple[int, ...]  # axes inserted for scalar boolean indices


def _broadcast_arrays(arrays: Sequence[Any]) -> list[Any]:
    shape = broadcast_shapes("indexing", *(get_aval(a).shape for a in arrays))
    return [broadcast_to(a, shape) for a in arrays]


def _to_gather(parsed: list[_Index], shape: tuple[int, ...], normalize: bool) -> GatherIndexer:
    """The gather computing ``x[idx]`` (JAX's ``_index_to_gather``)."""
    advanced_positions = [n for n, p in enumerate(parsed) if p.kind in (_Kind.ARRAY, _Kind.INTEGER)]
    contiguous = builtins.all(b - a == 1 for a, b in itertools.pairwise(advanced_positions))
    parsed = _expand_ellipsis(parsed, shape)
    scalar_bool_dims = tuple(n for n, p in enumerate(parsed) if p.kind is _Kind.BOOLEAN)
    # A scalar boolean is a new axis of size 1 (True) or 0 (False), indexed by an arange.
    new_shape = list(shape)
    expanded: list[_Index] = []
    axis = 0
    for n, p in enumerate(parsed):
        if p.kind is _Kind.BOOLEAN:
            new_shape.insert(n, 1)
            expanded.append(_Index(np.arange(int(p.index)), _Kind.ARRAY, (axis,)))
            axis += 1
        else:
            expanded.append(_Index(p.index, p.kind, tuple(range(axis, axis + len(p.axes)))))
            axis += len(p.axes)
    parsed, shape = expanded, tuple(new_shape)
    if normalize:
        parsed = [_normalized(p, shape) for p in parsed]

    advanced: list[Any] = []
    idx_advanced_axes: list[int] = []
    x_advanced_axes: list[int] = []
    if builtins.any(p.kind is _Kind.ARRAY and _ndim(p.index) > 0 for p in parsed):
        without_none = [(n, p) for n, p in enumerate(parsed) if p.kind is not _Kind.NONE]
        for j, (n, p) in enumerate(without_none):
            if p.kind in (_Kind.ARRAY, _Kind.INTEGER):
                advanced.append(p.index)
                idx_advanced_axes.append(n)
                x_advanced_axes.append(j)

    index_dtype = index_dtype_for_shape(shape)
    x_axis = y_axis = collapsed_y_axis = 0
    offset_dims: list[int] = []
    collapsed_slice_dims: list[int] = []
    start_index_map: list[int] = []
    # (array, first axis): broadcast into gather_indices_shape at that axis, then joined.
    gather_indices: list[tuple[Any, int]] = []
    gather_indices_shape: list[int] = []
    slice_shape: list[int] = []
    newaxis_dims: list[int] = []
    reversed_y_dims: list[int] = []
    gather_slice_shape: list[int] = []

    for pos, p in enumerate(parsed):
        if advanced and (
            (contiguous and pos == idx_advanced_axes[0]) or (not contiguous and pos == 0)
        ):
            arrays = _broadcast_arrays(advanced)
            adv_shape = get_aval(arrays[0]).shape
            start_dim = len(gather_indices_shape)
            gather_indices.extend((astype(a, index_dtype), start_dim) for a in arrays)
            gather_indices_shape.extend(adv_shape)
            start_index_map.extend(x_advanced_axes)
            collapsed_slice_dims.extend(x_advanced_axes)
            slice_shape.extend(adv_shape)
            y_axis += len(adv_shape)
            collapsed_y_axis += len(adv_shape)
        if pos in idx_advanced_axes:
            x_axis += 1
            gather_slice_shape.append(1)
            continue
        if p.kind in (_Kind.INTEGER, _Kind.ARRAY) and _ndim(p.index) == 0:
            if shape[x_axis] == 0:
                raise IndexError(f"index is out of bounds for axis {x_axis} with size 0")
            i = p.index
            if isinstance(i, (int, np.integer)):
                # Out of bounds either way (clamped or filled), and int32 holds it.
                i = np.asarray(builtins.min(builtins.max(int(i), -1), shape[x_axis]), index_dtype)
            gather_indices.append((astype(i, index_dtype), len(gather_indices_shape)))
            collapsed_slice_dims.append(x_axis)
            gather_slice_shape.append(1)
            start_index_map.append(x_axis)
            x_axis += 1
        elif p.kind is _Kind.NONE:
            slice_shape.append(1)
            newaxis_dims.append(y_axis)
            y_axis += 1
        elif p.kind is _Kind.SLICE:
            n = shape[x_axis]
            start, stop, step = p.index.indices(n)
            size = len(range(start, stop, step))
            slice_shape.append(size)
            if step == 1:
                if size != n:
                    gather_indices.append(
                        (np.asarray(start, index_dtype), len(gather_indices_shape))
                    )
                    start_index_map.append(x_axis)
                gather_slice_shape.append(size)
                offset_dims.append(collapsed_y_axis)
            else:
                positions = np.asarray(start + step * np.arange(size), index_dtype)
                if step < 0:
                    reversed_y_dims.append(collapsed_y_axis)
                    positions = positions[::-1].copy()
                gather_slice_shape.append(1)
                gather_indices.append((positions, len(gather_indices_shape)))
                start_index_map.append(x_axis)
                gather_indices_shape.append(size)
                collapsed_slice_dims.append(x_axis)
            collapsed_y_axis += 1
            y_axis += 1
            x_axis += 1
        else:
            raise IndexError(f"Got unsupported indexer at position {pos}: {p.index!r}")

    indices: Any
    if not gather_indices:
        indices = np.zeros((0,), index_dtype)
    elif len(gather_indices) == 1:
        g, _ = gather_indices[0]
        indices = lax.expand_dims(g, (get_aval(g).ndim,))
    else:
        last = len(gather_indices_shape)
        full_shape = (*gather_indices_shape, 1)
        indices = lax.concatenate(
            [
                lax.broadcast_in_dim(g, full_shape, tuple(range(i, i + get_aval(g).ndim)))
                for g, i in gather_indices
            ],
            last,
        )
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(offset_dims),
        collapsed_slice_dims=tuple(sorted(collapsed_slice_dims)),
        start_index_map=tuple(start_index_map),
    )
    return GatherIndexer(
        slice_shape=tuple(slice_shape),
        gather_slice_shape=tuple(gather_slice_shape),
        gather_indices=indices,
        dnums=dnums,
        unique_indices=not advanced,
        indices_are_sorted=not advanced,
        reversed_y_dims=tuple(reversed_y_dims),
        newaxis_dims=tuple(newaxis_dims),
        scalar_bool_dims=scalar_bool_dims,
    )


def _normalized(p: _Index, shape: tuple[int, ...]) -> _Index:
    """Negative indices counted from the end (unsigned ones are never negative)."""
    if p.kind is _Kind.INTEGER:
        (axis,) = p.axes
        i = int(p.index)
        if i < 0:
            i += shape[axis]
        return _Index(i, p.kind, p.axes)
    if p.kind is _Kind.ARRAY:
        (axis,) = p.axes
        return _Index(_wrap_negative(p.index, shape[axis]), p.kind, p.axes)
    return p


def _gather(
    arr: Any,
    parsed: list[_Index],
    *,
    indices_are_sorted: bool,
    unique_indices: bool,
    mode: str | GatherScatterMode | None,
    fill_value: Any,
    normalize: bool,
) -> Array:
    shape = get_aval(arr).shape
    indexer = _to_gather(parsed, shape, normalize)
    y = arr
    if fill_value is not None:
        if isinstance(fill_value, Tracer) and fill_value.to_concrete_value() is None:
            raise TypeError("the fill_value argument of an indexed get() must be concrete")
        if np.ndim(fill_value) != 0:
            raise ValueError("fill_value argument to indexed get() must be a scalar")
    if indexer.scalar_bool_dims:
        y = lax.expand_dims(y, indexer.scalar_bool_dims)
    if math.prod(indexer.slice_shape) == 0:
        aval = get_aval(y)
        return as_result(full_of(indexer.slice_shape, 0, aval.dtype, aval.weak_type))
    if get_aval(indexer.gather_indices).size:
        y = lax.gather(
            y,
            indexer.gather_indices,
            indexer.dnums,
            indexer.gather_slice_shape,
            unique_indices=unique_indices or indexer.unique_indices,
            indices_are_sorted=indices_are_sorted or indexer.indices_are_sorted,
            mode=mode,
            fill_value=fill_value,
        )
    if indexer.reversed_y_dims:
        y = lax.rev(y, indexer.reversed_y_dims)
    if indexer.newaxis_dims:
        y = lax.expand_dims(y, indexer.newaxis_dims)
    return as_result(y)
