"""``didax.tree``: JAX's ``jax.tree`` (``map``, ``leaves``, ``structure``...), re-exported.

Design rules:
- didax's pytrees are JAX's (see ``api.tree_util``): nodes registered with
  JAX are nodes here, and these functions are JAX's own.
"""

from jax.tree import (
    all,  # noqa: A004 - JAX's name
    broadcast,
    flatten,
    flatten_with_path,
    leaves,
    leaves_with_path,
    map,  # noqa: A004 - JAX's name
    map_with_path,
    reduce,
    reduce_associative,
    static,
    structure,
    transpose,
    unflatten,
)

__all__ = [
    "all",
    "broadcast",
    "flatten",
    "flatten_with_path",
    "leaves",
    "leaves_with_path",
    "map",
    "map_with_path",
    "reduce",
    "reduce_associative",
    "static",
    "structure",
    "transpose",
    "unflatten",
]
