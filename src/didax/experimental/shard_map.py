"""didax.experimental.shard_map: ``shard_map`` where ``jax.experimental.shard_map`` has it.

It is ``didax.shard_map`` (``didax.api.shard_map``), re-exported.
"""

from didax.api.shard_map import shard_map as shard_map

__all__ = ["shard_map"]
