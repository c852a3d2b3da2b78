"""didax.tree: JAX's ``jax.tree`` (re-exported from ``didax.api.tree``).

>>> import didax
>>> didax.tree.map(lambda x: x * 2, {"a": 1, "b": (2, 3)})
{'a': 2, 'b': (4, 6)}
"""

from didax.api import tree as _tree
from didax.api.tree import *  # noqa: F403

__all__ = [*_tree.__all__]
