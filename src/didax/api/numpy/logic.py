"""Logic functions: comparing whole arrays, choosing among arrays, testing for complex types.

As ``jax.numpy``'s (NumPy's "logic functions" section, less the
element-wise ones, which are in ``elementwise``): ``isclose``,
``allclose``, ``array_equal`` and ``array_equiv`` compare in the promoted
dtype, infinities equal only to themselves and NaNs to nothing unless
``equal_nan``; ``select`` and ``piecewise`` choose among arrays with
``where``, the first true condition winning; ``iscomplexobj`` and
``isrealobj`` answer from the dtype, ``iscomplex`` and ``isreal``
element-wise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import (
    abs,
    add,
    equal,
    logical_and,
    logical_not,
    logical_or,
    multiply,
    not_equal,
    subtract,
    where,
)
from didax.api.numpy.operands import as_result, astype, broadcast_shapes, operand, promote
from didax.api.numpy.statistics import all
from didax.core import dtypes, lax
from didax.core.values import get_aval

__all__ = [
    "isclose",
    "allclose",
    "array_equal",
    "array_equiv",
    "select",
    "piecewise",
    "iscomplexobj",
    "iscomplex",
    "isreal",
    "isrealobj",
]


def _isinf(v: ArrayLike) -> Array:
    return equal(abs(v), float("inf"))


def _isnan(v: ArrayLike) -> Array:
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
    out: Array = lax.full_like(v, 0)
    for cond, f in zip(conds, funclist, strict=True):
        out = where(cond, astype(operand(value(f)), get_aval(v).dtype), out)
    return as_result(out)


def _any_of(conds: Sequence[ArrayLike]) -> Array:
    out: Array = as_result(operand(conds[0]))
    for c in conds[1:]:
        out = logical_or(out, c)
    return out


# --- positions of nonzero elements ---------------------------------------------


# --- polynomials, convolution, gradient --------------------------------------------


# --- complex numbers ------------------------------------------------------------------


def iscomplexobj(x: Any) -> bool:
    """Whether ``x`` has a complex dtype."""
    if x is None:
        return False
    try:
        return dtypes.is_complex(get_aval(x).dtype)
    except TypeError:
        return bool(np.iscomplexobj(x))


def isrealobj(x: object) -> bool:
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
