"""``didax.scipy.stats.cauchy``: JAX's module of that name, re-exported."""

from didax.api.stats import cauchy as _impl
from didax.api.stats.cauchy import *  # noqa: F403

__all__ = [*_impl.__all__]
