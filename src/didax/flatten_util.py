"""didax.flatten_util: JAX's ``jax.flatten_util`` (``ravel_pytree``).

The name lives in ``didax.api.flatten_util``; this module re-exports its ``__all__``.
"""

from didax.api import flatten_util as _flatten_util
from didax.api.flatten_util import *  # noqa: F403

__all__ = [*_flatten_util.__all__]
