"""``didax.scipy.stats.beta``: JAX's module of that name, re-exported."""

from didax.api.stats import beta as _impl
from didax.api.stats.beta import *  # noqa: F403

__all__ = [*_impl.__all__]
