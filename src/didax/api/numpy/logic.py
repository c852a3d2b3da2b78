"""Logic, searching, polynomials, convolutions, differences and real-array complex functions.

As ``jax.numpy``'s: comparisons of whole arrays (``isclose``, ``allclose``,
``array_equal``), choosing among arrays (``select``, ``piecewise``), the
positions of nonzero elements (on concrete values, or with a static
``size`` under ``jit``), ``polyval``, 1-d ``convolve``/``correlate``,
``gradient``, and ``real``/``imag``/``conj``/``angle`` on real arrays
(complex numbers have not landed).
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from didax.api.numpy.elementwise import (
    abs,
    add,
    divide,
    equal,
    logical_and,
    logical_not,
    logical_or,
    multiply,
    not_equal,
    subtract,
    where,
)
from didax.api.numpy.indexing import take
from didax.api.numpy.linear_algebra import _promote_no_broadcast, dot
from didax.api.numpy.manipulation import concatenate, ravel, stack
from didax.api.numpy.operands import (
    Array,
    ArrayLike,
    as_result,
    astype,
    broadcast_shapes,
    contains_tracer,
    normalize_axes,
    operand,
    promote,
)
from didax.api.numpy.reductions import sum
from didax.api.numpy.statistics import all
from didax.core import dtypes, lax
from didax.core.errors import ConcretizationTypeError
from didax.core.trace import Tracer
from didax.core.values import as_array, get_aval, wrap_host

__all__ = [
    "isclose",
    "allclose",
    "array_equal",
    "array_equiv",
    "select",
    "piecewise",
    "nonzero",
    "flatnonzero",
    "argwhere",
    "polyval",
    "convolve",
    "correlate",
    "gradient",
    "real",
    "imag",
    "conj",
    "conjugate",
    "angle",
    "iscomplexobj",
    "iscomplex",
    "isreal",
    "isrealobj",
    "searchsorted",
    "unique",
    "histogram",
    "histogram_bin_edges",
]


def _isinf(v: Any) -> Any:
    return equal(abs(v), float("inf"))


def _isnan(v: Any) -> Any:
    return not_equal(v, v)


def isclose(
    a: ArrayLike, b: ArrayLike, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Array:
    """Element-wise ``|a - b| <= atol + rtol * |b|``, with infinities equal only to themselves.

    >>> isclose(np.array([1.0, np.inf, np.nan]), np.array([1.0 + 1e-9, np.inf, np.nan]))
    Array([ True,  True, False], dtype=bool)
    """
    (x, y), dt, _ = promote("isclose", a, b)
    if not dtypes.is_float(dt):
        return equal(x, y)
    out = lax.le(abs(subtract(x, y)), add(atol, multiply(rtol, abs(y))))
    x_inf, y_inf = _isinf(x), _isinf(y)
    out = logical_and(out, logical_not(logical_or(x_inf, y_inf)))
    out = logical_or(out, logical_and(logical_and(x_inf, y_inf), equal(x, y)))
    x_nan, y_nan = _isnan(x), _isnan(y)
    out = logical_and(out, logical_not(logical_or(x_nan, y_nan)))
    if equal_nan:
        out = logical_or(out, logical_and(x_nan, y_nan))
    return as_result(out)


def allclose(
    a: ArrayLike, b: ArrayLike, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Array:
    """Whether every element of ``a`` is close to ``b`` (``isclose``)."""
    return all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1: ArrayLike, a2: ArrayLike, equal_nan: bool = False) -> Array:
    """Whether ``a1`` and ``a2`` have the same shape and elements."""
    x, y = operand(a1), operand(a2)
    if get_aval(x).shape != get_aval(y).shape:
        return as_result(lax.full((), False, dtypes.bool_))
    eq = equal(x, y)
    if equal_nan:
        eq = logical_or(eq, logical_and(_isnan(x), _isnan(y)))
    return all(eq)


def array_equiv(a1: ArrayLike, a2: ArrayLike) -> Array:
    """Whether ``a1`` and ``a2`` are equal after broadcasting (False if they cannot broadcast)."""
    x, y = operand(a1), operand(a2)
    try:
        broadcast_shapes("array_equiv", get_aval(x).shape, get_aval(y).shape)
    except ValueError:
        return as_result(lax.full((), False, dtypes.bool_))
    return all(equal(x, y))


def select(
    condlist: Sequence[ArrayLike], choicelist: Sequence[ArrayLike], default: ArrayLike = 0
) -> Array:
    """The element of the first choice whose condition holds, else ``default``.

    >>> select([np.array([True, False, False]), np.array([True, True, False])],
    ...        [np.array([1, 2, 3]), np.array([10, 20, 30])], default=-1)
    Array([ 1, 20, -1], dtype=int32)
    """
    if len(condlist) != len(choicelist):
        raise ValueError("select: condlist and choicelist must have the same length")
    if not condlist:
        raise ValueError("select: condlist must not be empty")
    out = operand(default)
    for cond, choice in reversed(list(zip(condlist, choicelist, strict=True))):
        c = operand(cond)
        if get_aval(c).dtype != dtypes.bool_:
            raise TypeError(f"select: condlist entries must be boolean, got {get_aval(c).dtype}")
        out = where(c, choice, out)
    return as_result(out)


def piecewise(x: ArrayLike, condlist: Any, funclist: Sequence[Any], *args: Any, **kw: Any) -> Array:
    """``funclist[i](x)`` where ``condlist[i]`` holds (the last true one wins, as NumPy's).

    An extra last function (or value) is used where no condition holds;
    otherwise those elements are zero.
    """
    v = as_result(operand(x))
    conds = list(condlist) if isinstance(condlist, (list, tuple)) else [condlist]
    n = len(conds)
    if len(funclist) not in (n, n + 1):
        raise ValueError(
            f"piecewise: with {n} condition(s), funclist must have {n} or {n + 1} entries, "
            f"got {len(funclist)}"
        )

    def value(f: Any) -> Any:
        return f(v, *args, **kw) if callable(f) else f

    if len(funclist) == n + 1:
        none = logical_not(_any_of(conds)) if n else lax.full(get_aval(v).shape, True, dtypes.bool_)
        conds = [*conds, none]
    out: Any = lax.full_like(v, 0)
    for cond, f in zip(conds, funclist, strict=True):
        out = where(cond, astype(operand(value(f)), get_aval(v).dtype), out)
    return as_result(out)


def _any_of(conds: Sequence[Any]) -> Any:
    out = operand(conds[0])
    for c in conds[1:]:
        out = logical_or(out, c)
    return out


# --- positions of nonzero elements ---------------------------------------------


def _concrete_host(name: str, a: ArrayLike) -> np.ndarray[Any, Any]:
    if isinstance(a, Tracer) or contains_tracer(a):
        raise ConcretizationTypeError(
            f"{name}: the result's shape depends on the values, which are not known under "
            "a transformation; pass size= (a static bound) to use it under jit"
        )
    return as_array(operand(a))


def nonzero(a: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> tuple[Array, ...]:
    """The indices of the nonzero elements, one array per axis.

    The result's length depends on the values, so ``a`` must be concrete,
    unless ``size`` fixes it: then the first ``size`` positions are
    returned, padded with ``fill_value`` (default 0), under ``jit`` too.

    >>> nonzero(np.array([0, 3, 0, 5]))
    (Array([1, 3], dtype=int32),)
    """
    if size is None:
        host = _concrete_host("nonzero", a)
        if host.ndim == 0:
            raise ValueError("nonzero: calling nonzero on 0d arrays is not allowed")
        return tuple(wrap_host(np.asarray(i, dtypes.default_int())) for i in np.nonzero(host))
    return _nonzero_sized(a, operator.index(size), fill_value)


def _nonzero_sized(a: ArrayLike, size: int, fill_value: Any) -> tuple[Array, ...]:
    v = as_result(operand(a))
    aval = get_aval(v)
    if aval.ndim == 0:
        raise ValueError("nonzero: calling nonzero on 0d arrays is not allowed")
    mask = ravel(not_equal(v, lax.full_like(v, 0)) if aval.dtype != dtypes.bool_ else v)
    n = aval.size
    int_t = dtypes.default_int()
    # slot[i]: which output position element i fills (its rank among the nonzeros).
    slot = lax.sub(lax.cumsum(lax.convert_element_type(mask, int_t), 0), lax.full((n,), 1, int_t))
    hits = logical_and(
        lax.broadcast_in_dim(mask, (size, n), (1,)),
        equal(
            lax.broadcast_in_dim(slot, (size, n), (1,)),
            lax.broadcast_in_dim(lax.iota(int_t, size), (size, n), (0,)),
        ),
    )
    found = lax.reduce_max(hits, (1,))
    flat_index = sum(
        where(hits, lax.broadcast_in_dim(lax.iota(int_t, n), (size, n), (1,)), 0), axis=1
    )
    fills = (
        (0,) * aval.ndim
        if fill_value is None
        else tuple(np.broadcast_to(np.asarray(fill_value), (aval.ndim,)).tolist())
    )
    out = []
    stride = n
    for axis, dim in enumerate(aval.shape):
        stride //= builtins.max(dim, 1)
        coord = lax.rem(
            lax.div(flat_index, lax.full_like(flat_index, builtins.max(stride, 1))),
            lax.full_like(flat_index, builtins.max(dim, 1)),
        )
        out.append(as_result(where(found, coord, lax.full_like(coord, fills[axis]))))
    return tuple(out)


def flatnonzero(a: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> Array:
    """The indices of the nonzero elements of the flattened ``a``."""
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> Array:
    """The indices of the nonzero elements, one row per element."""
    v = operand(a)
    if get_aval(v).ndim == 0:
        v = lax.broadcast_in_dim(as_result(v), (1,), ())
    idx = nonzero(v, size=size, fill_value=fill_value)
    return stack(idx, axis=1) if idx else as_result(lax.full((0, 0), 0, dtypes.default_int()))


# --- polynomials, convolution, gradient --------------------------------------------


def polyval(p: ArrayLike, x: ArrayLike) -> Array:
    """The polynomial with coefficients ``p`` (highest power first) at ``x`` (Horner's rule).

    >>> polyval(np.array([1.0, 0.0, -1.0]), np.array([2.0, 3.0]))
    Array([3., 8.], dtype=float32)
    """
    coeffs = as_result(operand(p))
    n = get_aval(coeffs).shape[0] if get_aval(coeffs).ndim else 1
    xv = operand(x)
    (coeffs, xv), _ = _promote_no_broadcast("polyval", coeffs, xv)
    out: Any = lax.full_like(xv, 0)
    for i in range(n):
        ci = lax.reshape(lax.slice(coeffs, (i,), (i + 1,)), ())
        out = add(multiply(out, xv), ci)
    return as_result(out)


def _correlate_full(a: Any, v: Any, precision: Any = None, preferred: Any = None) -> Any:
    """``out[k] = sum_j a[k + j - (m - 1)] * v[j]`` for the full length ``n + m - 1``."""
    n, m = get_aval(a).shape[0], get_aval(v).shape[0]
    zero = lax.full((), 0, get_aval(a).dtype)
    padded = lax.pad(a, zero, [(m - 1, m - 1, 0)])
    length = n + m - 1
    # Column j holds the window of a that meets v[j]: one slice per kernel tap.
    windows = stack([lax.slice(padded, (j,), (j + length,)) for j in range(m)], axis=1)
    return dot(windows, v, precision=precision, preferred_element_type=preferred)


def _one_d(name: str, x: ArrayLike) -> Any:
    v = as_result(operand(x))
    if get_aval(v).ndim != 1:
        raise ValueError(f"{name}() only support 1-dimensional inputs.")
    if get_aval(v).shape[0] == 0:
        raise ValueError(f"{name}: inputs cannot be empty")
    return v


def _crop(name: str, full: Any, n: int, m: int, mode: str) -> Array:
    length = n + m - 1
    if mode == "full":
        return as_result(full)
    if mode == "same":
        size = builtins.max(n, m)
        start = (length - size) // 2
        return lax.slice(full, (start,), (start + size,))
    if mode == "valid":
        size = builtins.max(n, m) - builtins.min(n, m) + 1
        start = builtins.min(n, m) - 1
        return lax.slice(full, (start,), (start + size,))
    raise ValueError(f"{name}: mode must be one of 'full', 'same', 'valid', got {mode!r}")


def correlate(
    a: ArrayLike,
    v: ArrayLike,
    mode: str = "valid",
    *,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Array:
    """The cross-correlation of two 1-d sequences (``mode`` full, same or valid).

    ``precision`` and ``preferred_element_type`` are those of its products
    (a ``dot``), as JAX's are those of its convolution.
    """
    (x, y), _ = _promote_no_broadcast("correlate", _one_d("correlate", a), _one_d("correlate", v))
    n, m = get_aval(x).shape[0], get_aval(y).shape[0]
    p, t = precision, preferred_element_type
    # NumPy's rule for a longer second sequence: swap them, reverse the result.
    full = _correlate_full(x, y, p, t) if n >= m else lax.rev(_correlate_full(y, x, p, t), (0,))
    return _crop("correlate", full, n, m, mode)


def convolve(
    a: ArrayLike,
    v: ArrayLike,
    mode: str = "full",
    *,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Array:
    """The discrete linear convolution of two 1-d sequences (``mode`` full, same or valid).

    ``precision`` and ``preferred_element_type`` as ``correlate``'s.

    >>> convolve(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]))
    Array([0. , 1. , 2.5, 4. , 1.5], dtype=float32)
    """
    (x, y), _ = _promote_no_broadcast("convolve", _one_d("convolve", a), _one_d("convolve", v))
    n, m = get_aval(x).shape[0], get_aval(y).shape[0]
    p, t = precision, preferred_element_type
    full = (
        _correlate_full(x, lax.rev(y, (0,)), p, t)
        if n >= m
        else _correlate_full(y, lax.rev(x, (0,)), p, t)
    )
    return _crop("convolve", full, n, m, mode)


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


# --- complex numbers ------------------------------------------------------------------


def real(val: ArrayLike) -> Array:
    """The real part (a real array itself).

    >>> real(np.array([1 + 2j]))
    Array([1.], dtype=float32)
    """
    v = operand(val)
    return as_result(lax.real(v) if dtypes.is_complex(get_aval(v).dtype) else v)


def imag(val: ArrayLike) -> Array:
    """The imaginary part (zeros for a real array).

    >>> imag(np.array([1 + 2j]))
    Array([2.], dtype=float32)
    """
    v = operand(val)
    if dtypes.is_complex(get_aval(v).dtype):
        return as_result(lax.imag(v))
    return as_result(lax.full_like(as_result(v), 0))


def conj(x: ArrayLike) -> Array:
    """The complex conjugate (a real array itself, as NumPy's).

    >>> conj(np.array([1 + 2j]))
    Array([1.-2.j], dtype=complex64)
    """
    v = operand(x)
    return as_result(lax.conj(v) if dtypes.is_complex(get_aval(v).dtype) else v)


conjugate = conj


def angle(z: ArrayLike, deg: bool = False) -> Array:
    """The argument of ``z``, ``atan2(imag, real)``, in radians or degrees.

    >>> angle(np.array([1j, -1.0]))
    Array([1.5707964, 3.1415927], dtype=float32)
    """
    v = operand(z)
    dtype = get_aval(v).dtype
    if dtypes.is_complex(dtype):
        re, im = lax.real(v), lax.imag(v)
    else:
        re = astype(v, dtypes.to_inexact(dtype))
        im = lax.full_like(as_result(re), 0)
    out = lax.atan2(im, re)
    return as_result(lax.mul(out, 180.0 / np.pi) if deg else out)


def iscomplexobj(x: Any) -> bool:
    """Whether ``x`` has a complex dtype."""
    if x is None:
        return False
    try:
        return dtypes.is_complex(get_aval(x).dtype)
    except TypeError:
        return bool(np.iscomplexobj(x))


def isrealobj(x: Any) -> bool:
    """Whether ``x`` does not have a complex dtype."""
    return not iscomplexobj(x)


def iscomplex(x: ArrayLike) -> Array:
    """Element-wise: whether the imaginary part is nonzero (False for real arrays).

    >>> iscomplex(np.array([1 + 1j, 1 + 0j]))
    Array([ True, False], dtype=bool)
    """
    v = operand(x)
    if not dtypes.is_complex(get_aval(v).dtype):
        return as_result(lax.full(get_aval(v).shape, False, dtypes.bool_))
    return as_result(lax.ne(lax.imag(v), 0.0))


def isreal(x: ArrayLike) -> Array:
    """Element-wise: whether the imaginary part is zero (True for real arrays)."""
    return as_result(lax.not_(iscomplex(x)))


# --- sorted search, unique values, histograms ------------------------------------------


def searchsorted(
    a: ArrayLike, v: ArrayLike, side: str = "left", sorter: Any = None, *, method: str = "scan"
) -> Array:
    """Where each ``v`` would be inserted into the sorted 1-d ``a`` to keep it sorted.

    Computed as JAX's ``method="compare_all"``: the number of elements of
    ``a`` below (``side="left"``) or not above (``"right"``) each value, one
    comparison per pair; every ``method`` gives the same result.

    >>> searchsorted(np.array([1.0, 2.0, 2.0, 5.0]), np.array([2.0, 0.0, 9.0]))
    Array([1, 0, 4], dtype=int32)
    """
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if method not in ("scan", "scan_unrolled", "sort", "compare_all"):
        raise ValueError(f"searchsorted: unknown method {method!r}")
    if sorter is not None:
        a = take(a, sorter)
    (x, y), _, _ = _promote_pair("searchsorted", a, v)
    if get_aval(x).ndim != 1:
        raise ValueError("searchsorted: a must be one-dimensional")
    n = get_aval(x).shape[0]
    shape = get_aval(y).shape
    flat = ravel(y)
    m = get_aval(flat).shape[0]
    grid_a = lax.broadcast_in_dim(x, (m, n), (1,))
    grid_v = lax.broadcast_in_dim(flat, (m, n), (0,))
    below = _total_lt(grid_a, grid_v) if side == "left" else _total_le(grid_a, grid_v)
    # JAX's index dtype here: int32 unless a is too long for it.
    index_t = dtypes.int32 if n < 2**31 else dtypes.default_int()
    counts = sum(below, axis=1, dtype=index_t)
    return as_result(lax.reshape(counts, shape)) if shape != (m,) else counts


def _total_lt(a: Any, b: Any) -> Any:
    """``a < b`` in the sort's total order (NaNs last and equal, as JAX's comparators)."""
    if not dtypes.is_float(get_aval(a).dtype):
        return lax.lt(a, b)
    return lax.or_(lax.lt(a, b), lax.and_(lax.eq(a, a), lax.ne(b, b)))


def _total_le(a: Any, b: Any) -> Any:
    """``a <= b`` in the sort's total order."""
    if not dtypes.is_float(get_aval(a).dtype):
        return lax.le(a, b)
    return lax.or_(lax.le(a, b), lax.ne(b, b))


def _promote_pair(name: str, a: ArrayLike, v: ArrayLike) -> tuple[list[Any], Any, bool]:
    x, y = operand(a), operand(v)
    dt, weak = result_type_of(x, y)
    return [as_result(astype(x, dt)), as_result(astype(y, dt))], dt, weak


def result_type_of(*values: Any) -> tuple[Any, bool]:
    from didax.core.promotion import result_type

    return result_type(*values)


def unique(
    ar: ArrayLike,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """The sorted unique elements (of a concrete array: the count depends on the values).

    With ``size``, the first ``size`` unique values padded with
    ``fill_value`` (default: the smallest), still on a concrete array.
    """
    host = _concrete_host("unique", ar)
    if axis is not None:
        raise NotImplementedError("unique: axis= is not supported")
    values, index, inverse, counts = np.unique(
        host, return_index=True, return_inverse=True, return_counts=True
    )
    int_t = dtypes.default_int()
    if size is not None:
        size = operator.index(size)
        pad = size - len(values)
        fill = values[0] if fill_value is None and len(values) else fill_value
        if pad > 0:
            values = np.concatenate([values, np.full(pad, fill, values.dtype)])
            index = np.concatenate([index, np.zeros(pad, index.dtype)])
            counts = np.concatenate([counts, np.zeros(pad, counts.dtype)])
        values, index, counts = values[:size], index[:size], counts[:size]
    outs: list[Array] = [wrap_host(as_array(values))]
    if return_index:
        outs.append(wrap_host(index.astype(int_t)))
    if return_inverse:
        outs.append(wrap_host(inverse.reshape(host.shape).astype(int_t)))
    if return_counts:
        outs.append(wrap_host(counts.astype(int_t)))
    return outs[0] if len(outs) == 1 else tuple(outs)


def histogram_bin_edges(a: ArrayLike, bins: Any = 10, range: Any = None) -> Array:
    """The edges of ``bins`` equal bins over ``range`` (default: the data's min and max)."""
    from didax.api.numpy.reductions import max as amax
    from didax.api.numpy.reductions import min as amin

    if not isinstance(bins, (int, np.integer)):
        return (
            as_result(operand(bins))
            if not isinstance(bins, (list, tuple))
            else wrap_host(as_array(np.asarray(bins, dtypes.default_float())))
        )
    x = ravel(a)
    x = astype(x, dtypes.to_inexact(get_aval(x).dtype))
    if range is None:
        lo, hi = amin(x), amax(x)
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
