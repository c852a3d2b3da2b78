"""``didax.scipy.stats.logistic``: JAX's module of that name, re-exported."""

from didax.api.stats import logistic as _impl
from didax.api.stats.logistic import *  # noqa: F403

__all__ = [*_impl.__all__]
