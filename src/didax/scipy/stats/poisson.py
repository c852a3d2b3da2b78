"""``didax.scipy.stats.poisson``: JAX's module of that name, re-exported."""

from didax.api.stats import poisson as _impl
from didax.api.stats.poisson import *  # noqa: F403

__all__ = [*_impl.__all__]
