"""The interpreters' rules for the sort primitive (``core.lax.sorting``).

Impl (NumPy), jvp, transpose, batching and flops rules, registered in each
interpreter's table; the lowering is in ``lowering.sorting``.

Design rules:
- The impl sorts by JAX's total order (``core.lax.sorting``): float keys
  are canonicalised (``-0.0`` to ``0.0``, every NaN to one NaN, which NumPy
  sorts last) before ``np.lexsort``, which is stable; the operands
  themselves are permuted unchanged.
- The tangent of a sort is the tangent permuted as the keys were. The jvp
  rule gets that permutation by sorting the tangents as extra operands
  behind the primal keys (one more ``sort``, stable, as the primal one is
  then made); so under linearize the tangents' sort is an equation whose
  keys are known residuals and whose other operands are linear.
- That is what the transpose rule transposes: a sort is linear in its
  non-key operands when its keys are known. The transpose of a
  permutation is its inverse, which is again a sort: the cotangents sorted
  by the permutation's indices (``sort`` of the keys with an iota).
- vmap moves every batch axis to the front (the sort axis moves by one).
- ``eq_to``, ``le_to`` and ``lt_to`` compare floats by their total-order
  keys (the bits as signed integers, the magnitude bits of negatives
  flipped), which order as XLA's ``TOTALORDER``; their tangents are zero,
  and they batch element-wise. XLA's cost is 9 flops an element for
  floats (its expansion of the total order), 1 for the others.
- Flops are XLA's cost analysis: ``n * ceil(log2 n)`` comparisons for
  ``n`` elements of an operand, whatever the number of operands.
- ``top_k``'s impl sorts keys that order the values as XLA's ``TopK``
  (the total order: the float's bits made monotone), stably, descending;
  ``approx_top_k``'s sorts the values themselves (its fallback's plain
  comparison), stably. The tangent of either is the tangent gathered at
  the indices (JAX's gather with batching dims); vmap moves the batch
  axis to the front. XLA's cost analysis does not count a ``TopK`` (it
  says -1): counted as the sort it is, estimated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Unpack

import numpy as np

from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray, Value
from didax.core.dtypes import DType
from didax.core.lax.indexing import GatherDimensionNumbers
from didax.core.lax.sorting import (
    TOTAL_ORDER_COMPARISONS,
    ApproxTopKParams,
    approx_top_k_output_size,
    approx_top_k_p,
    eq_to_p,
    le_to_p,
    lt_to_p,
    sort_p,
    top_k_p,
)
from didax.core.primitive import Primitive
from didax.core.values import get_aval
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front, elementwise_batcher
from didax.interpreters.evaluation import IMPL_RULES
from didax.interpreters.flops import FLOPS_RULES, Cost, Operand
from didax.interpreters.jvp import JVP_RULES, Zero, instantiate_zeros, zero_jvp
from didax.interpreters.transpose import (
    TRANSPOSE_RULES,
    NonlinearError,
    UndefinedPrimal,
    is_undefined,
)

__all__ = ["sort_permutation", "index_dtype_for"]


# --- impl -----------------------------------------------------------------------------


def _sort_key(x: HostArray) -> HostArray:
    """``x`` as NumPy sorts it in JAX's total order: zeros and NaNs canonical."""
    if not dtypes.is_float(x.dtype):
        return x
    if x.dtype.itemsize < 4:
        x = x.astype(np.float32)  # exact; NumPy's 16-bit float sorts need not exist
    return np.where(np.isnan(x), np.nan, np.where(x == 0, 0, x)).astype(x.dtype)


@IMPL_RULES.defines(sort_p)
def _sort_impl(
    *operands: HostArray, dimension: int, is_stable: bool, num_keys: int
) -> list[HostArray]:
    # lexsort's last key is the primary one; it is stable whatever is asked.
    keys = [_sort_key(np.asarray(k)) for k in operands[:num_keys]]
    perm = np.lexsort(keys[::-1], axis=dimension)
    return [np.take_along_axis(np.asarray(x), perm, axis=dimension) for x in operands]


# --- helpers shared by the rules --------------------------------------------------------


def index_dtype_for(size: int) -> DType:
    """The integer dtype of indices into an axis of ``size`` elements (int32 when it fits)."""
    return dtypes.int32 if size < 2**31 else dtypes.int64


def sort_permutation(keys: Sequence[Any], dimension: int) -> Value:
    """The indices that stably sort ``keys`` (lexicographically) along ``dimension``."""
    shape = get_aval(keys[0]).shape
    dtype = index_dtype_for(shape[dimension])
    iota = lax.broadcast_in_dim(lax.iota(dtype, shape[dimension]), shape, (dimension,))
    outs = sort_p.bind(*keys, iota, dimension=dimension, is_stable=True, num_keys=len(keys))
    perm: Value = outs[-1]
    return perm


# --- jvp and transpose -------------------------------------------------------------------


@JVP_RULES.defines(sort_p)
def _sort_jvp(
    primals: Sequence[Any],
    tangents: Sequence[Any],
    *,
    dimension: int,
    is_stable: bool,
    num_keys: int,
) -> tuple[list[Any], list[Any]]:
    # Both sorts stable, so that ties are permuted alike in both.
    params = dict(dimension=dimension, is_stable=True, num_keys=num_keys)
    outs = sort_p.bind(*primals, **params)
    live = [t for t in tangents if not isinstance(t, Zero)]
    sorted_tangents = iter(sort_p.bind(*primals[:num_keys], *live, **params)[num_keys:])
    tangents_out = [t if isinstance(t, Zero) else next(sorted_tangents) for t in tangents]
    return outs, tangents_out


@TRANSPOSE_RULES.defines(sort_p)
def _sort_transpose(
    cts: Sequence[Any],
    *operands: Value | UndefinedPrimal,
    dimension: int,
    is_stable: bool,
    num_keys: int,
) -> list[Any]:
    if any(is_undefined(k) for k in operands[:num_keys]):
        raise NonlinearError(
            "transpose of sort: a sort key is a linear input; a sort is linear only in "
            "the operands it permutes by known keys"
        )
    undefined = [i for i, x in enumerate(operands) if is_undefined(x)]
    live = [i for i in undefined if not isinstance(cts[i], Zero)]
    result: list[Any] = [None] * len(operands)
    for i in undefined:
        result[i] = cts[i]  # a Zero stays one
    if live:
        # Output position j holds operand position perm[j]: sorting the
        # cotangents by perm puts each back where it came from.
        perm = sort_permutation(operands[:num_keys], dimension)
        back = sort_p.bind(
            perm, *(cts[i] for i in live), dimension=dimension, is_stable=True, num_keys=1
        )
        for i, ct in zip(live, back[1:], strict=True):
            result[i] = ct
    return result


# --- batching and flops ---------------------------------------------------------------------


@BATCH_RULES.defines(sort_p)
def _sort_batch(
    axis_size: int,
    args: Sequence[Any],
    dims: Sequence[Dim],
    *,
    dimension: int,
    is_stable: bool,
    num_keys: int,
) -> tuple[list[Any], list[Any]]:
    moved = [bdim_at_front(x, d, axis_size) for x, d in zip(args, dims, strict=True)]
    outs = sort_p.bind(*moved, dimension=dimension + 1, is_stable=is_stable, num_keys=num_keys)
    return outs, [0] * len(outs)


@FLOPS_RULES.defines(sort_p)
def _sort_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **_: object
) -> Cost:
    # XLA's HloCostAnalysis::HandleSort: n * ceil(log2(n)) for n elements.
    n = operands[0].aval.size
    return Cost(n * (n - 1).bit_length()) if n > 1 else Cost()


# --- the total-order comparisons ---------------------------------------------------------


def total_order_key(x: HostArray) -> HostArray:
    """``x`` as integers that order as XLA's ``TOTALORDER`` (floats; others as they are)."""
    if not dtypes.is_float(x.dtype):
        return x
    bits = np.asarray(x).view(f"i{x.dtype.itemsize}")
    return np.where(bits < 0, bits ^ np.iinfo(bits.dtype).max, bits)


for _p, _op in ((eq_to_p, np.equal), (le_to_p, np.less_equal), (lt_to_p, np.less)):

    def _impl(x: HostArray, y: HostArray, op: np.ufunc = _op) -> HostArray:
        return np.asarray(op(total_order_key(np.asarray(x)), total_order_key(np.asarray(y))))

    IMPL_RULES.register(_p, _impl)


def _total_order_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **_: object
) -> Cost:
    per = 9 if dtypes.is_float(operands[0].aval.dtype) else 1
    return Cost(per * out_avals[0].size)


for _p in TOTAL_ORDER_COMPARISONS:
    zero_jvp(_p)
    elementwise_batcher(_p)
    FLOPS_RULES.register(_p, _total_order_flops)


# --- top_k and approx_top_k ------------------------------------------------------------------


def _total_order_key(x: HostArray) -> HostArray:
    """Unsigned keys whose ascending order is XLA's total order of ``x``'s values."""
    if x.dtype == np.bool_:
        return x.astype(np.uint8)
    width = x.dtype.itemsize
    u = np.dtype(f"u{width}").type
    sign = u(1 << (8 * width - 1))
    if dtypes.is_float(x.dtype):
        bits = x.view(u)
        # Negative floats order backwards by their bits: flip them all.
        return np.asarray(np.where(bits & sign, ~bits, bits | sign))
    if dtypes.kind(x.dtype) == "i":
        return np.asarray(x.view(u) ^ sign)
    return x


def _take_first(x: HostArray, order: HostArray, k: int, axis: int) -> list[HostArray]:
    picked = np.take(order, np.arange(k), axis=axis)
    return [np.take_along_axis(x, picked, axis=axis), picked.astype(np.int32)]


@IMPL_RULES.defines(top_k_p)
def _top_k_impl(x: HostArray, *, k: int, axis: int) -> list[HostArray]:
    key = _total_order_key(np.asarray(x))
    return _take_first(x, np.argsort(~key, axis=axis, kind="stable"), k, axis)


@IMPL_RULES.defines(approx_top_k_p)
def _approx_top_k_impl(x: HostArray, **params: Unpack[ApproxTopKParams]) -> list[HostArray]:
    k, reduction_dimension = params["k"], params["reduction_dimension"]
    # k values, or as many candidates as XLA keeps without aggregate_to_topk.
    if not params["aggregate_to_topk"]:
        size = x.shape[reduction_dimension]
        override = params["reduction_input_size_override"]
        k = approx_top_k_output_size(size, x.ndim, k, params["recall_target"], override)
    key = np.negative(x) if params["is_max_k"] else x
    order = np.argsort(key, axis=reduction_dimension, kind="stable")
    return _take_first(x, order, k, reduction_dimension)


def _gather_along(t: Any, indices: Any, axis: int) -> Any:
    """``t`` at ``indices`` along ``axis`` (``take_along_axis``: JAX's gather with batch dims)."""
    rank = get_aval(indices).ndim
    others = tuple(d for d in range(rank) if d != axis)
    dnums = GatherDimensionNumbers(
        offset_dims=(),
        collapsed_slice_dims=(axis,),
        start_index_map=(axis,),
        operand_batching_dims=others,
        start_indices_batching_dims=others,
    )
    index_vectors = lax.expand_dims(indices, (rank,))
    return lax.gather(t, index_vectors, dnums, (1,) * rank)


def _top_k_jvp_rule(prim: Primitive, axis_param: str) -> None:
    def rule(
        primals: Sequence[Any], tangents: Sequence[Any], **params: Any
    ) -> tuple[list[Any], list[Any]]:
        (x,), (t,) = primals, tangents
        values, indices = prim.bind(x, **params)
        index_zero = Zero.like(get_aval(indices))
        if isinstance(t, Zero):
            return [values, indices], [Zero.like(get_aval(values)), index_zero]
        t_out = _gather_along(instantiate_zeros(t), indices, params[axis_param])
        return [values, indices], [t_out, index_zero]

    JVP_RULES.register(prim, rule)


def _top_k_batcher(prim: Primitive, axis_param: str) -> None:
    def rule(
        axis_size: int, args: Sequence[Any], dims: Sequence[Dim], **params: Any
    ) -> tuple[list[Any], list[Dim]]:
        (x,), (d,) = args, dims
        shifted = {**params, axis_param: params[axis_param] + 1}
        outs = prim.bind(bdim_at_front(x, d, axis_size), **shifted)
        return outs, [0, 0]

    BATCH_RULES.register(prim, rule)


def _top_k_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **_: object
) -> Cost:
    n = operands[0].aval.size
    return Cost(n * (n - 1).bit_length() if n > 1 else 0, estimated=True)


for _prim, _axis in ((top_k_p, "axis"), (approx_top_k_p, "reduction_dimension")):
    _top_k_jvp_rule(_prim, _axis)
    _top_k_batcher(_prim, _axis)
    FLOPS_RULES.register(_prim, _top_k_flops)
