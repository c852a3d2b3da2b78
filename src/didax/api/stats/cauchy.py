"""``didax.scipy.stats.cauchy``: the Cauchy distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
"""

from __future__ import annotations

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, log, log1p, tan
from didax.api.numpy.more_elementwise import arctan
from didax.api.stats.arguments import const, inexact, reflected, standardize

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the Cauchy density at ``x``."""
    x, loc, scale = inexact("cauchy.logpdf", x, loc, scale)
    scaled_x = standardize(x, loc, scale)
    normalize_term = log(const(x, np.pi) * scale)
    return -(normalize_term + log1p(scaled_x * scaled_x))


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The Cauchy density at ``x``."""
    return exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The Cauchy CDF ``1/2 + arctan(z) / pi``."""
    x, loc, scale = inexact("cauchy.cdf", x, loc, scale)
    scaled_x = standardize(x, loc, scale)
    return const(x, 0.5) + (const(x, 1.0) / const(x, np.pi)) * arctan(scaled_x)


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the Cauchy CDF."""
    return log(cdf(x, loc, scale))


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The Cauchy survival function."""
    return reflected("cauchy.sf", cdf, x, loc, scale)


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the Cauchy survival function."""
    return reflected("cauchy.logsf", logcdf, x, loc, scale)


def isf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The inverse survival function ``tan(pi/2 - pi q)`` scaled."""
    q, loc, scale = inexact("cauchy.isf", q, loc, scale)
    unscaled = tan(const(q, np.pi / 2) - const(q, np.pi) * q)
    return unscaled * scale + loc


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The quantile function ``tan(pi q - pi/2)`` scaled."""
    q, loc, scale = inexact("cauchy.ppf", q, loc, scale)
    unscaled = tan(const(q, np.pi) * q - const(q, np.pi / 2))
    return unscaled * scale + loc
