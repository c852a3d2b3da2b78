"""``didax.scipy.stats.gumbel_r``: the right-skewed Gumbel distribution, as JAX's.

Design rules:
- JAX's formulas operation for operation (so values and derivatives are
  JAX's), over arguments promoted as JAX's (``arguments.inexact``).
- NaN where ``scale <= 0``, as JAX's.
- ``logsf`` uses ``log(1 - exp(-x))`` computed as JAX's ``nn.log1mexp`` (its branch
  at ``log 2`` and its derivative ``1 / expm1(x)``).
"""

from __future__ import annotations

import numpy as np

from didax.api.custom_derivatives import custom_jvp
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import (
    exp,
    log,
    log1p,
    where,
)
from didax.api.numpy.more_elementwise import expm1
from didax.api.scipy_special import xlogy
from didax.api.stats.arguments import (
    NAN,
    const,
    inexact,
    standardize,
)

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the right Gumbel density ``-(z + exp(-z)) - log(scale)``."""
    x, loc, scale = inexact("gumbel_r.logpdf", x, loc, scale)
    ok = scale > const(scale, 0)
    z = standardize(x, loc, scale)
    log_pdf = xlogy(-1, scale) + -(z + exp(-z))
    return where(ok, log_pdf, NAN)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The right Gumbel density."""
    return exp(logpdf(x, loc, scale))


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the right Gumbel CDF ``-exp(-z)``."""
    x, loc, scale = inexact("gumbel_r.logcdf", x, loc, scale)
    ok = scale > const(scale, 0)
    z = standardize(x, loc, scale)
    return where(ok, -exp(-z), NAN)


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The right Gumbel CDF."""
    return exp(logcdf(x, loc, scale))


def ppf(p: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The right Gumbel quantile function (NaN outside ``(0, 1)``)."""
    p, loc, scale = inexact("gumbel_r.ppf", p, loc, scale)
    ok = (p > const(p, 0)) & (p < const(p, 1))
    quantile = loc - scale * log(xlogy(-1, p))
    return where(ok, quantile, NAN)


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The right Gumbel survival function ``1 - exp(-exp(-z))``."""
    x, loc, scale = inexact("gumbel_r.sf", x, loc, scale)
    ok = scale > const(scale, 0)
    neg_z = (loc - x) / scale
    return where(ok, const(x, 1) - exp(-exp(neg_z)), NAN)


@custom_jvp
def _log1mexp(x: Array) -> Array:
    return where(x < np.log(2.0), log(-expm1(-x)), log1p(-exp(-x)))


_log1mexp.defjvps(lambda t, out, x: t / expm1(x))


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """The log of the right Gumbel survival function."""
    x, loc, scale = inexact("gumbel_r.logsf", x, loc, scale)
    ok = scale > const(scale, 0)
    neg_z = (loc - x) / scale
    return where(ok, _log1mexp(exp(neg_z)), NAN)
