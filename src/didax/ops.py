"""didax.ops: JAX's ``jax.ops`` (segment reductions), re-exported from ``didax.api.ops``."""

from didax.api import ops as _ops
from didax.api.ops import *  # noqa: F403

__all__ = [*_ops.__all__]
