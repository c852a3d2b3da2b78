"""``didax.scipy.stats.chi2``: the chi-squared distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
"""

from __future__ import annotations

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, log, where
from didax.api.scipy_special_dist import gammainc, gammaincc
from didax.api.stats.arguments import NEG_INF, const, inexact, standardize
from didax.core import lax

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the chi-squared density (``-inf`` below ``loc``)."""
    x, df, loc, scale = inexact("chi2.logpdf", x, df, loc, scale)
    one, two = const(x, 1), const(x, 2)
    y = standardize(x, loc, scale)
    df_on_two = df / two
    kernel = (df_on_two - one) * log(y) - y / two
    nrml_cnst = -(lax.lgamma(df_on_two) + (log(two) * df) / two)
    log_probs = (nrml_cnst - log(scale)) + kernel
    return where(x < loc, NEG_INF, log_probs)


def pdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The chi-squared density."""
    return exp(logpdf(x, df, loc, scale))


def _half_y(x: Array, loc: Array, scale: Array) -> Array:
    # (x - loc) / (2 scale), clamped to [0, inf].
    two = const(scale, 2)
    return lax.clamp(const(x, 0), (x - loc) / (scale * two), const(x, np.inf))


def cdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The chi-squared CDF (``gammainc``)."""
    x, df, loc, scale = inexact("chi2.cdf", x, df, loc, scale)
    return gammainc(df / const(scale, 2), _half_y(x, loc, scale))


def logcdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the chi-squared CDF."""
    return log(cdf(x, df, loc, scale))


def sf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The chi-squared survival function (``gammaincc``)."""
    x, df, loc, scale = inexact("chi2.sf", x, df, loc, scale)
    return gammaincc(df / const(scale, 2), _half_y(x, loc, scale))


def logsf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the chi-squared survival function."""
    return log(sf(x, df, loc, scale))
