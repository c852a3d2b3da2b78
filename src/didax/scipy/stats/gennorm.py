"""``didax.scipy.stats.gennorm``: JAX's module of that name, re-exported."""

from didax.api.stats import gennorm as _impl
from didax.api.stats.gennorm import *  # noqa: F403

__all__ = [*_impl.__all__]
