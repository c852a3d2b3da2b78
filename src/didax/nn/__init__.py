"""didax.nn: activation functions, softmax and friends, attention (JAX's ``jax.nn``).

The functions live in ``didax.api.nn``, ``didax.api.nn_activations`` and
``didax.api.attention``; this package re-exports their ``__all__``, and
``didax.nn.initializers`` is JAX's ``jax.nn.initializers``.
"""

from didax.api import attention as _attention
from didax.api import nn as _nn
from didax.api import nn_activations as _nn_activations
from didax.api.attention import *  # noqa: F403
from didax.api.nn import *  # noqa: F403
from didax.api.nn_activations import *  # noqa: F403
from didax.nn import initializers as initializers

__all__ = [*_nn.__all__, *_nn_activations.__all__, *_attention.__all__, "initializers"]
