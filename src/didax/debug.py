"""didax.debug: printing and callbacks inside transformed programs (``jax.debug``).

The functions live in ``didax.api.debugging`` (printing, logging,
callbacks) and ``didax.api.debug_sharding`` (the sharding tools); this
module re-exports their ``__all__``.

    >>> import didax
    >>> didax.jit(lambda x: didax.debug.print("x: {}", x))(3)
    x: 3
"""

from didax.api import debug_sharding as _debug_sharding
from didax.api import debugger as _debugger
from didax.api import debugging as _debugging
from didax.api.debug_sharding import *  # noqa: F403
from didax.api.debugger import *  # noqa: F403
from didax.api.debugging import *  # noqa: F403

__all__ = [*_debugging.__all__, *_debug_sharding.__all__, *_debugger.__all__]
