"""``didax.scipy.stats``' descriptive statistics: ``mode``, ``rankdata`` and ``sem``, as JAX's.

Design rules:
- Static shapes, as JAX's: ``mode`` counts the runs of one sort (JAX's
  ``unique(..., size=n)``; one lane per slice, by ``vmap``), ``rankdata`` ranks by one stable sort
  and a cumulative count of distinct values, padded ``nonzero``.
- NaN handling as JAX's: ``nan_policy='propagate'`` only for ``mode`` and
  ``rankdata`` (``'omit'`` and ``'raise'`` are refused: under jit whether
  NaNs occur is not known); ``rankdata`` of data with a NaN is all NaN.
  ``sem`` also takes ``'omit'`` (``nanstd`` over the non-NaN count).
- Results are the default float dtype where JAX's are (ranks, an empty
  slice's mode and count).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from didax.api.control_flow import cond
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.creation import arange, zeros_like
from didax.api.numpy.elementwise import logical_and, logical_not, logical_or, not_equal, sqrt
from didax.api.numpy.joining import atleast_1d
from didax.api.numpy.manipulation import concatenate, moveaxis, ravel, reshape
from didax.api.numpy.matrices import full_like
from didax.api.numpy.more_elementwise import isnan
from didax.api.numpy.operands import as_result, asarray, astype, normalize_axes
from didax.api.numpy.positions import nonzero
from didax.api.numpy.reductions import argmax, cumsum
from didax.api.numpy.reductions import max as _max
from didax.api.numpy.reductions import sum as _sum
from didax.api.numpy.statistics import any as _any
from didax.api.numpy.statistics import nanstd, std
from didax.api.stats.arguments import inexact
from didax.api.transformations import vmap
from didax.core import dtypes, lax
from didax.core.values import get_aval

__all__ = ["ModeResult", "mode", "rankdata", "sem"]

_POLICIES = ("propagate", "omit", "raise")


# mode's result: the most common value and how often it occurs (JAX's field
# names; "count" shadows tuple.count there too).
ModeResult = NamedTuple("ModeResult", [("mode", Array), ("count", Array)])  # noqa: UP014


def _check_policy(name: str, nan_policy: str) -> None:
    if nan_policy not in _POLICIES:
        raise ValueError(
            f"{name}: illegal nan_policy value {nan_policy!r}; "
            "expected one of {'propagate', 'omit', 'raise'}"
        )
    if nan_policy == "omit":
        raise NotImplementedError(f"{name}: nan_policy='omit' is not implemented (as in JAX)")
    if nan_policy == "raise":
        raise NotImplementedError(
            f"{name}: nan_policy='raise' would need to know under jit whether NaNs occur; "
            "check for NaNs outside the function"
        )


def _mode_of_column(x: Array) -> tuple[Array, Array]:
    size = get_aval(x).shape[0]
    if size == 0:
        nan = asarray(float("nan"), dtypes.default_float())
        return nan, asarray(0, dtypes.default_float())
    # JAX's unique(x, return_counts=True, size=n) then argmax: runs of equal
    # values in sorted order (NaNs one run, as unique's equal_nan), the
    # first longest run's value (the smallest among ties).
    ordered = lax.sort(x)
    same = logical_or(
        ordered[1:] == ordered[:-1], logical_and(isnan(ordered[1:]), isnan(ordered[:-1]))
    )
    starts = concatenate([asarray([True]), logical_not(same)])
    run = cumsum(starts) - 1
    counts = zeros_like(run).at[run].add(1)
    per_element = counts[run]
    return ordered[argmax(per_element)], _max(counts)


def mode(
    a: ArrayLike, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False
) -> ModeResult:
    """The most common value along ``axis`` (the smallest of ties) and its count.

    >>> import numpy as np
    >>> mode(np.array([3, 1, 3, 2, 1, 3]))
    ModeResult(mode=Array(3, dtype=int32), count=Array(3, dtype=int32))
    """
    x = as_result(atleast_1d(a))
    _check_policy("mode", nan_policy)
    shape = get_aval(x).shape
    if axis is not None:
        (axis,) = normalize_axes(axis, len(shape), "mode")
    if axis is None:
        out_shape: tuple[int, ...] = (1,) * len(shape) if keepdims else ()
        x, axis = ravel(x), 0
    elif keepdims:
        out_shape = tuple(1 if i == axis else s for i, s in enumerate(shape))
    else:
        out_shape = tuple(s for i, s in enumerate(shape) if i != axis)
    x = moveaxis(x, axis, 0)
    rows = get_aval(x).shape
    x = reshape(x, (rows[0], math.prod(rows[1:])))
    vals, counts = vmap(_mode_of_column, in_axes=1)(x)
    return ModeResult(reshape(vals, out_shape), reshape(counts, out_shape))


def _ranks(a: Array, method: str) -> Array:
    out_dtype = dtypes.default_float()
    size = get_aval(a).shape[0]
    arr, sorter = lax.sort((a, arange(size)), num_keys=1)
    inv = zeros_like(sorter).at[sorter].set(arange(size, dtype=get_aval(sorter).dtype))
    if method == "ordinal":
        return as_result(astype(inv + 1, out_dtype))
    obs = concatenate([asarray([True]), not_equal(arr[1:], arr[:-1])])
    dense = cumsum(obs)[inv]
    if method == "dense":
        return as_result(astype(dense, out_dtype))
    count = astype(nonzero(obs, size=size + 1, fill_value=size)[0], out_dtype)
    if method == "max":
        return as_result(count[dense])
    if method == "min":
        return as_result(count[dense - 1] + 1)
    return as_result(0.5 * (count[dense] + count[dense - 1] + 1))  # "average"


def rankdata(
    a: ArrayLike, method: str = "average", *, axis: int | None = None, nan_policy: str = "propagate"
) -> Array:
    """Ranks from 1, ties by ``method`` (``average``, ``min``, ``max``, ``dense``, ``ordinal``).

    >>> import numpy as np
    >>> rankdata(np.array([40, 10, 30, 10]))
    Array([4. , 1.5, 3. , 1.5], dtype=float32)
    """
    _check_policy("rankdata", nan_policy)
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"rankdata: unknown method {method!r}")
    arr = asarray(a)
    if axis is not None:
        # JAX's apply_along_axis: the other axes mapped, one slice ranked at a time.
        ndim = get_aval(arr).ndim
        (axis,) = normalize_axes(axis, ndim, "rankdata")
        moved = moveaxis(arr, axis, -1)
        lead = get_aval(moved).shape[:-1]
        flat = reshape(moved, (math.prod(lead), get_aval(moved).shape[-1]))
        ranked = vmap(lambda row: rankdata(row, method))(flat)
        return moveaxis(reshape(ranked, get_aval(moved).shape), -1, axis)
    flat = ravel(arr)
    return as_result(
        cond(
            _any(isnan(flat)),
            lambda v: full_like(v, float("nan"), dtypes.default_float()),
            lambda v: _ranks(v, method),
            flat,
        )
    )


def sem(
    a: ArrayLike,
    axis: int | None = 0,
    ddof: int = 1,
    nan_policy: str = "propagate",
    *,
    keepdims: bool = False,
) -> Array:
    """The standard error of the mean: ``std(ddof=1) / sqrt(n)`` along ``axis``.

    >>> import numpy as np
    >>> sem(np.array([1.0, 2.0, 3.0, 4.0]))
    Array(0.6454972, dtype=float32)
    """
    (b,) = inexact("sem", a)
    dtype = get_aval(b).dtype
    if nan_policy == "propagate":
        shape = get_aval(b).shape
        size = math.prod(shape) if axis is None else shape[axis]
        return std(b, axis, ddof=ddof, keepdims=keepdims) / astype(sqrt(size), dtype)
    if nan_policy == "omit":
        count = _sum(logical_not(isnan(b)), axis, keepdims=keepdims)
        return nanstd(b, axis, ddof=ddof, keepdims=keepdims) / astype(sqrt(count), dtype)
    raise ValueError(f"sem: nan_policy {nan_policy!r} is not supported")
