"""didax.nn: activation functions, softmax and friends (JAX's ``jax.nn``).

The functions live in ``didax.api.nn``; this module re-exports its ``__all__``.
"""

from didax.api import nn as _nn
from didax.api.nn import *  # noqa: F403

__all__ = [*_nn.__all__]
