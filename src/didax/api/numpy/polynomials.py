"""Polynomials and sequences: ``polyval``, and the 1-d ``convolve`` and ``correlate``.

As ``jax.numpy``'s: ``polyval`` is Horner's rule; ``convolve`` and
``correlate`` of two 1-d sequences are one ``dot`` of the padded
sequence's windows with the kernel (``precision`` and
``preferred_element_type`` are that product's), cropped to ``mode``
(``full``, ``same`` or ``valid``), with NumPy's rule for a longer second
sequence.
"""

from __future__ import annotations

import builtins
from typing import Any, Unpack

from didax.api.numpy.array_types import Array, ArrayLike, DotOptions
from didax.api.numpy.elementwise import (
    add,
    multiply,
)
from didax.api.numpy.linear_algebra import _promote_no_broadcast, dot, dot_options
from didax.api.numpy.manipulation import stack
from didax.api.numpy.operands import as_result, operand
from didax.core import lax
from didax.core.dtypes import DTypeLike
from didax.core.lax.precision import PrecisionLike
from didax.core.values import get_aval

__all__ = [
    "polyval",
    "convolve",
    "correlate",
]


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


def _correlate_full(
    a: Array, v: Array, precision: PrecisionLike = None, preferred: DTypeLike = None
) -> Array:
    """``out[k] = sum_j a[k + j - (m - 1)] * v[j]`` for the full length ``n + m - 1``."""
    n, m = get_aval(a).shape[0], get_aval(v).shape[0]
    zero = lax.full((), 0, get_aval(a).dtype)
    padded = lax.pad(a, zero, [(m - 1, m - 1, 0)])
    length = n + m - 1
    # Column j holds the window of a that meets v[j]: one slice per kernel tap.
    windows = stack([lax.slice(padded, (j,), (j + length,)) for j in range(m)], axis=1)
    return dot(windows, v, precision=precision, preferred_element_type=preferred)


def _one_d(name: str, x: ArrayLike) -> Array:
    v = as_result(operand(x))
    if get_aval(v).ndim != 1:
        raise ValueError(f"{name}() only support 1-dimensional inputs.")
    if get_aval(v).shape[0] == 0:
        raise ValueError(f"{name}: inputs cannot be empty")
    return v


def _crop(name: str, full: Array, n: int, m: int, mode: str) -> Array:
    length = n + m - 1
    if mode == "full":
        return as_result(full)
    if mode == "same":
        size = builtins.max(n, m)
        start = (length - size) // 2
        result: Array = lax.slice(full, (start,), (start + size,))
        return result
    if mode == "valid":
        size = builtins.max(n, m) - builtins.min(n, m) + 1
        start = builtins.min(n, m) - 1
        out: Array = lax.slice(full, (start,), (start + size,))
        return out
    raise ValueError(f"{name}: mode must be one of 'full', 'same', 'valid', got {mode!r}")


def correlate(
    a: ArrayLike,
    v: ArrayLike,
    mode: str = "valid",
    **options: Unpack[DotOptions],
) -> Array:
    """The cross-correlation of two 1-d sequences (``mode`` full, same or valid).

    ``precision`` and ``preferred_element_type`` are those of its products
    (a ``dot``), as JAX's are those of its convolution.
    """
    (x, y), _ = _promote_no_broadcast("correlate", _one_d("correlate", a), _one_d("correlate", v))
    n, m = get_aval(x).shape[0], get_aval(y).shape[0]
    p, t = dot_options(**options)
    # NumPy's rule for a longer second sequence: swap them, reverse the result.
    full = _correlate_full(x, y, p, t) if n >= m else lax.rev(_correlate_full(y, x, p, t), (0,))
    return _crop("correlate", full, n, m, mode)


def convolve(
    a: ArrayLike,
    v: ArrayLike,
    mode: str = "full",
    **options: Unpack[DotOptions],
) -> Array:
    """The discrete linear convolution of two 1-d sequences (``mode`` full, same or valid).

    ``precision`` and ``preferred_element_type`` as ``correlate``'s.

    >>> convolve(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]))
    Array([0. , 1. , 2.5, 4. , 1.5], dtype=float32)
    """
    (x, y), _ = _promote_no_broadcast("convolve", _one_d("convolve", a), _one_d("convolve", v))
    n, m = get_aval(x).shape[0], get_aval(y).shape[0]
    p, t = dot_options(**options)
    full = (
        _correlate_full(x, lax.rev(y, (0,)), p, t)
        if n >= m
        else _correlate_full(y, lax.rev(x, (0,)), p, t)
    )
    return _crop("convolve", full, n, m, mode)
