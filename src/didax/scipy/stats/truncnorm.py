"""``didax.scipy.stats.truncnorm``: JAX's module of that name, re-exported."""

from didax.api.stats import truncnorm as _impl
from didax.api.stats.truncnorm import *  # noqa: F403

__all__ = [*_impl.__all__]
