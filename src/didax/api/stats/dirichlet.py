"""``didax.scipy.stats.dirichlet``: the Dirichlet distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
- ``x`` holds the coordinates on its first axis, all of them or all but the
  last (which is then ``1 - sum``); ``-inf`` off the simplex (entries
  positive, sum within 1e-6 of 1).
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import abs as _abs
from didax.api.numpy.elementwise import exp, where
from didax.api.numpy.manipulation import concatenate
from didax.api.numpy.reductions import sum as _sum
from didax.api.numpy.statistics import all as _all
from didax.api.scipy_special import gammaln, xlogy
from didax.api.stats.arguments import NEG_INF, const, promote_dtypes_inexact
from didax.core import lax
from didax.core.values import get_aval

__all__ = ["logpdf", "pdf"]


def _is_simplex(x: Array) -> Array:
    x_sum = _sum(x, axis=0)
    return _all(x > 0, axis=0) & (_abs(x_sum - 1) < 1e-6)


def logpdf(x: ArrayLike, alpha: ArrayLike) -> Array:
    """The log of the Dirichlet density at ``x`` with concentrations ``alpha``."""
    x, alpha = promote_dtypes_inexact("dirichlet.logpdf", x, alpha)
    x_shape, alpha_shape = get_aval(x).shape, get_aval(alpha).shape
    if len(alpha_shape) != 1:
        raise ValueError(
            f"dirichlet.logpdf: `alpha` must be one-dimensional; got alpha.shape={alpha_shape}"
        )
    if not x_shape or x_shape[0] not in (alpha_shape[0], alpha_shape[0] - 1):
        raise ValueError(
            "dirichlet.logpdf: `x` must have either the same number of entries as `alpha` "
            f"or one entry fewer; got x.shape={x_shape}, alpha.shape={alpha_shape}"
        )
    one = const(x, 1)
    if x_shape[0] != alpha_shape[0]:
        x = concatenate([x, one - _sum(x, axis=0, keepdims=True)], axis=0)
    normalize_term = _sum(gammaln(alpha)) - gammaln(_sum(alpha))
    if len(x_shape) > 1:
        alpha = lax.broadcast_in_dim(alpha, alpha_shape + (1,) * (len(x_shape) - 1), (0,))
    log_probs = _sum(xlogy(alpha - one, x), axis=0) - normalize_term
    return where(_is_simplex(x), log_probs, NEG_INF)


def pdf(x: ArrayLike, alpha: ArrayLike) -> Array:
    """The Dirichlet density at ``x``."""
    return exp(logpdf(x, alpha))
