"""``didax.scipy.stats.bernoulli``: the Bernoulli distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, logical_and, logical_or, where
from didax.api.numpy.logic import select
from didax.api.numpy.more_elementwise import isnan
from didax.api.scipy_special import xlog1py, xlogy
from didax.api.stats.arguments import NAN, NEG_INF, const, inexact

__all__ = ["cdf", "logpmf", "pmf", "ppf"]


def logpmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The log of the Bernoulli probability of ``k`` (``-inf`` unless ``k - loc`` is 0 or 1)."""
    k, p, loc = inexact("bernoulli.logpmf", k, p, loc)
    zero, one = const(k, 0), const(k, 1)
    x = k - loc
    log_probs = xlogy(x, p) + xlog1py(one - x, -p)
    return where(logical_or(x < zero, x > one), NEG_INF, log_probs)


def pmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The Bernoulli probability of ``k``."""
    return exp(logpmf(k, p, loc))


def cdf(k: ArrayLike, p: ArrayLike) -> Array:
    """The Bernoulli CDF (NaN for a ``p`` outside ``[0, 1]``)."""
    k, p = inexact("bernoulli.cdf", k, p)
    zero, one = const(k, 0), const(k, 1)
    conds = [
        isnan(k) | isnan(p) | (p < zero) | (p > one),
        k < zero,
        logical_and(k >= zero, k < one),
        k >= one,
    ]
    return select(conds, [NAN, zero, one - p, one])


def ppf(q: ArrayLike, p: ArrayLike) -> Array:
    """The Bernoulli quantile function."""
    q, p = inexact("bernoulli.ppf", q, p)
    zero, one = const(q, 0), const(q, 1)
    bad = isnan(q) | isnan(p) | (p < zero) | (p > one) | (q < zero) | (q > one)
    return where(bad, NAN, where(q <= one - p, zero, one))
