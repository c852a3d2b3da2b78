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

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias, TypeVar

import numpy as np
from jax import tree_util

from didax.core import dtypes
from didax.core import lax as core_lax
from didax.core.basearray import Value
from didax.core.lax.operands import as_operand
from didax.core.lax.parallel import (
    all_gather_one,
    all_gather_p,
    all_to_all_one,
    all_to_all_p,
    axes_tuple,
    axis_index_p,
    bound_axis_size,
    pmax_one,
    pmax_p,
    pmin_one,
    pmin_p,
    ppermute_one,
    ppermute_p,
    psum_one,
    psum_p,
    psum_scatter_one,
    sharding_constraint,
    sharding_constraint_p,
)
from didax.core.lax.parallel import axis_index as axis_index
from didax.core.sharding import NamedSharding
from didax.core.values import ArrayLike, get_aval

__all__ = [
    "psum",
    "pmean",
    "pmax",
    "all_gather",
    "psum_scatter",
    "ppermute",
    "axis_index",
    "with_sharding_constraint",
    "pmin",
    "axis_size",
    "all_to_all",
    "pswapaxes",
    "pshuffle",
    "pbroadcast",
    "pcast",
    "psum_p",
    "pmax_p",
    "pmin_p",
    "all_gather_p",
    "all_to_all_p",
    "ppermute_p",
    "axis_index_p",
    "sharding_constraint_p",
]


T = TypeVar("T")

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


def _leafwise(fn: Callable[[ArrayLike], Value], x: T) -> T:
    """``fn`` applied to each leaf of ``x``: a pytree of the same structure."""
    out: T = tree_util.tree_map(fn, x)
    return out


def pmin(x: T, axis_name: AxisName, *, axis_index_groups: None = None) -> T:
    """The minimum over the positions along ``axis_name`` (``jax.lax.pmin``; not differentiable)."""
    _no_groups("pmin", axis_index_groups)
    return _leafwise(lambda leaf: pmin_one(leaf, axis_name), x)


def _no_groups(name: str, groups: object) -> None:
    if groups is not None:
        raise NotImplementedError(f"{name}: axis_index_groups are not supported")


def axis_size(axis_name: AxisName) -> int:
    """The number of positions along ``axis_name`` (the product, for several axes).

    >>> import numpy as np
    >>> import didax as dx
    >>> dx.vmap(lambda x: x * dx.lax.axis_size("i"), axis_name="i")(np.ones(3, np.float32))
    Array([3., 3., 3.], dtype=float32)
    """
    size = 1
    for a in axes_tuple(axis_name):
        size *= bound_axis_size(a)
    return size


def all_to_all(
    x: T,
    axis_name: AxisName,
    split_axis: int,
    concat_axis: int,
    *,
    axis_index_groups: None = None,
    tiled: bool = False,
) -> T:
    """Piece ``i`` of ``split_axis`` to position ``i``; the pieces received at ``concat_axis``.

    Untiled, ``split_axis`` must have the axes' size and is replaced by the
    positions' axis at ``concat_axis``; tiled, it is divided among them and
    ``concat_axis`` concatenates (``jax.lax.all_to_all``).
    """
    _no_groups("all_to_all", axis_index_groups)
    return _leafwise(
        lambda leaf: all_to_all_one(leaf, axis_name, split_axis, concat_axis, tiled), x
    )


def pswapaxes(x: T, axis_name: AxisName, axis: int, *, axis_index_groups: None = None) -> T:
    """The positions' axis swapped with ``axis``: ``all_to_all(x, axis_name, axis, axis)``."""
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


def pshuffle(x: T, axis_name: AxisName, perm: Sequence[int]) -> T:
    """Position ``i`` gets position ``perm[i]``'s value (``ppermute`` with sources listed)."""
    if set(perm) != set(range(len(perm))):
        raise ValueError(f"`perm` does not represent a permutation: {perm}")
    pairs = list(zip(perm, range(len(perm)), strict=True))
    return _leafwise(lambda leaf: ppermute_one(leaf, axis_name, pairs), x)


def pbroadcast(x: T, axis_name: AxisName, source: int) -> T:
    """Every position gets position ``source``'s value (``jax.lax.pbroadcast``).

    Written as JAX documents it, ``psum`` of the value masked to the source
    (JAX lowers its primitive to a collective broadcast on GPUs only);
    linear, with that transpose.
    """
    index = axis_index(axis_name)

    def one(leaf: ArrayLike) -> Value:
        leaf = as_operand(leaf)
        aval = get_aval(leaf)
        mask = core_lax.broadcast_in_dim(core_lax.eq(index, np.int32(source)), aval.shape, ())
        return psum_one(core_lax.select(mask, leaf, core_lax.full_like(leaf, 0)), axis_name)

    return _leafwise(one, x)


def pcast(x: T, axis_name: object, *, to: str) -> T:
    """``x`` cast to vary over ``axis_name`` (``to="varying"``): its values are unchanged.

    didax does not type values by how they vary (JAX's vma types), so the
    cast to ``"varying"`` (JAX's ``pvary``) is the identity; the casts to
    ``"reduced"`` and ``"unreduced"`` belong to JAX's explicit sharding
    types, which didax does not have.
    """
    if isinstance(axis_name, (set, frozenset)):
        raise TypeError(f"{axis_name=} must be a tuple or a str. Got {axis_name}")
    if not axis_name:
        return x
    allowed = {"unreduced", "reduced", "varying"}
    if to not in allowed:
        raise ValueError(f"Got unexpected `to` value. Allowed `to` values are: {allowed}")
    if to != "varying":
        raise NotImplementedError(f"pcast to {to!r}: didax has no reduced or unreduced types")
    for a in axes_tuple(axis_name):
        bound_axis_size(a)  # an unbound name is an error, as for every collective
    return x


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
