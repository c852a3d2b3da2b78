"""The interpreters' rules for collectives and sharding constraints (``core.lax.parallel``).

Design rules:
- Collectives have no eager impl of their own: they run only inside a
  program over a mesh (``shard_map``), through their lowering. Applied
  outside one, their axis is unbound, which the wrappers report at trace
  time; the impl rule says the same if reached by another way.
- Linear collectives transpose as JAX's do without replication checking:
  ``psum`` to ``psum``, ``all_gather`` to ``psum_scatter`` and back,
  ``ppermute`` to the inverse permutation. ``shard_map``'s transpose rule
  (``interpreters.shard_map``) divides cotangents of results replicated
  over an axis by its size and sums those of inputs replicated over it,
  which makes ``psum``'s self-transpose exact.
- ``pmax`` and ``pmin`` are not differentiable (as API.md says of JAX's):
  their jvps raise. ``all_to_all`` is linear and transposes to itself with
  ``split_axis`` and ``concat_axis`` swapped (each piece sent back).
- Under an ordinary vmap (a batch axis that is not the collective's), a
  collective acts on each batch element alike: the batch axis stays, moved
  to the front where the collective's own axis numbering needs it.
- ``sharding_constraint`` is the identity on values (eagerly: there is no
  program to lay out); it is linear, and its jvp and transpose constrain
  the tangent and cotangent alike; vmap inserts an unsplit entry at the
  batch axis.
- Flops: ``psum``/``pmax`` count one combination per element per extra
  position (``(n - 1) * size``, what a reduction of ``n`` copies costs);
  data movement (gathers, permutes) and constraints cost nothing.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, NoReturn, Unpack

import numpy as np

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray, Value
from didax.core.lax.parallel import COLLECTIVE_PRIMITIVES, AllToAllParams
from didax.core.primitive import Primitive
from didax.core.sharding import Mesh, NamedSharding, PartitionSpec
from didax.core.values import ArrayLike, get_aval
from didax.interpreters.batching import BATCH_RULES, NAMED_BATCH_RULES, Dim, bdim_at_front
from didax.interpreters.evaluation import IMPL_RULES
from didax.interpreters.flops import FLOPS_RULES, ZERO, Cost, Operand
from didax.interpreters.jvp import JVP_RULES, Zero, instantiate_zeros
from didax.interpreters.transpose import TRANSPOSE_RULES, UndefinedPrimal
from didax.ir.jaxpr import ClosedJaxpr, Jaxpr

# --- impl ---------------------------------------------------------------------------


def _no_eager_impl(prim: Primitive) -> None:
    def impl(*args: HostArray, axes: tuple[str, ...], **params: object) -> NoReturn:
        raise NameError(
            f"{prim.name} over axes {axes} runs only inside shard_map, pmap or "
            "vmap with those axis names"
        )

    IMPL_RULES.register(prim, impl)


for _p in COLLECTIVE_PRIMITIVES:
    _no_eager_impl(_p)


@IMPL_RULES.defines(lax.sharding_constraint_p)
def _sharding_constraint_impl(x: HostArray, *, sharding: NamedSharding) -> HostArray:
    return x


# --- jvp --------------------------------------------------------------------------------


def _linear_jvp(prim: Primitive) -> None:
    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: object) -> tuple[Any, Any]:
        (x,), (t,) = primals, tangents
        out = prim.bind(x, **params)
        if isinstance(t, Zero):
            return out, Zero(ShapedArray(out.aval.shape, t.aval.dtype, t.aval.weak_type))
        return out, prim.bind(instantiate_zeros(t), **params)

    JVP_RULES.register(prim, rule)


for _p in (
    lax.psum_p,
    lax.all_gather_p,
    lax.psum_scatter_p,
    lax.ppermute_p,
    lax.all_to_all_p,
    lax.sharding_constraint_p,
):
    _linear_jvp(_p)


def _not_differentiable(prim: Primitive) -> None:
    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: object) -> NoReturn:
        raise TypeError(
            f"{prim.name} is not differentiable (as JAX's): use psum-based reductions in a grad"
        )

    JVP_RULES.register(prim, rule)


_not_differentiable(lax.pmax_p)
_not_differentiable(lax.pmin_p)


@JVP_RULES.defines(lax.axis_index_p)
def _axis_index_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], **params: object
) -> tuple[Value, Zero]:
    out: Value = lax.axis_index_p.bind(**params)
    return out, Zero.like(out.aval)


# --- transpose ----------------------------------------------------------------------------


@TRANSPOSE_RULES.defines(lax.psum_p)
def _psum_transpose(
    ct: Value | Zero, x: UndefinedPrimal, *, axes: tuple[str, ...], axis_size: int
) -> list[Any]:
    if isinstance(ct, Zero):
        return [ct]
    return [lax.psum_p.bind(ct, axes=axes, axis_size=axis_size)]


def _transposes_to(prim: Primitive, to: Primitive, axis: str, to_axis: str) -> None:
    """Gathering and scattering transpose to each other, along the same axis (its other name)."""

    def rule(ct: Value | Zero, x: UndefinedPrimal, **params: object) -> list[Any]:
        if isinstance(ct, Zero):
            return [Zero(x.aval)]
        moved = {to_axis if k == axis else k: v for k, v in params.items()}
        return [to.bind(ct, **moved)]

    TRANSPOSE_RULES.register(prim, rule)


_transposes_to(lax.all_gather_p, lax.psum_scatter_p, "axis", "scatter_dimension")
_transposes_to(lax.psum_scatter_p, lax.all_gather_p, "scatter_dimension", "axis")


@TRANSPOSE_RULES.defines(lax.ppermute_p)
def _ppermute_transpose(
    ct: Value | Zero,
    x: UndefinedPrimal,
    *,
    axes: tuple[str, ...],
    perm: tuple[tuple[int, int], ...],
) -> list[Any]:
    if isinstance(ct, Zero):
        return [ct]
    inverse = tuple((d, s) for s, d in perm)
    return [lax.ppermute_p.bind(ct, axes=axes, perm=inverse)]


@TRANSPOSE_RULES.defines(lax.all_to_all_p)
def _all_to_all_transpose(
    ct: Value | Zero, x: UndefinedPrimal, **params: Unpack[AllToAllParams]
) -> list[Any]:
    # Each piece goes back where it came from: the axes' roles swap.
    if isinstance(ct, Zero):
        return [Zero(x.aval)]
    swapped = {**params, "split_axis": params["concat_axis"], "concat_axis": params["split_axis"]}
    return [lax.all_to_all_p.bind(ct, **swapped)]


@TRANSPOSE_RULES.defines(lax.sharding_constraint_p)
def _sharding_constraint_transpose(
    ct: Value | Zero, x: UndefinedPrimal, *, sharding: NamedSharding
) -> list[Any]:
    if isinstance(ct, Zero):
        return [ct]
    return [lax.sharding_constraint_p.bind(ct, sharding=sharding)]


# --- batching (an ordinary batch axis, not the collective's) ----------------------------------


def _same_dim_batcher(prim: Primitive) -> None:
    def rule(
        size: int, args: Sequence[Any], dims: Sequence[Dim], /, **params: object
    ) -> tuple[Any, Dim]:
        return prim.bind(*args, **params), dims[0]

    BATCH_RULES.register(prim, rule)


for _p in (lax.psum_p, lax.pmax_p, lax.pmin_p, lax.ppermute_p):
    _same_dim_batcher(_p)


@BATCH_RULES.defines(lax.all_to_all_p)
def _all_to_all_batch(
    size: int, args: Sequence[Any], dims: Sequence[Dim], /, **params: Any
) -> tuple[Any, Dim]:
    (x,), (d,) = args, dims
    assert d is not None
    split, concat = params["split_axis"], params["concat_axis"]
    moved = {**params, "split_axis": split + (d <= split), "concat_axis": concat + (d <= concat)}
    return lax.all_to_all_p.bind(x, **moved), d


def _batched_at_front(prim: Primitive, axis: str) -> None:
    """``prim``'s batching: the operand batched at its front, the axis param ``axis`` one up."""

    def rule(
        size: int, args: Sequence[Any], dims: Sequence[Dim], /, **params: Any
    ) -> tuple[Any, Dim]:
        # The batch size is positional: ``axis_size`` names the collective's axes' size.
        x = bdim_at_front(args[0], dims[0], size)
        return prim.bind(x, **{**params, axis: params[axis] + 1}), 0

    BATCH_RULES.register(prim, rule)


_batched_at_front(lax.all_gather_p, "axis")
_batched_at_front(lax.psum_scatter_p, "scatter_dimension")


@BATCH_RULES.defines(lax.axis_index_p)
def _axis_index_batch(
    size: int, args: Sequence[Any], dims: Sequence[Dim], /, **params: object
) -> tuple[Any, Dim]:
    return lax.axis_index_p.bind(**params), None


@BATCH_RULES.defines(lax.sharding_constraint_p)
def _sharding_constraint_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], *, sharding: NamedSharding
) -> tuple[Any, Dim]:
    x = bdim_at_front(args[0], dims[0], axis_size)
    spec = PartitionSpec(None, *sharding.spec.parts)
    return lax.sharding_constraint_p.bind(x, sharding=NamedSharding(sharding.mesh, spec)), 0


# --- flops ---------------------------------------------------------------------------------


def _reduction_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], *, axis_size: int, **_: object
) -> Cost:
    return Cost((axis_size - 1) * operands[0].aval.size)


def _free(operands: Sequence[Operand], out_avals: Sequence[ShapedArray], **_: object) -> Cost:
    return ZERO


FLOPS_RULES.register(lax.psum_p, _reduction_flops)
FLOPS_RULES.register(lax.pmax_p, _reduction_flops)
FLOPS_RULES.register(lax.pmin_p, _reduction_flops)
FLOPS_RULES.register(lax.psum_scatter_p, _reduction_flops)
for _p in (
    lax.all_gather_p,
    lax.all_to_all_p,
    lax.ppermute_p,
    lax.axis_index_p,
    lax.sharding_constraint_p,
):
    FLOPS_RULES.register(_p, _free)


# --- the mesh a program runs on ----------------------------------------------------------------

_MESHES: Final[weakref.WeakKeyDictionary[Jaxpr, tuple[Mesh, ...]]] = weakref.WeakKeyDictionary()


def _meshes(jaxpr: Jaxpr) -> Iterator[Mesh]:
    for eqn in jaxpr.eqns:
        for value in eqn.params.values():
            for v in value if isinstance(value, tuple) else (value,):
                if isinstance(v, Mesh):
                    yield v
                elif isinstance(v, NamedSharding):
                    yield v.mesh
                elif isinstance(v, Jaxpr):
                    yield from program_meshes(v)
                elif isinstance(v, ClosedJaxpr):
                    yield from program_meshes(v.jaxpr)


def program_meshes(jaxpr: Jaxpr) -> tuple[Mesh, ...]:
    """The meshes ``jaxpr``'s equations name (sharding constraints, shard_map), nested included.

    A program naming one must be compiled for that mesh's devices. Found
    once per jaxpr object.
    """
    found = _MESHES.get(jaxpr)
    if found is None:
        found = tuple(dict.fromkeys(_meshes(jaxpr)))
        _MESHES[jaxpr] = found
    return found


# --- named-axis batching: vmap(f, axis_name=...) ---------------------------------------


def _at_front(x: ArrayLike, d: Dim, size: int) -> ArrayLike:
    return bdim_at_front(x, d, size)


def _only_this_axis(prim: Primitive, axes: tuple[str, ...], name: str) -> None:
    if axes != (name,):
        raise NotImplementedError(
            f"{prim.name} over axes {axes} mixing vmap's axis {name!r} with others"
        )


_AxisRule = Callable[..., tuple[Any, Dim]]


def _over_vmapped_axis(prim: Primitive) -> Callable[[_AxisRule], _AxisRule]:
    """Registers ``rule(size, args, dims, **params)`` as ``prim``'s named batching rule for
    a collective over vmap's axis alone (others mixed in are refused, here once)."""

    def register(rule: _AxisRule) -> _AxisRule:
        def named(
            size: int, name: str, args: Sequence[Any], dims: Sequence[Dim], /, **params: Any
        ) -> tuple[Any, Dim]:
            _only_this_axis(prim, params["axes"], name)
            return rule(size, args, dims, **params)

        NAMED_BATCH_RULES.register(prim, named)
        return rule

    return register


def _named_reduction(prim: Primitive, reduce: Callable[[Value, tuple[int, ...]], Value]) -> None:
    def rule(
        size: int, name: str, args: Sequence[Any], dims: Sequence[Dim], /, **params: Any
    ) -> tuple[Any, Dim]:
        axes: tuple[str, ...] = params["axes"]
        (x,), (d,) = args, dims
        if d is None and prim is lax.psum_p:
            out = lax.mul(x, lax.full_like(x, size))
        elif d is None:
            out = x
        else:
            out = reduce(x, (d,))
        rest = tuple(a for a in axes if a != name)
        if rest:
            out = prim.bind(out, axes=rest, axis_size=params["axis_size"] // size)
        return out, None

    NAMED_BATCH_RULES.register(prim, rule)


_named_reduction(lax.psum_p, lax.reduce_sum)
_named_reduction(lax.pmax_p, lax.reduce_max)
_named_reduction(lax.pmin_p, lax.reduce_min)


@_over_vmapped_axis(lax.all_gather_p)
def _all_gather_named(
    size: int, args: Sequence[Any], dims: Sequence[Dim], /, **params: Any
) -> tuple[Any, Dim]:
    x = _at_front(args[0], dims[0], size)  # (size, *member)
    axis: int = params["axis"]
    member = get_aval(x).shape[1:]
    perm = [*range(1, axis + 1), 0, *range(axis + 1, len(member) + 1)]
    stacked = lax.transpose(x, perm)  # size inserted at axis
    if not params["tiled"]:
        return stacked, None
    shape = (*member[:axis], size * member[axis], *member[axis + 1 :])
    return lax.reshape(stacked, shape), None


@_over_vmapped_axis(lax.psum_scatter_p)
def _psum_scatter_named(
    size: int, args: Sequence[Any], dims: Sequence[Dim], /, **params: Any
) -> tuple[Any, Dim]:
    d: int = params["scatter_dimension"]
    x, xd = args[0], dims[0]
    total = lax.mul(x, lax.full_like(x, size)) if xd is None else lax.reduce_sum(x, (xd,))
    if not params["tiled"]:
        return total, d
    member = get_aval(total).shape
    split = (*member[:d], size, member[d] // size, *member[d + 1 :])
    return lax.reshape(total, split), d


@_over_vmapped_axis(lax.ppermute_p)
def _ppermute_named(
    size: int, args: Sequence[Any], dims: Sequence[Dim], /, **params: Any
) -> tuple[Any, Dim]:
    x = _at_front(args[0], dims[0], size)
    source = {dst: src for src, dst in params["perm"]}
    shape = get_aval(x).shape
    rows = []
    for j in range(size):
        if j in source:
            s = source[j]
            start, limit = [0] * len(shape), list(shape)
            start[0], limit[0] = s, s + 1
            rows.append(lax.slice(x, start, limit))
        else:
            rows.append(lax.full((1, *shape[1:]), 0, get_aval(x).dtype))
    return lax.concatenate(rows, 0), 0


def _split_axis(x: ArrayLike, axis: int, factor: int) -> Value:
    shape = list(get_aval(x).shape)
    shape[axis : axis + 1] = [factor, shape[axis] // factor]
    return lax.reshape(x, tuple(shape))


def _fold_axis(x: ArrayLike, axis: int) -> Value:
    shape = list(get_aval(x).shape)
    shape[axis : axis + 2] = [shape[axis] * shape[axis + 1]]
    return lax.reshape(x, tuple(shape))


def _move(x: ArrayLike, src: int, dst: int) -> Value:
    perm = [i for i in range(get_aval(x).ndim) if i != src]
    perm.insert(dst, src)
    return lax.transpose(x, perm)


@_over_vmapped_axis(lax.all_to_all_p)
def _all_to_all_named(
    size: int, args: Sequence[Any], dims: Sequence[Dim], /, **params: Any
) -> tuple[Any, Dim]:
    # Position i receives piece i of every position's split_axis, in order of
    # the sender: with the positions as a batch axis, that is a reshuffle.
    x, d = args[0], dims[0]
    if d is None:
        x, d = bdim_at_front(x, None, size), 0
    split, concat = params["split_axis"], params["concat_axis"]
    if split == concat:
        axis = split + (d <= split)
        pieces = _split_axis(x, axis, size)  # (..., piece, chunk, ...)
        d_after = d + (axis <= d)
        perm = list(range(get_aval(pieces).ndim))
        perm[d_after], perm[axis] = perm[axis], perm[d_after]
        return _fold_axis(lax.transpose(pieces, perm), axis), d
    gathered = _fold_axis(_move(x, d, concat), concat)
    return _split_axis(gathered, split, size), split


@_over_vmapped_axis(lax.axis_index_p)
def _axis_index_named(
    size: int, args: Sequence[Any], dims: Sequence[Dim], /, **params: Any
) -> tuple[Any, Dim]:
    return lax.iota(np.dtype(np.int32), size), 0
