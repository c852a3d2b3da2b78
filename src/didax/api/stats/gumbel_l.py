"""``didax.scipy.stats.gumbel_l``: the left-skewed Gumbel distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
- NaN where ``scale <= 0``, as JAX's.
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, log, where
from didax.api.numpy.more_elementwise import expm1
from didax.api.scipy_special import xlog1py, xlogy
from didax.api.stats.arguments import NAN, const, inexact, nan_unless_scale_positive, standardize

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def _logpdf(x: Array, loc: Array, scale: Array) -> Array:
    z = standardize(x, loc, scale)
    return xlogy(-1, scale) + (z - exp(z))


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the left Gumbel density ``z - exp(z) - log(scale)``."""
    return nan_unless_scale_positive("gumbel_l.logpdf", _logpdf, x, loc, scale)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The left Gumbel density."""
    return exp(logpdf(x, loc, scale))


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the left Gumbel CDF ``log(1 - exp(-exp(z)))``."""
    return nan_unless_scale_positive(
        "gumbel_l.logcdf",
        lambda x, loc, scale: log(-expm1(-exp(standardize(x, loc, scale)))),
        x,
        loc,
        scale,
    )


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The left Gumbel CDF."""
    return exp(logcdf(x, loc, scale))


def ppf(p: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The left Gumbel quantile function (NaN outside ``(0, 1)``)."""
    p, loc, scale = inexact("gumbel_l.ppf", p, loc, scale)
    ok = (p > const(p, 0)) & (p < const(p, 1))
    quantile = loc + scale * log(xlog1py(-1, -p))
    return where(ok, quantile, NAN)


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The left Gumbel survival function."""
    return exp(logsf(x, loc, scale))


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the left Gumbel survival function ``-exp(z)``."""
    return nan_unless_scale_positive(
        "gumbel_l.logsf", lambda x, loc, scale: -exp(standardize(x, loc, scale)), x, loc, scale
    )
