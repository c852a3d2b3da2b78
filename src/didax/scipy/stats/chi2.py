"""``didax.scipy.stats.chi2``: JAX's module of that name, re-exported."""

from didax.api.stats import chi2 as _impl
from didax.api.stats.chi2 import *  # noqa: F403

__all__ = [*_impl.__all__]
