"""``didax.scipy.stats.geom``: the geometric distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, log, where
from didax.api.scipy_special import xlog1py
from didax.api.stats.arguments import NEG_INF, const, inexact

__all__ = ["logpmf", "pmf"]


def logpmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The log of the geometric probability of ``k`` (first success at trial ``k``)."""
    k, p, loc = inexact("geom.logpmf", k, p, loc)
    zero, one = const(k, 0), const(k, 1)
    x = k - loc
    log_probs = xlog1py(x - one, -p) + log(p)
    return where(x <= zero, NEG_INF, log_probs)


def pmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The geometric probability of ``k``."""
    return exp(logpmf(k, p, loc))
