"""didax.nn.initializers: JAX's ``jax.nn.initializers``, the same values for the same key.

The functions live in ``didax.api.initializers``; this module re-exports its ``__all__``.

    >>> import didax.random as random
    >>> from didax.nn import initializers
    >>> initializers.glorot_normal()(random.PRNGKey(0), (3, 2)).shape
    (3, 2)
"""

from didax.api import initializers as _initializers
from didax.api.initializers import *  # noqa: F403

__all__ = [*_initializers.__all__]
