"""``didax.scipy.stats.dirichlet``: JAX's module of that name, re-exported."""

from didax.api.stats import dirichlet as _impl
from didax.api.stats.dirichlet import *  # noqa: F403

__all__ = [*_impl.__all__]
