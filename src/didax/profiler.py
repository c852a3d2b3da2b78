"""didax.profiler: JAX's ``jax.profiler`` (traces for TensorBoard and Perfetto, memory profiles).

The functions live in ``didax.api.profiler``; this module re-exports its ``__all__``.
"""

from didax.api import profiler as _profiler
from didax.api.profiler import *  # noqa: F403

__all__ = [*_profiler.__all__]
