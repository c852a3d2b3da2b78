"""``didax.scipy.stats.gaussian_kde``: Gaussian kernel density estimation, as JAX's.

Design rules:
- A frozen pytree (its five arrays are the leaves, as JAX's registration),
  so that an estimator passes through ``jit`` and ``vmap``; the bandwidth
  is fixed at construction (Scott's or Silverman's factor, a scalar or a
  callable of the estimator), ``set_bandwidth`` and ``integrate_box`` are
  refused, as JAX's.
- The covariance is the weighted one (JAX's ``cov`` with ``aweights``);
  evaluation whitens data and points by the Cholesky factor of the inverse
  covariance and sums the kernels (``logsumexp`` for ``logpdf``);
  ``resample`` draws an index by ``random.choice`` and adds
  ``mean + L z`` with JAX's key use, so draws are JAX's for the same key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from jax import tree_util

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.contractions import einsum
from didax.api.numpy.creation import full
from didax.api.numpy.elementwise import abs as _abs
from didax.api.numpy.elementwise import exp, log, power, sqrt
from didax.api.numpy.joining import atleast_1d, atleast_2d
from didax.api.numpy.linalg import inv
from didax.api.numpy.linear_algebra import dot
from didax.api.numpy.manipulation import reshape, squeeze
from didax.api.numpy.matrices import diag
from didax.api.numpy.more_elementwise import square
from didax.api.numpy.operands import as_result, asarray
from didax.api.numpy.reductions import prod
from didax.api.numpy.reductions import sum as _sum
from didax.api.random import normal, split
from didax.api.random_discrete import choice
from didax.api.scipy_linalg import cho_factor, cho_solve
from didax.api.scipy_special import logsumexp
from didax.api.scipy_special_dist import ndtr
from didax.api.stats.arguments import promote_dtypes_inexact
from didax.api.transformations import vmap
from didax.core import dtypes
from didax.core.lax import linalg as lax_linalg
from didax.core.values import get_aval

__all__ = ["gaussian_kde"]

BwMethod = str | float | Array | Callable[[Any], Array] | None


def _weighted_cov(data: Array, weights: Array) -> Array:
    # JAX's cov(data, rowvar=True, bias=False, aweights=weights): ddof 1.
    w = _abs(weights)
    w_sum = _sum(w)
    avg = _sum(data * w, axis=1) / w_sum
    fact = w_sum - _sum(w * w) / w_sum
    centered = data - reshape(avg, (-1, 1))
    out: Array = atleast_2d(squeeze(dot(centered, (centered * w).T) / fact))
    return out


@tree_util.register_pytree_node_class
class gaussian_kde:
    """A Gaussian kernel density estimate of ``dataset`` (``d`` rows of ``n`` points).

    >>> import numpy as np
    >>> kde = gaussian_kde(np.array([0.0, 1.0, 2.0, 4.0]))
    >>> kde.d, kde.n
    (1, 4)
    >>> kde.evaluate(np.array([1.0, 3.0]))
    Array([0.19665498, 0.14294834], dtype=float32)
    """

    __slots__ = ("covariance", "dataset", "inv_cov", "neff", "weights")
    neff: Array
    dataset: Array
    weights: Array
    covariance: Array
    inv_cov: Array

    def __init__(
        self, dataset: ArrayLike, bw_method: BwMethod = None, weights: ArrayLike | None = None
    ) -> None:
        data = as_result(atleast_2d(asarray(dataset)))
        if dtypes.is_complex(get_aval(data).dtype):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not np.prod(get_aval(data).shape) > 1:
            raise ValueError("gaussian_kde: `dataset` input should have multiple elements")
        d, n = get_aval(data).shape
        if weights is not None:
            data, w = promote_dtypes_inexact("gaussian_kde", data, weights)
            w = as_result(atleast_1d(w))
            w = w / _sum(w)
            if get_aval(w).ndim != 1:
                raise ValueError("gaussian_kde: `weights` input should be one-dimensional")
            if get_aval(w).shape[0] != n:
                raise ValueError("gaussian_kde: `weights` input should be of length n")
        else:
            (data,) = promote_dtypes_inexact("gaussian_kde", data)
            w = full(n, 1.0 / n, dtype=get_aval(data).dtype)
        self._set("dataset", data)
        self._set("weights", w)
        neff = self._set("neff", 1 / _sum(w**2))
        method = "scott" if bw_method is None else bw_method
        if isinstance(method, str) and method == "scott":
            factor = power(neff, -1.0 / (d + 4))
        elif isinstance(method, str) and method == "silverman":
            factor = power(neff * (d + 2) / 4.0, -1.0 / (d + 4))
        elif callable(method):
            factor = method(self)
        elif not isinstance(method, str) and get_aval(asarray(method)).ndim == 0:
            factor = asarray(method)
        else:
            raise ValueError(
                "gaussian_kde: `bw_method` should be 'scott', 'silverman', a scalar, or a callable"
            )
        data_covariance = _weighted_cov(data, w)
        self._set("covariance", data_covariance * factor**2)
        self._set("inv_cov", inv(data_covariance) / factor**2)

    def _set(self, name: str, value: Array) -> Array:
        object.__setattr__(self, name, value)
        return value

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"gaussian_kde is immutable: cannot set {name}")

    def tree_flatten(self) -> tuple[tuple[Array, ...], None]:
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data: None, children: tuple[Array, ...]) -> gaussian_kde:
        del aux_data
        kde = cls.__new__(cls)
        for name, value in zip(
            ("neff", "dataset", "weights", "covariance", "inv_cov"), children, strict=True
        ):
            kde._set(name, value)
        return kde

    @property
    def d(self) -> int:
        return int(get_aval(self.dataset).shape[0])

    @property
    def n(self) -> int:
        return int(get_aval(self.dataset).shape[1])

    def evaluate(self, points: ArrayLike) -> Array:
        """The estimated density at ``points`` (``d`` rows)."""
        pts = self._reshape_points(points)
        return _kernel_eval(False, self.dataset.T, self.weights, pts.T, self.inv_cov)

    def __call__(self, points: ArrayLike) -> Array:
        return self.evaluate(points)

    def pdf(self, x: ArrayLike) -> Array:
        """The estimated density at ``x`` (``evaluate``)."""
        return self.evaluate(x)

    def logpdf(self, x: ArrayLike) -> Array:
        """The log of the estimated density at ``x``, summed in logarithms."""
        pts = self._reshape_points(x)
        return _kernel_eval(True, self.dataset.T, self.weights, pts.T, self.inv_cov)

    def integrate_gaussian(self, mean: ArrayLike, cov: ArrayLike) -> Array:
        """The integral of the estimate times the normal density ``N(mean, cov)``."""
        mean_v = as_result(atleast_1d(squeeze(asarray(mean))))
        cov_m = as_result(atleast_2d(asarray(cov)))
        if get_aval(mean_v).shape != (self.d,):
            raise ValueError(
                f"gaussian_kde.integrate_gaussian: mean does not have dimension {self.d}"
            )
        if get_aval(cov_m).shape != (self.d, self.d):
            raise ValueError(
                f"gaussian_kde.integrate_gaussian: covariance does not have dimension {self.d}"
            )
        chol = cho_factor(self.covariance + cov_m)
        norm = 1.0 / (sqrt(2 * np.pi) ** self.d * prod(diag(chol[0])))
        return _kernel_convolve(chol, norm, self.dataset, self.weights, mean_v)

    def integrate_box_1d(self, low: ArrayLike, high: ArrayLike) -> Array:
        """The integral of a one-dimensional estimate over ``[low, high]``."""
        if self.d != 1:
            raise ValueError("gaussian_kde.integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("gaussian_kde.integrate_box_1d: the limits must be scalars")
        sigma = squeeze(sqrt(self.covariance))
        lo = squeeze((asarray(low) - self.dataset) / sigma)
        hi = squeeze((asarray(high) - self.dataset) / sigma)
        return _sum(self.weights * (ndtr(hi) - ndtr(lo)))

    def integrate_kde(self, other: gaussian_kde) -> Array:
        """The integral of the product of two estimates."""
        if other.d != self.d:
            raise ValueError("gaussian_kde.integrate_kde: KDEs are not the same dimensionality")
        chol = cho_factor(self.covariance + other.covariance)
        norm = 1.0 / (sqrt(2 * np.pi) ** self.d * prod(diag(chol[0])))
        small, large = (self, other) if self.n < other.n else (other, self)
        result = vmap(
            lambda m: _kernel_convolve(chol, norm, large.dataset, large.weights, m), in_axes=1
        )(small.dataset)
        return _sum(result * small.weights)

    def resample(self, key: Any, shape: tuple[int, ...] = ()) -> Array:
        """``shape`` draws from the estimate: a data point plus a kernel-shaped offset."""
        ind_key, eps_key = split(key)
        ind = choice(ind_key, self.n, shape=shape, p=self.weights)
        # random.multivariate_normal(eps_key, 0, covariance, shape) by Cholesky, as JAX's.
        factor = lax_linalg.cholesky(self.covariance)
        z = normal(eps_key, (*shape, self.d), get_aval(self.dataset).dtype)
        eps = einsum("...ij,...j->...i", factor, z).T
        return self.dataset[:, ind] + eps

    def integrate_box(self, low_bounds: Any, high_bounds: Any, maxpts: Any = None) -> Array:
        del low_bounds, high_bounds, maxpts
        raise NotImplementedError(
            "gaussian_kde: only 1D box integrations are supported; use `integrate_box_1d`"
        )

    def set_bandwidth(self, bw_method: BwMethod = None) -> None:
        del bw_method
        raise NotImplementedError(
            "gaussian_kde: dynamically changing the bandwidth method is not supported"
        )

    def _reshape_points(self, points: ArrayLike) -> Array:
        pts = asarray(points)
        if dtypes.is_complex(get_aval(pts).dtype):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        pts = as_result(atleast_2d(pts))
        d, m = get_aval(pts).shape
        if d != self.d:
            if d == 1 and m == self.d:
                return reshape(pts, (self.d, 1))
            raise ValueError(
                f"gaussian_kde: points have dimension {d}, dataset has dimension {self.d}"
            )
        return pts


def _kernel_convolve(
    chol: tuple[Array, bool], norm: Array, target: Array, weights: Array, mean: Array
) -> Array:
    diff = target - reshape(mean, (-1, 1))
    alpha = cho_solve(chol, diff)
    arg = 0.5 * _sum(diff * alpha, axis=0)
    return norm * _sum(exp(-arg) * weights)


def _kernel_eval(in_log: bool, points: Array, weights: Array, xi: Array, precision: Array) -> Array:
    points, weights, xi, precision = promote_dtypes_inexact(
        "gaussian_kde", points, weights, xi, precision
    )
    d = get_aval(points).shape[1]
    if get_aval(xi).shape[1] != d:
        raise ValueError("gaussian_kde: points and xi must have same trailing dim")
    if get_aval(precision).shape != (d, d):
        raise ValueError("gaussian_kde: precision matrix must match data dims")
    whitening = lax_linalg.cholesky(precision)
    points = dot(points, whitening)
    xi = dot(xi, whitening)
    log_norm = _sum(log(diag(whitening))) - 0.5 * d * log(2 * np.pi)

    def at(x: Array) -> Array:
        arg = log_norm - 0.5 * _sum(square(points - x), axis=1)
        if in_log:
            out: Array = logsumexp(log(weights) + arg, axis=0)
            return out
        return _sum(weights * exp(arg), axis=0)

    out: Array = vmap(at)(xi)
    return out
