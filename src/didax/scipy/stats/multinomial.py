"""``didax.scipy.stats.multinomial``: JAX's module of that name, re-exported."""

from didax.api.stats import multinomial as _impl
from didax.api.stats.multinomial import *  # noqa: F403

__all__ = [*_impl.__all__]
