"""Symbolic dimensions for batch-polymorphic exports: JAX's ``symbolic_shape`` and friends.

Design rules:
- The dimension type and its parser are ``core.shape_poly``'s (a symbolic
  dimension is part of an abstract value's shape); this module gives them
  JAX's public names and builds argument specs from them.
- ``symbolic_args_specs`` shares one scope among all the arguments, as
  JAX's: the same name in two specs is the same dimension.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jax import tree_util

from didax.api.arrays import ShapeDtypeStruct, leaf_aval
from didax.core.shape_poly import SymbolicScope, dims, is_symbolic_dim, symbolic_shape

__all__ = ["SymbolicScope", "is_symbolic_dim", "symbolic_args_specs", "symbolic_shape"]


def symbolic_args_specs(
    args: Any,
    shapes_specs: Any,
    constraints: Sequence[str] = (),
    scope: SymbolicScope | None = None,
) -> Any:
    """``ShapeDtypeStruct``s for ``args`` with the symbolic shapes ``shapes_specs`` (JAX's).

    ``shapes_specs`` is one spec for every argument, or a pytree of specs (a
    prefix of ``args``'); ``_`` and ``...`` in a spec take the argument's sizes.

    >>> import numpy as np
    >>> symbolic_args_specs((np.zeros((3, 4), np.float32), np.zeros(3, np.int32)), "b, ...")
    (ShapeDtypeStruct(shape=(b, 4), dtype=float32), ShapeDtypeStruct(shape=(b,), dtype=int32))
    """
    scope = SymbolicScope(constraints) if scope is None else scope

    def spec_for(spec: str | None, arg: Any) -> ShapeDtypeStruct:
        aval = leaf_aval(arg)
        shape = symbolic_shape(spec, scope=scope, like=aval.shape)
        return ShapeDtypeStruct(dims(shape), aval.dtype)

    if isinstance(shapes_specs, str) or shapes_specs is None:
        return tree_util.tree_map(lambda a: spec_for(shapes_specs, a), args)
    return tree_util.tree_map(
        lambda spec, sub: tree_util.tree_map(lambda a: spec_for(spec, a), sub),
        shapes_specs,
        args,
        is_leaf=lambda s: s is None,
    )
