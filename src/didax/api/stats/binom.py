"""``didax.scipy.stats.binom``: the binomial distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, logical_and, logical_or, where
from didax.api.scipy_special import gammaln, xlog1py, xlogy
from didax.api.stats.arguments import NEG_INF, const, inexact

__all__ = ["logpmf", "pmf"]


def logpmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The log of the binomial probability of ``k`` successes in ``n`` trials."""
    k, n, p, loc = inexact("binom.logpmf", k, n, p, loc)
    y = k - loc
    zero = const(y, 0)
    comb_term = gammaln(n + 1) - (gammaln(y + 1) + gammaln(n - y + 1))
    log_linear_term = xlogy(y, p) + xlog1py(n - y, -p)
    log_probs = comb_term + log_linear_term
    y_n_cond = logical_or(logical_and(y == zero, n == zero), log_linear_term == zero)
    log_probs = where(y_n_cond, 0.0, log_probs)
    return where((k >= loc) & (k < loc + n + 1), log_probs, NEG_INF)


def pmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The binomial probability of ``k``."""
    return exp(logpmf(k, n, p, loc))
