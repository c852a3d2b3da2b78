"""Order statistics and interpolation: quantiles, percentiles, medians and ``interp``.

Design rules:
- As ``jax.numpy``'s: the reduced axes are moved last and flattened, the
  data sorted along them (``sort``, NaNs last), and each quantile read at
  the two neighbouring ranks ``floor(q·(n-1))`` and ``ceil(q·(n-1))`` with
  one gather each, then combined by ``method`` in ``q``'s dtype and
  converted to the data's inexact dtype.
- A NaN anywhere along the reduced axes makes the quantile NaN; the
  ``nan*`` variants rank only the non-NaN elements (their count, per
  position, replaces ``n``).
- ``interp`` is JAX's: the interval from ``searchsorted``, a guard against
  a zero-width interval (so its gradient is not NaN), constant or linear
  extrapolation, and ``period`` by sorting the wrapped points.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike, Axis
from didax.api.numpy.elementwise import where
from didax.api.numpy.manipulation import concatenate
from didax.api.numpy.more_elementwise import isnan
from didax.api.numpy.operands import Operand, as_result, astype, named, operand
from didax.api.numpy.searching import searchsorted
from didax.api.numpy.statistics import any
from didax.core import dtypes, lax
from didax.core.values import get_aval

__all__ = [
    "quantile",
    "percentile",
    "median",
    "nanquantile",
    "nanpercentile",
    "nanmedian",
    "interp",
]

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _inexact(x: ArrayLike) -> Operand:
    """``x`` as an operand of its inexact dtype (integers become floats), keeping weak types."""
    v = operand(x)
    aval = get_aval(v)
    target = dtypes.to_inexact(aval.dtype)
    return v if target == aval.dtype else astype(v, target, aval.weak_type)


def _iota(shape: tuple[int, ...], dim: int) -> Array:
    out: Array = lax.broadcast_in_dim(lax.iota(dtypes.default_int(), shape[dim]), shape, (dim,))
    return out


def _quantile(
    name: str,
    a: ArrayLike,
    q: ArrayLike,
    axis: Axis,
    method: str,
    keepdims: bool,
    squash_nans: bool,
    out: object = None,
    overwrite_input: bool = False,
) -> Array:
    if out is not None or overwrite_input:
        raise ValueError(f"{name}: out= and overwrite_input=True are not supported, as in JAX")
    if method not in _METHODS:
        raise ValueError(f"{name}: method must be one of {', '.join(_METHODS)}; got {method!r}")
    x = as_result(_inexact(a))
    qv = as_result(_inexact(q))
    q_aval, x_aval = get_aval(qv), get_aval(x)
    if q_aval.ndim > 1:
        raise ValueError(f"{name}: q must have rank 0 or 1, got shape {q_aval.shape}")
    ndim = x_aval.ndim
    if axis is None:
        axes = tuple(range(ndim))
    else:
        raw = (axis,) if isinstance(axis, int | np.integer) else tuple(axis)
        for ax in raw:
            if not -ndim <= ax < ndim:
                raise ValueError(f"{name}: axis {ax} is out of bounds for an array of rank {ndim}")
        axes = tuple(int(ax) % ndim for ax in raw)
        if len(set(axes)) != len(axes):
            raise ValueError(f"{name}: repeated axis in {axis!r}")
    kept = tuple(i for i in range(ndim) if i not in axes)
    kept_shape = tuple(x_aval.shape[i] for i in kept)
    n = math.prod(x_aval.shape[i] for i in axes)
    # The reduced axes last, as one axis of length n.
    perm = (*kept, *axes)
    if perm != tuple(range(ndim)):
        x = lax.transpose(x, perm)
    x = lax.reshape(x, (*kept_shape, n))
    nan = lax.full_like(x, np.nan)
    if squash_nans:
        # One NaN (a positive one, which sorts last) for every NaN.
        x = where(isnan(x), nan, x)
    else:
        x = where(any(isnan(x), axis=-1, keepdims=True), nan, x)
    x = lax.sort(x, len(kept_shape))
    q_dtype = get_aval(qv).dtype
    q_shape = q_aval.shape
    out_shape = (*q_shape, *kept_shape)
    if squash_nans:
        count = lax.reduce_sum(
            lax.convert_element_type(lax.not_(isnan(x)), q_dtype), (len(kept_shape),)
        )
        count = lax.broadcast_in_dim(count, out_shape, tuple(range(len(q_shape), len(out_shape))))
    else:
        count = lax.full(out_shape, n, q_dtype)
    rank = lax.mul(lax.broadcast_in_dim(qv, out_shape, tuple(range(len(q_shape)))), count - 1)
    low, high = lax.floor(rank), lax.ceil(rank)
    high_weight = lax.sub(rank, low)
    low_weight = lax.sub(lax.full_like(high_weight, 1), high_weight)
    last = lax.sub(count, lax.full_like(count, 1))
    zero = lax.full_like(count, 0)

    def read(position: Any) -> Any:
        index = lax.convert_element_type(
            lax.max(zero, lax.min(position, last)), dtypes.default_int()
        )
        coords = [_iota(out_shape, len(q_shape) + d) for d in range(len(kept_shape))]
        return x[(*coords, index)]

    low_value, high_value = read(low), read(high)
    if method == "linear":
        result = lax.add(
            lax.mul(astype(low_value, q_dtype), low_weight),
            lax.mul(astype(high_value, q_dtype), high_weight),
        )
    elif method == "lower":
        result = low_value
    elif method == "higher":
        result = high_value
    elif method == "nearest":
        result = lax.select(
            lax.le(high_weight, lax.full_like(high_weight, 0.5)), low_value, high_value
        )
    else:  # midpoint
        result = lax.mul(lax.add(low_value, high_value), lax.full_like(low_value, 0.5))
    if keepdims:
        full = tuple(1 if i in axes else s for i, s in enumerate(x_aval.shape))
        result = lax.reshape(result, (*q_shape, *full))
    return as_result(lax.convert_element_type(result, x_aval.dtype))


def _quantile_function(
    name: str, squash_nans: bool, percent: bool, doc: str
) -> Callable[..., Array]:
    """NumPy's ``name``: ``_quantile`` with NumPy's signature, ``q`` in percent if ``percent``."""

    def function(
        a: ArrayLike,
        q: ArrayLike,
        axis: Axis = None,
        out: object = None,
        overwrite_input: bool = False,
        method: str = "linear",
        keepdims: bool = False,
    ) -> Array:
        qv = _percent(q) if percent else q
        return _quantile(name, a, qv, axis, method, keepdims, squash_nans, out, overwrite_input)

    return named(function, name, doc)


def _median_function(name: str, squash_nans: bool, doc: str) -> Callable[..., Array]:
    """NumPy's ``name``: the midpoint 0.5-quantile, with NumPy's signature."""

    def function(
        a: ArrayLike,
        axis: Axis = None,
        out: object = None,
        overwrite_input: bool = False,
        keepdims: bool = False,
    ) -> Array:
        return _quantile(
            name, a, 0.5, axis, "midpoint", keepdims, squash_nans, out, overwrite_input
        )

    return named(function, name, doc)


def _percent(q: ArrayLike) -> Array:
    qv = as_result(_inexact(q))
    return qv / 100


quantile = _quantile_function(
    "quantile",
    squash_nans=False,
    percent=False,
    doc="""The ``q``-th quantiles (``q`` in [0, 1], a scalar or a vector) of ``a`` along ``axis``.

    >>> quantile(np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.25, 0.5]))
    Array([1.75, 2.5 ], dtype=float32)
    """,
)
nanquantile = _quantile_function(
    "nanquantile",
    squash_nans=True,
    percent=False,
    doc="``quantile`` ignoring NaNs (NaN where a reduced slice has only NaNs).",
)
percentile = _quantile_function(
    "percentile",
    squash_nans=False,
    percent=True,
    doc="""The ``q``-th percentiles (``q`` in [0, 100]) of ``a`` along ``axis``.

    >>> percentile(np.arange(11.0), 30)
    Array(3., dtype=float32)
    """,
)
nanpercentile = _quantile_function(
    "nanpercentile", squash_nans=True, percent=True, doc="``percentile`` ignoring NaNs."
)


median = _median_function(
    "median",
    squash_nans=False,
    doc="""The median along ``axis`` (the mean of the two middle elements for an even count).

    >>> median(np.array([[3, 1, 2], [4, 6, 5]]), axis=1)
    Array([2., 5.], dtype=float32)
    """,
)
nanmedian = _median_function("nanmedian", squash_nans=True, doc="``median`` ignoring NaNs.")


def interp(
    x: ArrayLike,
    xp: ArrayLike,
    fp: ArrayLike,
    left: ArrayLike | str | None = None,
    right: ArrayLike | str | None = None,
    period: ArrayLike | None = None,
) -> Array:
    """The piecewise-linear interpolant through ``(xp, fp)`` (``xp`` increasing) at ``x``.

    ``left``/``right`` give the values outside ``xp``'s range (``fp``'s end
    values by default, ``"extrapolate"`` for the end segments' lines);
    ``period`` interpolates periodic data.

    >>> interp(np.array([0.5, 2.5, 9.0]), np.array([0.0, 1.0, 3.0]), np.array([0.0, 10.0, 30.0]))
    Array([ 5., 25., 30.], dtype=float32)
    """
    xv, xpv, fpv = (as_result(_inexact(v)) for v in (x, xp, fp))
    if get_aval(xpv).shape != get_aval(fpv).shape or get_aval(xpv).ndim != 1:
        raise ValueError("interp: xp and fp must be one-dimensional arrays of equal size")
    common = dtypes.promote_types(get_aval(xv).dtype, get_aval(xpv).dtype)
    xv, xpv = (as_result(astype(v, common)) for v in (xv, xpv))
    for side, value in (("left", left), ("right", right)):
        if isinstance(value, str) and value != "extrapolate":
            raise ValueError(
                f"interp: the only valid string value of `{side}` is 'extrapolate', "
                f"but got: {value!r}"
            )
    if period is not None:
        p = as_result(operand(period))
        if get_aval(p).ndim != 0:
            raise ValueError(f"interp: period must be a scalar; got {period!r}")
        p = abs(p)
        xv, xpv = xv % p, xpv % p
        xpv, fpv = lax.sort_key_val(xpv, fpv)
        xpv = concatenate([xpv[-1:] - p, xpv, xpv[:1] + p])
        fpv = concatenate([fpv[-1:], fpv, fpv[:1]])
    size = get_aval(xpv).shape[0]
    i = searchsorted(xpv, xv, side="right")
    i = lax.max(lax.min(i, lax.full_like(i, size - 1)), lax.full_like(i, 1))
    below = i - 1
    df = fpv[i] - fpv[below]
    dx = xpv[i] - xpv[below]
    delta = xv - xpv[below]
    epsilon = np.spacing(ml_dtypes.finfo(get_aval(xpv).dtype).eps)  # NumPy's lacks bfloat16
    # A zero-width interval gives its left value (and no NaN gradient).
    flat = abs(dx) <= epsilon
    f = where(flat, fpv[below], fpv[below] + (delta / where(flat, 1, dx)) * df)
    if period is None:
        if not isinstance(left, str):
            f = where(xv < xpv[0], fpv[0] if left is None else left, f)
        if not isinstance(right, str):
            f = where(xv > xpv[-1], fpv[-1] if right is None else right, f)
    return as_result(f)
