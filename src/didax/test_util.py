"""didax.test_util: derivatives checked against finite differences (JAX's ``jax.test_util``).

The functions live in ``didax.api.test_util``.
"""

from didax.api import test_util as _test_util
from didax.api.test_util import *  # noqa: F403

__all__ = [*_test_util.__all__]
