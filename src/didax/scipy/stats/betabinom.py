"""``didax.scipy.stats.betabinom``: JAX's module of that name, re-exported."""

from didax.api.stats import betabinom as _impl
from didax.api.stats.betabinom import *  # noqa: F403

__all__ = [*_impl.__all__]
