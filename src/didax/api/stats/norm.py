"""``didax.scipy.stats.norm``: the normal distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
- ``ppf`` and ``isf`` return the default float dtype, as JAX's.
"""

from __future__ import annotations

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, log
from didax.api.numpy.more_elementwise import square
from didax.api.numpy.operands import asarray
from didax.api.scipy_special_dist import log_ndtr, ndtr, ndtri
from didax.api.stats.arguments import const, inexact, reflected, standardize

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the normal density at ``x``."""
    x, loc, scale = inexact("norm.logpdf", x, loc, scale)
    scale_sqrd = square(scale)
    log_normalizer = log(const(x, 2 * np.pi) * scale_sqrd)
    quadratic = square(x - loc) / scale_sqrd
    return (log_normalizer + quadratic) / const(x, -2)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The normal density at ``x``."""
    return exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The normal CDF (``ndtr``)."""
    x, loc, scale = inexact("norm.cdf", x, loc, scale)
    return ndtr(standardize(x, loc, scale))


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the normal CDF (``log_ndtr``)."""
    x, loc, scale = inexact("norm.logcdf", x, loc, scale)
    return log_ndtr(standardize(x, loc, scale))


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The normal quantile function (``ndtri``), in the default float dtype."""
    return asarray(ndtri(q) * scale + loc, float)


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the normal survival function."""
    return reflected("norm.logsf", logcdf, x, loc, scale)


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The normal survival function ``1 - cdf``."""
    return reflected("norm.sf", cdf, x, loc, scale)


def isf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The inverse of the survival function: ``ppf(1 - q)``."""
    return ppf(1 - asarray(q), loc, scale)
