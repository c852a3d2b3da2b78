"""``didax.scipy.special``'s distribution functions: normal CDFs, incomplete gamma and beta.

Design rules:
- Each function is JAX's formula operation for operation, so that values
  (and, through the primitives' own rules, derivatives) are JAX's:
  ``ndtr`` picks ``erf`` or ``erfc`` by the size of its argument,
  ``ndtri`` is Cephes' piece-wise rational approximation, ``log_ndtr``
  switches to an asymptotic series far in the left tail (with JAX's
  derivative ``exp(log pdf - log_ndtr)``), ``betaln`` uses SciPy's
  ``algdiv`` for a large second argument.
- ``gammainc``, ``gammaincc`` and ``betainc`` bind the ``igamma``,
  ``igammac`` and ``regularized_incomplete_beta`` primitives: their
  derivatives are those primitives' rules (``betainc`` is differentiable
  in ``x`` only, as JAX's).
- ``ndtr``, ``ndtri`` and ``log_ndtr`` take float32 or float64 only (JAX
  refuses the rest); constants are NumPy scalars of the argument's dtype,
  as JAX's, so that results are strongly typed where JAX's are.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

import numpy as np

from didax.api.custom_derivatives import custom_jvp
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import abs as _abs
from didax.api.numpy.elementwise import (
    exp,
    greater,
    less,
    log,
    log1p,
    maximum,
    minimum,
    sqrt,
    where,
)
from didax.api.numpy.more_elementwise import square
from didax.api.numpy.operands import as_result, asarray, bind, promote
from didax.api.scipy_special_gamma import gammasgn
from didax.core import dtypes, lax
from didax.core.values import get_aval

__all__ = [
    "ndtr",
    "ndtri",
    "log_ndtr",
    "gammainc",
    "gammaincc",
    "betainc",
    "beta",
    "betaln",
]


def _float_operand(name: str, x: ArrayLike) -> tuple[Array, type[np.floating]]:
    """``x`` as an Array, and its NumPy scalar type; float32 and float64 only (JAX's rule)."""
    arr = asarray(x)
    dtype = get_aval(arr).dtype
    if dtype not in (np.float32, np.float64):
        raise TypeError(
            f"{name}: x.dtype={np.dtype(dtype)} is not supported (float32 or float64 only)"
        )
    return arr, _scalar_type(arr)


def _scalar_type(x: Array) -> type[np.floating]:
    # The NumPy scalar type of a float32 or float64 x (for constants typed as JAX's).
    return np.float32 if get_aval(x).dtype == np.float32 else np.float64


def _ndtr(x: Array, typ: type[np.floating]) -> Array:
    # erf near 0, where 1 + erf is accurate; erfc in the tails (2 - erfc on the right).
    half_sqrt_2 = typ(0.5) * np.sqrt(typ(2.0))
    w = x * half_sqrt_2
    z = _abs(w)
    tails = where(greater(w, typ(0.0)), typ(2.0) - lax.erfc(z), lax.erfc(z))
    return typ(0.5) * where(less(z, half_sqrt_2), typ(1.0) + lax.erf(w), tails)


def ndtr(x: ArrayLike) -> Array:
    """The standard normal CDF ``(1 + erf(x / sqrt(2))) / 2`` (JAX's ``ndtr``).

    >>> import numpy as np
    >>> ndtr(np.array([0.0, 1.0], np.float32))
    Array([0.5      , 0.8413447], dtype=float32)
    """
    arr, typ = _float_operand("ndtr", x)
    return _ndtr(arr, typ)


# Cephes' coefficients (ndtri.c), highest power first: P0/Q0 for
# p > exp(-2), P1/Q1 for 2 <= z < 8 and P2/Q2 for z >= 8 (z = sqrt(-2 log p)).
_P0: Final = (-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1,
              1.39312609387279679503e1, -1.23916583867381258016e0)  # fmt: skip
_Q0: Final = (1.0, 1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1,
              -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1,
              1.59056225126211695515e1, -1.18331621121330003142e0)  # fmt: skip
_P1: Final = (4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1,
              4.40805073893200834700e1, 1.46849561928858024014e1, 2.18663306850790267539e0,
              -1.40256079171354495875e-1, -3.50424626827848203418e-2,
              -8.57456785154685413611e-4)  # fmt: skip
_Q1: Final = (1.0, 1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1,
              1.50425385692907503408e1, 2.50464946208309415979e0, -1.42182922854787788574e-1,
              -3.80806407691578277194e-2, -9.33259480895457427372e-4)  # fmt: skip
_P2: Final = (3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0,
              1.33303460815807542389e0, 2.01485389549179081538e-1, 1.23716634817820021358e-2,
              3.01581553508235416007e-4, 2.65806974686737550832e-6,
              6.23974539184983293730e-9)  # fmt: skip
_Q2: Final = (1.0, 6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0,
              2.16236993594496635890e-1, 1.34204006088543189037e-2, 3.28014464682127739104e-4,
              2.89247864745380683936e-6, 6.79019408009981274425e-9)  # fmt: skip


def _polyval(coeffs: Sequence[float], x: Array, typ: type[np.floating]) -> Array:
    # Horner's rule from 0, as jnp.polyval (the first step is 0 * x + c0).
    out = as_result(lax.full_like(x, 0))
    for c in coeffs:
        out = out * x + typ(c)
    return out


def _rational(p: Sequence[float], q: Sequence[float], x: Array, typ: type[np.floating]) -> Array:
    return _polyval(p, x, typ) / _polyval(q, x, typ)


def ndtri(p: ArrayLike) -> Array:
    """The inverse of ``ndtr``: ``x`` with ``ndtr(x) == p`` (Cephes' rational approximations).

    ``-inf`` at 0, ``inf`` at 1, NaN outside ``[0, 1]``.

    >>> import numpy as np
    >>> ndtri(np.array([0.5, 0.975], np.float32))
    Array([0.       , 1.9599644], dtype=float32)
    """
    arr, typ = _float_operand("ndtri", p)
    complement = where(greater(arr, typ(-np.expm1(-2.0))), typ(1.0) - arr, arr)
    # 0 would give NaNs in the unused branches (and their gradients): any safe value will do.
    safe = where(complement == typ(0.0), typ(0.5), complement)
    w = safe - typ(0.5)
    ww = square(w)
    big_p = (w + w * ww * _rational(_P0, _Q0, ww, typ)) * -typ(np.sqrt(2.0 * np.pi))
    z = sqrt(typ(-2.0) * log(safe))
    first = z - log(z) / z
    inv_z = 1 / z
    small_p = first - _rational(_P2, _Q2, inv_z, typ) / z
    otherwise = first - _rational(_P1, _Q1, inv_z, typ) / z
    out = where(
        greater(safe, typ(np.exp(-2.0))),
        big_p,
        where(z >= typ(8.0), small_p, otherwise),
    )
    out = where(greater(arr, typ(1.0 - np.exp(-2.0))), out, -out)
    inf = typ(np.inf)
    return where(arr == typ(0.0), -inf, where(arr == typ(1.0), inf, out))


# Where log_ndtr leaves log(ndtr(x)) for the asymptotic series (below) or
# for -ndtr(-x) (above), by dtype, as JAX's.
_LOG_NDTR_SEGMENTS: Final = {np.float32: (-10.0, 5.0), np.float64: (-20.0, 8.0)}
_LOG_SQRT_2PI: Final = float(np.log(np.sqrt(2.0 * np.pi)))


def _double_factorial(n: int) -> int:
    return int(np.prod(np.arange(n, 1, -2)))


def _log_ndtr_lower(x: Array, series_order: int, typ: type[np.floating]) -> Array:
    """``log(ndtr(x))`` for ``x << -1``: ``log(exp(-x^2/2) / (-x sqrt(2 pi)) (1 + sum))``."""
    x_2 = square(x)
    log_scale = -typ(0.5) * x_2 - log(-x) - typ(0.5 * np.log(2.0 * np.pi))
    if series_order <= 0:
        return log_scale + log(np.array(1, typ))
    # sum_{n=1}^N (-1)^n (2n-1)!! / x^(2n), its even and odd terms summed apart.
    even = odd = as_result(lax.full_like(x, 0))
    x_2n = x_2
    for n in range(1, series_order + 1):
        term = np.array(_double_factorial(2 * n - 1), typ) / x_2n
        if n % 2:
            odd = odd + term
        else:
            even = even + term
        x_2n = x_2n * x_2
    return log_scale + log(typ(1.0) + even - odd)


def _log_ndtr_primal(x: Array, series_order: int) -> Array:
    typ = _scalar_type(x)
    lower, upper = (np.array(v, typ) for v in _LOG_NDTR_SEGMENTS[typ])
    above = greater(x, upper)
    # One ndtr call for both outer branches; the clamps keep the unused
    # branches finite, so that their (zero-weighted) gradients are not NaN.
    ndtr_res = _ndtr(where(above, -x, maximum(x, lower)), typ)
    return where(
        above,
        -ndtr_res,  # log(1 - y) ~ -y for small y
        where(
            greater(x, lower),
            log(ndtr_res),
            _log_ndtr_lower(minimum(x, lower), series_order, typ),
        ),
    )


@functools.cache
def _log_ndtr_custom(series_order: int) -> custom_jvp:
    custom = custom_jvp(lambda x: _log_ndtr_primal(x, series_order))

    def jvp(primals: Sequence[Array], tangents: Sequence[Array]) -> tuple[Array, Array]:
        (x,), (t,) = primals, tangents
        out = custom(x)
        log_pdf = -0.5 * square(x) - _LOG_SQRT_2PI
        return out, t * exp(log_pdf - out)

    custom.defjvp(jvp)
    return custom


def log_ndtr(x: ArrayLike, series_order: int = 3) -> Array:
    """``log(ndtr(x))``, accurate far into both tails (JAX's ``log_ndtr``).

    Below -20 (float64; -10 in float32) an asymptotic series of ``series_order``
    terms replaces ``log(ndtr(x))``; above 8 (5) it is ``-ndtr(-x)``.

    >>> import numpy as np
    >>> log_ndtr(np.array([-30.0, 0.0], np.float32))
    Array([-454.32123  ,   -0.6931472], dtype=float32)
    """
    if not isinstance(series_order, int):
        raise TypeError(f"log_ndtr: series_order must be a Python integer, got {series_order!r}")
    if series_order < 0:
        raise ValueError("log_ndtr: series_order must be non-negative")
    if series_order > 30:
        raise ValueError("log_ndtr: series_order must be <= 30")
    arr, _ = _float_operand("log_ndtr", x)
    return as_result(_log_ndtr_custom(series_order)(arr))


def _inexact_args(name: str, *args: ArrayLike) -> list[Array]:
    vals, dtype, _ = promote(name, *args, inexact=True)
    if dtypes.is_complex(dtype):
        raise TypeError(f"{name}: complex arguments are not supported, got {np.dtype(dtype)}")
    return [as_result(v) for v in vals]


def gammainc(a: ArrayLike, x: ArrayLike) -> Array:
    """The regularized lower incomplete gamma function ``P(a, x)`` (``lax.igamma``).

    >>> gammainc(1.0, 2.0)
    Array(0.8646648, dtype=float32, weak_type=True)
    """
    a, x = _inexact_args("gammainc", a, x)
    return bind(lax.igamma_p, a, x)


def gammaincc(a: ArrayLike, x: ArrayLike) -> Array:
    """The regularized upper incomplete gamma function ``1 - P(a, x)`` (``lax.igammac``)."""
    a, x = _inexact_args("gammaincc", a, x)
    return bind(lax.igammac_p, a, x)


def betainc(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """The regularized incomplete beta function ``I_x(a, b)`` (``lax.betainc``).

    Differentiable in ``x`` only, as JAX's.

    >>> betainc(2.0, 3.0, 0.5)
    Array(0.6874998, dtype=float32, weak_type=True)
    """
    a, b, x = _inexact_args("betainc", a, b, x)
    return bind(lax.regularized_incomplete_beta_p, a, b, x)


def _algdiv(a: Array, b: Array) -> Array:
    """``log(gamma(b) / gamma(a + b))`` for ``b >= 8`` and ``a <= b`` (SciPy's ``algdiv``)."""
    c0, c1, c2 = 0.833333333333333e-01, -0.277777777760991e-02, 0.793650666825390e-03
    c3, c4, c5 = -0.595202931351870e-03, 0.837308034031215e-03, -0.165322962780713e-02
    h = a / b
    c = h / (1 + h)
    x = h / (1 + h)
    d = b + (a - 0.5)
    x2 = x * x
    s3 = 1.0 + (x + x2)
    s5 = 1.0 + (x + x2 * s3)
    s7 = 1.0 + (x + x2 * s5)
    s9 = 1.0 + (x + x2 * s7)
    s11 = 1.0 + (x + x2 * s9)
    t = (1.0 / b) ** 2
    w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0
    w = w * (c / b)
    u = d * log1p(a / b)
    v = a * (log(b) - 1.0)
    return where(u <= v, (w - v) - u, (w - u) - v)


def betaln(a: ArrayLike, b: ArrayLike) -> Array:
    """``log(|B(a, b)|)``, accurate for large arguments too (SciPy's ``betaln``, as JAX's).

    >>> betaln(2.0, 3.0)
    Array(-2.4849074, dtype=float32, weak_type=True)
    """
    x, y = _inexact_args("betaln", a, b)
    small, large = minimum(x, y), maximum(x, y)
    small_b = lax.lgamma(small) + (lax.lgamma(large) - lax.lgamma(small + large))
    large_b = lax.lgamma(small) + _algdiv(small, large)
    return where(large < 8, small_b, large_b)


def beta(a: ArrayLike, b: ArrayLike) -> Array:
    """The beta function ``gamma(a) gamma(b) / gamma(a + b)``, signed (JAX's ``beta``).

    >>> beta(2.0, 3.0)
    Array(0.08333327, dtype=float32)
    """
    x, y = _inexact_args("beta", a, b)
    sign = gammasgn(x) * gammasgn(y) * gammasgn(x + y)
    return as_result(sign * exp(betaln(x, y)))
