"""``didax.scipy.stats.norm``: JAX's module of that name, re-exported."""

from didax.api.stats import norm as _impl
from didax.api.stats.norm import *  # noqa: F403

__all__ = [*_impl.__all__]
