"""``didax.scipy.stats.gumbel_l``: the left-skewed Gumbel distribution, as JAX's.

Design rules:
- JAX's formulas operation for operation (so values and derivatives are
  JAX's), over arguments promoted as JAX's (``arguments.inexact``).
- NaN where ``scale <= 0``, as JAX's.
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import (
    exp,
    log,
    where,
)
from didax.api.numpy.more_elementwise import expm1
from didax.api.scipy_special import xlog1py, xlogy
from didax.api.stats.arguments import (
    NAN,
    const,
    inexact,
    standardize,
)

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the left Gumbel density ``z - exp(z) - log(scale)``."""
    x, loc, scale = inexact("gumbel_l.logpdf", x, loc, scale)
    ok = scale > const(scale, 0)
    z = standardize(x, loc, scale)
    log_pdf = xlogy(-1, scale) + (z - exp(z))
    return where(ok, log_pdf, NAN)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The left Gumbel density."""
    return exp(logpdf(x, loc, scale))


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the left Gumbel CDF ``log(1 - exp(-exp(z)))``."""
    x, loc, scale = inexact("gumbel_l.logcdf", x, loc, scale)
    ok = scale > const(scale, 0)
    z = standardize(x, loc, scale)
    return where(ok, log(-expm1(-exp(z))), NAN)


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
    x, loc, scale = inexact("gumbel_l.logsf", x, loc, scale)
    ok = scale > const(scale, 0)
    z = standardize(x, loc, scale)
    return where(ok, -exp(z), NAN)
