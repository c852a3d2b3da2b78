"""didax.dlpack: JAX's ``jax.dlpack`` (``from_dlpack``, ``is_supported_dtype``).

The names live in ``didax.api.dlpack``; this module re-exports its ``__all__``.
"""

from didax.api import dlpack as _dlpack
from didax.api.dlpack import *  # noqa: F403

__all__ = [*_dlpack.__all__]
