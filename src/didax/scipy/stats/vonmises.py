"""``didax.scipy.stats.vonmises``: JAX's module of that name, re-exported."""

from didax.api.stats import vonmises as _impl
from didax.api.stats.vonmises import *  # noqa: F403

__all__ = [*_impl.__all__]
