"""didax.debug: printing and callbacks inside transformed programs (``jax.debug``).

The functions live in ``didax.api.debugging``; this module re-exports its
``__all__``.

    >>> import didax
    >>> didax.jit(lambda x: didax.debug.print("x: {}", x))(3)
    x: 3
"""

from didax.api import debugging as _debugging
from didax.api.debugging import *  # noqa: F403

__all__ = [*_debugging.__all__]
