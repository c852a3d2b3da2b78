"""``didax.scipy.stats.gumbel_r``: the right-skewed Gumbel distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
- NaN where ``scale <= 0``, as JAX's.
- ``logsf`` uses ``nn.log1mexp``, as JAX's (its branch at ``log 2`` and its
  derivative ``1 / expm1(x)``).
"""

from __future__ import annotations

from didax.api.nn_activations import log1mexp
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, log, where
from didax.api.scipy_special import xlogy
from didax.api.stats.arguments import NAN, const, inexact, nan_unless_scale_positive, standardize

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def _logpdf(x: Array, loc: Array, scale: Array) -> Array:
    z = standardize(x, loc, scale)
    return xlogy(-1, scale) + -(z + exp(-z))


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the right Gumbel density ``-(z + exp(-z)) - log(scale)``."""
    return nan_unless_scale_positive("gumbel_r.logpdf", _logpdf, x, loc, scale)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The right Gumbel density."""
    return exp(logpdf(x, loc, scale))


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the right Gumbel CDF ``-exp(-z)``."""
    return nan_unless_scale_positive(
        "gumbel_r.logcdf", lambda x, loc, scale: -exp(-standardize(x, loc, scale)), x, loc, scale
    )


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The right Gumbel CDF."""
    return exp(logcdf(x, loc, scale))


def ppf(p: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The right Gumbel quantile function (NaN outside ``(0, 1)``)."""
    p, loc, scale = inexact("gumbel_r.ppf", p, loc, scale)
    ok = (p > const(p, 0)) & (p < const(p, 1))
    quantile = loc - scale * log(xlogy(-1, p))
    return where(ok, quantile, NAN)


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The right Gumbel survival function ``1 - exp(-exp(-z))``."""
    return nan_unless_scale_positive(
        "gumbel_r.sf",
        lambda x, loc, scale: const(x, 1) - exp(-exp((loc - x) / scale)),
        x,
        loc,
        scale,
    )


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the right Gumbel survival function."""
    return nan_unless_scale_positive(
        "gumbel_r.logsf", lambda x, loc, scale: log1mexp(exp((loc - x) / scale)), x, loc, scale
    )
