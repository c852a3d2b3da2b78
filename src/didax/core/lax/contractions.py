"""Contractions: ``dot_general``, its typing rule and ``didax.lax`` wrappers.

``dot_general_p`` is JAX's ``dot_general``: a product contracting pairs of
axes of its two operands, batched over other pairs. Its ``precision`` param
is ``core.lax.precision``'s canonical form (None or a pair of
``Precision``). The interpreters' rules are in
``interpreters.contractions``, the lowering in ``lowering.contractions``.

Design rules:
- ``dimension_numbers`` is ``((lhs_contracting, rhs_contracting),
  (lhs_batch, rhs_batch))`` with non-negative axes (the wrappers
  normalise). The result's axes are the batch axes, then lhs's free axes,
  then rhs's.
- The operands have one dtype (a weak one takes its partner's); the result
  has ``preferred_element_type`` when it is given and XLA can accumulate in
  it (JAX's checks), else the operands' dtype.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Final, TypeAlias

import numpy as np
from numpy.typing import DTypeLike

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import (
    ABSTRACT_EVAL,
    check_axes,
    check_kinds,
    dtype_failure,
    shape_failure,
)
from didax.core.basearray import Value
from didax.core.dtypes import DType
from didax.core.lax.conversions import convert_element_type
from didax.core.lax.operands import bind_value, ndim, normalize_axes
from didax.core.lax.precision import (
    CanonicalPrecision,
    DotAlgorithm,
    DotAlgorithmPreset,
    Precision,
    PrecisionLike,
    algorithm_types,
    canonicalize_precision,
    dot_algorithm,
)
from didax.core.primitive import Primitive
from didax.core.promotion import coerce_weak
from didax.core.values import ArrayLike, get_aval

__all__ = ["dot_general_p", "DotDimensionNumbers", "dot_general", "dot", "batch_matmul"]

dot_general_p: Final = Primitive("dot_general")

# ``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``.
DotDimensionNumbers: TypeAlias = tuple[
    tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]
]
# What users may pass: any sequences of (possibly negative) axes.
DotDimensionNumbersLike: TypeAlias = tuple[
    tuple[Sequence[int], Sequence[int]], tuple[Sequence[int], Sequence[int]]
]


# --- typing ---------------------------------------------------------------------------


def check_product_operands(lhs: ShapedArray, rhs: ShapedArray, precision: object) -> None:
    """What every product (``dot_general``, ``conv_general_dilated``) asks of its operands.

    Numbers of one dtype, and a canonical precision: ``None`` or a pair of
    ``Precision`` (the param may be bound directly, so it may be anything).
    """
    check_kinds("iufc", "numbers", lhs, rhs)
    if lhs.dtype != rhs.dtype:
        raise dtype_failure(f"operands must have equal dtypes, got {lhs.dtype} and {rhs.dtype}")
    if precision is not None and not (
        isinstance(precision, tuple)
        and len(precision) == 2
        and builtins.all(isinstance(p, Precision) for p in precision)
    ):
        raise dtype_failure(f"precision must be None or a pair of lax.Precision, got {precision}")


@ABSTRACT_EVAL.defines(dot_general_p)
def _dot_general_abstract_eval(
    lhs: ShapedArray,
    rhs: ShapedArray,
    *,
    dimension_numbers: DotDimensionNumbers,
    precision: CanonicalPrecision,
    preferred_element_type: DType | None,
) -> ShapedArray:
    (lc, rc), (lb, rb) = dimension_numbers
    check_product_operands(lhs, rhs, precision)
    check_axes(lc + lb, lhs.ndim, "lhs contracting and batch dimensions")
    check_axes(rc + rb, rhs.ndim, "rhs contracting and batch dimensions")
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise shape_failure("lhs and rhs need as many contracting and batch dimensions")
    for a, b in zip(lc + lb, rc + rb, strict=True):
        if lhs.shape[a] != rhs.shape[b]:
            raise shape_failure(
                f"contracted or batch axis {a} of lhs {lhs.shape} and {b} of rhs {rhs.shape} differ"
            )
    batch = tuple(lhs.shape[d] for d in lb)
    lhs_free = tuple(s for i, s in enumerate(lhs.shape) if i not in lc + lb)
    rhs_free = tuple(s for i, s in enumerate(rhs.shape) if i not in rc + rb)
    dtype = _dot_result_dtype(lhs.dtype, preferred_element_type)
    # Weak only if both operands are, whatever the preferred type (as JAX).
    return ShapedArray(batch + lhs_free + rhs_free, dtype, lhs.weak_type and rhs.weak_type)


def _bit_width(dtype: DType) -> int:
    """JAX's ``_bit_width``: a complex dtype's is its parts', a bool's is 1."""
    if dtypes.is_bool(dtype):
        return 1
    bits = dtype.itemsize * 8
    return bits // 2 if dtypes.is_complex(dtype) else bits


def _dot_result_dtype(operands: DType, preferred: DType | None) -> DType:
    """``preferred`` when it is a type XLA can accumulate these operands into (JAX's checks).

    JAX (``_maybe_upcast``, after XLA's shape inference) takes any preferred
    type for float operands, and for the others (integers, complex) one at
    least as wide as the operands' type.
    """
    if preferred is None or preferred == operands:
        return operands
    given: object = preferred  # (bound directly, it may be anything)
    if not isinstance(given, np.dtype) or given not in dtypes.SUPPORTED:
        raise dtype_failure(f"preferred_element_type must be a supported dtype, got {preferred!r}")
    if not dtypes.is_float(operands) and _bit_width(preferred) < _bit_width(operands):
        raise dtype_failure(
            "`preferred_element_type` must not be narrower than the original type, got "
            f"preferred_element_type of {preferred} for result type of {operands}"
        )
    return preferred


# --- wrappers -------------------------------------------------------------------------


def dot_general(
    lhs: ArrayLike,
    rhs: ArrayLike,
    dimension_numbers: DotDimensionNumbersLike,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Value:
    """Generalised dot product: ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``.

    The result's axes are the batch axes, then lhs's free axes, then rhs's.
    ``precision`` is None (the backend's default, or
    ``jax_default_matmul_precision``), a ``Precision``, one of its string
    aliases, or a pair of these (lhs's, rhs's); ``preferred_element_type``
    the result's dtype (e.g. int32 for int8 operands), as in JAX.

    >>> x = np.array([[1, 2], [3, 4]], np.int8)
    >>> dot_general(x, x, (((1,), (0,)), ((), ())), preferred_element_type=np.int32)
    Array([[ 7, 10],
           [15, 22]], dtype=int32)
    """
    (lc, rc), (lb, rb) = dimension_numbers
    lhs, rhs = coerce_weak(dot_general_p, (lhs, rhs))
    nl, nr = ndim(lhs), ndim(rhs)
    dims = (
        (normalize_axes(lc, nl), normalize_axes(rc, nr)),
        (normalize_axes(lb, nl), normalize_axes(rb, nr)),
    )
    preferred = (
        None if preferred_element_type is None else dtypes.canonicalize(preferred_element_type)
    )
    algorithm = dot_algorithm(precision)
    if algorithm is not None:
        return _dot_by_algorithm(lhs, rhs, dims, algorithm, preferred)
    return bind_value(
        dot_general_p,
        lhs,
        rhs,
        dimension_numbers=dims,
        precision=canonicalize_precision(precision),
        preferred_element_type=preferred,
    )


def _dot_by_algorithm(
    lhs: ArrayLike,
    rhs: ArrayLike,
    dims: DotDimensionNumbers,
    algorithm: DotAlgorithm | DotAlgorithmPreset,
    preferred: DType | None,
) -> Value:
    """A dot by a dot algorithm, as CPUs compute it: its conversions around a dot.

    The dot itself asks ``HIGHEST`` precision of the converted operands (so
    that an accelerator computes in the algorithm's types, not in a faster
    one of its own); CPUs compute so anyway.
    """
    lhs_dtype, rhs_dtype = get_aval(lhs).dtype, get_aval(rhs).dtype
    out = lhs_dtype if preferred is None else preferred
    lt, rt, acc = algorithm_types(algorithm, lhs_dtype, rhs_dtype, out)
    if algorithm is DotAlgorithmPreset.DEFAULT:
        return dot_general(lhs, rhs, dims, Precision.DEFAULT, preferred)
    lhs = lhs if lt == lhs_dtype else convert_element_type(lhs, lt)
    rhs = rhs if rt == rhs_dtype else convert_element_type(rhs, rt)
    result = dot_general(lhs, rhs, dims, Precision.HIGHEST, None if acc == lt else acc)
    return result if acc == out else convert_element_type(result, out)


def dot(
    lhs: ArrayLike,
    rhs: ArrayLike,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
    *,
    dimension_numbers: DotDimensionNumbersLike | None = None,
) -> Value:
    """Vector/matrix product: contracts lhs's last axis with rhs's first (or only) axis.

    With ``dimension_numbers``, ``dot_general`` (JAX's ``lax.dot`` takes
    both); ``precision`` and ``preferred_element_type`` as there.

    >>> dot(np.ones((2, 3), np.float32), np.ones(3, np.float32), precision="highest")
    Array([3., 3.], dtype=float32)
    """
    if dimension_numbers is None:
        nl, nr = ndim(lhs), ndim(rhs)
        if nl not in (1, 2) or nr not in (1, 2):
            raise TypeError(f"dot needs vectors or matrices, got ranks {nl} and {nr}")
        dimension_numbers = (((nl - 1,), (0,)), ((), ()))
    return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type)


def batch_matmul(lhs: ArrayLike, rhs: ArrayLike, precision: PrecisionLike = None) -> Value:
    """Matrix products over leading batch axes: ``(..., m, k) @ (..., k, n)``, equal ranks.

    >>> batch_matmul(np.ones((4, 2, 3), np.float32), np.ones((4, 3, 5), np.float32)).shape
    (4, 2, 5)
    """
    nl, nr = ndim(lhs), ndim(rhs)
    if builtins.min(nl, nr) < 2:
        raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {nl}, {nr}")
    if nl != nr:
        raise ValueError(f"Arguments to batch_matmul must have same ndim, got {nl}, {nr}")
    batch = tuple(range(nl - 2))
    return dot_general(lhs, rhs, (((nl - 1,), (nr - 2,)), (batch, batch)), precision)
