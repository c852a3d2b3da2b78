"""``didax.scipy.stats.nbinom``: the negative binomial distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, where
from didax.api.scipy_special import gammaln, xlogy
from didax.api.stats.arguments import NEG_INF, const, inexact

__all__ = ["logpmf", "pmf"]


def logpmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The log of the negative binomial probability of ``k`` failures (``n`` successes)."""
    k, n, p, loc = inexact("nbinom.logpmf", k, n, p, loc)
    one = const(k, 1)
    y = k - loc
    comb_term = (gammaln(y + n) - gammaln(n)) - gammaln(y + one)
    log_linear_term = xlogy(n, p) + xlogy(y, one - p)
    return where(k < loc, NEG_INF, comb_term + log_linear_term)


def pmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The negative binomial probability of ``k``."""
    return exp(logpmf(k, n, p, loc))
