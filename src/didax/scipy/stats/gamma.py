"""``didax.scipy.stats.gamma``: JAX's module of that name, re-exported."""

from didax.api.stats import gamma as _impl
from didax.api.stats.gamma import *  # noqa: F403

__all__ = [*_impl.__all__]
