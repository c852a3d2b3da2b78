"""``didax.scipy.stats.pareto``: the Pareto distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, log, log1p, power, where
from didax.api.numpy.more_elementwise import isnan
from didax.api.stats.arguments import NAN, NEG_INF, const, inexact, standardize

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the Pareto density (``-inf`` below ``loc + scale``)."""
    x, b, loc, scale = inexact("pareto.logpdf", x, b, loc, scale)
    scaled_x = standardize(x, loc, scale)
    normalize_term = log(scale / b)
    log_probs = -(normalize_term + (b + const(x, 1)) * log(scaled_x))
    return where(x < loc + scale, NEG_INF, log_probs)


def pdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The Pareto density."""
    return exp(logpdf(x, b, loc, scale))


def cdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The Pareto CDF ``1 - z**-b``."""
    x, b, loc, scale = inexact("pareto.cdf", x, b, loc, scale)
    scaled_x = standardize(x, loc, scale)
    value = const(x, 1) - power(scaled_x, -b)
    return where(x < loc + scale, const(x, 0), value)


def logcdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the Pareto CDF."""
    x, b, loc, scale = inexact("pareto.logcdf", x, b, loc, scale)
    scaled_x = standardize(x, loc, scale)
    value = log1p(-power(scaled_x, -b))
    return where(x < loc + scale, NEG_INF, value)


def logsf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the Pareto survival function ``-b log(z)``."""
    x, b, loc, scale = inexact("pareto.logsf", x, b, loc, scale)
    scaled_x = standardize(x, loc, scale)
    value = -(b * log(scaled_x))
    return where(x < loc + scale, const(x, 0), value)


def sf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The Pareto survival function."""
    return exp(logsf(x, b, loc, scale))


def ppf(q: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The Pareto quantile function (NaN outside ``[0, 1]``)."""
    q, b, loc, scale = inexact("pareto.ppf", q, b, loc, scale)
    one = const(q, 1)
    value = loc + scale * power(one - q, -(one / b))
    return where(isnan(q) | (q < 0) | (q > 1), NAN, value)
