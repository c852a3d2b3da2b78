"""Slicing primitives: declarations, typing rules and ``didax.lax`` wrappers.

Windows of an array and their inverses: ``slice`` (static bounds and
strides), ``dynamic_slice`` and ``dynamic_update_slice`` (start indices
that are values, clamped into bounds as XLA does), and ``pad`` (``slice``'s
transpose: edges, which may be negative, and interior padding), as JAX's
``lax.slicing`` and ``lax.pad``, and JAX's helpers over them for one
axis (``slice_in_dim``, ``index_in_dim``, ``dynamic_slice_in_dim``, ...).
Gathers and scatters, the general forms,
are ``core.lax.indexing``'s. The interpreters' rules are in
``interpreters.slicing``, the lowerings in ``lowering.slicing``.

Design rules:
- Start indices of the dynamic slices are integer scalars (Python ints
  become the default int); the window's sizes are params.
- The one-axis helpers take negative indices from the end, as JAX's
  (``allow_negative_indices``): a static one is wrapped here, a traced
  one by a ``select`` staged before the slice.
- A Python scalar or weakly typed ``update`` or padding value takes the
  operand's dtype (``core.promotion``); nothing else is converted.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import TypeAlias, TypedDict, Unpack

import numpy as np

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, dtype_failure, shape_failure
from didax.core.basearray import Value
from didax.core.lax.elementwise import add, lt, select
from didax.core.lax.operands import as_operand, bind_value, normalize_axis
from didax.core.lax.operands import ndim as ndim_of
from didax.core.lax.structural import reshape_p, squeeze
from didax.core.primitive import primitives
from didax.core.promotion import coerce_to, coerce_weak
from didax.core.trace import Tracer
from didax.core.values import ArrayLike, get_aval, is_python_scalar

__all__ = [
    "slice_p",
    "dynamic_slice_p",
    "dynamic_update_slice_p",
    "pad_p",
    "slice",
    "dynamic_slice",
    "dynamic_update_slice",
    "pad",
    "slice_in_dim",
    "index_in_dim",
    "dynamic_slice_in_dim",
    "dynamic_index_in_dim",
    "dynamic_update_slice_in_dim",
    "dynamic_update_index_in_dim",
]

slice_p, dynamic_slice_p, dynamic_update_slice_p, pad_p = primitives(
    "slice", "dynamic_slice", "dynamic_update_slice", "pad"
)


# pad's ``padding_config``: per axis, the elements added before it, after it
# and between its elements (negative edges crop).
PaddingConfig: TypeAlias = tuple[tuple[int, int, int], ...]


class SliceParams(TypedDict):
    """``slice_p``'s params, as its rules receive them (``**params: Unpack[SliceParams]``)."""

    start_indices: tuple[int, ...]
    limit_indices: tuple[int, ...]
    strides: tuple[int, ...]


def slice_params(
    params: SliceParams,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """``(start_indices, limit_indices, strides)``."""
    return params["start_indices"], params["limit_indices"], params["strides"]


# --- typing ---------------------------------------------------------------------------


@ABSTRACT_EVAL.defines(slice_p)
def _slice_abstract_eval(
    x: ShapedArray,
    **params: Unpack[SliceParams],
) -> ShapedArray:
    start_indices, limit_indices, strides = slice_params(params)
    if not len(start_indices) == len(limit_indices) == len(strides) == x.ndim:
        raise shape_failure("start_indices, limit_indices and strides need one entry per axis")
    shape = []
    for lo, hi, st, n in zip(start_indices, limit_indices, strides, x.shape, strict=True):
        if not (0 <= lo <= hi <= n) or st < 1:
            raise shape_failure(
                f"slice {start_indices}:{limit_indices}:{strides} is out of bounds for {x.shape}"
            )
        shape.append((hi - lo + st - 1) // st)
    return ShapedArray(tuple(shape), x.dtype, x.weak_type)


def _check_indices(indices: Sequence[ShapedArray], ndim: int) -> None:
    if len(indices) != ndim:
        raise shape_failure(f"needs {ndim} start indices, got {len(indices)}")
    for i in indices:
        if i.shape != () or i.dtype.kind not in "iu":
            raise dtype_failure(f"start indices must be integer scalars, got {i.str_short()}")


@ABSTRACT_EVAL.defines(dynamic_slice_p)
def _dynamic_slice_abstract_eval(
    x: ShapedArray, *indices: ShapedArray, slice_sizes: tuple[int, ...]
) -> ShapedArray:
    _check_indices(indices, x.ndim)
    if len(slice_sizes) != x.ndim or builtins.any(
        not 0 <= s <= n for s, n in zip(slice_sizes, x.shape, strict=True)
    ):
        raise shape_failure(f"slice_sizes {slice_sizes} do not fit operand shape {x.shape}")
    return ShapedArray(slice_sizes, x.dtype, x.weak_type)


@ABSTRACT_EVAL.defines(dynamic_update_slice_p)
def _dynamic_update_slice_abstract_eval(
    x: ShapedArray, update: ShapedArray, *indices: ShapedArray
) -> ShapedArray:
    _check_indices(indices, x.ndim)
    if update.dtype != x.dtype:
        raise dtype_failure(f"update dtype {update.dtype} differs from operand dtype {x.dtype}")
    if update.ndim != x.ndim or builtins.any(
        u > n for u, n in zip(update.shape, x.shape, strict=True)
    ):
        raise shape_failure(f"update shape {update.shape} does not fit operand shape {x.shape}")
    return x


@ABSTRACT_EVAL.defines(pad_p)
def _pad_abstract_eval(
    x: ShapedArray, padding_value: ShapedArray, *, padding_config: PaddingConfig
) -> ShapedArray:
    if padding_value.shape != () or padding_value.dtype != x.dtype:
        raise dtype_failure(
            "padding_value must be a scalar of the operand's dtype, "
            f"got {padding_value.str_short()}"
        )
    if len(padding_config) != x.ndim:
        raise shape_failure("padding_config needs one (lo, hi, interior) per axis")
    shape = []
    for (lo, hi, interior), n in zip(padding_config, x.shape, strict=True):
        if interior < 0:
            raise shape_failure("interior padding must be non-negative")
        size = lo + hi + n + builtins.max(0, n - 1) * interior
        if size < 0:
            raise shape_failure(f"padding_config {padding_config} gives a negative size")
        shape.append(size)
    return ShapedArray(tuple(shape), x.dtype, x.weak_type)


# --- wrappers -------------------------------------------------------------------------


def slice(  # noqa: A001 - lax's name
    operand: ArrayLike,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> Value:
    """The static slice ``operand[start:limit:stride]`` along every axis."""
    if strides is None:
        strides = (1,) * len(start_indices)
    return bind_value(
        slice_p,
        as_operand(operand),
        start_indices=tuple(int(i) for i in start_indices),
        limit_indices=tuple(int(i) for i in limit_indices),
        strides=tuple(int(i) for i in strides),
    )


def _index_operand(i: ArrayLike) -> ArrayLike:
    if isinstance(i, Tracer):
        return i
    arr = np.asarray(i)
    if arr.dtype.kind not in "iu":
        return arr  # the typing rule names the bad dtype
    return arr.astype(dtypes.default_int()) if is_python_scalar(i) else arr


def dynamic_slice(
    operand: ArrayLike, start_indices: Sequence[ArrayLike], slice_sizes: Sequence[int]
) -> Value:
    """The slice of ``slice_sizes`` at traced ``start_indices``, clamped to stay in bounds."""
    return bind_value(
        dynamic_slice_p,
        as_operand(operand),
        *(_index_operand(i) for i in start_indices),
        slice_sizes=tuple(int(s) for s in slice_sizes),
    )


def dynamic_update_slice(
    operand: ArrayLike, update: ArrayLike, start_indices: Sequence[ArrayLike]
) -> Value:
    """``operand`` with ``update`` written at traced ``start_indices`` (clamped in bounds)."""
    operand, update = coerce_weak(dynamic_update_slice_p, (operand, update))
    return bind_value(
        dynamic_update_slice_p, operand, update, *(_index_operand(i) for i in start_indices)
    )


def pad(
    operand: ArrayLike, padding_value: ArrayLike, padding_config: Sequence[tuple[int, int, int]]
) -> Value:
    """Pads with ``padding_value``: per axis ``(low, high, interior)``; negative low/high crop.

    A weakly typed padding value (a Python scalar) takes the operand's dtype.

    >>> pad(np.arange(2.0), 0.0, [(1, 1, 0)])
    Array([0., 0., 1., 0.], dtype=float32)
    """
    operand = as_operand(operand)
    aval = get_aval(operand)
    padding_value = coerce_to(pad_p, padding_value, ShapedArray((), aval.dtype))
    config = tuple((int(lo), int(hi), int(i)) for lo, hi, i in padding_config)
    return bind_value(pad_p, operand, padding_value, padding_config=config)


# --- one-axis helpers (JAX's, over the primitives above) -----------------------------


def slice_in_dim(
    operand: ArrayLike,
    start_index: int | None,
    limit_index: int | None,
    stride: int = 1,
    axis: int = 0,
) -> Value:
    """``operand[..., start_index:limit_index:stride]`` along ``axis`` (negative ends wrap).

    >>> slice_in_dim(np.arange(6).reshape(2, 3), 1, None, axis=1)
    Array([[1, 2],
           [4, 5]], dtype=int32)
    """
    shape = get_aval(operand).shape
    axis = normalize_axis(int(axis), len(shape))
    n = shape[axis]
    lo = 0 if start_index is None else int(start_index)
    hi = n if limit_index is None else int(limit_index)
    starts = [0] * len(shape)
    limits = list(shape)
    strides = [1] * len(shape)
    starts[axis] = lo + n if lo < 0 else lo
    limits[axis] = hi + n if hi < 0 else hi
    strides[axis] = int(stride)
    return slice(operand, starts, limits, strides)


def index_in_dim(operand: ArrayLike, index: int, axis: int = 0, keepdims: bool = True) -> Value:
    """``operand[..., index]`` along ``axis`` (kept as a size-1 axis if ``keepdims``)."""
    shape = get_aval(operand).shape
    axis = normalize_axis(int(axis), len(shape))
    index, n = int(index), shape[axis]
    wrapped = index + n if index < 0 else index
    if not 0 <= wrapped < n:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {n}")
    out = slice_in_dim(operand, wrapped, wrapped + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def _from_end(index: ArrayLike, size: int, allow_negative: bool) -> ArrayLike:
    """``index``, counted from the end when negative (JAX's ``allow_negative_indices``)."""
    if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
        i = int(index)
        return i + size if allow_negative and i < 0 else i
    index = _index_operand(index)
    if not allow_negative or get_aval(index).dtype.kind != "i":
        return index
    return select(lt(index, 0), add(index, size), index)


def _axis_starts(
    operand: ArrayLike, start_index: ArrayLike, axis: int, allow_negative: bool
) -> tuple[int, list[ArrayLike]]:
    """The axis (non-negative) and the start indices: ``start_index`` there, zeros elsewhere."""
    shape = get_aval(operand).shape
    axis = normalize_axis(int(axis), len(shape))
    start = _from_end(start_index, shape[axis], allow_negative)
    aval = get_aval(start)
    zero: ArrayLike = 0 if is_python_scalar(start) else np.zeros((), aval.dtype)
    starts = [zero] * len(shape)
    starts[axis] = start
    return axis, starts


def dynamic_slice_in_dim(
    operand: ArrayLike,
    start_index: ArrayLike,
    slice_size: int,
    axis: int = 0,
    *,
    allow_negative_indices: bool = True,
) -> Value:
    """``operand[..., start_index:start_index + slice_size]`` along ``axis``, clamped in bounds.

    >>> dynamic_slice_in_dim(np.arange(5), -2, 2)
    Array([3, 4], dtype=int32)
    """
    axis, starts = _axis_starts(operand, start_index, axis, allow_negative_indices)
    sizes = list(get_aval(operand).shape)
    sizes[axis] = int(slice_size)
    return dynamic_slice(operand, starts, sizes)


def dynamic_index_in_dim(
    operand: ArrayLike,
    index: ArrayLike,
    axis: int = 0,
    keepdims: bool = True,
    *,
    allow_negative_indices: bool = True,
) -> Value:
    """``operand[..., index]`` along ``axis`` at a traced ``index`` (clamped in bounds)."""
    out = dynamic_slice_in_dim(
        operand, index, 1, axis, allow_negative_indices=allow_negative_indices
    )
    return out if keepdims else squeeze(out, (normalize_axis(int(axis), ndim_of(operand)),))


def dynamic_update_slice_in_dim(
    operand: ArrayLike,
    update: ArrayLike,
    start_index: ArrayLike,
    axis: int,
    *,
    allow_negative_indices: bool = True,
) -> Value:
    """``operand`` with ``update`` written from ``start_index`` along ``axis`` (clamped)."""
    _, starts = _axis_starts(operand, start_index, axis, allow_negative_indices)
    return dynamic_update_slice(operand, update, starts)


def dynamic_update_index_in_dim(
    operand: ArrayLike,
    update: ArrayLike,
    index: ArrayLike,
    axis: int,
    *,
    allow_negative_indices: bool = True,
) -> Value:
    """``operand`` with ``update`` written at ``index`` along ``axis``.

    ``update`` may lack that axis (it is then added, of size 1), as JAX's.
    """
    axis = normalize_axis(int(axis), ndim_of(operand))
    if ndim_of(update) != ndim_of(operand):
        shape = list(get_aval(update).shape)
        shape.insert(axis, 1)
        update = bind_value(reshape_p, as_operand(update), new_sizes=tuple(shape))
    return dynamic_update_slice_in_dim(
        operand, update, index, axis, allow_negative_indices=allow_negative_indices
    )
