"""``didax.scipy.stats.betabinom``: the beta-binomial distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, floor, log1p, logical_and, logical_or, where
from didax.api.scipy_special_dist import betaln
from didax.api.stats.arguments import NAN, NEG_INF, const, inexact

__all__ = ["logpmf", "pmf"]


def logpmf(k: ArrayLike, n: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The log of the beta-binomial probability of ``k`` (NaN for invalid parameters)."""
    k, n, a, b, loc = inexact("betabinom.logpmf", k, n, a, b, loc)
    y = floor(k) - loc
    one, zero = const(y, 1), const(y, 0)
    combiln = -(log1p(n) + betaln((n - y) + one, y + one))
    beta_lns = betaln(y + a, (n - y) + b) - betaln(a, b)
    log_probs = combiln + beta_lns
    log_probs = where(logical_and(y == zero, n == zero), 0.0, log_probs)
    y_cond = logical_or(logical_or(y < -loc, y > n), y + a <= zero)
    log_probs = where(y_cond, NEG_INF, log_probs)
    n_a_b_cond = logical_or(logical_or(n < zero, a <= zero), b <= zero)
    return where(n_a_b_cond, NAN, log_probs)


def pmf(k: ArrayLike, n: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The beta-binomial probability of ``k``."""
    return exp(logpmf(k, n, a, b, loc))
