"""``didax.scipy.stats.expon``: JAX's module of that name, re-exported."""

from didax.api.stats import expon as _impl
from didax.api.stats.expon import *  # noqa: F403

__all__ = [*_impl.__all__]
