"""``didax.scipy.stats.t``: Student's t distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
"""

from __future__ import annotations

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, log, log1p
from didax.api.stats.arguments import const, inexact, standardize
from didax.core import lax

__all__ = ["logpdf", "pdf"]


def logpdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of Student's t density with ``df`` degrees of freedom."""
    x, df, loc, scale = inexact("t.logpdf", x, df, loc, scale)
    two = const(x, 2)
    scaled_x = standardize(x, loc, scale)
    df_over_two = df / two
    df_plus_one_over_two = df_over_two + const(x, 0.5)
    normalize_term_const = (scale * scale) * const(x, np.pi)
    normalize_term_tmp = log(normalize_term_const * df) / two
    normalize_term = (lax.lgamma(df_over_two) + normalize_term_tmp) - lax.lgamma(
        df_plus_one_over_two
    )
    quadratic = (scaled_x * scaled_x) / df
    return -(normalize_term + df_plus_one_over_two * log1p(quadratic))


def pdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """Student's t density."""
    return exp(logpdf(x, df, loc, scale))
