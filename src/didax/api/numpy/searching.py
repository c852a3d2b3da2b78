"""Searching and sets: the positions of nonzero elements, sorted search, unique values, membership.

As ``jax.numpy``'s: ``flatnonzero`` and ``argwhere`` (``nonzero`` of the
flattened array, or one row per element: see ``positions``),
``searchsorted`` (one comparison per pair, in the sort's total order, so
NaNs come last), ``unique`` (on concrete values: the count depends on
them, or padded to a static ``size``) and ``isin`` (all pairs compared).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import (
    logical_not,
)
from didax.api.numpy.indexing import take
from didax.api.numpy.manipulation import ravel, stack
from didax.api.numpy.operands import as_result, astype, operand
from didax.api.numpy.positions import concrete_host, nonzero
from didax.api.numpy.reductions import sum
from didax.api.numpy.statistics import any
from didax.core import dtypes, lax, values
from didax.core.promotion import result_type
from didax.core.values import as_array, get_aval, wrap_host

__all__ = [
    "flatnonzero",
    "argwhere",
    "searchsorted",
    "unique",
    "isin",
]


# --- positions of nonzero elements ---------------------------------------------------------


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


# --- sorted search -------------------------------------------------------------------------


def searchsorted(
    a: ArrayLike,
    v: ArrayLike,
    side: str = "left",
    sorter: ArrayLike | None = None,
    *,
    method: str = "scan",
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


def _total_lt(a: values.ArrayLike, b: values.ArrayLike) -> Array:
    """``a < b`` in the sort's total order (NaNs last and equal, as JAX's comparators)."""
    if not dtypes.is_float(get_aval(a).dtype):
        result: Array = lax.lt(a, b)
        return result
    out: Array = lax.or_(lax.lt(a, b), lax.and_(lax.eq(a, a), lax.ne(b, b)))
    return out


def _total_le(a: values.ArrayLike, b: values.ArrayLike) -> Array:
    """``a <= b`` in the sort's total order."""
    if not dtypes.is_float(get_aval(a).dtype):
        result: Array = lax.le(a, b)
        return result
    out: Array = lax.or_(lax.le(a, b), lax.ne(b, b))
    return out


def _promote_pair(name: str, a: ArrayLike, v: ArrayLike) -> tuple[list[Any], Any, bool]:
    x, y = operand(a), operand(v)
    dt, weak = result_type(x, y)
    return [as_result(astype(x, dt)), as_result(astype(y, dt))], dt, weak


# --- unique values and membership ----------------------------------------------------------


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
    host = concrete_host("unique", ar)
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


def isin(
    element: ArrayLike,
    test_elements: ArrayLike,
    assume_unique: bool = False,
    invert: bool = False,
    *,
    method: str = "auto",
) -> Array:
    """Whether each element of ``element`` is among ``test_elements`` (all pairs compared)."""
    del assume_unique, method
    e = as_result(operand(element))
    t = ravel(as_result(operand(test_elements)))
    found = any(e[..., None] == t, axis=-1)
    return logical_not(found) if invert else found
