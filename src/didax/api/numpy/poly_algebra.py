"""Polynomial algebra on coefficient arrays (highest power first), as ``jax.numpy``'s.

``poly`` (coefficients from roots), ``roots`` (the eigenvalues of the
companion matrix), ``polyadd``, ``polysub``, ``polymul``, ``polydiv``,
``polyder``, ``polyint``, ``polyfit`` (least squares on the column-scaled
Vandermonde matrix) and ``vander``.

Design rules:
- JAX's formulas: products are ``convolve``, ``polydiv`` is long division
  unrolled over the static degrees, ``polyder``/``polyint`` multiply or
  divide by falling factorials built from ``arange``; dtypes promote to
  inexact where JAX's do (``polyadd``/``polysub`` keep integers).
- Degrees and orders are static (they decide shapes). ``poly`` of a
  square matrix is the polynomial of its eigenvalues (``linalg.eigvals``).
- ``roots`` strips leading zeros as NumPy does, which needs their count
  (concrete values); with ``strip_zeros=False`` it is traceable, as JAX's:
  the zeros are rolled to the end, and the roots they stand for are NaN.
"""

from __future__ import annotations

import operator
from typing import Any

import ml_dtypes
import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.creation import arange, asarray, ones, zeros
from didax.api.numpy.editing import trim_zeros
from didax.api.numpy.elementwise import (
    divide,
    equal,
    maximum,
    multiply,
    negative,
    power,
    sqrt,
    where,
)
from didax.api.numpy.joining import atleast_1d
from didax.api.numpy.linalg import eigvals, inv, lstsq
from didax.api.numpy.linear_algebra import dot, outer
from didax.api.numpy.manipulation import concatenate, expand_dims
from didax.api.numpy.matrices import diag
from didax.api.numpy.operands import as_result, astype, concrete_value, operand
from didax.api.numpy.polynomials import convolve
from didax.api.numpy.reductions import argmin, prod, sum
from didax.api.numpy.statistics import all as _all
from didax.core import dtypes, lax
from didax.core.promotion import result_type
from didax.core.values import get_aval

__all__ = [
    "poly",
    "roots",
    "polyadd",
    "polysub",
    "polymul",
    "polydiv",
    "polyder",
    "polyint",
    "polyfit",
    "vander",
]


def _same_dtype(*args: ArrayLike, inexact: bool = False) -> list[Array]:
    """The arguments promoted to one dtype (inexact if asked), not broadcast together."""
    ops = [operand(a) for a in args]
    dt, weak = result_type(*ops)
    if inexact and not dtypes.is_inexact(dt):
        dt = dtypes.to_inexact(dt)
    return [as_result(astype(o, dt, weak)) for o in ops]


def poly(seq_of_zeros: ArrayLike) -> Array:
    """The coefficients of the monic polynomial with the given roots.

    >>> poly(np.array([1.0, 2.0]))
    Array([ 1., -3.,  2.], dtype=float32)
    """
    (z,) = _same_dtype(seq_of_zeros, inexact=True)
    z = atleast_1d(z)
    shape = get_aval(z).shape
    if len(shape) == 2 and shape[0] == shape[1] and shape[0] != 0:
        z = eigvals(z)
        shape = get_aval(z).shape
    if len(shape) != 1:
        raise ValueError("poly: input must be 1d or non-empty square 2d array")
    dt = get_aval(z).dtype
    out = ones((1,), dt)
    for k in range(shape[0]):
        out = convolve(out, concatenate([ones((1,), dt), negative(z[k : k + 1])]), mode="full")
    return out if shape[0] else ones((), dt)


def _companion_roots(p: Array) -> Array:
    """The roots of ``p`` (first coefficient nonzero): its companion matrix's eigenvalues."""
    n = get_aval(p).shape[0]
    if n < 2:
        return zeros((0,), dtypes.complex_dtype(get_aval(p).dtype))
    companion = diag(ones((n - 2,), get_aval(p).dtype), -1)
    companion = companion.at[0, :].set(divide(negative(p[1:]), p[0]))
    return eigvals(companion)


def roots(p: ArrayLike, *, strip_zeros: bool = True) -> Array:
    """The (complex) roots of the polynomial with coefficients ``p``, highest power first.

    Leading zeros are stripped, as NumPy's; with ``strip_zeros=False`` (which
    ``jit`` needs) the roots they stand for are NaN instead.

    >>> roots(np.array([0.0, 1.0, 2.0]))
    Array([-2.+0.j], dtype=complex64)
    >>> roots(np.array([0.0, 1.0, 2.0]), strip_zeros=False)
    Array([-2. +0.j, nan+nanj], dtype=complex64)
    """
    (coeffs,) = _same_dtype(p, inexact=True)
    coeffs = atleast_1d(coeffs)
    shape = get_aval(coeffs).shape
    if len(shape) != 1:
        raise ValueError(f"roots: the input must be a rank-1 array, got shape {shape}")
    n = shape[0]
    if n < 2:
        return zeros((0,), dtypes.complex_dtype(get_aval(coeffs).dtype))
    is_zero = equal(coeffs, 0)
    leading = where(_all(is_zero), n, argmin(is_zero))
    if strip_zeros:
        why = (
            "roots: stripping leading zeros needs their number (concrete values); under jit "
            "pass strip_zeros=False, and the roots of leading zeros are NaN"
        )
        return _companion_roots(coeffs[int(concrete_value(leading, why)) :])
    # All zeros: any polynomial will do, as every root is NaN (and LAPACK gets no NaNs).
    coeffs = where(equal(leading, n), 1.0, coeffs)
    # The leading zeros rolled to the end (roll by a traced shift): their roots are 0.
    rolled = lax.dynamic_slice(concatenate([coeffs, coeffs]), (leading,), (n,))
    found = _companion_roots(as_result(rolled))
    _, found = lax.sort_key_val(equal(found, 0), found)
    keep = arange(n - 1) < n - 1 - leading
    return where(keep, found, complex(np.nan, np.nan))


def polyadd(a1: ArrayLike, a2: ArrayLike) -> Array:
    """The sum of two polynomials (the shorter one aligned to the end)."""
    a, b = _same_dtype(a1, a2)
    na, nb = get_aval(a).shape[0], get_aval(b).shape[0]
    if nb <= na:
        return as_result(a.at[na - nb :].add(b))
    return as_result(b.at[nb - na :].add(a))


def polysub(a1: ArrayLike, a2: ArrayLike) -> Array:
    """The difference of two polynomials."""
    a, b = _same_dtype(a1, a2)
    return polyadd(a, negative(b))


def polymul(a1: ArrayLike, a2: ArrayLike, *, trim_leading_zeros: bool = False) -> Array:
    """The product of two polynomials (a convolution)."""
    a, b = _same_dtype(a1, a2, inexact=True)
    if trim_leading_zeros and (get_aval(a).shape[0] > 1 or get_aval(b).shape[0] > 1):
        a, b = trim_zeros(a, trim="f"), trim_zeros(b, trim="f")
    if get_aval(a).shape[0] == 0:
        a = zeros(1, get_aval(b).dtype)
    if get_aval(b).shape[0] == 0:
        b = zeros(1, get_aval(a).dtype)
    return convolve(a, b, mode="full")


def polydiv(u: ArrayLike, v: ArrayLike, *, trim_leading_zeros: bool = False) -> tuple[Array, Array]:
    """The quotient and remainder of polynomial long division.

    >>> polydiv(np.array([1.0, -3.0, 2.0]), np.array([1.0, -1.0]))
    (Array([ 1., -2.], dtype=float32), Array([0., 0., 0.], dtype=float32))
    """
    num, den = _same_dtype(u, v, inexact=True)
    m, n = get_aval(num).shape[0] - 1, get_aval(den).shape[0] - 1
    scale = divide(1.0, den[0])
    q = zeros(max(m - n + 1, 1), get_aval(num).dtype)
    for k in range(m - n + 1):
        d = multiply(scale, num[k])
        q = q.at[k].set(d)
        num = num.at[k : k + n + 1].add(negative(multiply(d, den)))
    if trim_leading_zeros:
        # Leading coefficients below sqrt(eps) are zeros (JAX's tolerance), trimmed on the host.
        tol = float(np.sqrt(ml_dtypes.finfo(get_aval(num).dtype).eps))
        host = np.asarray(num)
        start = int(np.argmax(np.abs(host) >= tol)) if np.any(np.abs(host) >= tol) else len(host)
        num = num[start:]
    return q, num


def polyder(p: ArrayLike, m: int = 1) -> Array:
    """The ``m``-th derivative of a polynomial."""
    m = operator.index(m)
    (c,) = _same_dtype(p, inexact=True)
    if m < 0:
        raise ValueError("polyder: order of derivative must be positive")
    if m == 0:
        return c
    dt, n = get_aval(c).dtype, get_aval(c).shape[0]
    grid = arange(m, n, dtype=dt)[None] - arange(m, dtype=dt)[:, None]
    return multiply(c[: n - m], prod(grid, axis=0)[::-1])


def polyint(p: ArrayLike, m: int = 1, k: ArrayLike | None = None) -> Array:
    """The ``m``-th antiderivative of a polynomial, with integration constants ``k``."""
    m = operator.index(m)
    c, consts = _same_dtype(p, 0 if k is None else k, inexact=True)
    if m < 0:
        raise ValueError("polyint: order of integral must be positive (see polyder)")
    consts = atleast_1d(consts)
    if get_aval(consts).shape[0] == 1:
        consts = multiply(ones((m,), get_aval(c).dtype), consts[0])
    if get_aval(consts).shape != (m,):
        raise ValueError("polyint: k must be a scalar or a rank-1 array of length 1 or m")
    if m == 0:
        return c
    dt, n = get_aval(c).dtype, get_aval(c).shape[0]
    grid = arange(n + m, dtype=dt)[None] - arange(m, dtype=dt)[:, None]
    coeff = prod(maximum(1, grid), axis=0)[::-1]
    return divide(concatenate([c, consts]), coeff)


def vander(x: ArrayLike, N: int | None = None, increasing: bool = False) -> Array:
    """The Vandermonde matrix of ``x``: columns ``x**(N-1), ..., x, 1`` (or increasing)."""
    v = as_result(operand(x))
    if get_aval(v).ndim != 1:
        raise ValueError("vander: x must be a one-dimensional array")
    n = get_aval(v).shape[0] if N is None else operator.index(N)
    if n < 0:
        raise ValueError("vander: N must be nonnegative")
    exponents = as_result(lax.iota(get_aval(v).dtype, n))
    if not increasing:
        exponents = (n - 1) - exponents
    return power(expand_dims(v, -1), exponents)


def polyfit(
    x: ArrayLike,
    y: ArrayLike,
    deg: int,
    rcond: float | None = None,
    full: bool = False,
    w: ArrayLike | None = None,
    cov: bool | str = False,
) -> Any:
    """The least-squares polynomial of degree ``deg`` through ``(x, y)`` (JAX's scaling)."""
    xs, ys = as_result(operand(x)), as_result(operand(y))
    deg = operator.index(deg)
    order = deg + 1
    if deg < 0:
        raise ValueError("polyfit: expected deg >= 0")
    if get_aval(xs).ndim != 1 or get_aval(xs).size == 0:
        raise TypeError("polyfit: expected a non-empty 1D vector for x")
    if not 1 <= get_aval(ys).ndim <= 2:
        raise TypeError("polyfit: expected 1D or 2D array for y")
    if get_aval(xs).shape[0] != get_aval(ys).shape[0]:
        raise TypeError("polyfit: expected x and y to have same length")
    if rcond is None:
        rcond = get_aval(xs).shape[0] * float(ml_dtypes.finfo(get_aval(xs).dtype).eps)
    lhs, rhs = vander(xs, order), ys
    if w is not None:
        (weights,) = _same_dtype(w, inexact=True)
        if get_aval(weights).shape != (get_aval(ys).shape[0],):
            raise TypeError("polyfit: expected a 1-d array of weights, one per point")
        lhs = multiply(lhs, weights[:, None])
        rhs = multiply(rhs, weights[:, None] if get_aval(rhs).ndim == 2 else weights)
    scale = sqrt(sum(multiply(lhs, lhs), axis=0))
    lhs = divide(lhs, scale[None, :])
    c, resids, rank, s = lstsq(lhs, rhs, rcond)
    c = divide(c.T, scale[None, :]).T if get_aval(c).ndim > 1 else divide(c, scale)
    if full:
        return c, resids, rank, s, asarray(rcond)
    if not cov:
        return c
    vbase = divide(inv(dot(lhs.T, lhs)), outer(scale, scale))
    if cov == "unscaled":
        fac: Array = asarray(1.0)
    else:
        if get_aval(xs).shape[0] <= order:
            raise ValueError(
                "polyfit: the number of data points must exceed order to scale the covariance"
            )
        fac = divide(resids, get_aval(xs).shape[0] - order)
    if get_aval(ys).ndim == 1:
        return c, multiply(vbase, atleast_1d(fac)[None])
    return c, multiply(vbase[:, :, None], atleast_1d(fac)[None, None, :])
