"""More of ``jax.numpy``: the Array API's names, rounding and integer arithmetic, NaN-ignoring
positions and scans, spaced numbers, broadcasting helpers, and dtype queries.

Design rules:
- Each function is ``jax.numpy``'s formula over functions didax already
  has (so values, dtypes, weak types and derivatives follow by
  composition); aliases (``acos`` for ``arccos``, ``amax`` for ``max``,
  ``concat`` for ``concatenate``, ...) are the same function objects.
- Shapes and lengths that decide an output's shape are static, as in JAX.
- dtype queries (``iinfo``, ``finfo``, ``issubdtype``, ``promote_types``,
  ``result_type``, ``can_cast``) answer with JAX's lattice (``core.dtypes``).
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any, Unpack

import ml_dtypes
import numpy as np

from didax.api.control_flow import while_loop
from didax.api.numpy.array_types import Array, ArrayLike, Axis, DotOptions
from didax.api.numpy.creation import linspace
from didax.api.numpy.elementwise import abs as _abs
from didax.api.numpy.elementwise import (
    ceil,
    exp,
    floor,
    floor_divide,
    log,
    power,
    remainder,
    sign,
    where,
)
from didax.api.numpy.elementwise import round as _round
from didax.api.numpy.linear_algebra import matmul
from didax.api.numpy.manipulation import (
    broadcast_to,
    concatenate,
    moveaxis,
    swapaxes,
    transpose,
)
from didax.api.numpy.more_elementwise import (
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    isnan,
)
from didax.api.numpy.operands import as_result, dtype_arg, named, operand, promote
from didax.api.numpy.operands import (
    broadcast_shapes as _broadcast_shapes,
)
from didax.api.numpy.reductions import argmax, argmin, cumsum, max, min, sum
from didax.api.numpy.statistics import all as _all
from didax.api.numpy.statistics import any, cumprod
from didax.core import dtypes, lax
from didax.core.dtypes import DTypeLike
from didax.core.lax.elementwise import ROUND_TO_NEAREST_EVEN
from didax.core.promotion import result_type as _result_type
from didax.core.values import get_aval

__all__ = [
    # the Array API's names
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "pow",
    "concat",
    "permute_dims",
    "matrix_transpose",
    "amax",
    "amin",
    "around",
    "positive",
    "cumulative_sum",
    "cumulative_prod",
    "unstack",
    "vecdot",
    "matvec",
    "vecmat",
    # rounding and integer arithmetic
    "rint",
    "trunc",
    "logical_xor",
    "fmod",
    "divmod",
    "modf",
    "float_power",
    "gcd",
    "lcm",
    "ptp",
    # NaN-ignoring positions and scans
    "nanargmax",
    "nanargmin",
    "nancumsum",
    "nancumprod",
    # index arithmetic, counting and binning
    "logspace",
    "geomspace",
    "trapezoid",
    "broadcast_arrays",
    "broadcast_shapes",
    # queries
    "ndim",
    "shape",
    "size",
    "isscalar",
    "iinfo",
    "finfo",
    "issubdtype",
    "promote_types",
    "result_type",
    "can_cast",
]


# --- the Array API's names --------------------------------------------------------------

acos = arccos
acosh = arccosh
asin = arcsin
asinh = arcsinh
atan = arctan
atan2 = arctan2
atanh = arctanh
pow = power
concat = concatenate
permute_dims = transpose
amax = max
amin = min


around = _round


def positive(x: ArrayLike) -> Array:
    """``+x``: the value itself, of its (numeric) dtype.

    >>> positive(np.array([-1, 2]))
    Array([-1,  2], dtype=int32)
    """
    (v,), _, _ = promote("positive", x)
    return as_result(v)


def matrix_transpose(x: ArrayLike) -> Array:
    """The last two axes swapped (a stack of matrices transposed)."""
    v = as_result(operand(x))
    if get_aval(v).ndim < 2:
        raise ValueError(f"matrix_transpose: x must be at least 2-dimensional, got {v.ndim}-d")
    return swapaxes(v, -1, -2)


def _cumulative_function(name: str, scan: Callable[..., Array], doc: str) -> Callable[..., Array]:
    """The Array API's ``name``: ``scan`` (``cumsum`` or ``cumprod``) along one axis."""
    identity = 0 if scan is cumsum else 1

    def function(
        x: ArrayLike,
        /,
        *,
        axis: int | None = None,
        dtype: DTypeLike = None,
        include_initial: bool = False,
    ) -> Array:
        v = as_result(operand(x))
        ndim = get_aval(v).ndim
        if axis is None:
            if ndim > 1:
                raise ValueError(f"{name}: the axis must be given for an array of rank {ndim}")
            axis = 0
        if ndim == 0:
            raise ValueError(f"{name}: the input must be at least 1-dimensional")
        out = scan(v, axis=axis, dtype=dtype)
        if include_initial:
            shape = list(get_aval(out).shape)
            shape[axis % ndim] = 1
            first = lax.full(tuple(shape), identity, get_aval(out).dtype)
            out = concatenate([first, out], axis=axis)
        return out

    return named(function, name, doc)


cumulative_sum = _cumulative_function(
    "cumulative_sum",
    cumsum,
    "Running sums along ``axis`` (the Array API's ``cumsum``), optionally starting at 0.",
)
cumulative_prod = _cumulative_function(
    "cumulative_prod", cumprod, "Running products along ``axis``, optionally starting at 1."
)


def unstack(x: ArrayLike, /, *, axis: int = 0) -> tuple[Array, ...]:
    """The slices of ``x`` along ``axis``, as a tuple."""
    v = moveaxis(as_result(operand(x)), axis, 0)
    return tuple(v[i] for i in range(get_aval(v).shape[0]))


def vecdot(
    x1: ArrayLike,
    x2: ArrayLike,
    /,
    *,
    axis: int = -1,
    **options: Unpack[DotOptions],
) -> Array:
    """The dot products of vectors along ``axis`` (broadcast over the others), ``x1`` conjugated.

    >>> vecdot(np.array([1j, 2.0]), np.array([1j, 1.0]))
    Array(3.+0.j, dtype=complex64)
    """
    (a, b), _, _ = promote("vecdot", x1, x2)
    a, b = moveaxis(as_result(a), axis, -1), moveaxis(as_result(b), axis, -1)
    if dtypes.is_complex(get_aval(a).dtype):
        a = lax.conj(a)  # (as JAX's, which is vdot's vectorized)
    out = matmul(a[..., None, :], b[..., :, None], **options)
    return out[..., 0, 0]


def matvec(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Matrix-vector products, broadcast over leading axes."""
    return matmul(x1, as_result(operand(x2))[..., None])[..., 0]


def vecmat(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Vector-matrix products, broadcast over leading axes."""
    return matmul(as_result(operand(x1))[..., None, :], x2)[..., 0, :]


# --- rounding and integer arithmetic ----------------------------------------------------


def rint(x: ArrayLike) -> Array:
    """Round to the nearest integer, halves to even; integers become the default float.

    >>> rint(np.array([0.5, 1.5, -2.5]))
    Array([ 0.,  2., -2.], dtype=float32)
    """
    v = operand(x)
    dt = get_aval(v).dtype
    if not dtypes.is_float(dt):
        return as_result(lax.convert_element_type(v, dtypes.default_float()))
    return as_result(lax.round(v, ROUND_TO_NEAREST_EVEN))


def trunc(x: ArrayLike) -> Array:
    """Round towards zero (integers and booleans unchanged)."""
    v = as_result(operand(x))
    if not dtypes.is_float(get_aval(v).dtype):
        return v
    return where(v < 0, ceil(v), floor(v))


def logical_xor(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise exclusive or of the truth values."""
    (a, b), _, _ = promote("logical_xor", x1, x2)
    zero_a = lax.full_like(a, 0)
    ta = a if get_aval(a).dtype == dtypes.bool_ else lax.ne(a, zero_a)
    tb = b if get_aval(b).dtype == dtypes.bool_ else lax.ne(b, lax.full_like(b, 0))
    return as_result(lax.bitwise_xor(ta, tb))


def fmod(x1: ArrayLike, x2: ArrayLike) -> Array:
    """The C remainder, with the sign of ``x1`` (``lax.rem``), as JAX's."""
    (a, b), dt, _ = promote("fmod", x1, x2)
    if dtypes.is_bool(dt):
        raise TypeError("fmod: not supported for boolean operands")
    if dtypes.is_integer(dt):
        b = lax.select(lax.eq(b, lax.full_like(b, 0)), lax.full_like(b, 1), b)
    return as_result(lax.rem(a, b))


def divmod(x1: ArrayLike, x2: ArrayLike) -> tuple[Array, Array]:
    """``(floor_divide(x1, x2), remainder(x1, x2))``."""
    return floor_divide(x1, x2), remainder(x1, x2)


def modf(x: ArrayLike) -> tuple[Array, Array]:
    """The fractional and integral parts, both with ``x``'s sign."""
    (v,), _, _ = promote("modf", x, inexact=True)
    v = as_result(v)
    whole = where(v >= 0, floor(v), ceil(v))
    return v - whole, whole


def float_power(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``x1 ** x2`` computed in floating point."""
    (a, b), _, _ = promote("float_power", x1, x2, inexact=True)
    return as_result(lax.pow(a, b))


def _integers(name: str, x1: ArrayLike, x2: ArrayLike) -> tuple[Array, Array]:
    (a, b), dt, _ = promote(name, x1, x2)
    if not dtypes.is_integer(dt):
        raise ValueError(f"Arguments to {name} must be integers.")
    return _abs(a), _abs(b)


def gcd(x1: ArrayLike, x2: ArrayLike) -> Array:
    """The greatest common divisor (Euclid's algorithm in a ``while_loop``, as JAX's).

    >>> gcd(np.array([12, 7, 0]), 18)
    Array([ 6,  1, 18], dtype=int32)
    """
    a, b = _integers("gcd", x1, x2)

    def body(c: tuple[Any, Any]) -> tuple[Any, Any]:
        x, y = c
        nonzero = y != 0
        safe = where(nonzero, y, 1)
        return where(nonzero, y, x), where(nonzero, remainder(x, safe), 0)

    out, _ = while_loop(lambda c: any(c[1] != 0), body, (a, b))
    return as_result(out)


def lcm(x1: ArrayLike, x2: ArrayLike) -> Array:
    """The least common multiple (0 when either is 0)."""
    a, b = _integers("lcm", x1, x2)
    d = gcd(a, b)
    return where(d == 0, 0, a * floor_divide(b, where(d == 0, 1, d)))


def ptp(a: ArrayLike, axis: Axis = None, out: object = None, keepdims: bool = False) -> Array:
    """The range (maximum minus minimum) along ``axis``."""
    if out is not None:
        raise NotImplementedError("ptp: the 'out' argument is not supported")
    return max(a, axis, keepdims) - min(a, axis, keepdims)


# --- NaN-ignoring positions and scans -------------------------------------------------


def _nan_arg(
    name: str,
    pick: Callable[..., Array],
    fill: float,
    a: ArrayLike,
    axis: int | None,
    keepdims: bool,
) -> Array:
    v = as_result(operand(a))
    if not dtypes.is_float(get_aval(v).dtype):
        return as_result(pick(v, axis, keepdims))
    nans = isnan(v)
    out = pick(where(nans, fill, v), axis, keepdims)
    return where(_all(nans, axis=axis, keepdims=keepdims), -1, out)


def nanargmax(
    a: ArrayLike, axis: int | None = None, out: object = None, keepdims: bool = False
) -> Array:
    """``argmax`` ignoring NaNs (-1 where a slice is all NaN, as JAX's)."""
    if out is not None:
        raise NotImplementedError("nanargmax: the 'out' argument is not supported")
    return _nan_arg("nanargmax", argmax, -np.inf, a, axis, keepdims)


def nanargmin(
    a: ArrayLike, axis: int | None = None, out: object = None, keepdims: bool = False
) -> Array:
    """``argmin`` ignoring NaNs (-1 where a slice is all NaN, as JAX's)."""
    if out is not None:
        raise NotImplementedError("nanargmin: the 'out' argument is not supported")
    return _nan_arg("nanargmin", argmin, np.inf, a, axis, keepdims)


def nancumsum(a: ArrayLike, axis: int | None = None, dtype: DTypeLike = None) -> Array:
    """``cumsum`` with NaNs counted as 0."""
    v = as_result(operand(a))
    return cumsum(where(isnan(v), 0, v) if dtypes.is_float(v.dtype) else v, axis, dtype)


def nancumprod(a: ArrayLike, axis: int | None = None, dtype: DTypeLike = None) -> Array:
    """``cumprod`` with NaNs counted as 1."""
    v = as_result(operand(a))
    return cumprod(where(isnan(v), 1, v) if dtypes.is_float(v.dtype) else v, axis, dtype)


# --- index arithmetic, counting and binning --------------------------------------------


def logspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    base: ArrayLike = 10.0,
    dtype: DTypeLike = None,
    axis: int = 0,
) -> Array:
    """``base ** linspace(start, stop, num)``."""
    dt = dtype_arg(dtype)
    lin = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    out = power(base, lin)
    return out if dt is None else out.astype(dt)


def geomspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    dtype: DTypeLike = None,
    axis: int = 0,
) -> Array:
    """Numbers spaced evenly on a log scale from ``start`` to ``stop`` (same sign), as JAX's."""
    s, e = as_result(operand(start)), as_result(operand(stop))
    dt = dtype_arg(dtype)
    sgn = sign(s)
    lin = linspace(log(_abs(s)), log(_abs(e)), num, endpoint=endpoint, axis=axis)
    out = sgn * exp(lin)
    return out if dt is None else out.astype(dt)


def trapezoid(
    y: ArrayLike, x: ArrayLike | None = None, dx: ArrayLike = 1.0, axis: int = -1
) -> Array:
    """The integral of ``y`` along ``axis`` by the trapezoidal rule (at ``x``, or step ``dx``)."""
    yv = moveaxis(as_result(operand(y)), axis, -1)
    if x is None:
        d: Any = dx
    else:
        xv = as_result(operand(x))
        if xv.ndim == 1:
            d = xv[1:] - xv[:-1]
        else:
            xv = moveaxis(xv, axis, -1)
            d = xv[..., 1:] - xv[..., :-1]
    return 0.5 * sum(d * (yv[..., 1:] + yv[..., :-1]), axis=-1)


def broadcast_shapes(*shapes: Sequence[int] | int) -> tuple[int, ...]:
    """The shape that arrays of ``shapes`` broadcast to."""
    norm = [tuple(s) if isinstance(s, Sequence) else (operator.index(s),) for s in shapes]
    return _broadcast_shapes("broadcast_shapes", *norm)


def broadcast_arrays(*args: ArrayLike) -> list[Array]:
    """The arguments broadcast to their common shape."""
    values = [as_result(operand(a)) for a in args]
    target = _broadcast_shapes("broadcast_arrays", *(v.shape for v in values))
    return [v if v.shape == target else broadcast_to(v, target) for v in values]


# --- queries ------------------------------------------------------------------------------


def ndim(a: ArrayLike) -> int:
    """The number of axes of ``a``."""
    return get_aval(operand(a)).ndim


def shape(a: ArrayLike) -> tuple[int, ...]:
    """The shape of ``a``."""
    return get_aval(operand(a)).shape


def size(a: ArrayLike, axis: int | None = None) -> int:
    """The number of elements of ``a`` (along ``axis``)."""
    s = get_aval(operand(a)).shape
    return math.prod(s) if axis is None else s[axis]


def isscalar(element: Any) -> bool:
    """Whether ``element`` is a scalar: a Python or NumPy scalar, or a 0-d array, as JAX's."""
    if isinstance(element, int | float | bool | np.generic):
        return True
    try:
        return get_aval(operand(element)).ndim == 0
    except TypeError:
        return False


# ml_dtypes' iinfo (its type stubs omit it): NumPy's knows no int4.
_ml_iinfo: Callable[[np.dtype[Any]], Any] = vars(ml_dtypes)["iinfo"]


def iinfo(int_type: Any) -> Any:
    """NumPy's machine limits of an integer dtype (ml_dtypes' for int4 and the like)."""
    dtype = dtypes.canonicalize(np.dtype(dtype_arg(int_type)))
    return _ml_iinfo(dtype) if dtype in dtypes.NARROW else np.iinfo(dtype)


def finfo(dtype: DTypeLike) -> Any:
    """Machine limits of a float dtype (bfloat16 and float8 included, through ml_dtypes)."""
    raw = np.dtype(dtype)
    # The narrow floats didax's arrays do not take are still dtypes to describe (JAX's).
    return ml_dtypes.finfo(np.dtype(dtype_arg(dtype)) if raw in dtypes.SUPPORTED else raw)


def issubdtype(arg1: DTypeLike, arg2: DTypeLike) -> bool:
    """NumPy's ``issubdtype`` (bfloat16 is a floating type)."""
    d1 = (
        np.dtype(dtype_arg(arg1))
        if not (isinstance(arg1, type) and issubclass(arg1, np.generic))
        else arg1
    )
    if d1 == np.dtype(ml_dtypes.bfloat16) or d1 in dtypes.NARROW:
        # ml_dtypes' types are not NumPy's subclasses: their kind places them.
        d = np.dtype(d1)
        k = dtypes.kind(d)
        kinds = {"f": (np.floating, np.inexact), "i": (np.integer, np.signedinteger)}
        parents = kinds.get(k, (np.integer, np.unsignedinteger))
        if arg2 in (*parents, np.number, np.generic):
            return True
        if isinstance(arg2, type) and issubclass(arg2, np.generic) and arg2 is not d.type:
            return False  # another of NumPy's classes (abstract ones are no dtypes)
        return np.dtype(dtype_arg(arg2)) == d
    return builtins.bool(np.issubdtype(d1, arg2))


def promote_types(a: Any, b: Any) -> np.dtype[Any]:
    """The dtype two dtypes promote to on JAX's lattice.

    As JAX's, the dtypes are taken as they are, not canonicalized to the
    x64 mode (``float`` is float64, and a 64-bit dtype stays 64-bit).

    >>> promote_types(np.int32, np.float32)
    dtype('float32')
    >>> promote_types(np.complex64, np.float64)
    dtype('complex128')
    """
    return dtypes.promote_types(dtypes.as_dtype(a), dtypes.as_dtype(b))


def result_type(*args: Any) -> np.dtype[Any]:
    """The dtype ``args`` (values or dtypes) promote to, weak scalars included."""
    return _result_type(*args)[0]


def can_cast(from_: Any, to: DTypeLike, casting: str = "safe") -> bool:
    """NumPy's ``can_cast`` between dtypes."""
    src = from_ if isinstance(from_, np.dtype | type | str) else get_aval(operand(from_)).dtype
    return builtins.bool(np.can_cast(np.dtype(src), np.dtype(dtype_arg(to)), casting))  # type: ignore[arg-type]
