"""``didax.scipy.stats.multivariate_normal``: the multivariate normal distribution, as JAX's.

Design rules:
- The package's rule (``didax.api.stats``): JAX's formulas, JAX's promotion.
- A scalar ``mean`` is the univariate density; a scalar ``cov`` a multiple
  of the identity; a matrix ``cov`` is factored (Cholesky) and the
  difference whitened by a triangular solve, batched as JAX's.
"""

from __future__ import annotations

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.contractions import einsum
from didax.api.numpy.elementwise import exp, log
from didax.api.numpy.manipulation import broadcast_to
from didax.api.numpy.matrices import diagonal
from didax.api.numpy.more_elementwise import square
from didax.api.numpy.operands import broadcast_shapes
from didax.api.numpy.reductions import sum as _sum
from didax.api.stats.arguments import promote_dtypes_inexact
from didax.core import lax
from didax.core.lax import linalg as lax_linalg
from didax.core.values import get_aval

__all__ = ["logpdf", "pdf"]


def logpdf(x: ArrayLike, mean: ArrayLike, cov: ArrayLike, allow_singular: None = None) -> Array:
    """The log of the multivariate normal density at ``x`` (last axis)."""
    if allow_singular is not None:
        raise NotImplementedError("multivariate_normal.logpdf: allow_singular is not supported")
    x, mean, cov = promote_dtypes_inexact("multivariate_normal.logpdf", x, mean, cov)
    mean_shape, cov_shape = get_aval(mean).shape, get_aval(cov).shape
    if not mean_shape:
        return -1 / 2 * square(x - mean) / cov - 1 / 2 * (log(2 * np.pi) + log(cov))
    n = mean_shape[-1]
    if not cov_shape:
        y = x - mean
        quad = einsum("...i,...i->...", y, y)
        return -1 / 2 * quad / cov - n / 2 * (log(2 * np.pi) + log(cov))
    if len(cov_shape) < 2 or cov_shape[-2:] != (n, n):
        raise ValueError(
            "multivariate_normal.logpdf got incompatible shapes: "
            f"mean {mean_shape}, cov {cov_shape}"
        )
    chol = lax_linalg.cholesky(cov)
    diff = x - mean
    batch = broadcast_shapes(
        "multivariate_normal.logpdf", cov_shape[:-2], get_aval(diff).shape[:-1]
    )
    rows = lax.expand_dims(broadcast_to(diff, (*batch, n)), (len(batch),))
    y = lax_linalg.triangular_solve(
        broadcast_to(chol, (*batch, n, n)), rows, left_side=False, lower=True, transpose_a=True
    )
    y = lax.squeeze(y, (len(batch),))
    log_det = _sum(log(diagonal(chol, axis1=-1, axis2=-2)), axis=-1)
    return -1 / 2 * einsum("...i,...i->...", y, y) - n / 2 * log(2 * np.pi) - log_det


def pdf(x: ArrayLike, mean: ArrayLike, cov: ArrayLike) -> Array:
    """The multivariate normal density at ``x``."""
    return exp(logpdf(x, mean, cov))
