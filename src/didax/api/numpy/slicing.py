"""The two slicing routes of ``x[idx]``: a static slice, then a dynamic slice.

Design rules:
- Route 1, a *static slice*: integers, slices (any step), ``None`` and
  ``...``, every integer in bounds, become one ``slice`` (plus ``rev``,
  ``squeeze`` and ``expand_dims`` as needed).
- Route 2, a *dynamic slice*: the same with scalar integer arrays or
  tracers, or with a static integer out of bounds (which clamps, as
  JAX's), and slices of step 1 or -1, become one ``dynamic_slice``; a
  negative index counts from the end.
- A route that cannot take an index answers None, and the next is tried
  (``indexing.rewriting_take``): the cheapest route wins, in JAX's order.
"""

from __future__ import annotations

import builtins
from typing import Any

import attrs
import numpy as np

from didax.api.numpy.array_types import Array
from didax.api.numpy.index_parsing import (
    _expand_ellipsis,
    _full_slice,
    _Index,
    _Kind,
    _ndim,
    _wrap_negative,
    index_dtype_for_shape,
)
from didax.api.numpy.operands import as_result, astype
from didax.core import dtypes, lax
from didax.core.lax.indexing import (
    GatherScatterMode,
)


@attrs.define
class _Reorient:
    """What a slice's window needs to be as the index asks, gathered axis by axis: the axes
    to reverse (negative steps), to drop (integer indices) and to add (``None``)."""

    rev_axes: list[int] = attrs.Factory(list)
    squeeze_axes: list[int] = attrs.Factory(list)
    newaxis_dims: list[int] = attrs.Factory(list)

    def add_newaxis(self, sliced: int) -> None:
        """A ``None`` after ``sliced`` operand axes: its position in the result."""
        self.newaxis_dims.append(sliced - len(self.squeeze_axes) + len(self.newaxis_dims))

    def __call__(self, v: Any) -> Array:
        rev, squeeze, new = self.rev_axes, self.squeeze_axes, self.newaxis_dims
        if rev:
            v = lax.rev(v, rev)
        if squeeze:
            v = lax.squeeze(v, squeeze)
        if new:
            v = lax.expand_dims(v, new)
        return as_result(v)


# --- route 1: a static slice ---------------------------------------------------------------


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
    reorient = _Reorient()
    for p in _expand_ellipsis(parsed, shape):
        if p.kind is _Kind.NONE:
            reorient.add_newaxis(len(starts))
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
            reorient.squeeze_axes.append(axis)
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
                reorient.rev_axes.append(axis)
            else:
                starts.append(start)
                limits.append(builtins.max(start, stop))
                strides.append(step)
    trivial = strides == [1] * len(shape) and builtins.all(
        (lo, hi) == (0, n) for lo, hi, n in zip(starts, limits, shape, strict=True)
    )
    if not trivial:
        v = lax.slice(v, starts, limits, strides)
    return reorient(v)


# --- route 2: a dynamic slice --------------------------------------------------------------


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
    reorient = _Reorient()
    trivial = True
    for p in _expand_ellipsis(parsed, shape):
        if p.kind is _Kind.NONE:
            reorient.add_newaxis(len(starts))
        elif p.kind in (_Kind.INTEGER, _Kind.ARRAY):
            trivial = False
            (axis,) = p.axes
            if shape[axis] == 0:
                return None  # the gather route says why it fails
            starts.append(p.index)
            sizes.append(1)
            reorient.squeeze_axes.append(axis)
        else:
            if not _full_slice(p.index):
                trivial = False
            (axis,) = p.axes
            start, stop, step = p.index.indices(shape[axis])
            if step < 0:
                first = stop + 1 + builtins.abs(start - stop - 1) % -step
                starts.append(first)
                sizes.append(builtins.max(0, start + 1 - first))
                reorient.rev_axes.append(axis)
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
    return reorient(v)
