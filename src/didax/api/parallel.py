"""Collectives and sharding constraints at the API: JAX's ``lax.psum`` and friends, on pytrees.

Design rules:
- Each function maps its one-array primitive wrapper (``core.lax.parallel``)
  over the leaves of a pytree, as JAX's take pytrees; ``pmean`` is ``psum``
  divided by the number of positions, as JAX defines it.
- Axis names must be bound by an enclosing ``shard_map`` (or ``pmap``,
  ``vmap`` with ``axis_name``): otherwise a ``NameError`` names the axis
  and the user's line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

from jax import tree_util

from didax.core import dtypes
from didax.core import lax as core_lax
from didax.core.lax.parallel import (
    all_gather_one,
    axes_tuple,
    bound_axis_size,
    pmax_one,
    ppermute_one,
    psum_one,
    psum_scatter_one,
    sharding_constraint,
)
from didax.core.lax.parallel import axis_index as axis_index
from didax.core.sharding import NamedSharding
from didax.core.values import get_aval

__all__ = [
    "psum",
    "pmean",
    "pmax",
    "all_gather",
    "psum_scatter",
    "ppermute",
    "axis_index",
    "with_sharding_constraint",
]


# One mesh or vmap axis name, or several.
AxisName: TypeAlias = str | tuple[str, ...]


def psum(x: Any, axis_name: AxisName) -> Any:
    """The sum over the positions along ``axis_name`` of each leaf of ``x`` (``jax.lax.psum``)."""
    return tree_util.tree_map(lambda leaf: psum_one(leaf, axis_name), x)


def pmean(x: Any, axis_name: AxisName) -> Any:
    """The mean over the positions along ``axis_name`` (``jax.lax.pmean``)."""
    size = 1
    for a in axes_tuple(axis_name):
        size *= bound_axis_size(a)

    def mean(leaf: Any) -> Any:
        total = psum_one(leaf, axis_name)
        if dtypes.kind(get_aval(total).dtype) != "f":
            total = core_lax.convert_element_type(total, dtypes.default_float())
        return core_lax.div(total, float(size))

    return tree_util.tree_map(mean, x)


def pmax(x: Any, axis_name: AxisName) -> Any:
    """The maximum over the positions along ``axis_name`` (``jax.lax.pmax``; not differentiable)."""
    return tree_util.tree_map(lambda leaf: pmax_one(leaf, axis_name), x)


def all_gather(x: Any, axis_name: AxisName, *, axis: int = 0, tiled: bool = False) -> Any:
    """Every position's value, stacked at ``axis`` (concatenated when ``tiled``)."""
    return tree_util.tree_map(lambda leaf: all_gather_one(leaf, axis_name, axis, tiled), x)


def psum_scatter(
    x: Any, axis_name: AxisName, *, scatter_dimension: int = 0, tiled: bool = False
) -> Any:
    """``psum``, each position keeping its piece along ``scatter_dimension``."""
    return tree_util.tree_map(
        lambda leaf: psum_scatter_one(leaf, axis_name, scatter_dimension, tiled), x
    )


def ppermute(x: Any, axis_name: AxisName, perm: Sequence[tuple[int, int]]) -> Any:
    """Each leaf sent from position ``src`` to ``dst`` for each ``(src, dst)`` of ``perm``."""
    return tree_util.tree_map(lambda leaf: ppermute_one(leaf, axis_name, perm), x)


def with_sharding_constraint(x: Any, shardings: Any) -> Any:
    """``x``, laid out as ``shardings`` say inside a compiled program (one for all, or a prefix).

    >>> import numpy as np
    >>> import didax as dx
    >>> from didax.sharding import Mesh, NamedSharding, PartitionSpec as P
    >>> s = NamedSharding(Mesh(np.array(dx.devices()[:1]), ("x",)), P("x"))
    >>> dx.jit(lambda v: dx.lax.with_sharding_constraint(v * 2.0, s))(np.ones(2))
    Array([2., 2.], dtype=float32)
    """
    if isinstance(shardings, NamedSharding):
        return tree_util.tree_map(lambda leaf: sharding_constraint(leaf, shardings), x)
    return tree_util.tree_map(
        lambda s, sub: tree_util.tree_map(lambda leaf: sharding_constraint(leaf, s), sub),
        shardings,
        x,
        is_leaf=lambda s: isinstance(s, NamedSharding),
    )
