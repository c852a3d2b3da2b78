"""Rearranging elements: flips, rotations, rolls, differences, gradients and padding.

Compositions of ``rev``, ``slice``, ``concatenate``, ``transpose`` and
``pad``, with static shifts and widths (as ``jax.numpy``'s, except ``roll``,
whose shift JAX also allows to be traced: didax requires it static).
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import divide, multiply, not_equal, subtract
from didax.api.numpy.joining import append
from didax.api.numpy.manipulation import concatenate, moveaxis, ravel, swapaxes
from didax.api.numpy.operands import (
    as_result,
    as_sequence,
    asarray,
    astype,
    normalize_axes,
    operand,
)
from didax.core import dtypes, lax
from didax.core.values import get_aval

__all__ = [
    "flip",
    "fliplr",
    "flipud",
    "rot90",
    "roll",
    "rollaxis",
    "diff",
    "ediff1d",
    "pad",
    "gradient",
]


def flip(m: ArrayLike, axis: int | Sequence[int] | None = None) -> Array:
    """``m`` with the order of elements reversed along ``axis`` (all axes by default)."""
    v = as_result(operand(m))
    axes = normalize_axes(axis, get_aval(v).ndim, "flip")
    return lax.rev(v, axes) if axes else v


def fliplr(m: ArrayLike) -> Array:
    """``m`` with its columns (second axis) reversed."""
    if get_aval(operand(m)).ndim < 2:
        raise ValueError("fliplr: input must be at least 2-d")
    return flip(m, 1)


def flipud(m: ArrayLike) -> Array:
    """``m`` with its rows (first axis) reversed."""
    if get_aval(operand(m)).ndim < 1:
        raise ValueError("flipud: input must be at least 1-d")
    return flip(m, 0)


def rot90(m: ArrayLike, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Array:
    """``m`` rotated by 90 degrees ``k`` times in the plane of ``axes`` (counter-clockwise).

    >>> rot90(np.array([[1, 2], [3, 4]]))
    Array([[2, 4],
           [1, 3]], dtype=int32)
    """
    v = as_result(operand(m))
    nd = get_aval(v).ndim
    if len(tuple(axes)) != 2 or nd < 2:
        raise ValueError("rot90: axes must be two different axes of an array of rank >= 2")
    a0, a1 = (normalize_axes(a, nd, "rot90")[0] for a in axes)
    if a0 == a1:
        raise ValueError("rot90: axes must be different")
    k = operator.index(k) % 4
    if k == 0:
        return v
    if k == 2:
        return flip(flip(v, a0), a1)
    if k == 1:
        return swapaxes(flip(v, a1), a0, a1)
    return flip(swapaxes(v, a0, a1), a1)


def roll(
    a: ArrayLike, shift: int | Sequence[int], axis: int | Sequence[int] | None = None
) -> Array:
    """``a`` with elements shifted by ``shift`` along ``axis``, wrapping around.

    >>> roll(np.arange(5), 2)
    Array([3, 4, 0, 1, 2], dtype=int32)
    """
    v = as_result(operand(a))
    aval = get_aval(v)
    if axis is None:
        flat = roll(ravel(v), shift, 0)
        return lax.reshape(flat, aval.shape) if aval.ndim != 1 else flat
    shifts = [operator.index(s) for s in as_sequence(shift)]
    axes = [operator.index(x) for x in as_sequence(axis)]
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError("roll: shift and axis must have the same length")
    for s, ax in zip(shifts, axes, strict=True):
        (ax,) = normalize_axes(ax, aval.ndim, "roll")
        n = aval.shape[ax]
        if n == 0 or s % n == 0:
            continue
        cut = n - s % n
        start, limit = [0] * aval.ndim, list(aval.shape)
        limit[ax] = cut
        head = lax.slice(v, start, limit)
        start2 = [0] * aval.ndim
        start2[ax] = cut
        tail = lax.slice(v, start2, list(aval.shape))
        v = lax.concatenate([tail, head], ax)
    return v


def rollaxis(a: ArrayLike, axis: int, start: int = 0) -> Array:
    """NumPy's older form of ``moveaxis``: ``axis`` moved to just before ``start``."""
    nd = get_aval(operand(a)).ndim
    (ax,) = normalize_axes(axis, nd, "rollaxis")
    start = operator.index(start)
    if not -nd <= start <= nd:
        raise np.exceptions.AxisError(start, nd + 1)
    start = start + nd if start < 0 else start
    if ax < start:
        start -= 1
    return moveaxis(a, ax, start)


def diff(
    a: ArrayLike,
    n: int = 1,
    axis: int = -1,
    prepend: ArrayLike | None = None,
    append: ArrayLike | None = None,
) -> Array:
    """The ``n``-th discrete difference along ``axis`` (booleans differ by ``!=``).

    >>> diff(np.array([1, 4, 9, 16]))
    Array([3, 5, 7], dtype=int32)
    """
    v = as_result(operand(a))
    aval = get_aval(v)
    if aval.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    (ax,) = normalize_axes(axis, aval.ndim, "diff")
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"diff: order must be non-negative but got {n}")
    parts = []
    for extra in (prepend, v, append):
        if extra is None:
            continue
        e = as_result(operand(extra))
        if get_aval(e).ndim == 0:
            shape = list(aval.shape)
            shape[ax] = 1
            e = lax.broadcast_in_dim(e, tuple(shape), ())
        parts.append(e)
    if len(parts) > 1:
        v = concatenate(parts, axis=ax)
    for _ in range(n):
        size = get_aval(v).shape[ax]
        start, limit = [0] * aval.ndim, list(get_aval(v).shape)
        start[ax] = 1
        upper = lax.slice(v, start, limit)
        limit[ax] = builtins.max(size - 1, 0)
        lower = lax.slice(v, [0] * aval.ndim, limit)
        v = not_equal(upper, lower) if get_aval(v).dtype == dtypes.bool_ else subtract(upper, lower)
    return v


def ediff1d(
    ary: ArrayLike, to_end: ArrayLike | None = None, to_begin: ArrayLike | None = None
) -> Array:
    """Differences of consecutive elements of the flattened ``ary``, with optional ends."""
    v = ravel(ary)
    out = diff(v)
    if to_begin is not None:
        out = concatenate([astype(ravel(to_begin), get_aval(out).dtype), out])
    if to_end is not None:
        out = append(out, astype(ravel(to_end), get_aval(out).dtype))
    return out


def _pad_widths(pad_width: Any, nd: int) -> list[tuple[int, int]]:
    widths = np.asarray(pad_width, dtype=object)
    if widths.ndim == 0:
        widths = np.broadcast_to(widths, (nd, 2))
    elif widths.ndim == 1:
        widths = np.broadcast_to(widths.reshape(1, -1) if widths.size == 2 else widths, (nd, 2))
    else:
        widths = np.broadcast_to(widths, (nd, 2))
    out = [(operator.index(lo), operator.index(hi)) for lo, hi in widths.tolist()]
    if builtins.any(lo < 0 or hi < 0 for lo, hi in out):
        raise ValueError("pad: index can't contain negative values")
    return out


def pad(
    array: ArrayLike,
    pad_width: Any,
    mode: str = "constant",
    *,
    constant_values: ArrayLike = 0,
) -> Array:
    """``array`` padded by ``pad_width`` ((before, after) per axis) in NumPy's modes.

    Modes ``constant``, ``edge``, ``reflect``, ``symmetric`` and ``wrap``.

    >>> pad(np.array([1, 2, 3]), (1, 2), mode="edge")
    Array([1, 1, 2, 3, 3, 3], dtype=int32)
    """
    v = as_result(operand(array))
    aval = get_aval(v)
    widths = _pad_widths(pad_width, aval.ndim)
    if mode == "constant":
        fill = astype(operand(constant_values), aval.dtype)  # the array's dtype, as JAX
        if get_aval(fill).ndim != 0:
            return _pad_constant_per_axis(v, widths, fill)
        out: Array = lax.pad(v, fill, [(lo, hi, 0) for lo, hi in widths])
        return out
    if mode not in ("edge", "reflect", "symmetric", "wrap"):
        raise NotImplementedError(f"pad: mode {mode!r} is not supported")
    for ax, (lo, hi) in enumerate(widths):
        if lo == 0 and hi == 0:
            continue
        v = _pad_axis(v, ax, lo, hi, mode)
    return v


def _pad_constant_per_axis(v: Array, widths: list[tuple[int, int]], fill: ArrayLike) -> Array:
    values = np.broadcast_to(np.asarray(fill), (len(widths), 2))
    for ax, (lo, hi) in enumerate(widths):
        cfg = [(0, 0, 0)] * len(widths)
        cfg[ax] = (lo, 0, 0)
        v = lax.pad(v, asarray(values[ax, 0], get_aval(v).dtype), cfg)
        cfg[ax] = (0, hi, 0)
        v = lax.pad(v, asarray(values[ax, 1], get_aval(v).dtype), cfg)
    return v


def _take_static(v: Array, ax: int, index: list[int]) -> Array:
    """The slices of ``v`` at the static ``index`` positions along ``ax``, joined."""
    shape = get_aval(v).shape
    pieces = []
    for i in index:
        start, limit = [0] * len(shape), list(shape)
        start[ax], limit[ax] = i, i + 1
        pieces.append(lax.slice(v, start, limit))
    out: Array = pieces[0] if len(pieces) == 1 else lax.concatenate(pieces, ax)
    return out


def _pad_axis(v: Array, ax: int, lo: int, hi: int, mode: str) -> Array:
    n = get_aval(v).shape[ax]
    if n == 0:
        raise ValueError(f"pad: can't extend an empty axis with mode {mode!r}")
    period = {"reflect": 2 * (n - 1), "symmetric": 2 * n, "wrap": n}.get(mode, 0)

    def source(j: int) -> int:  # the input position that output position j (from -lo) reads
        if mode == "edge":
            return builtins.min(builtins.max(j, 0), n - 1)
        if mode == "wrap":
            return j % n
        if mode == "reflect":
            if n == 1:
                return 0
            k = j % period
            return k if k < n else period - k
        k = j % period  # symmetric
        return k if k < n else period - 1 - k

    before = [source(j) for j in range(-lo, 0)]
    after = [source(j) for j in range(n, n + hi)]
    parts = []
    if before:
        parts.append(_take_static(v, ax, before))
    parts.append(v)
    if after:
        parts.append(_take_static(v, ax, after))
    return lax.concatenate(parts, ax) if len(parts) > 1 else v


def gradient(
    f: ArrayLike,
    *varargs: Any,
    axis: int | Sequence[int] | None = None,
    edge_order: int | None = None,
) -> Any:
    """Central differences inside, one-sided at the edges (uniform spacing ``varargs``)."""
    if edge_order not in (None, 1):
        raise NotImplementedError("gradient: only edge_order=1 is supported, as JAX")
    v = as_result(operand(f))
    aval = get_aval(v)
    x = astype(v, dtypes.to_inexact(aval.dtype))
    axes = normalize_axes(axis, aval.ndim, "gradient")
    if len(varargs) == 0:
        spacings: list[Any] = [1.0] * len(axes)
    elif len(varargs) == 1:
        spacings = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacings = list(varargs)
    else:
        raise TypeError("gradient: invalid number of spacing arguments")
    out = []
    for ax, h in zip(axes, spacings, strict=True):
        if np.ndim(h) != 0:
            raise NotImplementedError("gradient: only scalar spacings are supported")
        n = aval.shape[ax]
        if n < 2:
            raise ValueError(
                "Shape of array too small to calculate a numerical gradient, "
                "at least (edge_order + 1) elements are required."
            )

        def part(lo: int, hi: int, ax: int = ax) -> Any:
            start, limit = [0] * aval.ndim, list(aval.shape)
            start[ax], limit[ax] = lo, hi
            return lax.slice(x, start, limit)

        inner = divide(subtract(part(2, n), part(0, n - 2)), multiply(2.0, h))
        first = divide(subtract(part(1, 2), part(0, 1)), h)
        last = divide(subtract(part(n - 1, n), part(n - 2, n - 1)), h)
        out.append(concatenate([first, inner, last], axis=ax))
    return out[0] if len(out) == 1 else out
