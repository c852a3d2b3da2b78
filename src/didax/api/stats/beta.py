"""``didax.scipy.stats.beta``: the beta distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
- NaN where a parameter is not positive, ``-inf`` outside ``[loc, loc + scale]``.
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, log, logical_or, where
from didax.api.scipy_special import xlog1py, xlogy
from didax.api.scipy_special_dist import betainc, betaln
from didax.api.stats.arguments import NAN, NEG_INF, const, inexact, standardize
from didax.core import lax

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(
    x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1
) -> Array:
    """The log of the beta density."""
    x, a, b, loc, scale = inexact("beta.logpdf", x, a, b, loc, scale)
    one, zero = const(x, 1), const(a, 0)
    shape_term = -betaln(a, b)
    y = standardize(x, loc, scale)
    log_linear_term = xlogy(a - one, y) + xlog1py(b - one, -y)
    log_probs = (shape_term + log_linear_term) - log(scale)
    result = where(logical_or(x > loc + scale, x < loc), NEG_INF, log_probs)
    bad = logical_or(logical_or(a <= zero, b <= zero), scale <= zero)
    return where(bad, NAN, result)


def pdf(
    x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1
) -> Array:
    """The beta density."""
    return exp(logpdf(x, a, b, loc, scale))


def _unit(x: Array, loc: Array, scale: Array) -> Array:
    return lax.clamp(const(x, 0), standardize(x, loc, scale), const(x, 1))


def cdf(
    x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1
) -> Array:
    """The beta CDF (``betainc``)."""
    x, a, b, loc, scale = inexact("beta.cdf", x, a, b, loc, scale)
    return betainc(a, b, _unit(x, loc, scale))


def logcdf(
    x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1
) -> Array:
    """The log of the beta CDF."""
    return log(cdf(x, a, b, loc, scale))


def sf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The beta survival function ``betainc(b, a, 1 - y)``."""
    x, a, b, loc, scale = inexact("beta.sf", x, a, b, loc, scale)
    return betainc(b, a, 1 - _unit(x, loc, scale))


def logsf(
    x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1
) -> Array:
    """The log of the beta survival function."""
    return log(sf(x, a, b, loc, scale))
