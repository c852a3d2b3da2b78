"""``didax.scipy.stats.expon``: the exponential distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, log, log1p, where
from didax.api.numpy.more_elementwise import expm1, isnan
from didax.api.stats.arguments import NAN, NEG_INF, inexact
from didax.core import lax

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the exponential density at ``x`` (``-inf`` below ``loc``)."""
    x, loc, scale = inexact("expon.logpdf", x, loc, scale)
    log_probs = -((x - loc) / scale + log(scale))
    return where(x < loc, NEG_INF, log_probs)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The exponential density at ``x``."""
    return exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The exponential CDF ``-expm1(-z)``."""
    x, loc, scale = inexact("expon.cdf", x, loc, scale)
    neg_scaled_x = (loc - x) / scale
    return where(x < loc, lax.full_like(neg_scaled_x, 0), -expm1(neg_scaled_x))


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the exponential CDF, ``log1p(-sf)``."""
    return log1p(-sf(x, loc, scale))


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the exponential survival function, ``-z``."""
    x, loc, scale = inexact("expon.sf", x, loc, scale)
    neg_scaled_x = (loc - x) / scale
    return where(x < loc, lax.full_like(neg_scaled_x, 0), neg_scaled_x)


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The exponential survival function."""
    return exp(logsf(x, loc, scale))


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The exponential quantile function (NaN outside ``[0, 1]``)."""
    q, loc, scale = inexact("expon.ppf", q, loc, scale)
    return where(isnan(q) | (q < 0) | (q > 1), NAN, loc - scale * log1p(-q))
