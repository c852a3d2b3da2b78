"""didax.ffi: calling foreign functions registered with XLA (``jax.ffi``).

The functions live in ``didax.api.ffi``; this module re-exports its ``__all__``.

    >>> import didax.ffi
    >>> import os
    >>> os.path.exists(os.path.join(didax.ffi.include_dir(), "xla", "ffi", "api", "ffi.h"))
    True
"""

from didax.api import ffi as _ffi
from didax.api.ffi import *  # noqa: F403

__all__ = [*_ffi.__all__]
