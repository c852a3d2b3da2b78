"""``didax.scipy.stats.geom``: JAX's module of that name, re-exported."""

from didax.api.stats import geom as _impl
from didax.api.stats.geom import *  # noqa: F403

__all__ = [*_impl.__all__]
