"""``didax.scipy.stats.uniform``: the uniform distribution on ``[loc, loc + scale]``, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, log, logical_or, where
from didax.api.numpy.logic import select
from didax.api.numpy.more_elementwise import isnan
from didax.api.stats.arguments import NAN, NEG_INF, const, inexact

__all__ = ["cdf", "logpdf", "pdf", "ppf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the uniform density at ``x`` (``-inf`` outside the interval)."""
    x, loc, scale = inexact("uniform.logpdf", x, loc, scale)
    log_probs = -log(scale)
    return where(logical_or(x > loc + scale, x < loc), NEG_INF, log_probs)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The uniform density at ``x``."""
    return exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The uniform CDF (0 below, 1 above the interval)."""
    x, loc, scale = inexact("uniform.cdf", x, loc, scale)
    zero, one = const(x, 0), const(x, 1)
    conds = [x < loc, x > loc + scale, (x >= loc) & (x <= loc + scale)]
    return select(conds, [zero, one, (x - loc) / scale])


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The uniform quantile function (NaN outside ``[0, 1]``)."""
    q, loc, scale = inexact("uniform.ppf", q, loc, scale)
    return where(isnan(q) | (q < 0) | (q > 1), NAN, loc + scale * q)
