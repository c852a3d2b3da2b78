"""The interpreters' rules for the slicing primitives (``core.lax.slicing``).

Design rules:
- ``dynamic_slice`` and ``dynamic_update_slice`` clamp their start indices
  so that the window lies inside the operand (``clamp_start_indices``),
  as XLA does; ``pad``'s impl pads the interior first, then the
  non-negative edges, then crops the negative ones, as ``stablehlo.pad``.
- All four are linear in their array operands: the jvp of ``slice`` and
  ``pad`` is themselves on the tangents, the dynamic slices apply their
  start indices to the tangents. Transposes: a ``slice`` is a ``pad`` with
  zeros (edges and interior), a ``pad`` a negative pad and a strided slice
  (and the padding value's cotangent the sum of the rest), a dynamic
  slice a dynamic update of zeros, and back.
- Batched start indices of dynamic slices become a gather (a scatter for
  an update), as in JAX: the batched program has a constant number of
  equations whatever the batch size, and costs what the slices do.
- Slicing costs no flops, as XLA counts it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Unpack

import numpy as np

from didax.core import dtypes, lax
from didax.core.basearray import HostArray, Value
from didax.core.lax.slicing import (
    PaddingConfig,
    SliceParams,
    dynamic_slice_p,
    dynamic_update_slice_p,
    pad_p,
    slice_p,
    slice_params,
)
from didax.core.primitive import Primitive
from didax.core.values import ArrayLike, get_aval
from didax.interpreters.batching import (
    BATCH_RULES,
    Dim,
    bdim_at_front,
    front_batcher,
    shift_axes,
    unbatched_aval,
)
from didax.interpreters.evaluation import IMPL_RULES
from didax.interpreters.flops import FLOPS_RULES, per_element
from didax.interpreters.jvp import JVP_RULES, instantiate_zeros, linear_jvp
from didax.interpreters.transpose import (
    TRANSPOSE_RULES,
    PrimalOrUndefined,
    UndefinedPrimal,
    aval_of,
    ct_aval,
    is_undefined,
    not_linear,
    zeros_of,
)

__all__ = ["clamp_start_indices"]

SLICING: tuple[Primitive, ...] = (slice_p, dynamic_slice_p, dynamic_update_slice_p, pad_p)

# --- impl -----------------------------------------------------------------------------------


@IMPL_RULES.defines(slice_p)
def _slice_impl(
    x: HostArray,
    **params: Unpack[SliceParams],
) -> HostArray:
    start_indices, limit_indices, strides = slice_params(params)
    idx = tuple(
        slice(lo, hi, st) for lo, hi, st in zip(start_indices, limit_indices, strides, strict=True)
    )
    return x[idx]


def clamp_start_indices(
    starts: Sequence[HostArray], shape: tuple[int, ...], sizes: tuple[int, ...]
) -> list[int]:
    """XLA's rule: start indices are clamped so that the slice lies inside the operand."""
    return [int(np.clip(int(s), 0, n - k)) for s, n, k in zip(starts, shape, sizes, strict=True)]


@IMPL_RULES.defines(dynamic_slice_p)
def _dynamic_slice_impl(
    x: HostArray, *starts: HostArray, slice_sizes: tuple[int, ...]
) -> HostArray:
    begin = clamp_start_indices(starts, x.shape, slice_sizes)
    return x[tuple(slice(b, b + k) for b, k in zip(begin, slice_sizes, strict=True))]


@IMPL_RULES.defines(dynamic_update_slice_p)
def _dynamic_update_slice_impl(x: HostArray, update: HostArray, *starts: HostArray) -> HostArray:
    begin = clamp_start_indices(starts, x.shape, update.shape)
    out = x.copy()
    out[tuple(slice(b, b + k) for b, k in zip(begin, update.shape, strict=True))] = update
    return out


@IMPL_RULES.defines(pad_p)
def _pad_impl(
    x: HostArray, padding_value: HostArray, *, padding_config: PaddingConfig
) -> HostArray:
    # Interior padding first, then non-negative edges, then crop negative edges.
    shape = [n + max(0, n - 1) * i for n, (_, _, i) in zip(x.shape, padding_config, strict=True)]
    interior = np.full(shape, padding_value, x.dtype)
    interior[tuple(slice(None, None, i + 1) for _, _, i in padding_config)] = x
    widths = [(max(lo, 0), max(hi, 0)) for lo, hi, _ in padding_config]
    padded = np.pad(interior, widths, constant_values=padding_value)
    crop = tuple(
        slice(-min(lo, 0), padded.shape[d] + min(hi, 0))
        for d, (lo, hi, _) in enumerate(padding_config)
    )
    return padded[crop]


# --- jvp ------------------------------------------------------------------------------------

linear_jvp(slice_p)
linear_jvp(pad_p)


@JVP_RULES.defines(dynamic_slice_p)
def _dynamic_slice_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], *, slice_sizes: tuple[int, ...]
) -> tuple[Any, Any]:
    x, *starts = primals
    out = dynamic_slice_p.bind(x, *starts, slice_sizes=slice_sizes)
    return out, dynamic_slice_p.bind(tangents[0], *starts, slice_sizes=slice_sizes)


@JVP_RULES.defines(dynamic_update_slice_p)
def _dynamic_update_slice_jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    x, update, *starts = primals
    out = dynamic_update_slice_p.bind(x, update, *starts)
    t_out = dynamic_update_slice_p.bind(
        instantiate_zeros(tangents[0]), instantiate_zeros(tangents[1]), *starts
    )
    return out, t_out


# --- batching -------------------------------------------------------------------------------

front_batcher(
    slice_p,
    lambda n, *, start_indices, limit_indices, strides: dict(
        start_indices=(0, *start_indices),
        limit_indices=(n, *limit_indices),
        strides=(1, *strides),
    ),
)


@BATCH_RULES.defines(pad_p)
def _pad_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], *, padding_config: PaddingConfig
) -> tuple[Any, Any]:
    (x, padval), (dx, dp) = args, dims
    x = bdim_at_front(x, dx, axis_size)
    config = ((0, 0, 0), *padding_config)
    if dp is None:
        return pad_p.bind(x, padval, padding_config=config), 0
    # A padding value per batch element: pad with zeros, then select the
    # padded positions (found by padding a mask) from the broadcast values.
    aval = get_aval(x)
    padded = pad_p.bind(x, np.zeros((), aval.dtype), padding_config=config)
    mask = pad_p.bind(
        np.ones(aval.shape, dtypes.bool_), np.zeros((), dtypes.bool_), padding_config=config
    )
    out_shape = get_aval(padded).shape
    values = lax.broadcast_in_dim(padval, out_shape, (0,))
    return lax.select(mask, padded, values), 0


# --- dynamic slices with batched start indices --------------------------------


def _batched_starts(
    starts: Sequence[Any],
    dims: Sequence[Dim],
    axis_size: int,
    shape: tuple[int, ...],
    sizes: tuple[int, ...],
) -> Value:
    """The start indices as one ``(B, len(starts))`` default-int array, clamped as XLA does.

    Unsigned indices are capped at their bound in their own dtype first, so
    that a huge one clamps to the bound (a cast to a signed type would make
    it negative, and clamp it to 0).
    """
    columns = []
    index_dtype = dtypes.default_int()
    for s, d, n, k in zip(starts, dims, shape, sizes, strict=True):
        s = bdim_at_front(s, d, axis_size)
        dtype = get_aval(s).dtype
        if dtype.kind == "u" and n - k <= np.iinfo(dtype.name).max:
            s = lax.min(s, lax.full_like(s, n - k))
        if dtype != index_dtype:
            s = lax.convert_element_type(s, index_dtype)
        s = lax.max(lax.min(s, lax.full_like(s, n - k)), lax.full_like(s, 0))
        columns.append(lax.broadcast_in_dim(s, (axis_size, 1), (0,)))
    return columns[0] if len(columns) == 1 else lax.concatenate(columns, 1)


@BATCH_RULES.defines(dynamic_slice_p)
def _dynamic_slice_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], *, slice_sizes: tuple[int, ...]
) -> tuple[Any, Any]:
    x, *starts = args
    dx, *dstarts = dims
    if all(d is None for d in dstarts):
        x = bdim_at_front(x, dx, axis_size)
        zero = (
            np.zeros((), get_aval(starts[0]).dtype)
            if starts
            else np.zeros((), dtypes.default_int())
        )
        return dynamic_slice_p.bind(x, zero, *starts, slice_sizes=(axis_size, *slice_sizes)), 0
    # A gather of one slice per batch element (JAX's rule): the batch axis of
    # the starts is the indices' batch axis, and the operand's (if it has
    # one) a batching axis indexed with it. Its cost is the slices' size.
    shape = unbatched_aval(x, dx).shape
    index = _batched_starts(starts, dstarts, axis_size, shape, slice_sizes)
    axes = tuple(range(len(shape)))
    # Slices of one shared operand may overlap; those of one lane each cannot.
    unique = dx is not None
    if dx is None:
        dnums = lax.GatherDimensionNumbers(
            offset_dims=shift_axes(axes), collapsed_slice_dims=(), start_index_map=axes
        )
        sizes = slice_sizes
    else:
        x = bdim_at_front(x, dx, axis_size)
        dnums = lax.GatherDimensionNumbers(
            offset_dims=shift_axes(axes),
            collapsed_slice_dims=(),
            start_index_map=shift_axes(axes),
            operand_batching_dims=(0,),
            start_indices_batching_dims=(0,),
        )
        sizes = (1 if axis_size else 0, *slice_sizes)
    out = lax.gather(
        x, index, dnums, sizes, indices_are_sorted=unique, unique_indices=unique, mode="clip"
    )
    return out, 0


@BATCH_RULES.defines(dynamic_update_slice_p)
def _dynamic_update_slice_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim]
) -> tuple[Any, Any]:
    x, update, *starts = args
    dx, du, *dstarts = dims
    x, update = bdim_at_front(x, dx, axis_size), bdim_at_front(update, du, axis_size)
    if all(d is None for d in dstarts):
        zero = (
            np.zeros((), get_aval(starts[0]).dtype)
            if starts
            else np.zeros((), dtypes.default_int())
        )
        return dynamic_update_slice_p.bind(x, update, zero, *starts), 0
    # A scatter of one window per batch element into its own lane (JAX's
    # rule): operand and indices are batched along XLA batching axes.
    shape = get_aval(x).shape[1:]
    sizes = get_aval(update).shape[1:]
    if any(k == 0 for k in sizes):
        return x, 0
    index = _batched_starts(starts, dstarts, axis_size, shape, sizes)
    axes = shift_axes(range(len(shape)))
    dnums = lax.ScatterDimensionNumbers(
        update_window_dims=axes,
        inserted_window_dims=(),
        scatter_dims_to_operand_dims=axes,
        operand_batching_dims=(0,),
        scatter_indices_batching_dims=(0,),
    )
    out = lax.scatter(
        x, index, update, dnums, indices_are_sorted=True, unique_indices=True, mode="clip"
    )
    return out, 0


# --- transpose ------------------------------------------------------------------------------


@TRANSPOSE_RULES.defines(slice_p)
def _slice_transpose(
    ct: ArrayLike,
    x: UndefinedPrimal,
    **params: Unpack[SliceParams],
) -> list[Any]:
    start_indices, strides = params["start_indices"], params["strides"]
    # Scatter back by padding with zeros: ``start`` before, the skipped
    # elements of a stride as interior padding, and after the last element
    # taken whatever is left (limit - 1 may not be on the stride).
    config = []
    for start, stride, n_out, n in zip(
        start_indices, strides, aval_of(ct).shape, x.aval.shape, strict=True
    ):
        end = start + (n_out - 1) * stride + 1 if n_out else start
        config.append((start, n - end, stride - 1))
    return [lax.pad(ct, np.zeros((), aval_of(ct).dtype), config)]


@TRANSPOSE_RULES.defines(pad_p)
def _pad_transpose(
    ct: ArrayLike,
    x: PrimalOrUndefined,
    padding_value: PrimalOrUndefined,
    *,
    padding_config: PaddingConfig,
) -> list[Any]:
    # The operand's cotangent: undo the edge padding (negative edges were
    # crops, whose elements get zeros), then take every (interior + 1)-th.
    def operand_ct() -> Value:
        unpad = [(-lo, -hi, 0) for lo, hi, _ in padding_config]
        unpadded = lax.pad(ct, np.zeros((), aval_of(ct).dtype), unpad)
        shape = aval_of(unpadded).shape
        return lax.slice(
            unpadded, (0,) * len(shape), shape, tuple(i + 1 for _, _, i in padding_config)
        )

    # The padding value's cotangent needs the operand's, even for a defined operand.
    t_operand = operand_ct() if is_undefined(x) or is_undefined(padding_value) else None
    t_padding = None
    if is_undefined(padding_value):
        # Every output element that is not the operand's is the padding value.
        def total(v: ArrayLike) -> Value:
            return lax.reduce_sum(v, tuple(range(aval_of(v).ndim)))

        assert t_operand is not None  # computed above for an undefined padding value
        t_padding = lax.sub(total(ct), total(t_operand))
    return [t_operand if is_undefined(x) else None, t_padding]


@TRANSPOSE_RULES.defines(dynamic_slice_p)
def _dynamic_slice_transpose(
    ct: ArrayLike, x: UndefinedPrimal, *starts: PrimalOrUndefined, slice_sizes: tuple[int, ...]
) -> list[Any]:
    known = [i for i in starts if not isinstance(i, UndefinedPrimal)]
    if len(known) != len(starts):
        raise not_linear(dynamic_slice_p, "a start index is a linear input")
    # dynamic_update_slice clamps its start indices exactly as dynamic_slice does.
    operand_ct = lax.dynamic_update_slice(zeros_of(ct_aval(x)), ct, known)
    return [operand_ct, *(None for _ in starts)]


@TRANSPOSE_RULES.defines(dynamic_update_slice_p)
def _dynamic_update_slice_transpose(
    ct: ArrayLike, x: PrimalOrUndefined, update: PrimalOrUndefined, *starts: PrimalOrUndefined
) -> list[Any]:
    known = [i for i in starts if not isinstance(i, UndefinedPrimal)]
    if len(known) != len(starts):
        raise not_linear(dynamic_update_slice_p, "a start index is a linear input")
    update_shape = aval_of(update).shape
    operand_ct = (
        lax.dynamic_update_slice(ct, zeros_of(ct_aval(update)), known) if is_undefined(x) else None
    )
    update_ct = lax.dynamic_slice(ct, known, update_shape) if is_undefined(update) else None
    return [operand_ct, update_ct, *(None for _ in starts)]


# --- flops ----------------------------------------------------------------------------------

for _p in SLICING:
    FLOPS_RULES.register(_p, per_element(0))
