"""``didax.scipy.stats.gennorm``: the generalized normal distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import abs as _abs
from didax.api.numpy.elementwise import exp, log, sign
from didax.api.stats.arguments import inexact
from didax.core import lax

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x: ArrayLike, beta: ArrayLike) -> Array:
    """The log of the generalized normal density ``beta exp(-|x|**beta) / (2 gamma(1/beta))``."""
    x, beta = inexact("gennorm.logpdf", x, beta)
    return log(0.5 * beta) - lax.lgamma(1 / beta) - _abs(x) ** beta


def cdf(x: ArrayLike, beta: ArrayLike) -> Array:
    """The generalized normal CDF (through ``igamma``)."""
    x, beta = inexact("gennorm.cdf", x, beta)
    return 0.5 * (1 + sign(x) * lax.igamma(1 / beta, _abs(x) ** beta))


def pdf(x: ArrayLike, beta: ArrayLike) -> Array:
    """The generalized normal density."""
    return exp(logpdf(x, beta))
