"""``didax.scipy.stats.multivariate_normal``: JAX's module of that name, re-exported."""

from didax.api.stats import multivariate_normal as _impl
from didax.api.stats.multivariate_normal import *  # noqa: F403

__all__ = [*_impl.__all__]
