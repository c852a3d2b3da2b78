"""``didax.scipy.stats.binom``: JAX's module of that name, re-exported."""

from didax.api.stats import binom as _impl
from didax.api.stats.binom import *  # noqa: F403

__all__ = [*_impl.__all__]
