"""didax.experimental.checkify: JAX's ``jax.experimental.checkify`` (in ``didax.api.checkify``)."""

from didax.api import checkify as _checkify
from didax.api.checkify import *  # noqa: F403

__all__ = [*_checkify.__all__]
