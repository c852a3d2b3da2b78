"""``didax.scipy.stats.uniform``: JAX's module of that name, re-exported."""

from didax.api.stats import uniform as _impl
from didax.api.stats.uniform import *  # noqa: F403

__all__ = [*_impl.__all__]
