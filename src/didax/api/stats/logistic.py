"""``didax.scipy.stats.logistic``: the logistic distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, log
from didax.api.numpy.more_elementwise import logaddexp
from didax.api.scipy_special import expit, logit
from didax.api.stats.arguments import const, inexact, standardize

__all__ = ["cdf", "isf", "logpdf", "pdf", "ppf", "sf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the logistic density at ``x``."""
    x, loc, scale = inexact("logistic.logpdf", x, loc, scale)
    z = standardize(x, loc, scale)
    two = const(z, 2)
    half_z = z / two
    return -two * logaddexp(half_z, -half_z) - log(scale)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The logistic density at ``x``."""
    return exp(logpdf(x, loc, scale))


def ppf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The logistic quantile function (``logit``)."""
    x, loc, scale = inexact("logistic.ppf", x, loc, scale)
    return logit(x) * scale + loc


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The logistic survival function (``expit(-z)``)."""
    x, loc, scale = inexact("logistic.sf", x, loc, scale)
    return expit(-standardize(x, loc, scale))


def isf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The logistic inverse survival function."""
    x, loc, scale = inexact("logistic.isf", x, loc, scale)
    return -logit(x) * scale + loc


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The logistic CDF (``expit``)."""
    x, loc, scale = inexact("logistic.cdf", x, loc, scale)
    return expit(standardize(x, loc, scale))
