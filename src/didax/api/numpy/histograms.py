"""Histograms: bin edges, counts in bins, the bin of each value, counts of each integer.

As ``jax.numpy``'s: ``histogram`` (equal bins over the data's range or a
given one, the last bin closed; summed ``weights`` or a density),
``histogram_bin_edges``, ``digitize`` (bins increasing or decreasing,
through ``searchsorted``) and ``bincount``. A length that decides the
result's shape is static: ``bincount`` without ``length=`` needs concrete
input, and says so.
"""

from __future__ import annotations

import builtins
import math
import operator
from typing import Any

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.creation import asarray, zeros, zeros_like
from didax.api.numpy.elementwise import (
    add,
    divide,
    equal,
    logical_and,
    logical_or,
    multiply,
    subtract,
    where,
)
from didax.api.numpy.index_tricks import ravel_multi_index
from didax.api.numpy.manipulation import ravel, reshape, stack
from didax.api.numpy.operands import as_result, astype, concrete_value, operand
from didax.api.numpy.reductions import max, min, sum
from didax.api.numpy.searching import searchsorted
from didax.core import dtypes, lax
from didax.core.values import as_array, get_aval, wrap_host

__all__ = [
    "histogram",
    "histogram_bin_edges",
    "digitize",
    "bincount",
    "histogramdd",
    "histogram2d",
]


def histogram_bin_edges(a: ArrayLike, bins: Any = 10, range: Any = None) -> Array:
    """The edges of ``bins`` equal bins over ``range`` (default: the data's min and max)."""
    if not isinstance(bins, (int, np.integer)):
        return (
            as_result(operand(bins))
            if not isinstance(bins, (list, tuple))
            else wrap_host(as_array(np.asarray(bins, dtypes.default_float())))
        )
    x = ravel(a)
    x = astype(x, dtypes.to_inexact(get_aval(x).dtype))
    if range is None:
        lo, hi = min(x), max(x)
    else:
        lo, hi = (astype(operand(r), get_aval(x).dtype) for r in range)
    # An empty range widens by 0.5 on each side, as NumPy's.
    same = equal(lo, hi)
    lo = where(same, subtract(lo, 0.5), lo)
    hi = where(same, add(hi, 0.5), hi)
    count = operator.index(bins)
    steps = divide(lax.iota(get_aval(x).dtype, count + 1), float(count))
    edges = add(lo, multiply(steps, subtract(hi, lo)))
    # The last edge is the maximum itself (as linspace's endpoint), not a
    # rounding of it, so the maximum always falls in the last bin.
    is_last = lax.eq(
        lax.iota(dtypes.default_int(), count + 1),
        lax.full((count + 1,), count, dtypes.default_int()),
    )
    return where(is_last, hi, edges)


def histogram(
    a: ArrayLike,
    bins: Any = 10,
    range: Any = None,
    weights: ArrayLike | None = None,
    density: bool | None = None,
) -> tuple[Array, Array]:
    """Counts (or summed ``weights``, or a density) of ``a`` in ``bins``; the last bin is closed.

    >>> histogram(np.array([0.0, 0.5, 1.0, 2.0]), bins=2)[0]
    Array([2., 2.], dtype=float32)
    """
    edges = histogram_bin_edges(a, bins, range)
    x = ravel(a)
    n_edges = get_aval(edges).shape[0]
    n = get_aval(x).shape[0]
    grid_x = lax.broadcast_in_dim(astype(x, get_aval(edges).dtype), (n_edges - 1, n), (1,))
    lo = lax.broadcast_in_dim(lax.slice(edges, (0,), (n_edges - 1,)), (n_edges - 1, n), (0,))
    hi = lax.broadcast_in_dim(lax.slice(edges, (1,), (n_edges,)), (n_edges - 1, n), (0,))
    last = lax.broadcast_in_dim(
        lax.eq(
            lax.iota(dtypes.default_int(), n_edges - 1),
            lax.full((n_edges - 1,), n_edges - 2, dtypes.default_int()),
        ),
        (n_edges - 1, n),
        (0,),
    )
    inside = logical_and(
        lax.ge(grid_x, lo), logical_or(lax.lt(grid_x, hi), logical_and(last, lax.le(grid_x, hi)))
    )
    w = (
        lax.full((n,), 1, get_aval(edges).dtype)
        if weights is None
        else astype(ravel(weights), get_aval(edges).dtype)
    )
    counts = sum(where(inside, lax.broadcast_in_dim(w, (n_edges - 1, n), (1,)), 0.0), axis=1)
    if density:
        widths = subtract(
            lax.slice(edges, (1,), (n_edges,)), lax.slice(edges, (0,), (n_edges - 1,))
        )
        counts = divide(divide(counts, sum(counts)), widths)
    return as_result(counts), edges


def digitize(
    x: ArrayLike, bins: ArrayLike, right: bool = False, *, method: str | None = None
) -> Array:
    """The index of the bin of each ``x`` (bins increasing or decreasing), as NumPy's."""
    del method
    xv, b = as_result(operand(x)), as_result(operand(bins))
    if b.ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got shape {b.shape}")
    n = b.shape[0]
    if n == 0:
        return zeros_like(xv, dtype=np.int32)
    side = "left" if right else "right"
    increasing = searchsorted(b, xv, side=side)
    decreasing = n - searchsorted(b[::-1], xv, side=side)
    return where(b[-1] >= b[0], increasing, decreasing)


def bincount(
    x: ArrayLike, weights: ArrayLike | None = None, minlength: int = 0, *, length: int | None = None
) -> Array:
    """Counts (or summed ``weights``) of each non-negative integer in ``x``.

    The result's length is ``length`` if given (static), else computed from
    concrete ``x``: ``max(minlength, max(x) + 1)``.

    >>> bincount(np.array([0, 1, 1, 3]))
    Array([1, 2, 0, 1], dtype=int32)
    """
    v = as_result(operand(x))
    if v.dtype == dtypes.bool_:
        v = v.astype(np.int32)
    if not dtypes.is_integer(v.dtype):
        raise TypeError(f"x argument to bincount must have an integer type; got {v.dtype}")
    if v.ndim != 1:
        raise ValueError("bincount: only 1-dimensional input supported.")
    minlength = operator.index(minlength)
    if length is None:
        concrete = concrete_value(v, "bincount: x must be concrete unless length= is given")
        length = builtins.max(
            minlength, int(builtins.max(0, concrete.max())) + 1 if concrete.size else 0
        )
    else:
        length = operator.index(length)
    if weights is None:
        w: Any = asarray(np.array(1, dtypes.default_int()))
    else:
        w = as_result(operand(weights))
        if w.shape != v.shape:
            raise ValueError(f"bincount: weights of shape {w.shape} must match x's {v.shape}")
    index = where(v < 0, 0, v)
    out: Array = zeros(length, w.dtype).at[index].add(w, mode="drop")
    return out


def histogramdd(
    sample: ArrayLike,
    bins: Any = 10,
    range: Any = None,
    weights: ArrayLike | None = None,
    density: bool | None = None,
) -> tuple[Array, list[Array]]:
    """The ``D``-dimensional histogram of ``N`` points (``sample`` of shape ``(N, D)``).

    As JAX's: each point's bin along each dimension by ``searchsorted`` on that
    dimension's edges, the bins flattened into one ``bincount`` of static length.
    """
    points = as_result(operand(sample))
    if get_aval(points).ndim != 2:
        raise ValueError(
            f"histogramdd: sample must be of shape (N, D), got {get_aval(points).shape}"
        )
    d = get_aval(points).shape[1]
    if range is not None and (
        len(range) != d or builtins.any(r is not None and np.shape(r)[0] != 2 for r in range)
    ):
        raise ValueError(f"histogramdd: range must be a sequence of {d} (lower, upper) pairs")
    try:
        bins_per_dim = list(bins)
    except TypeError:
        bins_per_dim = [bins] * d
    if len(bins_per_dim) != d:
        raise ValueError(f"histogramdd: bins must be one number or array per dimension ({d})")
    indices, edges = [], []
    for i in builtins.range(d):
        column = points[:, i]
        edge = histogram_bin_edges(column, bins_per_dim[i], None if range is None else range[i])
        index = searchsorted(edge, column, side="right")
        indices.append(where(equal(column, edge[-1]), subtract(index, 1), index))
        edges.append(edge)
    nbins = tuple(get_aval(e).shape[0] + 1 for e in edges)
    flat = ravel_multi_index(tuple(indices), nbins, mode="clip")
    hist = reshape(bincount(flat, weights, length=math.prod(nbins)), nbins)
    hist = hist[(slice(1, -1),) * d]
    if density:
        hist = astype(hist, get_aval(points).dtype)
        hist = divide(hist, sum(hist))
        for axis in builtins.range(d):
            widths = subtract(edges[axis][1:], edges[axis][:-1])
            hist = divide(
                hist, reshape(widths, tuple(-1 if k == axis else 1 for k in builtins.range(d)))
            )
    return as_result(hist), edges


def histogram2d(
    x: ArrayLike,
    y: ArrayLike,
    bins: Any = 10,
    range: Any = None,
    weights: ArrayLike | None = None,
    density: bool | None = None,
) -> tuple[Array, Array, Array]:
    """The 2-d histogram of the points ``(x, y)`` and the two dimensions' edges."""
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n not in (1, 2):  # one array of edges, shared by both dimensions
        bins = [asarray(bins), asarray(bins)]
    sample = stack([as_result(operand(x)), as_result(operand(y))], axis=1)
    hist, edges = histogramdd(sample, bins, range, weights, density)
    return hist, edges[0], edges[1]
