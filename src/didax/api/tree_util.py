"""Pytrees: JAX's, re-exported, so that nodes users registered with JAX work in didax."""

from jax.tree_util import (
    register_pytree_node,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
)

__all__ = [
    "register_pytree_node",
    "tree_flatten",
    "tree_leaves",
    "tree_map",
    "tree_structure",
    "tree_unflatten",
]
