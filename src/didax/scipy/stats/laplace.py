"""``didax.scipy.stats.laplace``: JAX's module of that name, re-exported."""

from didax.api.stats import laplace as _impl
from didax.api.stats.laplace import *  # noqa: F403

__all__ = [*_impl.__all__]
