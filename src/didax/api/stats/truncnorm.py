"""``didax.scipy.stats.truncnorm``: the truncated normal distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
- ``a`` and ``b`` are standardized bounds. The mass between two bounds is
  in logarithms, from the nearer tail (``log_ndtr`` differences by
  ``logsumexp`` with weights 1, -1) or, across 0, as ``log1p(-ndtr(a) - ndtr(-b))``, as JAX's.
- NaN where ``a >= b``.
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, log1p, where
from didax.api.numpy.logic import select
from didax.api.numpy.manipulation import stack
from didax.api.numpy.more_routines import broadcast_arrays
from didax.api.numpy.operands import asarray
from didax.api.scipy_special import logsumexp
from didax.api.scipy_special_dist import log_ndtr, ndtr
from didax.api.stats import norm
from didax.api.stats.arguments import NAN, NEG_INF, inexact, standardize
from didax.core import lax

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def _log_diff(x: Array, y: Array) -> Array:
    # log(exp(x) - exp(y)).
    ones = lax.full_like(x, 1)
    out: Array = logsumexp(stack([x, y]), b=stack([ones, -lax.full_like(y, 1)]), axis=0)
    return out


def _log_gauss_mass(a: Array, b: Array) -> Array:
    a, b = broadcast_arrays(asarray(a), asarray(b))
    case_left = b <= 0
    case_right = a > 0
    case_central = ~(case_left | case_right)
    a_tail = where(case_right, -b, a)
    b_tail = where(case_right, -a, b)
    mass_tail = _log_diff(log_ndtr(b_tail), log_ndtr(a_tail))
    mass_central = log1p(-ndtr(a) - ndtr(-b))
    return where(case_central, mass_central, mass_tail)


def logpdf(
    x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1
) -> Array:
    """The log of the truncated normal density (``-inf`` outside ``[a, b]``)."""
    x, a, b, loc, scale = inexact("truncnorm.logpdf", x, a, b, loc, scale)
    val = norm.logpdf(x, loc, scale) - _log_gauss_mass(a, b)
    x_scaled = standardize(x, loc, scale)
    val = where((x_scaled < a) | (x_scaled > b), NEG_INF, val)
    return where(a >= b, NAN, val)


def pdf(
    x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1
) -> Array:
    """The truncated normal density."""
    return exp(logpdf(x, a, b, loc, scale))


def logsf(
    x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1
) -> Array:
    """The log of the truncated normal survival function (``logcdf`` mirrored)."""
    x, a, b, loc, scale = inexact("truncnorm.logsf", x, a, b, loc, scale)
    return logcdf(-x, -b, -a, -loc, scale)


def sf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The truncated normal survival function."""
    return exp(logsf(x, a, b, loc, scale))


def logcdf(
    x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1
) -> Array:
    """The log of the truncated normal CDF."""
    x, a, b, loc, scale = inexact("truncnorm.logcdf", x, a, b, loc, scale)
    x, a, b = broadcast_arrays(x, a, b)
    x = standardize(x, loc, scale)
    lgm_ab = _log_gauss_mass(a, b)
    log_cdf = _log_gauss_mass(a, x) - lgm_ab
    log_sf = _log_gauss_mass(x, b) - lgm_ab
    log_cdf = select(
        [x >= b, x <= a, log_cdf > -0.1, x > a],
        [0, NEG_INF, log1p(-exp(log_sf)), log_cdf],
    )
    return where(a >= b, NAN, log_cdf)


def cdf(
    x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1
) -> Array:
    """The truncated normal CDF."""
    return exp(logcdf(x, a, b, loc, scale))
