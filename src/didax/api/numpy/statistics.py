"""Statistics and logical reductions: all/any, var/std, averages, NaN-ignoring reductions.

Compositions of the reductions in ``reductions`` with JAX's dtype rules:
``var``/``std`` of integers are floats (``to_inexact``), ``all``/``any``
are booleans, ``count_nonzero`` is the default int.
"""

from __future__ import annotations

from typing import Any

from didax.api.numpy.array_types import Array, ArrayLike, Axis
from didax.api.numpy.elementwise import (
    divide,
    multiply,
    not_equal,
    sqrt,
    subtract,
    where,
)
from didax.api.numpy.linear_algebra import dot
from didax.api.numpy.manipulation import broadcast_to, concatenate, reshape
from didax.api.numpy.matrices import diagonal
from didax.api.numpy.operands import as_result, astype, dtype_arg, normalize_axes, operand
from didax.api.numpy.reductions import max, mean, min, prod, sum
from didax.core import dtypes, lax
from didax.core.dtypes import DTypeLike
from didax.core.values import get_aval

__all__ = [
    "all",
    "any",
    "count_nonzero",
    "cumprod",
    "var",
    "std",
    "average",
    "cov",
    "corrcoef",
    "nansum",
    "nanprod",
    "nanmean",
    "nanmax",
    "nanmin",
    "nanvar",
    "nanstd",
]


def _truth(a: ArrayLike) -> Any:
    v = operand(a)
    aval = get_aval(v)
    return v if aval.dtype == dtypes.bool_ else not_equal(v, lax.full_like(as_result(v), 0))


def _logical_reduce(name: str, a: ArrayLike, axis: Axis, keepdims: bool, identity: bool) -> Array:
    v = _truth(a)
    aval = get_aval(v)
    axes = normalize_axes(axis, aval.ndim, name)
    if aval.size:
        reduce = lax.reduce_min if identity else lax.reduce_max  # and / or of booleans
        out = reduce(v, axes) if axes else as_result(v)
        return lax.expand_dims(out, axes) if keepdims and axes else out
    shape = tuple(
        1 if i in axes else s for i, s in enumerate(aval.shape) if keepdims or i not in axes
    )
    result: Array = lax.full(shape, identity, dtypes.bool_)
    return result


def all(a: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    """Whether every element (along ``axis``) is true (True for none)."""
    return _logical_reduce("all", a, axis, keepdims, True)


def any(a: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    """Whether some element (along ``axis``) is true (False for none)."""
    return _logical_reduce("any", a, axis, keepdims, False)


def count_nonzero(a: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    """How many elements (along ``axis``) are nonzero, in the default int."""
    return sum(_truth(a), axis=axis, keepdims=keepdims, dtype=dtypes.default_int())


def cumprod(a: ArrayLike, axis: int | None = None, dtype: DTypeLike = None) -> Array:
    """Cumulative product along ``axis`` (of the flattened array by default).

    ``lax.cumprod``: an associative scan when compiled, ``np.multiply.accumulate``
    eagerly.

    >>> cumprod(np.array([[1, 2], [3, 4]]), axis=1)
    Array([[ 1,  2],
           [ 3, 12]], dtype=int32)
    """
    v = as_result(operand(a))
    if axis is None:
        v, axis = reshape(v, (-1,)), 0
    aval = get_aval(v)
    (ax,) = normalize_axes(axis, aval.ndim, "cumprod")
    # As cumsum: integers in their own dtype, booleans in the default int.
    dt = dtype_arg(dtype) or (dtypes.default_int() if dtypes.is_bool(aval.dtype) else aval.dtype)
    return as_result(lax.cumprod(astype(v, dt), ax))


def var(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike = None,
    ddof: int = 0,
    keepdims: bool = False,
    *,
    correction: int | float | None = None,
    where: ArrayLike | None = None,
) -> Array:
    """The variance along ``axis`` (``ddof``/``correction`` subtracted from the count).

    >>> var(np.array([1.0, 2.0, 3.0, 4.0]))
    Array(1.25, dtype=float32)
    """
    if where is not None:
        raise NotImplementedError("var: where= is not supported")
    dof: float = ddof if correction is None else correction
    v = operand(a)
    aval = get_aval(v)
    # A complex variance is real: the mean of |x - mean|**2 (NumPy's and JAX's).
    dt = dtype_arg(dtype) or dtypes.real_dtype(dtypes.to_inexact(aval.dtype))
    x = astype(v, dtypes.to_inexact(aval.dtype))
    axes = normalize_axes(axis, aval.ndim, "var")
    centered = subtract(x, mean(x, axis=axes, keepdims=True))
    if dtypes.is_complex(get_aval(centered).dtype):
        re, im = lax.real(centered), lax.imag(centered)
        squares = lax.add(lax.mul(re, re), lax.mul(im, im))
    else:
        squares = multiply(centered, centered)
    count = 1
    for i in axes:
        count *= aval.shape[i]
    total = sum(squares, axis=axes, keepdims=keepdims)
    return astype(divide(total, max_or(count - dof)), dt)


def max_or(n: int | float) -> float:
    """The divisor of a variance: NumPy divides by ``max(n - ddof, 0)`` (inf or nan at 0)."""
    return float(n) if n > 0 else 0.0


def std(
    a: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike = None,
    ddof: int = 0,
    keepdims: bool = False,
    *,
    correction: int | float | None = None,
    where: ArrayLike | None = None,
) -> Array:
    """The standard deviation along ``axis``: the square root of ``var``."""
    return sqrt(var(a, axis, dtype, ddof, keepdims, correction=correction, where=where))


def average(
    a: ArrayLike,
    axis: Axis = None,
    weights: ArrayLike | None = None,
    returned: bool = False,
    keepdims: bool = False,
) -> Any:
    """The (weighted) mean along ``axis``; with ``returned``, also the sum of weights."""
    if weights is None:
        avg = mean(a, axis=axis, keepdims=keepdims)
        if not returned:
            return avg
        aval = get_aval(operand(a))
        axes = normalize_axes(axis, aval.ndim, "average")
        count = 1
        for i in axes:
            count *= aval.shape[i]
        return avg, as_result(lax.full_like(avg, count))
    v = operand(a)
    w = operand(weights)
    aval, waval = get_aval(v), get_aval(w)
    if waval.shape != aval.shape:
        if axis is None or waval.ndim != 1:
            raise TypeError(
                "average: weights must have the shape of a, or be 1-d along a single axis"
            )
        (ax,) = normalize_axes(axis, aval.ndim, "average")
        if waval.shape[0] != aval.shape[ax]:
            raise ValueError("average: length of weights differs from that of the axis")
        w = lax.broadcast_in_dim(astype(w, get_aval(w).dtype), aval.shape, (ax,))
    total = sum(multiply(v, w), axis=axis, keepdims=keepdims)
    wsum = sum(broadcast_to(w, aval.shape), axis=axis, keepdims=keepdims)
    avg = divide(total, wsum)
    if returned:
        return avg, astype(wsum, get_aval(avg).dtype)
    return avg


def cov(
    m: ArrayLike,
    y: ArrayLike | None = None,
    rowvar: bool = True,
    bias: bool = False,
    ddof: int | None = None,
) -> Array:
    """The covariance matrix of the variables in the rows (``rowvar``) or columns of ``m``."""
    x = as_result(operand(m))
    if get_aval(x).ndim > 2:
        raise ValueError("cov: m has more than 2 dimensions")
    x = reshape(x, (1, -1)) if get_aval(x).ndim < 2 else x
    if not rowvar and get_aval(x).shape[0] != 1:
        x = lax.transpose(x, (1, 0))
    if y is not None:
        yy = as_result(operand(y))
        yy = reshape(yy, (1, -1)) if get_aval(yy).ndim < 2 else yy
        if not rowvar and get_aval(yy).shape[0] != 1:
            yy = lax.transpose(yy, (1, 0))
        x = concatenate([x, yy], axis=0)
    x = astype(x, dtypes.to_inexact(get_aval(x).dtype))
    n = get_aval(x).shape[1]
    ddof = ddof if ddof is not None else (0 if bias else 1)
    centered = subtract(x, mean(x, axis=1, keepdims=True))
    c = dot(centered, lax.transpose(centered, (1, 0)))
    out = divide(c, max_or(n - ddof))
    return reshape(out, ()) if get_aval(out).shape == (1, 1) else out


def corrcoef(x: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True) -> Array:
    """Pearson correlation coefficients (the covariance normalised by the deviations)."""
    c = cov(x, y, rowvar)
    if get_aval(c).ndim == 0:
        return divide(c, c)
    d = sqrt(diagonal(c))
    c = divide(c, lax.broadcast_in_dim(d, get_aval(c).shape, (0,)))
    c = divide(c, lax.broadcast_in_dim(d, get_aval(c).shape, (1,)))
    return c


# --- NaN-ignoring reductions --------------------------------------------------------


def _isnan(v: ArrayLike) -> Array:
    return not_equal(v, v)


def _nan_to(a: ArrayLike, value: float) -> Array:
    v = as_result(operand(a))
    if not dtypes.is_float(get_aval(v).dtype):
        return v
    return where(_isnan(v), lax.full_like(v, value), v)


def nansum(
    a: ArrayLike, axis: Axis = None, dtype: DTypeLike = None, keepdims: bool = False
) -> Array:
    """``sum`` treating NaNs as zero."""
    return sum(_nan_to(a, 0.0), axis=axis, dtype=dtype, keepdims=keepdims)


def nanprod(
    a: ArrayLike, axis: Axis = None, dtype: DTypeLike = None, keepdims: bool = False
) -> Array:
    """``prod`` treating NaNs as one."""
    return prod(_nan_to(a, 1.0), axis=axis, dtype=dtype, keepdims=keepdims)


def nanmax(a: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    """``max`` ignoring NaNs (NaN where every element is NaN)."""
    v = as_result(operand(a))
    if not dtypes.is_float(get_aval(v).dtype):
        return max(v, axis=axis, keepdims=keepdims)
    out = max(_nan_to(v, -float("inf")), axis=axis, keepdims=keepdims)
    every = all(_isnan(v), axis=axis, keepdims=keepdims)
    return where(every, lax.full_like(out, float("nan")), out)


def nanmin(a: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    """``min`` ignoring NaNs (NaN where every element is NaN)."""
    v = as_result(operand(a))
    if not dtypes.is_float(get_aval(v).dtype):
        return min(v, axis=axis, keepdims=keepdims)
    out = min(_nan_to(v, float("inf")), axis=axis, keepdims=keepdims)
    every = all(_isnan(v), axis=axis, keepdims=keepdims)
    return where(every, lax.full_like(out, float("nan")), out)


def nanmean(
    a: ArrayLike, axis: Axis = None, dtype: DTypeLike = None, keepdims: bool = False
) -> Array:
    """``mean`` of the elements that are not NaN."""
    v = as_result(operand(a))
    if not dtypes.is_float(get_aval(v).dtype):
        return mean(v, axis=axis, dtype=dtype, keepdims=keepdims)
    total = nansum(v, axis=axis, dtype=dtype, keepdims=keepdims)
    count = count_nonzero(lax.not_(_isnan(v)), axis=axis, keepdims=keepdims)
    return divide(total, astype(count, get_aval(total).dtype))


def nanvar(
    a: ArrayLike, axis: Axis = None, dtype: DTypeLike = None, ddof: int = 0, keepdims: bool = False
) -> Array:
    """``var`` of the elements that are not NaN."""
    v = as_result(operand(a))
    x = astype(v, dtypes.to_inexact(get_aval(v).dtype))
    centered = subtract(x, nanmean(x, axis=axis, keepdims=True))
    sq = multiply(centered, centered)
    total = nansum(sq, axis=axis, keepdims=keepdims)
    count = count_nonzero(lax.not_(_isnan(x)), axis=axis, keepdims=keepdims)
    denom = astype(subtract(count, ddof), get_aval(total).dtype)
    denom = where(lax.lt(denom, lax.full_like(denom, 0)), lax.full_like(denom, 0), denom)
    out = divide(total, denom)
    return astype(out, dtype_arg(dtype) or get_aval(out).dtype)


def nanstd(
    a: ArrayLike, axis: Axis = None, dtype: DTypeLike = None, ddof: int = 0, keepdims: bool = False
) -> Array:
    """``std`` of the elements that are not NaN."""
    return sqrt(nanvar(a, axis, dtype, ddof, keepdims))
