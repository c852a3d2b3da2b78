"""``didax.scipy.stats.bernoulli``: JAX's module of that name, re-exported."""

from didax.api.stats import bernoulli as _impl
from didax.api.stats.bernoulli import *  # noqa: F403

__all__ = [*_impl.__all__]
