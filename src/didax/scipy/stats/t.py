"""``didax.scipy.stats.t``: JAX's module of that name, re-exported."""

from didax.api.stats import t as _impl
from didax.api.stats.t import *  # noqa: F403

__all__ = [*_impl.__all__]
