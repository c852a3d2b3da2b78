"""didax.custom_batching: JAX's ``jax.custom_batching`` (``custom_vmap``, ``sequential_vmap``).

The names live in ``didax.api.custom_batching``; this module re-exports its ``__all__``.
"""

from didax.api import custom_batching as _custom_batching
from didax.api.custom_batching import *  # noqa: F403

__all__ = [*_custom_batching.__all__]
