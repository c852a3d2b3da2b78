"""``didax.scipy.stats.vonmises``: the von Mises distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
- NaN where ``kappa <= 0``.
"""

from __future__ import annotations

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import cos, exp, log, where
from didax.api.stats.arguments import NAN, const, inexact
from didax.core import lax

__all__ = ["logpdf", "pdf"]


def logpdf(x: ArrayLike, kappa: ArrayLike) -> Array:
    """The log of the von Mises density ``exp(kappa cos x) / (2 pi I0(kappa))``."""
    x, kappa = inexact("vonmises.logpdf", x, kappa)
    zero = const(kappa, 0)
    value = kappa * (cos(x) - 1) - log(2 * np.pi * lax.bessel_i0e(kappa))
    return where(kappa > zero, value, NAN)


def pdf(x: ArrayLike, kappa: ArrayLike) -> Array:
    """The von Mises density."""
    return exp(logpdf(x, kappa))
