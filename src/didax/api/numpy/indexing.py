"""Indexing: ``x[idx]``, ``x.at[idx]`` updates, ``take`` and ``take_along_axis``, as jax.numpy's.

``x[idx]`` takes the cheapest of three routes, in JAX's order:

1. a *static slice*: integers, slices (any step), ``None`` and ``...``,
   every integer in bounds, become one ``slice`` (plus ``rev``,
   ``squeeze`` and ``expand_dims`` as needed);
2. a *dynamic slice*: the same with scalar integer arrays or tracers, or
   with a static integer out of bounds (which clamps, as JAX's), and slices
   of step 1 or -1, become one ``dynamic_slice``; a negative index counts
   from the end;
3. a *gather*: integer arrays (NumPy's advanced indexing: broadcast
   together, their axes first when they are not adjacent), boolean masks
   (of concrete values: they become ``nonzero`` indices), and whatever
   the slices cannot do. Out-of-bounds indices clamp (``mode`` says
   otherwise for ``x.at[idx].get``).

``x.at[idx].set(y)`` and its siblings build the same gather description
and transpose it into a scatter (JAX's ``_scatter_update``): ``y`` is
broadcast to the indexed shape, repeated indices accumulate for ``add``,
and out-of-bounds updates are dropped.

Design rules:
- What is refused is refused as in JAX: a Python list as the whole index
  (``TypeError``), a float or string index (``TypeError``), a boolean
  mask that is not concrete (``NonConcreteBooleanIndexError``, an
  ``IndexError``), slice bounds that are not static (``IndexError``).
- Index arithmetic is in int32 when every axis fits (JAX's
  ``int_dtype_for_shape``), so jaxprs have JAX's index types.
"""

from __future__ import annotations

import builtins
import enum
import itertools
import math
import operator
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Final, final

import attrs
import numpy as np

from didax.api.numpy.elementwise import divide, power
from didax.api.numpy.manipulation import broadcast_to, ravel
from didax.api.numpy.operands import (
    Array,
    ArrayLike,
    as_result,
    asarray,
    astype,
    broadcast_shapes,
    full_of,
    operand,
)
from didax.core import dtypes, lax
from didax.core.dtypes import DType
from didax.core.lax.indexing import (
    GatherDimensionNumbers,
    GatherScatterMode,
    scatter_dnums_of_gather,
)
from didax.core.promotion import result_type
from didax.core.trace import Tracer
from didax.core.values import ValueKind, get_aval, kind_or_none

__all__ = ["take", "take_along_axis"]

_INT32_MAX: Final = int(np.iinfo(np.int32).max)


class NonConcreteBooleanIndexError(IndexError):
    """A boolean mask whose value is not known while tracing (under jit or vmap).

    A mask's ``True`` count is the result's shape, which must be static; use
    ``where(mask, x, y)`` or ``x.at[...]`` with integer indices instead
    (JAX's ``NonConcreteBooleanIndexError``).
    """


class _Kind(enum.Enum):
    NONE = "none"
    SLICE = "slice"
    ELLIPSIS = "ellipsis"
    INTEGER = "integer"  # a static Python or NumPy integer
    BOOLEAN = "boolean"
    ARRAY = "array"  # an integer array (or tracer), of any rank


@final
@attrs.frozen(eq=False)
class _Index:
    """One entry of an index, and the axes of the indexed array it consumes."""

    index: Any
    kind: _Kind
    axes: tuple[int, ...]


def index_dtype_for_shape(shape: Sequence[int]) -> DType:
    """int32 when every axis fits in it, the default int otherwise (JAX's rule)."""
    return dtypes.int32 if builtins.all(d <= _INT32_MAX for d in shape) else dtypes.default_int()


# --- parsing --------------------------------------------------------------------------


def _array_kind(dtype: DType) -> _Kind:
    if dtype == dtypes.bool_:
        return _Kind.BOOLEAN
    if dtypes.is_integer(dtype):
        return _Kind.ARRAY
    raise TypeError(f"Indexer must have integer or boolean type, got indexer with type {dtype}")


def _static_bound(x: Any) -> int | None:
    """A slice bound as a Python int (a concrete array or tracer will do)."""
    if x is None:
        return None
    if isinstance(x, Tracer) and x.to_concrete_value() is None:
        raise IndexError(f"Slice entries must be static integers. Got {x}")
    return operator.index(x)


def _entry(i: Any) -> tuple[Any, _Kind]:
    """An index entry in canonical form (arrays as operands), and its kind."""
    if i is None:
        return None, _Kind.NONE
    if i is Ellipsis:
        return i, _Kind.ELLIPSIS
    if isinstance(i, slice):
        return slice(_static_bound(i.start), _static_bound(i.stop), _static_bound(i.step)), (
            _Kind.SLICE
        )
    if isinstance(i, (bool, np.bool_)):
        return bool(i), _Kind.BOOLEAN
    if isinstance(i, (int, np.integer)):
        return i, _Kind.INTEGER
    if isinstance(i, str):
        raise TypeError(f"didax does not support string indexing; got idx={i!r}")
    kind = kind_or_none(i)
    if kind is not None and kind is not ValueKind.SCALAR:
        value = operand(i)
        return value, _array_kind(get_aval(value).dtype)
    if isinstance(i, Sequence):
        if not i:
            return np.zeros((0,), dtypes.default_int()), _Kind.ARRAY
        value = operand(asarray(list(i)))
        return value, _array_kind(get_aval(value).dtype)
    if isinstance(i, (float, complex)):
        raise TypeError(
            f"Indexer must have integer or boolean type, got indexer with type {np.dtype(type(i))}"
        )
    raise IndexError(
        "only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and integer or "
        f"boolean arrays are valid indices. Got {i}"
    )


def _ndim(x: Any) -> int:
    return 0 if isinstance(x, (bool, int, np.integer)) else get_aval(x).ndim


def _parse(index: Any, shape: tuple[int, ...]) -> list[_Index]:
    """The entries of ``index`` with the axes each consumes (JAX's ``NDIndexer``)."""
    if not isinstance(index, tuple):
        if isinstance(index, Sequence) and not isinstance(index, str):
            raise TypeError(
                "Using a non-tuple sequence for multidimensional indexing is not allowed; "
                "use `arr[tuple(seq)]` (several indices) or `arr[array(seq)]` (an index "
                "array) instead of `arr[seq]`, as in JAX"
            )
        index = (index,)
    entries = [_entry(i) for i in index]
    consumed: list[int] = []
    for value, kind in entries:
        if kind is _Kind.BOOLEAN:
            consumed.append(_ndim(value))
        elif kind in (_Kind.NONE, _Kind.ELLIPSIS):
            consumed.append(0)
        else:
            consumed.append(1)
    ellipses = [n for n, (_, kind) in enumerate(entries) if kind is _Kind.ELLIPSIS]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    total = builtins.sum(consumed)
    if total > len(shape):
        raise IndexError(
            f"Too many indices: array is {len(shape)}-dimensional, but {total} were indexed"
        )
    if ellipses:
        consumed[ellipses[0]] = len(shape) - total
    parsed = []
    axis = 0
    for (value, kind), n in zip(entries, consumed, strict=True):
        parsed.append(_Index(value, kind, tuple(range(axis, axis + n))))
        axis += n
    return parsed


def _expand_ellipsis(parsed: list[_Index], shape: tuple[int, ...]) -> list[_Index]:
    """The ellipsis and the implicit trailing axes as explicit full slices."""
    out: list[_Index] = []
    consumed = 0
    for p in parsed:
        consumed += len(p.axes)
        if p.kind is _Kind.ELLIPSIS:
            out.extend(_Index(slice(None), _Kind.SLICE, (a,)) for a in p.axes)
        else:
            out.append(p)
    out.extend(_Index(slice(None), _Kind.SLICE, (a,)) for a in range(consumed, len(shape)))
    return out


def _is_concrete(x: Any) -> bool:
    return not isinstance(x, Tracer) or x.to_concrete_value() is not None


def _expand_bool(parsed: list[_Index], shape: tuple[int, ...]) -> list[_Index]:
    """Boolean masks as the integer arrays of their ``nonzero`` (scalar booleans stay)."""
    out: list[_Index] = []
    for n, p in enumerate(parsed):
        if p.kind is not _Kind.BOOLEAN:
            out.append(p)
            continue
        if not _is_concrete(p.index):
            raise NonConcreteBooleanIndexError(
                f"Array boolean indices must be concrete; got {get_aval(p.index).str_short()}. "
                "A mask's True count is the result's shape, which must be known while "
                "tracing: use where(mask, x, y), or x.at[...] with integer indices"
            )
        mask = np.asarray(p.index)
        if mask.ndim == 0:  # a scalar boolean stays (a new axis of size 1 or 0)
            out.append(_Index(bool(mask), p.kind, p.axes))
            continue
        expected = [shape[a] for a in p.axes]
        if not builtins.all(s in (0, e) for s, e in zip(mask.shape, expected, strict=True)):
            raise IndexError(
                f"boolean index did not match shape of indexed array in index {n}: "
                f"got {list(mask.shape)}, expected {expected}"
            )
        out.extend(
            _Index(i, _Kind.ARRAY, (a,)) for i, a in zip(np.nonzero(mask), p.axes, strict=True)
        )
    return out


def _full_slice(s: slice) -> bool:
    return s.start is None and s.stop is None and s.step is None


def _mode(mode: str | GatherScatterMode | None) -> GatherScatterMode:
    """``None`` is ``PROMISE_IN_BOUNDS`` for indexing (gathers clamp)."""
    return GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)


# --- route 1: a static slice -----------------------------------------------------------


def _static_slice(
    v: Any, parsed: list[_Index], shape: tuple[int, ...], mode: GatherScatterMode, normalize: bool
) -> Array | None:
    """``v[idx]`` as a ``slice`` (JAX's ``to_static_slice``), or None when it cannot be one."""
    if mode is GatherScatterMode.FILL_OR_DROP:
        return None
    if builtins.any(
        p.kind not in (_Kind.INTEGER, _Kind.SLICE, _Kind.NONE, _Kind.ELLIPSIS) for p in parsed
    ):
        return None
    starts: list[int] = []
    limits: list[int] = []
    strides: list[int] = []
    rev_axes: list[int] = []
    squeeze_axes: list[int] = []
    newaxis_dims: list[int] = []
    for p in _expand_ellipsis(parsed, shape):
        if p.kind is _Kind.NONE:
            newaxis_dims.append(len(starts) - len(squeeze_axes) + len(newaxis_dims))
        elif p.kind is _Kind.INTEGER:
            (axis,) = p.axes
            n = shape[axis]
            i = int(p.index)
            if normalize and i < 0:
                i += n
            if n == 0 or (mode is GatherScatterMode.PROMISE_IN_BOUNDS and not 0 <= i < n):
                return None  # a dynamic slice clamps it (an empty axis fails there)
            i = builtins.min(builtins.max(i, 0), n - 1)
            starts.append(i)
            limits.append(i + 1)
            strides.append(1)
            squeeze_axes.append(axis)
        else:
            (axis,) = p.axes
            n = shape[axis]
            start, stop, step = p.index.indices(n)
            if step < 0:
                # The same elements in increasing order, reversed afterwards.
                first = builtins.min(n, stop + 1 + builtins.abs(start - stop - 1) % -step)
                starts.append(first)
                limits.append(builtins.max(first, start + 1))
                strides.append(-step)
                rev_axes.append(axis)
            else:
                starts.append(start)
                limits.append(builtins.max(start, stop))
                strides.append(step)
    trivial = strides == [1] * len(shape) and builtins.all(
        (lo, hi) == (0, n) for lo, hi, n in zip(starts, limits, shape, strict=True)
    )
    if not trivial:
        v = lax.slice(v, starts, limits, strides)
    if rev_axes:
        v = lax.rev(v, rev_axes)
    if squeeze_axes:
        v = lax.squeeze(v, squeeze_axes)
    if newaxis_dims:
        v = lax.expand_dims(v, newaxis_dims)
    return as_result(v)


# --- route 2: a dynamic slice ----------------------------------------------------------


def _full_like(x: Any, value: int) -> Any:
    """``value`` in ``x``'s dtype and shape (wrapping around as a conversion does)."""
    aval = get_aval(x)
    scalar = np.asarray(value, np.int64).astype(aval.dtype)
    return scalar if aval.shape == () else lax.broadcast_in_dim(scalar, aval.shape, ())


def _wrap_negative(i: Any, n: int) -> Any:
    """``i + n`` where ``i < 0`` (for a signed ``i``)."""
    if not dtypes.is_signed(get_aval(i).dtype):
        return i
    return lax.select(lax.lt(i, _full_like(i, 0)), lax.add(i, _full_like(i, n)), i)


def _static_start(i: int | np.integer[Any], n: int, normalize: bool) -> int:
    """A static index, negative ones counted from the end; clamped, as XLA would."""
    i = int(i)
    if normalize and i < 0:
        i += n
    return builtins.min(builtins.max(i, 0), builtins.max(n - 1, 0))


def _dynamic_slice(
    v: Any, parsed: list[_Index], shape: tuple[int, ...], mode: GatherScatterMode, normalize: bool
) -> Array | None:
    """``v[idx]`` as a ``dynamic_slice`` (JAX's ``to_dynamic_slice``), or None."""
    if mode is GatherScatterMode.FILL_OR_DROP:
        return None
    for p in parsed:
        if p.kind is _Kind.SLICE and p.index.step not in (None, 1, -1):
            return None
        if p.kind is _Kind.BOOLEAN or (p.kind is _Kind.ARRAY and _ndim(p.index) != 0):
            return None
    starts: list[Any] = []
    sizes: list[int] = []
    rev_axes: list[int] = []
    squeeze_axes: list[int] = []
    newaxis_dims: list[int] = []
    trivial = True
    for p in _expand_ellipsis(parsed, shape):
        if p.kind is _Kind.NONE:
            newaxis_dims.append(len(starts) - len(squeeze_axes) + len(newaxis_dims))
        elif p.kind in (_Kind.INTEGER, _Kind.ARRAY):
            trivial = False
            (axis,) = p.axes
            if shape[axis] == 0:
                return None  # the gather route says why it fails
            starts.append(p.index)
            sizes.append(1)
            squeeze_axes.append(axis)
        else:
            if not _full_slice(p.index):
                trivial = False
            (axis,) = p.axes
            start, stop, step = p.index.indices(shape[axis])
            if step < 0:
                first = stop + 1 + builtins.abs(start - stop - 1) % -step
                starts.append(first)
                sizes.append(builtins.max(0, start + 1 - first))
                rev_axes.append(axis)
            else:
                starts.append(start)
                sizes.append(builtins.max(0, stop - start))
    if not trivial:
        # As JAX: several start indices share one type (converted before they
        # are normalised).
        dtype = index_dtype_for_shape(shape) if len(starts) > 1 else dtypes.default_int()
        normalized = []
        for i, n in zip(starts, shape, strict=True):
            if isinstance(i, (int, np.integer)):
                normalized.append(np.asarray(_static_start(i, n, normalize), dtype))
            else:
                i = astype(i, dtype) if len(starts) > 1 else i
                normalized.append(_wrap_negative(i, n) if normalize else i)
        v = lax.dynamic_slice(v, normalized, sizes)
    if rev_axes:
        v = lax.rev(v, rev_axes)
    if squeeze_axes:
        v = lax.squeeze(v, squeeze_axes)
    if newaxis_dims:
        v = lax.expand_dims(v, newaxis_dims)
    return as_result(v)


# --- route 3: a gather -----------------------------------------------------------------


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


def getitem(x: ArrayLike, index: Any) -> Array:
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

ScatterFn = Callable[..., Any]


def _safe_to_cast(y: Any, dtype: DType) -> bool:
    aval = get_aval(y)
    if aval.dtype == dtype:
        return True
    return dtypes.result_type([(aval.dtype, aval.weak_type), (dtype, False)])[0] == dtype


def scatter_update(
    x: ArrayLike,
    index: Any,
    y: ArrayLike,
    scatter_op: ScatterFn,
    *,
    indices_are_sorted: bool,
    unique_indices: bool,
    mode: str | GatherScatterMode | None,
    normalize_indices: bool,
) -> Array:
    """``x`` with ``x[index] op= y`` applied, functionally (JAX's ``_scatter_update``)."""
    arr: Any = asarray(x)
    aval = get_aval(arr)
    values: Any
    if (
        type(y) is int
        and dtypes.is_integer(aval.dtype)
        and np.iinfo(aval.dtype.name).min <= y <= np.iinfo(aval.dtype.name).max
    ):
        values = asarray(y, aval.dtype)
    else:
        values = asarray(y)  # a list too, as JAX's
    parsed = _expand_bool(_parse(index, aval.shape), aval.shape)
    indexer = _to_gather(parsed, aval.shape, normalize_indices)
    if math.prod(indexer.slice_shape) == 0:
        return arr
    if not _safe_to_cast(values, aval.dtype):
        warnings.warn(
            "scatter inputs have incompatible types: cannot safely cast value from "
            f"dtype={get_aval(values).dtype} to dtype={aval.dtype}. In future JAX releases "
            "this will result in an error.",
            FutureWarning,
            stacklevel=3,
        )
    dtype, weak = result_type(arr, values)
    xs, ys = astype(arr, dtype, weak), astype(values, dtype, weak)
    ys = broadcast_to(ys, indexer.slice_shape)
    if indexer.newaxis_dims:
        ys = lax.squeeze(ys, indexer.newaxis_dims)
    if indexer.reversed_y_dims:
        ys = lax.rev(ys, indexer.reversed_y_dims)
    if indexer.scalar_bool_dims:
        xs = lax.expand_dims(xs, indexer.scalar_bool_dims)
    out = scatter_op(
        xs,
        indexer.gather_indices,
        ys,
        scatter_dnums_of_gather(indexer.dnums),
        indices_are_sorted=indexer.indices_are_sorted or indices_are_sorted,
        unique_indices=indexer.unique_indices or unique_indices,
        mode=mode,
    )
    if indexer.scalar_bool_dims:
        out = lax.squeeze(out, indexer.scalar_bool_dims)
    out_aval = get_aval(out)
    if out_aval.dtype != aval.dtype or out_aval.weak_type != aval.weak_type:
        out = lax.convert_element_type(out, aval.dtype, aval.weak_type)
    return as_result(out)


def _scatter_sub(operand: Any, indices: Any, updates: Any, dnums: Any, **kw: Any) -> Any:
    return lax.scatter_add(operand, indices, lax.neg(updates), dnums, **kw)


@final
class IndexUpdateHelper:
    """``x.at``: functionally pure indexed updates (JAX's ``x.at``).

    ============================  ==================================
    ``x.at[idx].set(y)``          ``x[idx] = y``
    ``x.at[idx].add(y)``          ``x[idx] += y`` (repeated indices accumulate)
    ``x.at[idx].subtract(y)``     ``x[idx] -= y``
    ``x.at[idx].multiply(y)``     ``x[idx] *= y`` (also ``mul``)
    ``x.at[idx].divide(y)``       ``x[idx] /= y``
    ``x.at[idx].power(y)``        ``x[idx] **= y``
    ``x.at[idx].min(y)``          ``x[idx] = minimum(x[idx], y)``
    ``x.at[idx].max(y)``          ``x[idx] = maximum(x[idx], y)``
    ``x.at[idx].get()``           ``x[idx]``
    ============================  ==================================

    None modifies ``x``: each returns a new array. Out-of-bounds updates are
    dropped, and ``get`` clamps, unless ``mode`` says otherwise (``"clip"``,
    ``"fill"``/``"drop"``, ``"promise_in_bounds"``).

    >>> import didax.numpy as dnp
    >>> x = dnp.zeros(4)
    >>> x.at[dnp.array([0, 0, 2, 9])].add(1.0)
    Array([2., 0., 1., 0.], dtype=float32)
    """

    __slots__ = ("array",)

    def __init__(self, array: Any) -> None:
        self.array = array

    def __getitem__(self, index: Any) -> IndexUpdateRef:
        return IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


@final
class IndexUpdateRef:
    """``x.at[idx]``: the array and the index that its methods update."""

    __slots__ = ("array", "index")

    def __init__(self, array: Any, index: Any) -> None:
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(
        self,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
        fill_value: Any = None,
        wrap_negative_indices: bool = True,
    ) -> Array:
        """``x[idx]``, with the gather's options (``mode="fill"`` and ``fill_value``)."""
        return rewriting_take(
            self.array,
            self.index,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=mode,
            fill_value=fill_value,
            normalize_indices=wrap_negative_indices,
        )

    def _update(
        self,
        values: ArrayLike,
        op: ScatterFn,
        indices_are_sorted: bool,
        unique_indices: bool,
        mode: str | GatherScatterMode | None,
        wrap_negative_indices: bool,
        target: ArrayLike | None = None,
    ) -> Array:
        return scatter_update(
            self.array if target is None else target,
            self.index,
            values,
            op,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=mode,
            normalize_indices=wrap_negative_indices,
        )

    def _factors(
        self,
        values: ArrayLike,
        indices_are_sorted: bool,
        unique_indices: bool,
        mode: str | GatherScatterMode | None,
        wrap_negative_indices: bool,
    ) -> Array:
        """Ones, times ``values`` at the index (repeats multiply): ``divide``'s and ``power``'s."""
        ones = lax.full_like(as_result(operand(self.array)), 1)
        return self._update(
            values,
            lax.scatter_mul,
            indices_are_sorted,
            unique_indices,
            mode,
            wrap_negative_indices,
            target=ones,
        )

    def set(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
        wrap_negative_indices: bool = True,
    ) -> Array:
        """``x[idx] = values``; of repeated indices the last update stays (XLA on CPUs)."""
        return self._update(
            values, lax.scatter, indices_are_sorted, unique_indices, mode, wrap_negative_indices
        )

    def add(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
        wrap_negative_indices: bool = True,
    ) -> Array:
        """``x[idx] += values``; repeated indices accumulate."""
        return self._update(
            values, lax.scatter_add, indices_are_sorted, unique_indices, mode, wrap_negative_indices
        )

    def subtract(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
        wrap_negative_indices: bool = True,
    ) -> Array:
        """``x[idx] -= values``; repeated indices accumulate."""
        return self._update(
            values, _scatter_sub, indices_are_sorted, unique_indices, mode, wrap_negative_indices
        )

    def multiply(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
        wrap_negative_indices: bool = True,
    ) -> Array:
        """``x[idx] *= values``; repeated indices multiply."""
        return self._update(
            values, lax.scatter_mul, indices_are_sorted, unique_indices, mode, wrap_negative_indices
        )

    mul = multiply

    def divide(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
        wrap_negative_indices: bool = True,
    ) -> Array:
        """``x[idx] /= values`` (a true division, as JAX's)."""
        divisors = self._factors(
            values, indices_are_sorted, unique_indices, mode, wrap_negative_indices
        )
        return divide(self.array, divisors)

    def power(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
        wrap_negative_indices: bool = True,
    ) -> Array:
        """``x[idx] **= values``."""
        exponents = self._factors(
            values, indices_are_sorted, unique_indices, mode, wrap_negative_indices
        )
        return power(self.array, exponents)

    def min(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
        wrap_negative_indices: bool = True,
    ) -> Array:
        """``x[idx] = minimum(x[idx], values)``."""
        return self._update(
            values, lax.scatter_min, indices_are_sorted, unique_indices, mode, wrap_negative_indices
        )

    def max(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
        wrap_negative_indices: bool = True,
    ) -> Array:
        """``x[idx] = maximum(x[idx], values)``."""
        return self._update(
            values, lax.scatter_max, indices_are_sorted, unique_indices, mode, wrap_negative_indices
        )


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
