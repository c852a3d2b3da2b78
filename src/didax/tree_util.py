"""Pytrees, as JAX's ``jax.tree_util``."""

from didax.api.tree_util import register_pytree_node as register_pytree_node
from didax.api.tree_util import tree_flatten as tree_flatten
from didax.api.tree_util import tree_leaves as tree_leaves
from didax.api.tree_util import tree_map as tree_map
from didax.api.tree_util import tree_structure as tree_structure
from didax.api.tree_util import tree_unflatten as tree_unflatten

__all__ = [
    "register_pytree_node",
    "tree_flatten",
    "tree_leaves",
    "tree_map",
    "tree_structure",
    "tree_unflatten",
]
