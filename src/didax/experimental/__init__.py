"""didax.experimental: JAX's ``jax.experimental`` names that didax has.

``didax.experimental.shard_map.shard_map`` is ``didax.shard_map`` (where
JAX 0.4 kept it), and ``io_callback`` is ``didax.api.callbacks``'; this
package only re-exports.
"""

from didax.api.callbacks import io_callback as io_callback
from didax.experimental import checkify as checkify
from didax.experimental import shard_map as shard_map

__all__ = ["checkify", "shard_map", "io_callback"]
