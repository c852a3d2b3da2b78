"""The interpreters' rules for the structural primitives (``core.lax.structural``).

Design rules:
- The impls are NumPy's own (``reshape``, ``transpose``, ``flip``, ...);
  ``broadcast_in_dim`` copies its result, so that no Array is a view of
  another's data.
- Every structural primitive is linear: its jvp is itself on the tangent
  (``linear_jvp``), ``iota`` has none (``zero_jvp``), and each transpose is
  its inverse: a broadcast sums over the axes it added or stretched,
  ``reshape``, ``transpose``, ``squeeze`` and ``expand_dims`` undo one
  another, ``concatenate`` slices its cotangent back apart.
- ``split``, ``tile``, ``stack``, ``unstack`` and ``optimization_barrier``
  are linear too: ``split`` and ``unstack`` transpose to ``concatenate``
  and ``stack`` of their cotangents, ``stack`` to ``unstack``, ``tile`` to
  a sum over its repetitions, the barrier to a barrier on the cotangents
  (as JAX's). Zero cotangents of several results are made real zeros
  first, as JAX's ``instantiate_zeros``.
- Batching moves the batch axis to the front and shifts the axis params
  by one (``front_batcher``).
- Structural operations cost no flops, as XLA counts them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Unpack

import numpy as np

from didax.core import dtypes, lax
from didax.core.basearray import HostArray
from didax.core.lax.structural import (
    BroadcastInDimParams,
    broadcast_in_dim_p,
    concatenate_p,
    copy_p,
    expand_dims_p,
    iota_p,
    optimization_barrier_p,
    reshape_p,
    rev_p,
    split_p,
    squeeze_p,
    stack_p,
    tile_p,
    transpose_p,
    unstack_p,
)
from didax.core.primitive import Primitive
from didax.core.values import ArrayLike
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front, front_batcher, shift_axes
from didax.interpreters.evaluation import IMPL_RULES
from didax.interpreters.flops import FLOPS_RULES, per_element
from didax.interpreters.jvp import instantiate_zeros, linear_jvp, zero_jvp
from didax.interpreters.transpose import (
    TRANSPOSE_RULES,
    PrimalOrUndefined,
    UndefinedPrimal,
    aval_of,
    is_undefined,
)

__all__: list[str] = []

STRUCTURAL: tuple[Primitive, ...] = (
    broadcast_in_dim_p,
    reshape_p,
    transpose_p,
    squeeze_p,
    expand_dims_p,
    concatenate_p,
    rev_p,
    iota_p,
    split_p,
    tile_p,
    stack_p,
    unstack_p,
    optimization_barrier_p,
    copy_p,
)

# --- impl -----------------------------------------------------------------------------------


@IMPL_RULES.defines(broadcast_in_dim_p)
def _broadcast_in_dim_impl(
    x: HostArray, *, shape: tuple[int, ...], broadcast_dimensions: tuple[int, ...]
) -> HostArray:
    expanded_shape = [1] * len(shape)
    for d, size in zip(broadcast_dimensions, x.shape, strict=True):
        expanded_shape[d] = size
    return np.broadcast_to(x.reshape(expanded_shape), shape).copy()


@IMPL_RULES.defines(reshape_p)
def _reshape_impl(x: HostArray, *, new_sizes: tuple[int, ...]) -> HostArray:
    return x.reshape(new_sizes)


@IMPL_RULES.defines(transpose_p)
def _transpose_impl(x: HostArray, *, permutation: tuple[int, ...]) -> HostArray:
    return np.transpose(x, permutation)


@IMPL_RULES.defines(squeeze_p)
def _squeeze_impl(x: HostArray, *, dimensions: tuple[int, ...]) -> HostArray:
    return np.squeeze(x, dimensions)


@IMPL_RULES.defines(expand_dims_p)
def _expand_dims_impl(x: HostArray, *, dimensions: tuple[int, ...]) -> HostArray:
    return np.expand_dims(x, dimensions)


@IMPL_RULES.defines(concatenate_p)
def _concatenate_impl(*xs: HostArray, dimension: int) -> HostArray:
    return np.concatenate(xs, axis=dimension)


@IMPL_RULES.defines(rev_p)
def _rev_impl(x: HostArray, *, dimensions: tuple[int, ...]) -> HostArray:
    return np.flip(x, dimensions) if dimensions else x


@IMPL_RULES.defines(iota_p)
def _iota_impl(*, dtype: np.dtype[Any], size: int) -> HostArray:
    if dtype in dtypes.NARROW:
        # XLA converts integer counters (ml_dtypes' arange counts in the narrow
        # dtype, and float8_e8m0fnu's 1 + 1 is not 2).
        return np.arange(size).astype(dtype)
    return np.arange(size, dtype=dtype)


@IMPL_RULES.defines(split_p)
def _split_impl(x: HostArray, *, sizes: tuple[int, ...], axis: int) -> list[HostArray]:
    return np.split(x, np.cumsum(sizes[:-1]).astype(int), axis=axis)


@IMPL_RULES.defines(tile_p)
def _tile_impl(x: HostArray, *, reps: tuple[int, ...]) -> HostArray:
    return np.tile(x, reps) if reps else x


@IMPL_RULES.defines(stack_p)
def _stack_impl(*xs: HostArray, axis: int) -> HostArray:
    return np.stack(xs, axis=axis)


@IMPL_RULES.defines(unstack_p)
def _unstack_impl(x: HostArray, *, axis: int) -> list[HostArray]:
    return [np.take(x, i, axis=axis) for i in range(x.shape[axis])]


@IMPL_RULES.defines(copy_p)
def _copy_impl(x: HostArray) -> HostArray:
    return x.copy()


@IMPL_RULES.defines(optimization_barrier_p)
def _optimization_barrier_impl(*xs: HostArray) -> list[HostArray]:
    # Outside a compiled program there is nothing to keep apart.
    return list(xs)


# --- jvp ------------------------------------------------------------------------------------

for _p in STRUCTURAL:
    if _p is iota_p:
        zero_jvp(_p)
    else:
        linear_jvp(_p)


# --- batching -------------------------------------------------------------------------------

front_batcher(
    broadcast_in_dim_p,
    lambda n, *, shape, broadcast_dimensions: dict(
        shape=(n, *shape), broadcast_dimensions=(0, *shift_axes(broadcast_dimensions))
    ),
)
front_batcher(reshape_p, lambda n, *, new_sizes: dict(new_sizes=(n, *new_sizes)))
front_batcher(
    transpose_p, lambda n, *, permutation: dict(permutation=(0, *shift_axes(permutation)))
)
for _p in (squeeze_p, expand_dims_p, rev_p):
    front_batcher(_p, lambda n, *, dimensions: dict(dimensions=shift_axes(dimensions)))
front_batcher(tile_p, lambda n, *, reps: dict(reps=(1, *reps)))
front_batcher(copy_p, lambda n: {})


@BATCH_RULES.defines(split_p)
def _split_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], *, sizes: tuple[int, ...], axis: int
) -> tuple[Any, Any]:
    x = bdim_at_front(args[0], dims[0], axis_size)
    return split_p.bind(x, sizes=sizes, axis=axis + 1), [0] * len(sizes)


@BATCH_RULES.defines(unstack_p)
def _unstack_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], *, axis: int
) -> tuple[Any, Any]:
    x = bdim_at_front(args[0], dims[0], axis_size)
    outs = unstack_p.bind(x, axis=axis + 1)
    return outs, [0] * len(outs)


@BATCH_RULES.defines(optimization_barrier_p)
def _optimization_barrier_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim]
) -> tuple[Any, Any]:
    return optimization_barrier_p.bind(*args), list(dims)


def _all_at_front(prim: Primitive, axis: str) -> None:
    """``prim``'s batching: every operand batched at its front, the axis param ``axis`` one up."""

    def rule(
        axis_size: int, args: Sequence[Any], dims: Sequence[Dim], **params: int
    ) -> tuple[Any, Any]:
        args = [bdim_at_front(x, d, axis_size) for x, d in zip(args, dims, strict=True)]
        return prim.bind(*args, **{axis: params[axis] + 1}), 0

    BATCH_RULES.register(prim, rule)


_all_at_front(stack_p, "axis")
_all_at_front(concatenate_p, "dimension")


# --- transpose ------------------------------------------------------------------------------


@TRANSPOSE_RULES.defines(broadcast_in_dim_p)
def _broadcast_in_dim_transpose(
    ct: ArrayLike, x: UndefinedPrimal, **params: Unpack[BroadcastInDimParams]
) -> list[Any]:
    # Sum over the new axes and over the operand's size-1 axes that were
    # stretched; the stretched ones come back as size-1 axes.
    shape, broadcast_dimensions = params["shape"], params["broadcast_dimensions"]
    in_shape = x.aval.shape
    stretched = tuple(
        i for i, d in enumerate(broadcast_dimensions) if in_shape[i] == 1 and shape[d] != 1
    )
    new_axes = tuple(d for d in range(len(shape)) if d not in broadcast_dimensions)
    summed = tuple(sorted(new_axes + tuple(broadcast_dimensions[i] for i in stretched)))
    out = lax.reduce_sum(ct, summed) if summed else ct
    if stretched:
        out = lax.expand_dims(out, stretched)
    return [out]


@TRANSPOSE_RULES.defines(reshape_p)
def _reshape_transpose(
    ct: ArrayLike, x: UndefinedPrimal, *, new_sizes: tuple[int, ...]
) -> list[Any]:
    return [lax.reshape(ct, x.aval.shape)]


@TRANSPOSE_RULES.defines(transpose_p)
def _transpose_transpose(
    ct: ArrayLike, x: UndefinedPrimal, *, permutation: tuple[int, ...]
) -> list[Any]:
    return [lax.transpose(ct, tuple(int(i) for i in np.argsort(permutation)))]


@TRANSPOSE_RULES.defines(squeeze_p)
def _squeeze_transpose(
    ct: ArrayLike, x: UndefinedPrimal, *, dimensions: tuple[int, ...]
) -> list[Any]:
    return [lax.expand_dims(ct, dimensions)]


@TRANSPOSE_RULES.defines(expand_dims_p)
def _expand_dims_transpose(
    ct: ArrayLike, x: UndefinedPrimal, *, dimensions: tuple[int, ...]
) -> list[Any]:
    return [lax.squeeze(ct, dimensions)]


@TRANSPOSE_RULES.defines(rev_p)
def _rev_transpose(ct: ArrayLike, x: UndefinedPrimal, *, dimensions: tuple[int, ...]) -> list[Any]:
    return [lax.rev(ct, dimensions)]


@TRANSPOSE_RULES.defines(concatenate_p)
def _concatenate_transpose(ct: ArrayLike, *xs: PrimalOrUndefined, dimension: int) -> list[Any]:
    shape = aval_of(ct).shape
    cts: list[Any] = []
    offset = 0
    for x in xs:
        size = aval_of(x).shape[dimension]
        if is_undefined(x):
            start = tuple(offset if d == dimension else 0 for d in range(len(shape)))
            limit = tuple(offset + size if d == dimension else n for d, n in enumerate(shape))
            cts.append(lax.slice(ct, start, limit))
        else:
            cts.append(None)
        offset += size
    return cts


@TRANSPOSE_RULES.defines(split_p)
def _split_transpose(
    cts: Sequence[Any], x: UndefinedPrimal, *, sizes: tuple[int, ...], axis: int
) -> list[Any]:
    return [lax.concatenate([instantiate_zeros(ct) for ct in cts], axis)]


@TRANSPOSE_RULES.defines(unstack_p)
def _unstack_transpose(cts: Sequence[Any], x: UndefinedPrimal, *, axis: int) -> list[Any]:
    return [lax.stack([instantiate_zeros(ct) for ct in cts], axis)]


@TRANSPOSE_RULES.defines(stack_p)
def _stack_transpose(ct: ArrayLike, *xs: PrimalOrUndefined, axis: int) -> list[Any]:
    pieces = lax.unstack(ct, axis)
    return [p if is_undefined(x) else None for p, x in zip(pieces, xs, strict=True)]


@TRANSPOSE_RULES.defines(tile_p)
def _tile_transpose(ct: ArrayLike, x: UndefinedPrimal, *, reps: tuple[int, ...]) -> list[Any]:
    # Result axis i is (reps[i], n_i) row-major: sum over each repetition axis.
    pairs = tuple(k for r, n in zip(reps, x.aval.shape, strict=True) for k in (r, n))
    summed = tuple(range(0, len(pairs), 2))
    return [lax.reduce_sum(lax.reshape(ct, pairs), summed) if summed else ct]


@TRANSPOSE_RULES.defines(copy_p)
def _copy_transpose(ct: ArrayLike, x: UndefinedPrimal) -> list[Any]:
    return [copy_p.bind(ct)]


@TRANSPOSE_RULES.defines(optimization_barrier_p)
def _optimization_barrier_transpose(cts: Sequence[Any], *xs: PrimalOrUndefined) -> list[Any]:
    live = [instantiate_zeros(ct) for ct, x in zip(cts, xs, strict=True) if is_undefined(x)]
    back = iter(optimization_barrier_p.bind(*live) if live else [])
    return [next(back) if is_undefined(x) else None for x in xs]


# --- flops ----------------------------------------------------------------------------------

for _p in STRUCTURAL:
    FLOPS_RULES.register(_p, per_element(0))
