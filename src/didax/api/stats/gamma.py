"""``didax.scipy.stats.gamma``: the gamma distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
"""

from __future__ import annotations

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, log, where
from didax.api.scipy_special import gammaln, xlogy
from didax.api.scipy_special_dist import gammainc, gammaincc
from didax.api.stats.arguments import NEG_INF, const, inexact, standardize
from didax.core import lax

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the gamma density with shape ``a`` (``-inf`` below ``loc``)."""
    x, a, loc, scale = inexact("gamma.logpdf", x, a, loc, scale)
    ok = x >= loc
    one = const(x, 1)
    y = where(ok, standardize(x, loc, scale), one)
    log_linear_term = xlogy(a - one, y) - y
    shape_terms = gammaln(a) + log(scale)
    return where(ok, log_linear_term - shape_terms, NEG_INF)


def pdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The gamma density."""
    return exp(logpdf(x, a, loc, scale))


def cdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The gamma CDF (``gammainc``)."""
    x, a, loc, scale = inexact("gamma.cdf", x, a, loc, scale)
    y = lax.clamp(const(x, 0), standardize(x, loc, scale), const(x, np.inf))
    return gammainc(a, y)


def logcdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the gamma CDF."""
    return log(cdf(x, a, loc, scale))


def sf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The gamma survival function (``gammaincc``; 1 below ``loc``)."""
    x, a, loc, scale = inexact("gamma.sf", x, a, loc, scale)
    y = standardize(x, loc, scale)
    return where(y < const(y, 0), 1, gammaincc(a, y))


def logsf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the gamma survival function."""
    return log(sf(x, a, loc, scale))
