"""``didax.scipy.stats.wrapcauchy``: JAX's module of that name, re-exported."""

from didax.api.stats import wrapcauchy as _impl
from didax.api.stats.wrapcauchy import *  # noqa: F403

__all__ = [*_impl.__all__]
