"""The sort primitive: its declaration, typing rule and ``didax.lax`` wrappers.

``sort`` is XLA's (and JAX's) variadic sort, and ``eq_to_p``, ``le_to_p``
and ``lt_to_p`` are JAX's comparisons in XLA's total order
(``TOTALORDER``: ``-NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN``, each
NaN by its bits), primitives JAX exposes without wrappers. ``sort``: every operand is permuted
along ``dimension`` by the one permutation that sorts the first
``num_keys`` operands lexicographically (the first key primary). The
interpreters' rules are in ``interpreters.sorting``, the lowering in
``lowering.sorting``.

Design rules:
- The order is JAX's total order: for floats ``-inf < ... < -0.0 == 0.0 <
  ... < inf < NaN``, every NaN equal to every other, so that a stable sort
  keeps zeros and NaNs in their original order; booleans ``False < True``.
  Only the comparison canonicalises: the values themselves (a ``-0.0``, a
  NaN's payload) come out as they went in.
- Operands share one shape, and may have different dtypes; the results
  have the operands' types (weak types included).
- ``top_k_p`` (params ``k``, ``axis``) gives the ``k`` largest values along
  ``axis`` and their ``int32`` indices, in XLA's ``TopK`` order: the total
  order, descending (a NaN above every number, ``0.0`` above ``-0.0``),
  ties in index order. ``approx_top_k_p`` is JAX's approximate
  ``approx_max_k``/``approx_min_k`` with its params
  (``reduction_dimension`` non-negative here); on a CPU, as in XLA's
  fallback, it is exact: a stable sort by plain comparison, cut at ``k``
  (without ``aggregate_to_topk``, at the number of candidates XLA's TPU
  algorithm would keep, ``approx_top_k_output_size``).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any, Final, TypedDict, Unpack

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, check_kinds, shape_failure
from didax.core.lax.elementwise import _elementwise_rule as elementwise_rule
from didax.core.lax.operands import as_operand, normalize_axis
from didax.core.primitive import primitives
from didax.core.values import ArrayLike, get_aval

__all__ = [
    "sort_p",
    "eq_to_p",
    "le_to_p",
    "lt_to_p",
    "sort",
    "sort_key_val",
    "top_k_p",
    "top_k",
    "approx_top_k_p",
    "approx_max_k",
    "approx_min_k",
]

sort_p, top_k_p, approx_top_k_p = primitives("sort", "top_k", "approx_top_k", multiple_results=True)
eq_to_p, le_to_p, lt_to_p = primitives("eq_to", "le_to", "lt_to", scalar_operands=True)
TOTAL_ORDER_COMPARISONS: Final = (eq_to_p, le_to_p, lt_to_p)

for _p in TOTAL_ORDER_COMPARISONS:
    # As the comparisons: a rank-0 operand beside an array, a boolean result.
    ABSTRACT_EVAL.register(_p, elementwise_rule("biuf", "real arrays", dtypes.bool_, True))


@ABSTRACT_EVAL.defines(sort_p)
def _sort_abstract_eval(
    *operands: ShapedArray, dimension: int, is_stable: bool, num_keys: int
) -> list[ShapedArray]:
    if not operands:
        raise shape_failure("needs at least one operand")
    first = operands[0]
    if any(x.shape != first.shape for x in operands):
        raise shape_failure(
            "operands must have equal shapes, got " + " and ".join(str(x.shape) for x in operands)
        )
    if first.ndim == 0:
        raise shape_failure("cannot sort a scalar (rank 0)")
    if not 0 <= dimension < first.ndim:
        raise shape_failure(f"dimension {dimension} is out of range for rank {first.ndim}")
    if not 1 <= num_keys <= len(operands):
        raise shape_failure(f"num_keys={num_keys} must be between 1 and {len(operands)}")
    return list(operands)


def sort(
    operand: ArrayLike | Sequence[ArrayLike],
    dimension: int = -1,
    is_stable: bool = True,
    num_keys: int = 1,
) -> Any:
    """Sorts along ``dimension``: one array, or a sequence permuted by its first ``num_keys``.

    Floats sort in JAX's total order (NaNs last, ``-0.0`` equal to ``0.0``).
    A sequence gives a tuple of results, one array gives one.

    >>> import numpy as np
    >>> sort(np.array([3.0, np.nan, -1.0, 2.0]))
    Array([-1.,  2.,  3., nan], dtype=float32)
    >>> keys, values = sort((np.array([2, 1, 2]), np.array([10, 20, 30])))
    >>> values
    Array([20, 10, 30], dtype=int32)
    """
    if isinstance(operand, (list, tuple)):
        if not operand:
            raise TypeError("sort requires at least one operand")
        ops = [as_operand(x) for x in operand]
        if not 1 <= operator.index(num_keys) <= len(ops):
            raise ValueError(f"num_keys={num_keys} must be between 1 and {len(ops)}")
        dim = normalize_axis(operator.index(dimension), get_aval(ops[0]).ndim)
        return tuple(
            sort_p.bind(*ops, dimension=dim, is_stable=bool(is_stable), num_keys=int(num_keys))
        )
    if num_keys != 1:
        raise ValueError(f"num_keys={num_keys} must equal 1 for a single operand")
    x = as_operand(operand)  # type: ignore[arg-type]
    dim = normalize_axis(operator.index(dimension), get_aval(x).ndim)
    return sort_p.bind(x, dimension=dim, is_stable=bool(is_stable), num_keys=1)[0]


def sort_key_val(
    keys: ArrayLike, values: ArrayLike, dimension: int = -1, is_stable: bool = True
) -> tuple[Any, Any]:
    """Sorts ``keys`` along ``dimension`` and permutes ``values`` the same way."""
    k, v = sort((keys, values), dimension, is_stable, 1)
    return k, v


# --- top_k ---------------------------------------------------------------------------------


def _top_k_type(x: ShapedArray, k: int, axis: int) -> list[ShapedArray]:
    if x.ndim == 0:
        raise shape_failure(f"the operand must have at least one dimension, got {x.str_short()}")
    if not 0 <= axis < x.ndim:
        raise shape_failure(f"axis {axis} is out of range for {x.str_short()}")
    if not 0 <= k <= x.shape[axis]:
        raise shape_failure(
            f"k={k} must be non-negative and no larger than the size along axis {axis} "
            f"of {x.str_short()}"
        )
    if x.shape[axis] > 2**31:
        raise shape_failure(f"int32 indices would overflow for axis {axis} of {x.str_short()}")
    shape = (*x.shape[:axis], k, *x.shape[axis + 1 :])
    return [ShapedArray(shape, x.dtype, x.weak_type), ShapedArray(shape, dtypes.int32)]


@ABSTRACT_EVAL.defines(top_k_p)
def _top_k_abstract_eval(x: ShapedArray, *, k: int, axis: int) -> list[ShapedArray]:
    check_kinds("biuf", "real arrays (not complex)", x)
    return _top_k_type(x, k, axis)


class ApproxTopKParams(TypedDict):
    """``approx_top_k_p``'s params, as its rules receive them (``Unpack[ApproxTopKParams]``).

    ``k`` values along ``reduction_dimension``, the largest (``is_max_k``) or
    smallest; ``recall_target`` and ``reduction_input_size_override`` size the
    candidates kept where ``aggregate_to_topk`` is False (XLA's rule).
    """

    k: int
    reduction_dimension: int
    recall_target: float
    is_max_k: bool
    reduction_input_size_override: int
    aggregate_to_topk: bool


@ABSTRACT_EVAL.defines(approx_top_k_p)
def _approx_top_k_abstract_eval(
    x: ShapedArray, **params: Unpack[ApproxTopKParams]
) -> list[ShapedArray]:
    k, reduction_dimension = params["k"], params["reduction_dimension"]
    check_kinds("f", "floating-point arrays", x)
    if k <= 0:
        raise shape_failure(f"k must be positive, got {k}")
    if not 0 <= reduction_dimension < x.ndim:
        raise shape_failure(f"reduction_dimension {reduction_dimension} is out of range")
    if params["aggregate_to_topk"]:
        return _top_k_type(x, k, reduction_dimension)
    if k > x.shape[reduction_dimension]:
        raise shape_failure(f"k={k} is larger than the size of the reduction dimension")
    size = approx_top_k_output_size(
        x.shape[reduction_dimension],
        x.ndim,
        k,
        params["recall_target"],
        params["reduction_input_size_override"],
    )
    return _top_k_type(x, size, reduction_dimension)


def approx_top_k_output_size(
    input_size: int, rank: int, k: int, recall_target: float, input_size_override: int
) -> int:
    """How many candidates ``approx_top_k`` keeps with ``aggregate_to_topk=False`` (XLA's rule).

    XLA's ``ApproxTopKReductionOutputSize``: the operand is cut into chunks
    of the TPU's tiling (1024 for a vector, else 128) and halved
    ``log2_reduction`` times, as often as leaves enough windows that ``k``
    values seldom share one (``recall_target``).
    """
    tiling = 1024 if rank == 1 else 128
    if input_size <= tiling:
        return input_size
    if 0 <= input_size_override < input_size:
        raise shape_failure(
            f"reduction_input_size_override {input_size_override} is smaller than the "
            f"reduction dimension's size {input_size}"
        )
    logical = input_size_override if input_size_override >= 0 else input_size
    chunks = -(-input_size // tiling)
    if k == 1:
        return tiling  # every window reduced to one candidate
    if recall_target == 1.0:
        return input_size
    windows = min(max(int((1.0 - k) / math.log(recall_target)), tiling), logical)
    log2_reduction = (logical // windows).bit_length() - 1
    if log2_reduction == 0:
        return input_size
    # Not more steps than the operand's own chunks take (an override may ask for more).
    log2_reduction = min(log2_reduction, (input_size // tiling - 1).bit_length())
    return -(-chunks // (1 << log2_reduction)) * tiling


def top_k(operand: ArrayLike, k: int, *, axis: int = -1) -> tuple[Any, Any]:
    """The ``k`` largest values along ``axis`` and their (``int32``) indices.

    Equal values come in index order; a NaN is above every number.

    >>> values, indices = top_k(np.array([9.0, 3.0, 6.0, 4.0, 10.0], np.float32), 3)
    >>> values, indices
    (Array([10.,  9.,  6.], dtype=float32), Array([4, 0, 2], dtype=int32))
    """
    k = operator.index(k)
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    x = as_operand(operand)
    values, indices = top_k_p.bind(x, k=k, axis=normalize_axis(axis, get_aval(x).ndim))
    return values, indices


def _approx_k(
    operand: ArrayLike,
    k: int,
    reduction_dimension: int,
    recall_target: float,
    is_max_k: bool,
    reduction_input_size_override: int,
    aggregate_to_topk: bool,
) -> tuple[Any, Any]:
    x = as_operand(operand)
    values, indices = approx_top_k_p.bind(
        x,
        k=operator.index(k),
        reduction_dimension=normalize_axis(reduction_dimension, get_aval(x).ndim),
        recall_target=float(recall_target),
        is_max_k=is_max_k,
        reduction_input_size_override=operator.index(reduction_input_size_override),
        aggregate_to_topk=bool(aggregate_to_topk),
    )
    return values, indices


def approx_max_k(
    operand: ArrayLike,
    k: int,
    reduction_dimension: int = -1,
    recall_target: float = 0.95,
    reduction_input_size_override: int = -1,
    aggregate_to_topk: bool = True,
) -> tuple[Any, Any]:
    """The ``k`` largest values along ``reduction_dimension`` and their indices (JAX's).

    Approximate on TPUs; on CPUs and GPUs exact, as JAX's fallback.
    """
    return _approx_k(
        operand,
        k,
        reduction_dimension,
        recall_target,
        True,
        reduction_input_size_override,
        aggregate_to_topk,
    )


def approx_min_k(
    operand: ArrayLike,
    k: int,
    reduction_dimension: int = -1,
    recall_target: float = 0.95,
    reduction_input_size_override: int = -1,
    aggregate_to_topk: bool = True,
) -> tuple[Any, Any]:
    """The ``k`` smallest values along ``reduction_dimension`` and their indices (JAX's)."""
    return _approx_k(
        operand,
        k,
        reduction_dimension,
        recall_target,
        False,
        reduction_input_size_override,
        aggregate_to_topk,
    )
