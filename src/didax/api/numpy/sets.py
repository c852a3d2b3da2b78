"""Set routines: the Array API's ``unique_*`` and NumPy's 1-d set operations.

``unique_all``, ``unique_counts``, ``unique_inverse`` and ``unique_values``
are ``unique`` with the Array API's named results (``inverse_indices``
has the input's shape); ``union1d``, ``intersect1d``, ``setdiff1d`` and
``setxor1d`` give the sorted unique values of their sets.

Design rules:
- As ``unique`` (``searching``), a result whose length depends on the
  values is computed on concrete arrays; ``size`` pads it (with
  ``fill_value``, default the smallest value, as JAX's) or cuts it to a
  static length, and a traced operand gets ``unique``'s clear error.
- The results are JAX's named tuples, with JAX's field names.
"""

from __future__ import annotations

import operator
from typing import Any, NamedTuple

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.positions import concrete_host
from didax.api.numpy.searching import unique
from didax.core import dtypes
from didax.core.values import as_array, wrap_host

__all__ = [
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
    "union1d",
    "intersect1d",
    "setdiff1d",
    "setxor1d",
]


class UniqueAllResult(NamedTuple):
    """``unique_all``'s result (JAX's field names)."""

    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    """``unique_counts``'s result."""

    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    """``unique_inverse``'s result."""

    values: Array
    inverse_indices: Array


def unique_all(
    x: ArrayLike, /, *, size: int | None = None, fill_value: Any = None
) -> UniqueAllResult:
    """The sorted unique values, their first indices, the inverse indices and the counts.

    >>> unique_all(np.array([3, 1, 3]))
    UniqueAllResult(values=Array([1, 3], dtype=int32), indices=Array([1, 0], dtype=int32), \
inverse_indices=Array([1, 0, 1], dtype=int32), counts=Array([1, 2], dtype=int32))
    """
    out = unique(x, True, True, True, size=size, fill_value=fill_value)
    return UniqueAllResult(*out)


def unique_counts(
    x: ArrayLike, /, *, size: int | None = None, fill_value: Any = None
) -> UniqueCountsResult:
    """The sorted unique values and how often each occurs."""
    return UniqueCountsResult(*unique(x, return_counts=True, size=size, fill_value=fill_value))


def unique_inverse(
    x: ArrayLike, /, *, size: int | None = None, fill_value: Any = None
) -> UniqueInverseResult:
    """The sorted unique values and, for each element, the index of its value among them."""
    return UniqueInverseResult(*unique(x, return_inverse=True, size=size, fill_value=fill_value))


def unique_values(x: ArrayLike, /, *, size: int | None = None, fill_value: Any = None) -> Array:
    """The sorted unique values."""
    out: Array = unique(x, size=size, fill_value=fill_value)
    return out


def _sized(values: np.ndarray[Any, Any], size: int | None, fill_value: Any) -> Array:
    """``values`` cut or padded to ``size`` (with ``fill_value``, default the smallest value)."""
    if size is not None:
        size = operator.index(size)
        if fill_value is None:
            fill_value = values.min() if values.size else 0
        pad = np.full(max(size - values.size, 0), fill_value, values.dtype)
        values = np.concatenate([values, pad])[:size]
    return wrap_host(as_array(values))


def _two(name: str, ar1: ArrayLike, ar2: ArrayLike) -> tuple[np.ndarray[Any, Any], ...]:
    """Both operands, flattened, on the host, in their promoted dtype."""
    a, b = concrete_host(name, ar1), concrete_host(name, ar2)
    dt = dtypes.promote_types(a.dtype, b.dtype)
    return a.ravel().astype(dt), b.ravel().astype(dt)


def union1d(
    ar1: ArrayLike, ar2: ArrayLike, *, size: int | None = None, fill_value: Any = None
) -> Array:
    """The sorted unique values of both arrays.

    >>> union1d(np.array([3, 1]), np.array([2, 1]))
    Array([1, 2, 3], dtype=int32)
    """
    a, b = _two("union1d", ar1, ar2)
    return _sized(np.union1d(a, b), size, fill_value)


def setdiff1d(
    ar1: ArrayLike,
    ar2: ArrayLike,
    assume_unique: bool = False,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Array:
    """The sorted unique values of ``ar1`` that are not in ``ar2`` (in ``ar1``'s dtype).

    As JAX's, the padding defaults to 0 rather than to the smallest value.
    """
    a, b = concrete_host("setdiff1d", ar1).ravel(), concrete_host("setdiff1d", ar2).ravel()
    return _sized(np.setdiff1d(a, b, assume_unique), size, 0 if fill_value is None else fill_value)


def setxor1d(
    ar1: ArrayLike,
    ar2: ArrayLike,
    assume_unique: bool = False,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Array:
    """The sorted unique values that are in exactly one of the arrays."""
    a, b = _two("setxor1d", ar1, ar2)
    return _sized(np.setxor1d(a, b, assume_unique), size, fill_value)


def intersect1d(
    ar1: ArrayLike,
    ar2: ArrayLike,
    assume_unique: bool = False,
    return_indices: bool = False,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """The sorted unique values in both arrays (and, with ``return_indices``, where they are)."""
    a, b = _two("intersect1d", ar1, ar2)
    if not return_indices:
        return _sized(np.intersect1d(a, b, assume_unique), size, fill_value)
    values, i1, i2 = np.intersect1d(a, b, assume_unique, return_indices=True)
    int_t = dtypes.default_int()
    if size is not None:
        # Padded indices point past the end, as JAX's (ar1.size, ar2.size).
        i1 = np.concatenate([i1, np.full(max(size - i1.size, 0), a.size)])[:size]
        i2 = np.concatenate([i2, np.full(max(size - i2.size, 0), b.size)])[:size]
    return (
        _sized(values, size, fill_value),
        wrap_host(i1.astype(int_t)),
        wrap_host(i2.astype(int_t)),
    )
