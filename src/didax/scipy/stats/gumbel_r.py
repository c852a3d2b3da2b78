"""``didax.scipy.stats.gumbel_r``: JAX's module of that name, re-exported."""

from didax.api.stats import gumbel_r as _impl
from didax.api.stats.gumbel_r import *  # noqa: F403

__all__ = [*_impl.__all__]
