"""Reductions: sums, products, extrema, means, arg-extrema and cumulative sums.

Booleans and small integers sum and multiply in the default integer of
their signedness, as NumPy does; an empty max/min is an error, as NumPy's.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from typing import Any

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import divide
from didax.api.numpy.manipulation import ravel, reshape
from didax.api.numpy.operands import as_result, asarray, astype, dtype_arg, normalize_axes, operand
from didax.core import dtypes, lax
from didax.core.dtypes import DType, DTypeLike
from didax.core.shape_poly import is_symbolic_dim
from didax.core.values import get_aval

__all__ = [
    "sum",
    "prod",
    "max",
    "min",
    "mean",
    "argmax",
    "argmin",
    "cumsum",
]


def _accumulator_dtype(dtype: DType) -> DType:
    # JAX (as NumPy) sums and multiplies booleans and small integers in the
    # default integer of their signedness.
    if dtype == dtypes.bool_ or (
        dtypes.is_integer(dtype) and dtype.itemsize < dtypes.default_int().itemsize
    ):
        return dtypes.default_uint() if dtypes.is_unsigned(dtype) else dtypes.default_int()
    return dtype


def _reduce_over(
    name: str,
    reducer: Callable[[Any, tuple[int, ...]], Any],
    a: ArrayLike,
    axis: int | Sequence[int] | None,
    keepdims: bool,
    dtype: DType | None,
    needs_identity: bool = False,
) -> Array:
    v = operand(a)
    aval = get_aval(v)
    axes = normalize_axes(axis, aval.ndim, name)
    if dtype is not None:
        v = astype(v, dtype, weak=aval.weak_type and dtype == aval.dtype)
    if needs_identity and builtins.any(aval.shape[i] == 0 for i in axes):
        raise ValueError(f"{name}: zero-size array to reduction operation which has no identity")
    out = reducer(v, axes) if axes else as_result(v)
    return lax.expand_dims(out, axes) if keepdims and axes else out


def sum(
    a: ArrayLike,
    axis: int | Sequence[int] | None = None,
    dtype: DTypeLike = None,
    keepdims: bool = False,
) -> Array:
    """Sum over ``axis`` (all axes by default); booleans and small integers sum in the default int.

    >>> sum(np.array([[1, 2], [3, 4]], np.int32), axis=0)
    Array([4, 6], dtype=int32)
    """
    dt = dtype_arg(dtype) or _accumulator_dtype(get_aval(operand(a)).dtype)
    return _reduce_over("sum", lax.reduce_sum, a, axis, keepdims, dt)


def prod(
    a: ArrayLike,
    axis: int | Sequence[int] | None = None,
    dtype: DTypeLike = None,
    keepdims: bool = False,
) -> Array:
    """Product over ``axis``; booleans and small integers multiply in the default int."""
    dt = dtype_arg(dtype) or _accumulator_dtype(get_aval(operand(a)).dtype)
    return _reduce_over("prod", lax.reduce_prod, a, axis, keepdims, dt)


def max(a: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Array:
    """Maximum over ``axis``; NaN propagates; an empty reduction is an error."""
    return _reduce_over("max", lax.reduce_max, a, axis, keepdims, None, needs_identity=True)


def min(a: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Array:
    """Minimum over ``axis``; NaN propagates; an empty reduction is an error."""
    return _reduce_over("min", lax.reduce_min, a, axis, keepdims, None, needs_identity=True)


def mean(
    a: ArrayLike,
    axis: int | Sequence[int] | None = None,
    dtype: DTypeLike = None,
    keepdims: bool = False,
) -> Array:
    """Arithmetic mean over ``axis``; integers and booleans average as floats (``to_inexact``).

    >>> mean(np.array([[1, 2], [3, 5]]), axis=1)
    Array([1.5, 4. ], dtype=float32)
    """
    v = operand(a)
    aval = get_aval(v)
    out_dt = dtype_arg(dtype) or dtypes.to_inexact(aval.dtype)
    # 16-bit floats accumulate in float32, as JAX's do.
    work = dtypes.float32 if out_dt in (dtypes.float16, dtypes.bfloat16) else out_dt
    axes = normalize_axes(axis, aval.ndim, "mean")
    # (A symbolic size divides as a value: ``operand`` makes it one.)
    count = math.prod(aval.shape[i] for i in axes)
    total = sum(v, axis=axes, dtype=work, keepdims=keepdims)
    out = divide(total, count if is_symbolic_dim(count) else float(count))
    return asarray(out, out_dt) if get_aval(out).dtype != out_dt else out


def _arg_reduce(
    name: str,
    reducer: Callable[[Any, int], Any],
    a: ArrayLike,
    axis: int | None,
    keepdims: bool,
) -> Array:
    v = operand(a)
    aval = get_aval(v)
    if axis is None:
        if aval.size == 0:
            raise ValueError(f"{name}: attempt to get {name} of an empty sequence")
        out = reducer(ravel(v), 0)
        return reshape(out, (1,) * aval.ndim) if keepdims else out
    (ax,) = normalize_axes(axis, aval.ndim, name)
    if aval.shape[ax] == 0:
        raise ValueError(f"{name}: attempt to get {name} of an empty sequence")
    out = reducer(as_result(v), ax)
    result: Array = lax.expand_dims(out, (ax,)) if keepdims else out
    return result


def argmax(a: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index (the default int) of the first maximum along ``axis``, or in the flattened array."""
    return _arg_reduce("argmax", lax.argmax, a, axis, keepdims)


def argmin(a: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index (the default int) of the first minimum along ``axis``, or in the flattened array."""
    return _arg_reduce("argmin", lax.argmin, a, axis, keepdims)


def cumsum(a: ArrayLike, axis: int | None = None, dtype: DTypeLike = None) -> Array:
    """Inclusive cumulative sum along ``axis`` (of the flattened array by default).

    >>> cumsum(np.array([[1, 2], [3, 4]]), axis=1)
    Array([[1, 3],
           [3, 7]], dtype=int32)
    """
    v = operand(a)
    if axis is None:
        v, axis = ravel(v), 0
    aval = get_aval(v)
    # JAX accumulates integers in their own dtype here (booleans in the default int).
    dt = dtype_arg(dtype) or (dtypes.default_int() if dtypes.is_bool(aval.dtype) else aval.dtype)
    (ax,) = normalize_axes(axis, aval.ndim, "cumsum")
    out: Array = lax.cumsum(as_result(astype(v, dt)), ax)
    return out
