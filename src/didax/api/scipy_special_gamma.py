"""The gamma family, combinatorics and entropies of ``jax.scipy.special``.

Design rules:
- Each function is JAX's formula over didax's primitives, operation for
  operation, so that values (NaN and infinity included) and derivatives are
  JAX's: ``gamma`` is ``gammasgn(x) * exp(lgamma(x))``, ``comb`` a ratio of
  ``exp(gammaln)`` with unsafe arguments replaced before the logarithms (so
  that no NaN reaches a gradient), ``zeta``'s derivative is the jvp of
  Johansson's series, as JAX's custom rule.
- Arguments are promoted as JAX's ``promote_args_inexact``: integers become
  floats; a function JAX defines on reals only refuses complex operands with
  an error naming it.
- The helpers ``inexact_args`` and ``vectorized`` are shared with the other
  ``scipy_special_*`` modules: ``vectorized`` maps a function of scalars
  over broadcast operands with ``vmap`` (JAX's ``jnp.vectorize``), which
  the functions written as per-element ``while_loop``s need.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

import numpy as np

from didax.api.control_flow import while_loop
from didax.api.custom_derivatives import custom_jvp
from didax.api.nn import log_softmax as _nn_log_softmax
from didax.api.nn import softmax as _nn_softmax
from didax.api.numpy import elementwise as enp
from didax.api.numpy import more_elementwise as mnp
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.manipulation import expand_dims, reshape
from didax.api.numpy.more_routines import cumulative_prod, finfo
from didax.api.numpy.operands import as_result, asarray, operand, promote, static_scalar
from didax.api.numpy.reductions import sum as _sum
from didax.api.numpy.statistics import any as _any
from didax.api.scipy_special import digamma, gammaln, xlogy
from didax.api.transformations import jvp, vmap
from didax.core import dtypes, lax
from didax.core.values import get_aval

__all__ = [
    "gamma",
    "gammasgn",
    "loggamma",
    "factorial",
    "comb",
    "poch",
    "multigammaln",
    "entr",
    "rel_entr",
    "kl_div",
    "boxcox",
    "boxcox1p",
    "zeta",
    "polygamma",
    "bernoulli",
    "softmax",
    "log_softmax",
]

_NAN: Final = float("nan")
_INF: Final = float("inf")


def inexact_args(name: str, *args: ArrayLike, real: bool = True) -> list[Array]:
    """JAX's ``promote_args_inexact``: one float (or complex) dtype, one shape.

    With ``real`` a complex operand is refused, naming the function.
    """
    vals, dtype, _ = promote(name, *args, inexact=True)
    if real and dtypes.is_complex(dtype):
        raise ValueError(f"{name} does not support complex-valued inputs (got {dtype})")
    return [as_result(v) for v in vals]


def vectorized(fn: Callable[..., Array]) -> Callable[..., Array]:
    """``fn`` of scalars mapped over its broadcast operands (JAX's ``jnp.vectorize``).

    The operands are flattened and mapped with one ``vmap``: a per-element
    ``while_loop`` in ``fn`` runs until every element is done, each keeping
    its own value, as under JAX's nested ``vmap``s.
    """

    def mapped(*args: Array) -> Array:
        shape = get_aval(args[0]).shape
        if not shape:
            return fn(*args)
        flat = [reshape(a, (-1,)) for a in args]
        return reshape(vmap(fn)(*flat), shape)

    mapped.__name__ = mapped.__qualname__ = fn.__name__
    return mapped


def strong(x: Array) -> Array:
    """``x`` strongly typed: JAX's results built on typed constants (``jnp.array(1, dtype)``)."""
    return as_result(lax.convert_element_type(x, get_aval(x).dtype))


def any_true(x: ArrayLike) -> Array:
    """Whether any element of ``x`` holds (a loop condition over a vector)."""
    return _any(x)


def gammasgn(x: ArrayLike) -> Array:
    """The sign of the gamma function: NaN at poles and ``-inf``, ``-1`` at ``-0``.

    >>> gammasgn(np.array([2.5, -0.5, -1.5, -2.0]))
    Array([ 1., -1.,  1., nan], dtype=float32)
    """
    (v,) = inexact_args("gammasgn", x)
    floor_x = enp.floor(v)
    negative = v < 0
    is_nan = enp.logical_or(enp.logical_and(negative, enp.equal(v, floor_x)), mnp.isnan(v))
    is_minus = enp.logical_or(
        enp.logical_and(negative, enp.not_equal(enp.remainder(floor_x, 2), 0)),
        enp.logical_and(enp.equal(v, 0), mnp.signbit(v)),
    )
    one = lax.full_like(v, 1.0)
    return strong(enp.where(is_nan, _NAN, enp.where(is_minus, -1.0, one)))


# Lanczos coefficients for g=7, N=9 (JAX's complex gamma; GSL's lanczos_7_c).
_LANCZOS_G: Final = 7.0
_LANCZOS_COEFFS: Final = (
    0.99999999999980993,
    676.5203681218851,
    -1259.1392167224028,
    771.32342877765313,
    -176.61502916214059,
    12.507343278686905,
    -0.13857109526572012,
    9.9843695780195716e-6,
    1.5056327351493116e-7,
)


def _complex_loggamma(z: Array) -> Array:
    # Lanczos, reflected for Re(z) < 0.5; the reflected branch gets a safe z
    # where unused so that its NaNs reach no gradient.
    dtype = get_aval(z).dtype
    needs_reflection = mnp.real(z) < 0.5
    zz = enp.where(needs_reflection, 1.0 - z, z) - 1.0
    coeffs = asarray(np.array(_LANCZOS_COEFFS[1:]), dtype)
    ks = asarray(np.arange(1, 9), dtype)
    nd = get_aval(zz).ndim
    ag = _LANCZOS_COEFFS[0] + _sum(
        expand_dims(coeffs, tuple(range(nd))) / (expand_dims(zz, (nd,)) + ks), axis=-1
    )
    t = zz + (_LANCZOS_G + 0.5)
    lanczos = (0.5 * math.log(2.0 * math.pi) + (zz + 0.5) * enp.log(t)) - t + enp.log(ag)
    z_safe = enp.where(needs_reflection, z, lax.full_like(z, 0.5))
    reflected = enp.log(asarray(math.pi, dtype)) - enp.log(enp.sin(math.pi * z_safe)) - lanczos
    return enp.where(needs_reflection, reflected, lanczos)


def _poles_to_nan(z: Array, fn: Callable[[Array], Array]) -> Array:
    """``fn(z)``, NaN+NaNj at the poles (non-positive reals) and NaNs; ``fn`` sees 1 there."""
    is_pole = enp.logical_and(
        enp.logical_and(enp.equal(mnp.imag(z), 0), enp.equal(mnp.real(z), enp.floor(mnp.real(z)))),
        mnp.real(z) <= 0,
    )
    safe = enp.logical_or(is_pole, mnp.isnan(z))
    nan = lax.full_like(z, complex(_NAN, _NAN))
    return enp.where(safe, nan, fn(enp.where(safe, lax.full_like(z, 1.0), z)))


def _complex_loggamma_scipy(z: Array) -> Array:
    # SciPy's branch cut: shift into the right half-plane by
    # loggamma(z) = loggamma(z + n) - sum_{k<n} log(z + k).
    def shifted(z_safe: Array) -> Array:
        # JAX's ``.astype(int)``: the default integer of the mode.
        n = lax.convert_element_type(
            enp.maximum(0, enp.ceil(0.5 - mnp.real(z_safe))), dtypes.default_int()
        )

        def cond(state: tuple[Array, Array]) -> Array:
            return any_true(state[0] < n)

        def body(state: tuple[Array, Array]) -> tuple[Array, Array]:
            k, sum_log = state
            mask = k < n
            zk = enp.where(mask, z_safe + k, lax.full_like(z_safe, 1.0))
            return k + 1, sum_log + enp.where(mask, enp.log(zk), lax.full_like(sum_log, 0))

        k0 = lax.full((), 0, get_aval(n).dtype)
        _, sum_log = while_loop(cond, body, (k0, lax.full_like(z_safe, 0)))
        return _complex_loggamma(z_safe + n) - as_result(sum_log)

    return _poles_to_nan(z, shifted)


def loggamma(x: ArrayLike) -> Array:
    """The principal branch of ``log(gamma(x))``: NaN for real ``x <= 0``; complex too.

    >>> loggamma(np.array([0.5, 3.0, -1.5]))
    Array([0.5723648, 0.6931474,       nan], dtype=float32)
    """
    (v,) = inexact_args("loggamma", x, real=False)
    if dtypes.is_complex(get_aval(v).dtype):
        return _complex_loggamma_scipy(v)
    return enp.where(v > 0, lax.lgamma(v), _NAN)


def gamma(x: ArrayLike) -> Array:
    """The gamma function, ``gammasgn(x) * exp(gammaln(x))`` for reals (Lanczos for complex).

    >>> gamma(np.array([5.0, 0.5, -0.5]))
    Array([24.000023 ,  1.7724537, -3.5449061], dtype=float32)
    """
    (v,) = inexact_args("gamma", x, real=False)
    if dtypes.is_complex(get_aval(v).dtype):
        return _poles_to_nan(v, lambda z: enp.exp(_complex_loggamma(z)))
    return gammasgn(v) * lax.exp(lax.lgamma(v))


def factorial(n: ArrayLike, exact: bool = False) -> Array:
    """``n!`` as ``exp(gammaln(n + 1))``, 0 for negative ``n``; ``exact=True`` is refused as JAX's.

    >>> factorial(np.array([0, 3, 5, -1]))
    Array([  1.0000005,   6.0000052, 120.00012  ,   0.       ], dtype=float32)
    """
    if exact:
        raise NotImplementedError("factorial with exact=True")
    (v,) = inexact_args("factorial", n)
    return enp.where(v < 0, 0, lax.exp(lax.lgamma(v + 1)))


def comb(N: ArrayLike, k: ArrayLike, *, repetition: bool = False) -> Array:
    """``N choose k`` through ``gammaln``, 0 unless ``0 <= k <= N`` (or with ``repetition``).

    >>> comb(np.array([5.0, 10.0, 3.0]), np.array([2.0, 3.0, 4.0]))
    Array([  9.999995, 120.00012 ,   0.      ], dtype=float32)
    """
    n_arr, k_arr = inexact_args("comb", N, k)
    if repetition:
        cond = enp.logical_and(enp.equal(k_arr, 0), n_arr >= 0)
        return enp.where(cond, 1.0, comb(n_arr + k_arr - 1, k_arr))
    cond = enp.logical_and(enp.logical_and(k_arr <= n_arr, n_arr >= 0), k_arr >= 0)
    safe_n = enp.where(cond, n_arr, 0.0)
    safe_k = enp.where(cond, k_arr, 0.0)
    result = lax.exp(gammaln(safe_n + 1) - gammaln(safe_k + 1) - gammaln(safe_n + 1 - safe_k))
    return enp.where(cond, result, 0.0)


@custom_jvp
def _poch(z: Array, m: Array) -> Array:
    return strong(enp.where(enp.equal(m, 0.0), lax.full_like(z, 1), gamma(z + m) / gamma(z)))


_poch.defjvps(
    lambda z_dot, out, z, m: (digamma(z + m) - digamma(z)) * _poch(z, m) * z_dot,
    lambda m_dot, out, z, m: digamma(z + m) * _poch(z, m) * m_dot,
)


def poch(z: ArrayLike, m: ArrayLike) -> Array:
    """The rising factorial ``gamma(z + m) / gamma(z)`` (1 where ``m == 0``), JAX's derivatives.

    >>> poch(np.array([2.0, 3.0]), np.array([3.0, 0.0]))
    Array([24.000023,  1.      ], dtype=float32)
    """
    z_arr, m_arr = inexact_args("poch", z, m)
    return as_result(_poch(z_arr, m_arr))


def multigammaln(a: ArrayLike, d: ArrayLike) -> Array:
    """The log of the multivariate gamma function of dimension ``d`` (a static integer).

    >>> multigammaln(np.array([3.0, 5.0]), 2)
    Array([1.5501953, 6.204158 ], dtype=float32)
    """
    dim = operator_index(d, "multigammaln: d")
    a_arr, d_arr = inexact_args("multigammaln", a, dim)
    constant = 0.25 * d_arr * (d_arr - 1) * math.log(math.pi)
    dtype = get_aval(d_arr).dtype
    b = asarray(np.arange(dim), dtype) / 2
    nd = get_aval(a_arr).ndim
    res = _sum(gammaln(expand_dims(a_arr, -1) - expand_dims(b, tuple(range(nd)))), axis=-1)
    return res + constant


def operator_index(d: Any, what: str) -> int:
    """``d`` as a Python integer (JAX's ``concrete_or_error(operator.index, d)``).

    ``what`` names the argument in the error, e.g. ``"bernoulli: n"``.
    """
    value = static_scalar(d, what)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be a concrete integer, got {d!r}")
    return int(value)


@custom_jvp
def _xlogx(x: Array) -> Array:
    return xlogy(x, x)


_xlogx.defjvps(lambda t, out, x: t * (lax.log(x) + 1))


def entr(x: ArrayLike) -> Array:
    """The elementwise entropy ``-x log(x)``: 0 at 0, ``-inf`` for negative ``x``.

    >>> entr(np.array([0.0, 0.5, 1.0, -1.0]))
    Array([-0.       ,  0.3465736, -0.       ,       -inf], dtype=float32)
    """
    (v,) = inexact_args("entr", x)
    return enp.where(v < 0, lax.full_like(v, -_INF), -_xlogx(v))


def rel_entr(p: ArrayLike, q: ArrayLike) -> Array:
    """``p log(p / q)`` where both are positive, 0 at ``p == 0 <= q``, ``inf`` elsewhere.

    >>> rel_entr(np.array([0.5, 0.0, 1.0]), np.array([0.25, 1.0, 0.0]))
    Array([0.3465736, 0.       ,       inf], dtype=float32)
    """
    p_arr, q_arr = inexact_args("rel_entr", p, q)
    both_positive = enp.logical_and(p_arr > 0, q_arr > 0)
    one_zero = enp.logical_and(enp.equal(p_arr, 0), q_arr >= 0)
    safe_p = enp.where(both_positive, p_arr, 1)
    safe_q = enp.where(both_positive, q_arr, 1)
    log_val = _xlogx(safe_p) - xlogy(safe_p, safe_q)
    zero = lax.full_like(p_arr, 0)
    return enp.where(both_positive, log_val, enp.where(one_zero, zero, _INF))


def kl_div(p: ArrayLike, q: ArrayLike) -> Array:
    """``rel_entr(p, q) - p + q``, the Kullback-Leibler divergence's elementwise terms.

    >>> kl_div(np.array([0.5, 0.0]), np.array([0.25, 1.0]))
    Array([0.09657359, 1.        ], dtype=float32)
    """
    p_arr, q_arr = inexact_args("kl_div", p, q)
    return rel_entr(p_arr, q_arr) - p_arr + q_arr


def _boxcox(name: str, log_fn: Callable[[Array], Array], x: ArrayLike, lmbda: ArrayLike) -> Array:
    x_arr, l_arr = inexact_args(name, x, lmbda)
    is_zero = enp.equal(l_arr, 0)
    safe_l = enp.where(is_zero, lax.full_like(l_arr, 1), l_arr)
    log_x = log_fn(x_arr)
    return enp.where(is_zero, log_x, mnp.expm1(safe_l * log_x) / safe_l)


def boxcox(x: ArrayLike, lmbda: ArrayLike) -> Array:
    """The Box-Cox transform ``(x**lmbda - 1) / lmbda`` (``log(x)`` at ``lmbda == 0``).

    >>> boxcox(np.array([1.0, 4.0]), np.array([0.0, 0.5]))
    Array([0., 2.], dtype=float32)
    """
    return _boxcox("boxcox", enp.log, x, lmbda)


def boxcox1p(x: ArrayLike, lmbda: ArrayLike) -> Array:
    """``boxcox(1 + x, lmbda)``, computed with ``log1p``."""
    return _boxcox("boxcox1p", enp.log1p, x, lmbda)


# (2k)! / B_{2k}, B the Bernoulli numbers (JAX's table, for zeta's series).
_BERNOULLI_COEFS: Final = np.array(
    [
        12,
        -720,
        30240,
        -1209600,
        47900160,
        -1307674368000 / 691,
        74724249600,
        -10670622842880000 / 3617,
        5109094217170944000 / 43867,
        -802857662698291200000 / 174611,
        14101100039391805440000 / 77683,
        -1693824136731743669452800000 / 236364091,
        186134520519971831808000000 / 657931,
        -37893265687455865519472640000000 / 3392780147,
        759790291646040068357842010112000000 / 1723168255201,
        -134196726836183700385281186201600000000 / 7709321041217,
    ]
)


def _zeta_series(s: Array, a: Array) -> Array:
    # Johansson (2015), formula (5): Euler-Maclaurin with N = M terms, the
    # jvp of which is zeta's derivative (no closed form exists).
    dtype = get_aval(a).dtype
    n_terms = 8 if dtype == np.float32 else 16
    nd = get_aval(a).ndim
    lead = tuple(range(nd))
    s_, a_ = expand_dims(s, -1), expand_dims(a, -1)
    k = expand_dims(asarray(np.arange(n_terms), dtype), lead)
    big_s = _sum((a_ + k) ** -s_, -1)
    big_i = (a + n_terms) ** (1 - s) / (s - 1)
    t0 = (a + n_terms) ** -s
    m = expand_dims(asarray(np.arange(2 * n_terms), dtype), lead)
    t1 = cumulative_prod((s_ + m) / (a_ + n_terms), axis=-1)
    t1 = lax.slice_in_dim(t1, 0, 2 * n_terms, stride=2, axis=nd)
    t1 = enp.minimum(t1, float(finfo(dtype).max))
    coefs = expand_dims(asarray(_BERNOULLI_COEFS[:n_terms], dtype), lead)
    t = t0 * (0.5 + _sum(t1 / coefs, -1))
    return big_s + big_i + t


@custom_jvp
def _zeta(x: Array, q: Array) -> Array:
    return as_result(lax.zeta(x, q))


@_zeta.defjvp
def _zeta_jvp(primals: tuple[Array, Array], tangents: tuple[Array, Array]) -> Any:
    return jvp(_zeta_series, primals, tangents)


def zeta(x: ArrayLike, q: ArrayLike | None = None) -> Array:
    """The Hurwitz zeta function ``sum_k (k + q) ** -x`` (``lax.zeta``); ``q`` is required.

    >>> zeta(np.array([2.0, 3.0]), 1.0)
    Array([1.644934, 1.202057], dtype=float32)
    """
    if q is None:
        raise NotImplementedError(
            "Riemann zeta function not implemented; pass q != None to compute the "
            "Hurwitz Zeta function."
        )
    x_arr, q_arr = inexact_args("zeta", x, q)
    return as_result(_zeta(x_arr, q_arr))


def polygamma(n: ArrayLike, x: ArrayLike) -> Array:
    """The ``n``-th derivative of ``digamma`` (``lax.polygamma``); ``n`` must be of an integer type.

    >>> polygamma(1, np.array([1.0, 2.0]))
    Array([1.644934  , 0.64493406], dtype=float32)
    """
    n_dtype = get_aval(operand(n)).dtype
    if not dtypes.is_integer(n_dtype):
        raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype {n_dtype}.")
    n_arr, x_arr = inexact_args("polygamma", n, x)
    return as_result(lax.polygamma(n_arr, x_arr))


def bernoulli(n: int) -> Array:
    """The Bernoulli numbers ``B_0 .. B_n`` (Chowla and Hartung's algorithm, as JAX's).

    >>> bernoulli(4)
    Array([ 1.        , -0.5       ,  0.16666667,  0.        , -0.03333325], dtype=float32)
    """
    n = operator_index(n, "bernoulli: n")
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    b3 = asarray(np.array([1.0, -0.5, 1 / 6]))
    if n < 3:
        return lax.slice_in_dim(b3, 0, n + 1)
    dtype = get_aval(b3).dtype
    m = asarray(np.arange(4, n + 1, 2), dtype)
    q1 = (1.0 / math.pi**2) * cumulative_prod(-(m - 1) * m / 4 / math.pi**2)
    k = asarray(np.arange(2, 50), dtype)  # 50: 2 ** -50 < 1e-15
    q2 = _sum(expand_dims(k, 1) ** -expand_dims(m, 0), axis=0)
    even = q1 * (1 + q2)  # B_4, B_6, ...
    # The odd indices from 3 on are 0: interleave, then cut to n + 1 entries.
    zeros = lax.full_like(even, 0)
    tail = reshape(lax.concatenate([expand_dims(zeros, 1), expand_dims(even, 1)], 1), (-1,))
    out = lax.concatenate([b3, tail, lax.full((1,), 0, dtype)], 0)
    return lax.slice_in_dim(out, 0, n + 1)


def softmax(x: ArrayLike, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """``didax.nn.softmax`` over ``axis`` (all axes by default, as SciPy's)."""
    return _nn_softmax(x, axis=axis)


def log_softmax(x: ArrayLike, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """``didax.nn.log_softmax`` over ``axis`` (all axes by default, as SciPy's)."""
    return _nn_log_softmax(x, axis=axis)
