"""``didax.scipy.stats.wrapcauchy``: the wrapped Cauchy distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
- NaN unless ``0 < c < 1``; ``-inf`` outside ``[0, 2 pi]``.
"""

from __future__ import annotations

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import cos, exp, log, where
from didax.api.stats.arguments import NAN, NEG_INF, const, inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x: ArrayLike, c: ArrayLike) -> Array:
    """The log of the wrapped Cauchy density."""
    x, c = inexact("wrapcauchy.logpdf", x, c)
    inside = (x >= const(x, 0)) & (x <= const(x, np.pi * 2))
    value = log(1 - c * c) - log(2 * np.pi) - log(1 + c * c - 2 * c * cos(x))
    valid = (c > const(c, 0)) & (c < const(c, 1))
    return where(valid, where(inside, value, NEG_INF), NAN)


def pdf(x: ArrayLike, c: ArrayLike) -> Array:
    """The wrapped Cauchy density."""
    return exp(logpdf(x, c))
