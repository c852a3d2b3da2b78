"""Pytrees, as JAX's ``jax.tree_util`` (re-exported from ``didax.api.tree_util``)."""

from didax.api import tree_util as _tree_util
from didax.api.tree_util import *  # noqa: F403

__all__ = [*_tree_util.__all__]
