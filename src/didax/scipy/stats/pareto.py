"""``didax.scipy.stats.pareto``: JAX's module of that name, re-exported."""

from didax.api.stats import pareto as _impl
from didax.api.stats.pareto import *  # noqa: F403

__all__ = [*_impl.__all__]
