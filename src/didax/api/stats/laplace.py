"""``didax.scipy.stats.laplace``: the Laplace distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import abs as _abs
from didax.api.numpy.elementwise import exp, log, where
from didax.api.stats.arguments import const, inexact, standardize

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the Laplace density at ``x``."""
    x, loc, scale = inexact("laplace.logpdf", x, loc, scale)
    linear_term = _abs(x - loc) / scale
    return -(linear_term + log(const(x, 2) * scale))


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The Laplace density at ``x``."""
    return exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The Laplace CDF."""
    x, loc, scale = inexact("laplace.cdf", x, loc, scale)
    half, one = const(x, 0.5), const(x, 1)
    diff = standardize(x, loc, scale)
    return where(diff <= const(x, 0), half * exp(diff), one - half * exp(-diff))
