"""Collectives over named axes, and sharding constraints: declarations, typing rules, wrappers.

``psum``, ``pmax``, ``all_gather``, ``psum_scatter``, ``ppermute`` and
``axis_index`` are JAX's collectives: inside ``shard_map`` (and ``pmap``)
an axis name is a mesh axis, and the collective runs across the devices
along it. ``sharding_constraint`` (``with_sharding_constraint``) asks that
a value of a program be laid out as a sharding says. The interpreters'
rules are in ``interpreters.parallel``; the lowerings (XLA's collectives
with replica groups, ``@Sharding`` custom calls) in ``lowering.parallel``.

Design rules:
- Axis names are bound by whoever runs a function once per position along
  an axis (``shard_map`` binds its mesh's axes): ``axis_frame`` pushes
  names and sizes on a thread-local environment, and a collective naming
  an axis not in it is a ``NameError`` at trace time, as JAX's
  ("unbound axis name").
- A collective's params hold its axes as a tuple of names and the product
  of their sizes (``axis_size``), read from the environment at bind time:
  typing, batching and lowering rules need no environment.
- Collectives act on one array; the pytree wrappers (``lax.psum`` on a
  dict of arrays) are the api layer's.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Iterator, Sequence
from typing import Final, TypeAlias, TypedDict

import numpy as np

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, shape_failure
from didax.core.basearray import Value
from didax.core.lax.operands import as_operand, bind_value
from didax.core.lax.structural import expand_dims, squeeze
from didax.core.primitive import Primitive, primitives
from didax.core.sharding import NamedSharding
from didax.core.values import ArrayLike, get_aval

__all__ = [
    "psum_p",
    "pmax_p",
    "pmin_p",
    "all_gather_p",
    "all_to_all_p",
    "psum_scatter_p",
    "ppermute_p",
    "axis_index_p",
    "sharding_constraint_p",
    "COLLECTIVE_PRIMITIVES",
    "axis_frame",
    "bound_axis_size",
    "axes_tuple",
    "psum_one",
    "pmax_one",
    "pmin_one",
    "all_to_all_one",
    "all_gather_one",
    "psum_scatter_one",
    "ppermute_one",
    "axis_index",
    "sharding_constraint",
]

(
    psum_p,
    pmax_p,
    pmin_p,
    all_to_all_p,
    all_gather_p,
    psum_scatter_p,
    ppermute_p,
    axis_index_p,
    sharding_constraint_p,
) = primitives(
    "psum",
    "pmax",
    "pmin",
    "all_to_all",
    "all_gather",
    "psum_scatter",
    "ppermute",
    "axis_index",
    "sharding_constraint",
)

COLLECTIVE_PRIMITIVES: Final[tuple[Primitive, ...]] = (
    psum_p,
    pmax_p,
    pmin_p,
    all_gather_p,
    all_to_all_p,
    psum_scatter_p,
    ppermute_p,
    axis_index_p,
)


class _Collective(TypedDict):
    axes: tuple[str, ...]
    axis_size: int
    tiled: bool


class AllGatherParams(_Collective):
    """``all_gather_p``'s params, as its rules receive them (``**params: Unpack[...]``)."""

    axis: int


class PsumScatterParams(_Collective):
    """``psum_scatter_p``'s params, as its rules receive them (``**params: Unpack[...]``)."""

    scatter_dimension: int


class AllToAllParams(_Collective):
    """``all_to_all_p``'s params, as its rules receive them (``**params: Unpack[...]``)."""

    split_axis: int
    concat_axis: int


# --- the axis environment ---------------------------------------------------------------


class _AxisEnv(threading.local):
    def __init__(self) -> None:
        self.frames: list[dict[str, int]] = []


_ENV: Final = _AxisEnv()


@contextlib.contextmanager
def axis_frame(sizes: dict[str, int]) -> Iterator[None]:
    """Binds these axis names (to their sizes) while tracing a function run along them."""
    _ENV.frames.append(dict(sizes))
    try:
        yield
    finally:
        _ENV.frames.pop()


def bound_axis_size(name: str) -> int:
    """The size of the innermost bound axis ``name``; a ``NameError`` if none is bound."""
    for frame in reversed(_ENV.frames):
        if name in frame:
            return frame[name]
    from didax.core.source_info import user_frame_summary

    raise NameError(
        f"unbound axis name: {name!r} (collectives name an axis of an enclosing shard_map, "
        f"pmap or vmap with axis_name) at {user_frame_summary()}"
    )


# What a collective names: one axis, or several.
AxisName: TypeAlias = str | Sequence[str]


def axes_tuple(axis_name: object) -> tuple[str, ...]:
    """An axis name or a tuple of them, as a tuple."""
    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    checked: list[str] = []
    for n in names:
        if not isinstance(n, str):
            raise TypeError(f"axis names are strings, got {n!r}")
        checked.append(n)
    return tuple(checked)


def _size_of(axes: tuple[str, ...]) -> int:
    return math.prod(bound_axis_size(a) for a in axes)


# --- typing rules ----------------------------------------------------------------------


def _same_type(x: ShapedArray, **params: object) -> ShapedArray:
    return x


ABSTRACT_EVAL.register(psum_p, _same_type)
ABSTRACT_EVAL.register(pmax_p, _same_type)
ABSTRACT_EVAL.register(pmin_p, _same_type)
ABSTRACT_EVAL.register(ppermute_p, _same_type)


@ABSTRACT_EVAL.defines(all_gather_p)
def _all_gather_abstract_eval(
    x: ShapedArray, *, axes: tuple[str, ...], axis_size: int, axis: int, tiled: bool
) -> ShapedArray:
    if tiled:
        if not 0 <= axis < x.ndim:
            raise shape_failure(f"axis {axis} is out of range for rank {x.ndim}")
        shape = list(x.shape)
        shape[axis] *= axis_size
        return x.update(shape=tuple(shape))
    if not 0 <= axis <= x.ndim:
        raise shape_failure(f"axis {axis} is out of range for inserting into rank {x.ndim}")
    return x.update(shape=(*x.shape[:axis], axis_size, *x.shape[axis:]))


@ABSTRACT_EVAL.defines(psum_scatter_p)
def _psum_scatter_abstract_eval(
    x: ShapedArray, *, axes: tuple[str, ...], axis_size: int, scatter_dimension: int, tiled: bool
) -> ShapedArray:
    d = scatter_dimension
    if not 0 <= d < x.ndim:
        raise shape_failure(f"scatter_dimension {d} is out of range for rank {x.ndim}")
    n = x.shape[d]
    if tiled:
        if n % axis_size:
            raise shape_failure(
                f"dimension {d} of size {n} does not divide among the {axis_size} positions "
                f"of axes {axes}"
            )
        shape = list(x.shape)
        shape[d] = n // axis_size
        return x.update(shape=tuple(shape))
    if n != axis_size:
        raise shape_failure(
            f"dimension {d} has size {n}, not the size {axis_size} of axes {axes} (tiled=False)"
        )
    return x.update(shape=x.shape[:d] + x.shape[d + 1 :])


@ABSTRACT_EVAL.defines(all_to_all_p)
def _all_to_all_abstract_eval(
    x: ShapedArray,
    *,
    axes: tuple[str, ...],
    axis_size: int,
    split_axis: int,
    concat_axis: int,
    tiled: bool,
) -> ShapedArray:
    for name, d in (("split_axis", split_axis), ("concat_axis", concat_axis)):
        if not 0 <= d < x.ndim:
            raise shape_failure(f"{name} {d} is out of range for rank {x.ndim}")
    if x.shape[split_axis] % axis_size:
        raise shape_failure(
            f"the size of all_to_all split_axis ({x.shape[split_axis]}) has to be divisible by "
            f"the size of the named axis {axes} ({axis_size})"
        )
    shape = list(x.shape)
    shape[split_axis] //= axis_size
    shape[concat_axis] *= axis_size
    return x.update(shape=tuple(shape), weak_type=False)


@ABSTRACT_EVAL.defines(axis_index_p)
def _axis_index_abstract_eval(*, axes: tuple[str, ...], axis_size: int) -> ShapedArray:
    return ShapedArray((), np.dtype(np.int32))


@ABSTRACT_EVAL.defines(sharding_constraint_p)
def _sharding_constraint_abstract_eval(x: ShapedArray, *, sharding: NamedSharding) -> ShapedArray:
    if len(sharding.spec) > x.ndim:
        raise shape_failure(f"{sharding.spec} has more entries than the rank {x.ndim}")
    try:
        sharding.shard_shape(x.shape)
    except ValueError as e:
        raise shape_failure(str(e)) from None
    return x


# --- wrappers (one array each) ------------------------------------------------------------


def psum_one(x: ArrayLike, axis_name: AxisName) -> Value:
    """The sum of ``x`` over the positions along ``axis_name`` (one array)."""
    axes = axes_tuple(axis_name)
    return bind_value(psum_p, as_operand(x), axes=axes, axis_size=_size_of(axes))


def pmax_one(x: ArrayLike, axis_name: AxisName) -> Value:
    """The maximum of ``x`` over the positions along ``axis_name`` (one array)."""
    axes = axes_tuple(axis_name)
    return bind_value(pmax_p, as_operand(x), axes=axes, axis_size=_size_of(axes))


def pmin_one(x: ArrayLike, axis_name: AxisName) -> Value:
    """The minimum of ``x`` over the positions along ``axis_name`` (one array)."""
    axes = axes_tuple(axis_name)
    return bind_value(pmin_p, as_operand(x), axes=axes, axis_size=_size_of(axes))


def all_to_all_one(
    x: ArrayLike, axis_name: AxisName, split_axis: int, concat_axis: int, tiled: bool = False
) -> Value:
    """``x``'s ``split_axis`` scattered over the positions, theirs gathered at ``concat_axis``.

    As JAX's: untiled, ``split_axis`` (of the axes' size) goes away and a
    new axis of that size appears at ``concat_axis``; tiled, ``split_axis``
    is divided by the size and ``concat_axis`` multiplied by it.
    """
    axes = axes_tuple(axis_name)
    size = _size_of(axes)
    aval = get_aval(x)
    split, concat = int(split_axis), int(concat_axis)
    if split < 0:
        split += aval.ndim
    if concat < 0:
        concat += aval.ndim
    if not 0 <= split < aval.ndim:
        raise ValueError(
            f"all_to_all: split_axis {split_axis} is out of range for rank {aval.ndim}"
        )
    if tiled:
        if aval.shape[split] % size:
            raise ValueError(
                f"The size of all_to_all split_axis ({aval.shape[split]}) has to be divisible by "
                f"the size of the named axis {axis_name} ({size})"
            )
    else:
        if size != aval.shape[split]:
            raise ValueError(
                "all_to_all requires the size of the mapped axis axis_name to equal "
                f"x.shape[split_axis], but they are {size} and {aval.shape[split]} respectively."
            )
        # The primitive keeps the rank: a unit axis receives the gathered pieces.
        if split < concat:
            concat += 1
            x = expand_dims(x, (concat,))
        elif concat < split:
            x = expand_dims(x, (concat,))
            split += 1
    out = _bind_collective(all_to_all_p, x, axes, tiled, split_axis=split, concat_axis=concat)
    return out if tiled or split == concat else squeeze(out, (split,))


def _bind_collective(
    prim: Primitive, x: ArrayLike, axes: tuple[str, ...], tiled: object, **axis_param: int
) -> Value:
    """``prim`` (all_gather, psum_scatter, all_to_all) on ``x``: its params in their order,
    the axis params (already normalized) between the axes' size and ``tiled``."""
    return bind_value(
        prim, as_operand(x), axes=axes, axis_size=_size_of(axes), **axis_param, tiled=bool(tiled)
    )


def all_gather_one(x: ArrayLike, axis_name: AxisName, axis: int = 0, tiled: bool = False) -> Value:
    """Every position's ``x`` along ``axis_name``, stacked at ``axis`` (concatenated if tiled)."""
    axes = axes_tuple(axis_name)
    ndim = get_aval(x).ndim
    axis = int(axis)
    if axis < 0:
        axis += ndim if tiled else ndim + 1
    return _bind_collective(all_gather_p, x, axes, tiled, axis=axis)


def psum_scatter_one(
    x: ArrayLike, axis_name: AxisName, scatter_dimension: int = 0, tiled: bool = False
) -> Value:
    """``psum`` of ``x``, each position keeping its piece of ``scatter_dimension``."""
    axes = axes_tuple(axis_name)
    ndim = get_aval(x).ndim
    d = int(scatter_dimension)
    if d < 0:
        d += ndim
    return _bind_collective(psum_scatter_p, x, axes, tiled, scatter_dimension=d)


def ppermute_one(x: ArrayLike, axis_name: AxisName, perm: Sequence[tuple[int, int]]) -> Value:
    """``x`` sent from position ``src`` to ``dst`` for each pair of ``perm``; zeros elsewhere."""
    axes = axes_tuple(axis_name)
    size = _size_of(axes)
    pairs = tuple((int(s), int(d)) for s, d in perm)
    srcs, dsts = [s for s, _ in pairs], [d for _, d in pairs]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise ValueError(f"ppermute: perm {pairs} repeats a source or a destination")
    if any(not 0 <= i < size for i in (*srcs, *dsts)):
        raise ValueError(f"ppermute: perm {pairs} names positions outside the axis of size {size}")
    return bind_value(ppermute_p, as_operand(x), axes=axes, perm=pairs)


def axis_index(axis_name: AxisName) -> Value:
    """This position's index along ``axis_name`` (an int32 scalar; ``jax.lax.axis_index``)."""
    axes = axes_tuple(axis_name)
    return bind_value(axis_index_p, axes=axes, axis_size=_size_of(axes))


def sharding_constraint(x: ArrayLike, sharding: NamedSharding) -> Value:
    """``x``, to be laid out as ``sharding`` says in a compiled program (one array)."""
    if not isinstance(sharding, NamedSharding):
        raise TypeError(f"with_sharding_constraint takes a NamedSharding, got {sharding!r}")
    return bind_value(sharding_constraint_p, as_operand(x), sharding=sharding)
