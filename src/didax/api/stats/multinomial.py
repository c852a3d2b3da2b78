"""``didax.scipy.stats.multinomial``: the multinomial distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
- ``x`` and ``n`` must be integers (JAX's rule); they become ``p``'s float dtype.
"""

from __future__ import annotations

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import exp, where
from didax.api.numpy.operands import astype, operand
from didax.api.numpy.reductions import sum as _sum
from didax.api.scipy_special import gammaln, xlogy
from didax.api.stats.arguments import NEG_INF, inexact
from didax.core import dtypes
from didax.core.values import get_aval

__all__ = ["logpmf", "pmf"]


def logpmf(x: ArrayLike, n: ArrayLike, p: ArrayLike) -> Array:
    """The log of the multinomial probability of counts ``x`` (last axis), ``n`` trials."""
    (p,) = inexact("multinomial.logpmf", p)
    # One integer dtype for x and n, their shapes kept (JAX's promote_args_numeric).
    counts, trials = operand(x), operand(n)
    dtype, _ = dtypes.result_type(
        (get_aval(v).dtype, get_aval(v).weak_type) for v in (counts, trials)
    )
    if not dtypes.is_integer(dtype):
        raise ValueError(
            f"multinomial.logpmf: x and n must be of integer type; got x.dtype={np.dtype(dtype)}"
        )
    float_dtype = get_aval(p).dtype
    xf, nf = astype(counts, float_dtype), astype(trials, float_dtype)
    logprobs = gammaln(nf + 1) + _sum(xlogy(xf, p) - gammaln(xf + 1), axis=-1)
    # The total over every axis, as JAX's.
    return where(_sum(xf) == nf, logprobs, NEG_INF)


def pmf(x: ArrayLike, n: ArrayLike, p: ArrayLike) -> Array:
    """The multinomial probability of counts ``x``."""
    return exp(logpmf(x, n, p))
