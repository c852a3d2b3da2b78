"""The hypergeometric functions and spherical harmonics of ``jax.scipy.special``.

Design rules:
- JAX's algorithms (after Pearson, Olver and Porter, arXiv:1407.7786),
  step for step: ``hyp1f1`` sums its power series for ``|x| < 100`` and
  the asymptotic series beyond; ``hyp2f1`` picks among closed forms, the
  power series, the terminating sum (a negative integer ``a`` or ``b``) and
  the digamma transform near ``x = 1``, as JAX's ``select_n`` index does.
- Each series is a per-element ``while_loop`` (at most 250 terms, stopping
  when a term falls below the dtype's epsilon relative to the sum), mapped
  over the broadcast operands (``vectorized``, JAX's ``jnp.vectorize``).
- The derivatives are JAX's: the ``x``-derivative is a shifted function
  (``a/b hyp1f1(a+1, b+1, x)``), the parameter derivatives series of
  digamma-weighted terms.
- ``sph_harm_y`` is JAX's: the normalised associated Legendre functions by
  their recurrence up to a static ``n_max`` (a ``fori_loop`` over the
  degree), times ``exp(i m phi)``; its recurrence coefficients depend on
  ``n_max`` only and are NumPy constants.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from didax.api.control_flow import cond, fori_loop, while_loop
from didax.api.custom_derivatives import custom_jvp
from didax.api.numpy import elementwise as enp
from didax.api.numpy import more_elementwise as mnp
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.manipulation import broadcast_to, reshape
from didax.api.numpy.more_routines import cumulative_prod, finfo
from didax.api.numpy.operands import as_result, asarray, concrete_value
from didax.api.numpy.rearranging import roll
from didax.api.scipy_special import digamma
from didax.api.scipy_special_gamma import (
    gamma,
    inexact_args,
    operator_index,
    strong,
    vectorized,
)
from didax.core import lax
from didax.core.values import get_aval

__all__ = ["hyp1f1", "hyp2f1", "sph_harm_y"]

_MAX_TERMS = 250


def _eps(x: Array) -> float:
    return float(finfo(get_aval(x).dtype).eps)


def _series(
    x: Array, init: tuple[Any, Any, Array], step: Callable[[Array, Array, Array], Any]
) -> Array:
    """``sum`` of a series: ``step(serie, k, term) -> (serie, term)``, from ``init``.

    The loop stops at 250 terms or once ``|term| / |serie|`` is at most the
    dtype's epsilon (JAX's condition, evaluated before each step).
    """
    eps = _eps(x)

    def body(state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        serie, k, term = state
        serie, term = step(serie, k, term)
        return serie, k + 1, term

    def keep_going(state: tuple[Array, Array, Array]) -> Array:
        serie, k, term = state
        return enp.logical_and(k < _MAX_TERMS, lax.abs(term) / lax.abs(serie) > eps)

    zero_or_one, k0, term0 = init
    start = (lax.full_like(x, zero_or_one), k0, term0)
    return as_result(while_loop(keep_going, body, start)[0])


def _hyp1f1_serie(a: Array, b: Array, x: Array) -> Array:
    def step(serie: Array, k: Array, term: Array) -> tuple[Array, Array]:
        return serie + term, term * ((a + k) / (b + k) * x / (k + 1))

    return _series(x, (1, 1, a / b * x), step)


def _hyp1f1_asymptotic(a: Array, b: Array, x: Array) -> Array:
    def step(serie: Array, k: Array, term: Array) -> tuple[Array, Array]:
        return serie + term, term * ((b - a + k) * (1 - a + k) / (k + 1) / x)

    serie = _series(x, (1, 1, (b - a) * (1 - a) / x), step)
    return gamma(b) / gamma(a) * lax.exp(x) * x ** (a - b) * serie


def _hyp1f1_scalar(a: Array, b: Array, x: Array) -> Array:
    result = as_result(cond(lax.abs(x) < 100, _hyp1f1_serie, _hyp1f1_asymptotic, a, b, x))
    a_zero = enp.equal(a, 0)
    index = (
        lax.convert_element_type(a_zero, "int32")
        + lax.convert_element_type(enp.logical_and(enp.equal(a, b), ~a_zero), "int32") * 2
        + lax.convert_element_type(enp.logical_and(enp.equal(b, 0), ~a_zero), "int32") * 3
    )
    return as_result(
        lax.select_n(index, result, lax.full_like(x, 1), enp.exp(x), lax.full_like(x, float("inf")))
    )


def _digamma_weighted(
    shift: Callable[[Array, Array, Array], Array],
) -> Callable[[Array, Array, Array], Array]:
    """A parameter derivative of ``hyp1f1``: its terms times ``shift(a, b, k)``."""

    def derivative(a: Array, b: Array, x: Array) -> Array:
        def step(serie: Array, k: Array, term: Array) -> tuple[Array, Array]:
            return serie + term * shift(a, b, k), term * ((a + k) / (b + k) * x / (k + 1))

        return _series(x, (0, 1, a / b * x), step)

    return vectorized(derivative)


_hyp1f1_da = _digamma_weighted(lambda a, b, k: digamma(a + k) - digamma(a))
_hyp1f1_db = _digamma_weighted(lambda a, b, k: digamma(b) - digamma(b + k))
_hyp1f1_mapped = vectorized(_hyp1f1_scalar)


@custom_jvp
def _hyp1f1(a: Array, b: Array, x: Array) -> Array:
    return _hyp1f1_mapped(a, b, x)


_hyp1f1.defjvps(
    lambda a_dot, out, a, b, x: _hyp1f1_da(a, b, x) * a_dot,
    lambda b_dot, out, a, b, x: _hyp1f1_db(a, b, x) * b_dot,
    lambda x_dot, out, a, b, x: a / b * _hyp1f1(a + 1, b + 1, x) * x_dot,
)


def hyp1f1(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """Kummer's confluent hypergeometric function ``1F1(a; b; x)``, differentiable in all three.

    >>> hyp1f1(np.array([1.0, 0.5]), np.array([2.0, 1.5]), np.array([1.0, -2.0]))
    Array([1.7182816, 0.5981441], dtype=float32)
    """
    args = inexact_args("hyp1f1", a, b, x)
    return strong(as_result(_hyp1f1(*args)))


# --- hyp2f1 -----------------------------------------------------------------------------------


def _hyp2f1_terminal(a: Array, b: Array, c: Array, x: Array) -> Array:
    # A finite sum: of the negative integers a and b, the larger in magnitude
    # that stays below |c| when c is a non-positive integer bounds the loop.
    eps = _eps(x) * 50
    ib = enp.round(b)
    c_blocks = enp.logical_and(
        enp.equal(c % 1, 0), enp.logical_and(c <= 0, c > b)
    )  # c a non-positive integer above b
    mask = enp.logical_and(b < a, enp.logical_and(lax.abs(b - ib) < eps, ~c_blocks))
    a, b = enp.where(mask, b, a), enp.where(mask, a, b)
    a = lax.abs(a)
    one = lax.full_like(x, 1)

    def body(state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        i, serie, term = state
        term = term * (-(a - i + 1) / (c + i - 1) * (b + i - 1) / i * x)
        return i + 1, serie + term, term

    # JAX's fori_loop from 1 to a + 1 with float bounds: i < a + 1.
    return as_result(while_loop(lambda s: s[0] < a + 1, body, (one, one, one))[1])


def _hyp2f1_serie(a: Array, b: Array, c: Array, x: Array) -> Array:
    rtol = _eps(x)
    zero, one = lax.full_like(x, 0), lax.full_like(x, 1)

    def body(state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        serie, k, term = state
        serie = serie + term
        term = term * ((a + k - 1) * (b + k - 1) / (c + k - 1) / k * x)
        return serie, k + 1, term

    def keep_going(state: tuple[Array, Array, Array]) -> Array:
        serie, k, term = state
        return enp.logical_and(k < _MAX_TERMS, lax.abs(term) > rtol * lax.abs(serie))

    return as_result(while_loop(keep_going, body, (zero, one, one))[0])


def _hyp2f1_digamma_transform(a: Array, b: Array, c: Array, x: Array) -> Array:
    # Near x = 1 with c - a - b (nearly) an integer: the series in 1 - x with
    # digamma terms (Abramowitz and Stegun 15.3.10-12), as JAX's.
    rtol = _eps(x)
    d = c - a - b
    s = 1 - x
    rd = enp.round(d)
    positive = rd >= 0
    zero = lax.full_like(d, 0)
    e = enp.where(positive, d, -d)
    d1 = enp.where(positive, d, zero)
    d2 = enp.where(positive, zero, d)
    ard = lax.convert_element_type(enp.where(positive, rd, -rd), "int32")
    ax = enp.log(s)
    y = digamma(1.0) + digamma(1.0 + e) - digamma(a + d1) - digamma(b + d1) - ax
    y = y / gamma(e + 1.0)
    p = (a + d1) * (b + d1) * s / gamma(e + 2.0)

    def keep_going(state: tuple[Array, Array, Array, Array]) -> Array:
        _, q, t, y = state
        return enp.logical_and(t < _MAX_TERMS, lax.abs(q) >= rtol * lax.abs(y))

    def body(state: tuple[Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array]:
        p, q, t, y = state
        r = digamma(1.0 + t) + digamma(1.0 + t + e) - digamma(a + t + d1)
        r = r - digamma(b + t + d1) - ax
        q = p * r
        y = y + q
        p = p * (s * (a + t + d1) / (t + 1.0))
        p = p * ((b + t + d1) / (t + 1.0 + e))
        return p, q, t + 1.0, y

    p, _, _, y = while_loop(keep_going, body, (p, y, lax.full_like(x, 1), y))
    p, y = as_result(p), as_result(y)

    def finite_sum(i: Array, state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        p, t, y1 = state
        r = 1.0 - e + t
        p = p * (s * (a + t + d2) * (b + t + d2) / r)
        t = t + 1.0
        p = p / t
        return p, t, y1 + p

    one = lax.full_like(x, 1)
    y1 = as_result(fori_loop(1, ard, finite_sum, (one, lax.full_like(x, 0), one))[-1])
    gc = gamma(c)
    y1 = y1 * (gamma(e) * gc / (gamma(a + d1) * gamma(b + d1)))
    y_sum = y * (gc / (gamma(a + d2) * gamma(b + d2)))
    y_sum = enp.where(enp.not_equal(ard & 1, 0), -y_sum, y_sum)
    q = s**rd
    summed = enp.where(rd > 0, y_sum * q + y1, y_sum + y1 * q)
    return enp.where(enp.equal(rd, 0), y * gc / (gamma(a) * gamma(b)), summed)


def _hyp2f1_terminal_or_serie(a: Array, b: Array, c: Array, x: Array) -> Array:
    eps = _eps(x) * 50
    d = c - a - b
    neg_int_a = enp.logical_and(a <= 0, lax.abs(a - enp.round(a)) < eps)
    neg_int_b = enp.logical_and(b <= 0, lax.abs(b - enp.round(b)) < eps)
    neg_int = enp.logical_or(neg_int_a, neg_int_b)
    near_one = enp.where(lax.abs(d - enp.round(d)) >= eps, 0, 1)
    index = enp.where(enp.logical_and(x > 0.9, ~neg_int), near_one, enp.where(neg_int, 2, 0))
    return as_result(
        lax.select_n(
            index,
            _hyp2f1_serie(a, b, c, x),
            _hyp2f1_digamma_transform(a, b, c, x),
            _hyp2f1_terminal(a, b, c, x),
        )
    )


def _hyp2f1_scalar(a: Array, b: Array, c: Array, x: Array) -> Array:
    eps = _eps(x) * 50
    d = c - a - b
    s = 1 - x
    ca, cb = c - a, c - b
    near_int_d = lax.abs(d - enp.round(d)) >= eps
    w, land, lor, eq = enp.where, enp.logical_and, enp.logical_or, enp.equal
    index = w(
        lor(eq(x, 0), land(lor(eq(a, 0), eq(b, 0)), enp.not_equal(c, 0))),
        0,
        w(
            lor(eq(c, 0), land(c < 0, eq(c % 1, 0))),
            1,
            w(
                land(d <= -1, ~land(near_int_d, s < 0)),
                2,
                w(
                    land(d <= 0, eq(x, 1)),
                    1,
                    w(
                        land(x < 1, eq(b, c)),
                        3,
                        w(land(x < 1, eq(a, c)), 4, w(x > 1, 1, w(eq(x, 1), 5, 6))),
                    ),
                ),
            ),
        ),
    )
    return as_result(
        lax.select_n(
            index,
            lax.full_like(x, 1),
            lax.full_like(x, float("inf")),
            s**d * _hyp2f1_terminal_or_serie(ca, cb, c, x),
            s ** (-a),
            s ** (-b),
            gamma(c) * gamma(d) / (gamma(ca) * gamma(cb)),
            _hyp2f1_terminal_or_serie(a, b, c, x),
        )
    )


def _hyp2f1_parameter(
    shift: Callable[[Array, Array, Array, Array], Array],
) -> Callable[[Array, Array, Array, Array], Array]:
    """A parameter derivative of ``hyp2f1``: its terms times ``shift(a, b, c, k)``."""

    def derivative(a: Array, b: Array, c: Array, x: Array) -> Array:
        def step(serie: Array, k: Array, term: Array) -> tuple[Array, Array]:
            nxt = term * ((a + k) * (b + k) / (c + k) / (k + 1) * x)
            return serie + term * shift(a, b, c, k), nxt

        return _series(x, (0, 1, a * b / c * x), step)

    return vectorized(derivative)


_hyp2f1_da = _hyp2f1_parameter(lambda a, b, c, k: digamma(a + k) - digamma(a))
_hyp2f1_db = _hyp2f1_parameter(lambda a, b, c, k: digamma(b + k) - digamma(b))
_hyp2f1_dc = _hyp2f1_parameter(lambda a, b, c, k: digamma(c) - digamma(c + k))
_hyp2f1_mapped = vectorized(_hyp2f1_scalar)


@custom_jvp
def _hyp2f1(a: Array, b: Array, c: Array, x: Array) -> Array:
    return _hyp2f1_mapped(a, b, c, x)


_hyp2f1.defjvps(
    lambda a_dot, out, a, b, c, x: _hyp2f1_da(a, b, c, x) * a_dot,
    lambda b_dot, out, a, b, c, x: _hyp2f1_db(a, b, c, x) * b_dot,
    lambda c_dot, out, a, b, c, x: _hyp2f1_dc(a, b, c, x) * c_dot,
    lambda x_dot, out, a, b, c, x: a * b / c * _hyp2f1(a + 1, b + 1, c + 1, x) * x_dot,
)


def hyp2f1(a: ArrayLike, b: ArrayLike, c: ArrayLike, x: ArrayLike) -> Array:
    """Gauss's hypergeometric function ``2F1(a, b; c; x)`` (``x <= 1``), differentiable in all four.

    >>> hyp2f1(np.array([1.0, 0.5]), 1.0, 2.0, np.array([0.5, -1.0]))
    Array([1.3862945 , 0.82849866], dtype=float32)
    """
    args = inexact_args("hyp2f1", a, b, c, x)
    return strong(as_result(_hyp2f1(*args)))


# --- spherical harmonics ------------------------------------------------------------------


def _legendre_masks(l_max: int, dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """The recurrence coefficients of the normalised associated Legendre functions.

    ``d0[i, j, k]`` and ``d1[i, j, k]`` multiply ``x P_{k-1}^j`` and
    ``P_{k-2}^j`` at step ``i = k - j`` (zero elsewhere). They depend on
    ``l_max`` only, so they are NumPy constants, computed in ``dtype`` as
    JAX computes them (correctly rounded ``sqrt`` and division: the same
    numbers).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        m_mat, l_mat = np.meshgrid(
            np.arange(l_max + 1, dtype=dtype), np.arange(l_max + 1, dtype=dtype), indexing="ij"
        )
        c0, c1 = l_mat * l_mat, m_mat * m_mat
        c2, c3 = dtype.type(2.0) * l_mat, (l_mat - dtype.type(1.0)) * (l_mat - dtype.type(1.0))
        d0 = np.sqrt((dtype.type(4.0) * c0 - dtype.type(1.0)) / (c0 - c1))
        d1 = np.sqrt(((c2 + 1) * (c3 - c1)) / ((c2 - dtype.type(3.0)) * (c0 - c1)))
    d0_mask = np.where(np.triu(np.ones_like(d0, bool), 1), d0, 0).astype(dtype)
    d1_mask = np.where(np.triu(np.ones_like(d1, bool), 2), d1, 0).astype(dtype)
    i, j, k = np.ogrid[: l_max + 1, : l_max + 1, : l_max + 1]
    diagonal = (i + j - k == 0).astype(dtype)
    return d0_mask[None] * diagonal, d1_mask[None] * diagonal


def _normalized_legendre(l_max: int, x: Array) -> Array:
    # p[m, l, i] = the normalised P_l^m(x_i): the diagonal and the first
    # off-diagonal in closed form, the rest by the three-term recurrence.
    dtype = np.dtype(get_aval(x).dtype)
    n = get_aval(x).shape[0]
    a_idx = np.arange(1, l_max + 1, dtype=dtype)
    b_idx = np.arange(l_max, dtype=dtype)
    initial = dtype.type(0.5 / np.sqrt(np.pi))
    f_a = np.cumprod(-1 * np.sqrt(dtype.type(1.0) + dtype.type(0.5) / a_idx)).astype(dtype)
    f_b = np.sqrt(dtype.type(2.0) * b_idx + dtype.type(3.0))
    p = lax.full((l_max + 1, l_max + 1, n), 0, dtype)
    p = p.at[0, 0].set(initial)
    y = cumulative_prod(broadcast_to(enp.sqrt(1.0 - x * x), (l_max, n)), axis=0)
    p_diag = initial * (asarray(f_a)[:, None] * y)
    diag = np.arange(1, l_max + 1)
    p = p.at[diag, diag].set(p_diag)
    low = np.arange(l_max)
    p_offdiag = (asarray(f_b)[:, None] * x[None, :]) * p[low, low]
    p = p.at[low, low + 1].set(p_offdiag)
    d0_3d, d1_3d = _legendre_masks(l_max, dtype)
    d0_arr, d1_arr = asarray(d0_3d), asarray(d1_3d)

    def body(i: Array, p_val: Array) -> Array:
        c0 = lax.dynamic_index_in_dim(d0_arr, i, keepdims=False)
        c1 = lax.dynamic_index_in_dim(d1_arr, i, keepdims=False)
        h = c0[:, :, None] * (roll(p_val, 1, axis=1) * x) - c1[:, :, None] * roll(p_val, 2, axis=1)
        return p_val + h

    if l_max > 1:
        p = as_result(fori_loop(2, l_max + 1, body, p))
    return p


def sph_harm_y(
    n: ArrayLike,
    m: ArrayLike,
    theta: ArrayLike,
    phi: ArrayLike,
    diff_n: int | None = None,
    n_max: int | None = None,
) -> Array:
    """The spherical harmonic ``Y_n^m(theta, phi)`` (``theta`` the polar angle), complex.

    ``n``, ``m``, ``theta`` and ``phi`` are 1-d arrays of one length (a
    scalar ``theta`` becomes one); ``n_max`` (default ``max(n)``, which
    needs a concrete ``n``) bounds the degree statically, as in JAX.

    >>> sph_harm_y(np.array([0, 1]), np.array([0, 1]), np.array([0.5, 0.5]), np.array([0.0, 1.0]))
    Array([ 0.2820948 +0.j        , -0.08949498-0.13938019j], dtype=complex64)
    """
    if diff_n is not None:
        raise NotImplementedError(
            "The 'diff_n' argument to didax.scipy.special.sph_harm_y is not supported."
        )
    theta_arr = asarray(theta)
    if get_aval(theta_arr).ndim == 0:
        theta_arr = reshape(theta_arr, (1,))
    if n_max is None:
        n_max = int(np.max(concrete_value(asarray(n), "sph_harm_y: n_max (max(n))")))
    l_max = operator_index(n_max, "sph_harm_y: n_max")
    (cos_colatitude,) = inexact_args("sph_harm_y", enp.cos(theta_arr))
    legendre = _normalized_legendre(l_max, cos_colatitude)
    n_arr, m_arr = asarray(n), asarray(m)
    abs_m = lax.abs(m_arr)
    count = get_aval(legendre).shape[2]
    # JAX's .at[...].get(mode="clip"): indices clamped into range.
    rows = enp.clip(abs_m, 0, l_max)
    cols = enp.clip(n_arr, 0, l_max)
    legendre_val = legendre[rows, cols, enp.clip(asarray(np.arange(count)), 0, count - 1)]
    angle = abs_m * asarray(phi)
    vandermonde = lax.complex(enp.cos(angle), enp.sin(angle))
    harmonics = lax.complex(
        legendre_val * mnp.real(vandermonde), legendre_val * mnp.imag(vandermonde)
    )
    return enp.where(m_arr < 0, (-1.0) ** abs_m * mnp.conj(harmonics), harmonics)
