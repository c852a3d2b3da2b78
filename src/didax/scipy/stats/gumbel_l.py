"""``didax.scipy.stats.gumbel_l``: JAX's module of that name, re-exported."""

from didax.api.stats import gumbel_l as _impl
from didax.api.stats.gumbel_l import *  # noqa: F403

__all__ = [*_impl.__all__]
