"""``didax.scipy.stats.nbinom``: JAX's module of that name, re-exported."""

from didax.api.stats import nbinom as _impl
from didax.api.stats.nbinom import *  # noqa: F403

__all__ = [*_impl.__all__]
