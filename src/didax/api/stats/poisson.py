"""``didax.scipy.stats.poisson``: the Poisson distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
- ``entropy`` is JAX's: a sum of ``-p log p`` over the first 35 (``mu < 10``)
  or 250 (``mu < 100``) values of ``k``, an asymptotic formula beyond.
"""

from __future__ import annotations

import numpy as np

from didax.api.custom_derivatives import custom_jvp
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.creation import arange
from didax.api.numpy.elementwise import ceil, exp, floor, log, logical_or, sqrt, where
from didax.api.numpy.elementwise import round as _round
from didax.api.numpy.manipulation import broadcast_to, ravel, reshape
from didax.api.numpy.operands import broadcast_shapes
from didax.api.numpy.reductions import sum as _sum
from didax.api.scipy_special import gammaln, xlogy
from didax.api.scipy_special_dist import gammaincc
from didax.api.stats.arguments import NEG_INF, const, inexact, promote_dtypes_inexact
from didax.core import lax
from didax.core.values import get_aval

__all__ = ["cdf", "entropy", "logpmf", "pmf"]


def logpmf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The log of the Poisson probability of ``k`` (``-inf`` unless a whole ``k >= loc``)."""
    k, mu, loc = inexact("poisson.logpmf", k, mu, loc)
    zero = const(k, 0)
    x = k - loc
    log_probs = xlogy(x, mu) - gammaln(x + 1) - mu
    return where(logical_or(x < zero, _round(k) != k), NEG_INF, log_probs)


def pmf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The Poisson probability of ``k``."""
    return exp(logpmf(k, mu, loc))


def cdf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The Poisson CDF (``gammaincc(floor(k + 1), mu)``)."""
    k, mu, loc = inexact("poisson.cdf", k, mu, loc)
    zero = const(k, 0)
    x = k - loc
    p = gammaincc(floor(1 + x), mu)
    return where(x < zero, zero, p)


@custom_jvp
def _xlogx(x: Array) -> Array:
    return xlogy(x, x)


_xlogx.defjvps(lambda t, out, x: t * (log(x) + 1))


def _entr(x: Array) -> Array:
    # -x log x, -inf below 0 (JAX's scipy.special.entr).
    return where(x < const(x, 0), lax.full_like(x, NEG_INF), -_xlogx(x))


def _entropy_by_sum(mu: Array, max_k: int, upper: Array) -> Array:
    k = lax.expand_dims(arange(max_k, dtype=get_aval(mu).dtype), (1,))
    probs = pmf(k, mu, 0)
    mask = k < lax.expand_dims(upper, (0,))
    return _sum(_entr(where(mask, probs, 0.0)), axis=0)


def entropy(mu: ArrayLike, loc: ArrayLike = 0) -> Array:
    """The entropy of the Poisson distribution of mean ``mu`` (JAX's approximation)."""
    mu, loc = promote_dtypes_inexact("poisson.entropy", mu, loc)
    shape = broadcast_shapes("poisson.entropy", get_aval(mu).shape, get_aval(loc).shape)
    flat = ravel(mu)
    small = _entropy_by_sum(flat, 35, ceil(flat + 20))
    medium = _entropy_by_sum(flat, 250, ceil(flat + 10 * sqrt(flat) + 20))
    large = 0.5 * log(2 * np.pi * np.e * flat) - 1.0 / (12 * flat)
    result = where(
        flat == 0,
        lax.full_like(flat, 0),
        where(flat < 10, small, where(flat < 100, medium, large)),
    )
    return broadcast_to(reshape(result, get_aval(mu).shape), shape)
