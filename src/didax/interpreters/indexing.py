"""Gather: its impl, jvp, transpose, batching and flops rules; the index arrays scatters share.

The primitive and its typing rule are in ``core.lax.indexing``, its
lowering in ``lowering.indexing``. The scatter family (``core.lax.scatter``)
has its interpreter rules in ``interpreters.scatter``, which builds on the
index arrays made here.
This module registers the rest in each interpreter's table, as the
interpreters' own modules do for the other standard primitives.

Design rules:
- The impls are vectorised NumPy: for every operand axis an integer index
  array over (batch axes, window axes) is built by broadcasting
  (``_index_arrays``, shared with the scatters), and one advanced-indexing
  read does a whole gather. Out-of-bounds handling is XLA's: gathers clamp
  each slice start into ``[0, n - size]`` (or fill, in ``FILL_OR_DROP``
  mode).
- The differentiation rules are JAX's: a gather is linear in its operand
  (transpose: scatter-add).
- Batching follows JAX: an unbatched operand takes the batch axis as an
  extra batch axis of the indices; batched operand and indices become
  XLA's batching dimensions (``operand_batching_dims``).
- Flops are XLA's cost model: a gather moves data (free, except the checks
  of ``FILL_OR_DROP``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, TypeVar, Unpack

import attrs
import numpy as np

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray
from didax.core.lax.indexing import (
    GatherDimensionNumbers,
    GatherParams,
    GatherScatterMode,
    ScatterDimensionNumbers,
    default_fill_value,
    fill_value_param,
    gather_shape,
    scatter_dnums_of_gather,
)
from didax.core.primitive import Primitive
from didax.core.values import ArrayLike, get_aval
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front
from didax.interpreters.evaluation import IMPL_RULES
from didax.interpreters.flops import FLOPS_RULES, ZERO, Cost, Operand
from didax.interpreters.jvp import JVP_RULES, Zero
from didax.interpreters.transpose import (
    TRANSPOSE_RULES,
    NonlinearError,
    PrimalOrUndefined,
    UndefinedPrimal,
)

_FILL: Final = GatherScatterMode.FILL_OR_DROP


# --- impl rules -----------------------------------------------------------------------


def _starts(indices: HostArray, k: int, bound: int) -> HostArray:
    """Column ``k`` of the index vectors as int64, values above ``bound`` capped at ``bound + 1``.

    Capping first keeps huge unsigned indices out of bounds (a plain cast
    to int64 would wrap them around to negative ones).
    """
    column = indices[..., k]
    if column.dtype.kind == "u" and bound + 1 <= np.iinfo(column.dtype).max:
        column = np.minimum(column, column.dtype.type(bound + 1))
    return column.astype(np.int64)


def _index_arrays(
    operand_shape: tuple[int, ...],
    indices: HostArray,
    start_map: tuple[int, ...],
    operand_batching: tuple[int, ...],
    indices_batching: tuple[int, ...],
    window_axes: list[int],
    sizes: tuple[int, ...],
    clamp: bool,
) -> tuple[list[HostArray | int], HostArray | None]:
    """Per operand axis, its index over (batch axes, window axes), and which starts are in bounds.

    ``sizes`` is the slice (window) size along each operand axis; a start
    is in bounds when the whole slice is. With ``clamp`` starts are clamped
    into bounds (and the mask is None).
    """
    batch_shape = indices.shape[:-1]
    nb, nw = len(batch_shape), len(window_axes)
    in_bounds: HostArray | None = None
    out: list[HostArray | int] = []
    for d, (n, size) in enumerate(zip(operand_shape, sizes, strict=True)):
        idx: HostArray | int = 0
        if d in start_map:
            start = _starts(indices, start_map.index(d), n - size)
            if clamp:
                start = np.clip(start, 0, max(n - size, 0))
            else:
                ok = (start >= 0) & (start <= n - size)
                in_bounds = ok if in_bounds is None else in_bounds & ok
            idx = start.reshape(batch_shape + (1,) * nw)
        elif d in operand_batching:
            b = indices_batching[operand_batching.index(d)]
            shape = [1] * (nb + nw)
            shape[b] = batch_shape[b]
            idx = np.arange(batch_shape[b]).reshape(shape)
        if d in window_axes:
            shape = [1] * (nb + nw)
            shape[nb + window_axes.index(d)] = size
            idx = idx + np.arange(size).reshape(shape)
        out.append(idx)
    return out, in_bounds


@IMPL_RULES.defines(lax.gather_p)
def _gather_impl(
    operand: HostArray, indices: HostArray, **params: Unpack[GatherParams]
) -> HostArray:
    dn, slice_sizes = params["dimension_numbers"], params["slice_sizes"]
    out_shape = gather_shape(indices.shape, dn, slice_sizes)
    if 0 in out_shape:
        return np.zeros(out_shape, operand.dtype)
    window_axes = [
        d
        for d in range(operand.ndim)
        if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims
    ]
    fill = params["mode"] is _FILL
    index, in_bounds = _index_arrays(
        operand.shape,
        indices,
        dn.start_index_map,
        dn.operand_batching_dims,
        dn.start_indices_batching_dims,
        window_axes,
        slice_sizes,
        clamp=not fill,
    )
    batch_shape = indices.shape[:-1]
    window_shape = tuple(slice_sizes[d] for d in window_axes)
    if fill and in_bounds is not None:
        # Read something in bounds everywhere, then fill the windows that were not.
        index = [
            np.where(in_bounds.reshape(batch_shape + (1,) * len(window_axes)), i, 0)
            if isinstance(i, np.ndarray)
            else i
            for i in index
        ]
    full = batch_shape + window_shape
    result = np.broadcast_to(operand[tuple(index)], full)
    if fill and in_bounds is not None:
        fill_value = params["fill_value"]
        value = default_fill_value(operand.dtype) if fill_value is None else fill_value
        mask = in_bounds.reshape(batch_shape + (1,) * len(window_shape))
        result = np.where(mask, result, np.asarray(value).astype(operand.dtype))
    # (batch, window) -> the result's order: window axes at offset_dims.
    batch_axes = iter(range(len(batch_shape)))
    perm = [
        len(batch_shape) + dn.offset_dims.index(i) if i in dn.offset_dims else next(batch_axes)
        for i in range(len(full))
    ]
    # np.array, not np.ascontiguousarray: that makes a 0-d result (one index
    # vector, every axis collapsed, as a scatter's transpose gathers) 1-d.
    return np.array(np.transpose(result, perm), dtype=operand.dtype, order="C")


# --- jvp rules ------------------------------------------------------------------------


@JVP_RULES.defines(lax.gather_p)
def _gather_jvp(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
    operand, indices = primals
    out = lax.gather_p.bind(operand, indices, **params)
    t = tangents[0]
    if isinstance(t, Zero):
        return out, Zero.like(get_aval(out))
    # Out of bounds a filled result is a constant: its tangent is 0.
    t_params = dict(params)
    if params["mode"] is _FILL:
        t_params["fill_value"] = fill_value_param(0, get_aval(t).dtype)
    return out, lax.gather_p.bind(t, indices, **t_params)


# --- transpose rules ------------------------------------------------------------------


def _not_linear(prim: Primitive, why: str) -> NonlinearError:
    return NonlinearError(f"transpose of {prim.name}: {why}; the function is not linear there")


@TRANSPOSE_RULES.defines(lax.gather_p)
def _gather_transpose(
    ct: ArrayLike,
    operand: UndefinedPrimal,
    indices: PrimalOrUndefined,
    **params: Unpack[GatherParams],
) -> list[Any]:
    if isinstance(indices, UndefinedPrimal):
        raise _not_linear(lax.gather_p, "the indices are a linear input")
    aval = Zero.like(operand.aval).aval
    zeros = lax.full(aval.shape, 0, get_aval(ct).dtype)
    operand_ct = lax.scatter_add(
        zeros,
        indices,
        ct,
        scatter_dnums_of_gather(params["dimension_numbers"]),
        indices_are_sorted=params["indices_are_sorted"],
        unique_indices=params["unique_indices"],
        mode=params["mode"],
    )
    return [operand_ct, None]


# --- batching rules -------------------------------------------------------------------


def _shift(dims: Sequence[int], by: int = 1) -> tuple[int, ...]:
    return tuple(d + by for d in dims)


_Dnums = TypeVar("_Dnums", GatherDimensionNumbers, ScatterDimensionNumbers)


def _operand_batched(dn: _Dnums) -> _Dnums:
    """``dn`` once the operand (alone) has a batch axis in front: one more window axis, taken
    whole, first of the result's (a scatter's updates'); the operand's axes one up."""
    return type(dn)(*_batched_fields(attrs.astuple(dn, recurse=False), indices=False))


def _both_batched(dn: _Dnums) -> _Dnums:
    """``dn`` once the operand and the indices have each a batch axis in front, indexed
    together: every axis one up, the new axis first among the batching axes of both."""
    return type(dn)(*_batched_fields(attrs.astuple(dn, recurse=False), indices=True))


def _batched_fields(fields: tuple[Sequence[int], ...], indices: bool) -> list[tuple[int, ...]]:
    # The same for a gather and a scatter, whose fields mirror each other in
    # order: window axes, collapsed (inserted) axes, the index map, the batching
    # axes of the operand and of the indices.
    window, collapsed, index_map, operand_batch, indices_batch = fields
    if not indices:
        return [
            (0, *_shift(window)),
            _shift(collapsed),
            _shift(index_map),
            _shift(operand_batch),
            tuple(indices_batch),
        ]
    return [
        _shift(window),
        _shift(collapsed),
        _shift(index_map),
        (0, *_shift(operand_batch)),
        (0, *_shift(indices_batch)),
    ]


@BATCH_RULES.defines(lax.gather_p)
def _gather_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], **params: Unpack[GatherParams]
) -> tuple[Any, Any]:
    (operand, indices), (d_operand, d_indices) = args, dims
    dn, slice_sizes = params["dimension_numbers"], params["slice_sizes"]
    unique_indices, indices_are_sorted = params["unique_indices"], params["indices_are_sorted"]
    mode_params = dict(mode=params["mode"], fill_value=params["fill_value"])
    if d_indices is None:
        # The batch axis is one more offset axis, taken whole.
        operand = bdim_at_front(operand, d_operand, axis_size)
        new = _operand_batched(dn)
        out = lax.gather_p.bind(
            operand,
            indices,
            dimension_numbers=new,
            slice_sizes=(axis_size, *slice_sizes),
            unique_indices=unique_indices,
            indices_are_sorted=indices_are_sorted,
            **mode_params,
        )
        return out, 0
    indices = bdim_at_front(indices, d_indices, axis_size)
    if d_operand is None:
        # The batch axis is one more batch axis of the indices (the result's first).
        new = GatherDimensionNumbers(
            offset_dims=_shift(dn.offset_dims),
            collapsed_slice_dims=dn.collapsed_slice_dims,
            start_index_map=dn.start_index_map,
            operand_batching_dims=dn.operand_batching_dims,
            start_indices_batching_dims=_shift(dn.start_indices_batching_dims),
        )
        # Batched indices into one operand may repeat or be out of order.
        out = lax.gather_p.bind(
            operand,
            indices,
            dimension_numbers=new,
            slice_sizes=slice_sizes,
            unique_indices=False,
            indices_are_sorted=False,
            **mode_params,
        )
        return out, 0
    # Both batched: the batch axes are batching axes of the operand and the indices.
    operand = bdim_at_front(operand, d_operand, axis_size)
    out = lax.gather_p.bind(
        operand,
        indices,
        dimension_numbers=_both_batched(dn),
        slice_sizes=(1 if axis_size else 0, *slice_sizes),
        unique_indices=unique_indices,
        indices_are_sorted=indices_are_sorted,
        **mode_params,
    )
    return out, 0


# --- flops rules ----------------------------------------------------------------------


@FLOPS_RULES.defines(lax.gather_p)
def _gather_flops(
    operands: Sequence[Operand],
    out_avals: Sequence[ShapedArray],
    /,
    *,
    mode: GatherScatterMode,
    **_: object,
) -> Cost:
    if mode is not _FILL:
        return ZERO  # data movement; XLA clamps the starts itself
    # lowering.indexing's checks: two comparisons and an "and" per index,
    # an "and" across each index vector, and a select per result element.
    indices = operands[1].aval
    vectors = int(np.prod(indices.shape[:-1], dtype=np.int64))
    k = indices.shape[-1]
    return Cost(3 * indices.size + max(k - 1, 0) * vectors + out_avals[0].size)
