"""Reductions: declarations, typing rules and ``didax.lax`` wrappers.

``reduce_sum``, ``reduce_max``, ``reduce_min`` and ``reduce_prod`` combine
the elements along ``axes``; ``argmax`` and ``argmin`` find the index of
the first extremum along one ``axis`` (JAX's primitives of those names).
Running (cumulative) reductions are ``core.lax.cumulative``'s. The
interpreters' rules are in ``interpreters.reductions``, the lowerings in
``lowering.reductions``.

Design rules:
- ``axes`` are non-negative and sorted (the wrappers normalise); a
  reduction over no axes is the identity. The result keeps the operand's
  dtype and weak type; an arg-extremum's is ``index_dtype`` (the default
  int unless given).
- ``REDUCTIONS`` groups the four ``reduce_*`` primitives, whose rules have
  one shape (params ``axes`` only).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from numpy.typing import DTypeLike

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import (
    ABSTRACT_EVAL,
    AbstractEvalRule,
    check_axes,
    check_kinds,
    dtype_failure,
    shape_failure,
)
from didax.core.basearray import Value
from didax.core.dtypes import DType
from didax.core.lax.operands import as_operand, bind_value, ndim, normalize_axes, normalize_axis
from didax.core.primitive import Primitive
from didax.core.values import ArrayLike

__all__ = [
    "reduce_sum_p",
    "reduce_max_p",
    "reduce_min_p",
    "reduce_prod_p",
    "argmax_p",
    "argmin_p",
    "reduce_sum",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "argmax",
    "argmin",
]

reduce_sum_p: Final = Primitive("reduce_sum")
reduce_max_p: Final = Primitive("reduce_max")
reduce_min_p: Final = Primitive("reduce_min")
reduce_prod_p: Final = Primitive("reduce_prod")
argmax_p: Final = Primitive("argmax")
argmin_p: Final = Primitive("argmin")

REDUCTIONS: Final = (reduce_sum_p, reduce_max_p, reduce_min_p, reduce_prod_p)


# --- typing ---------------------------------------------------------------------------


def _reduction_rule(kinds: str, what: str) -> AbstractEvalRule:
    def rule(x: ShapedArray, *, axes: tuple[int, ...]) -> ShapedArray:
        check_kinds(kinds, what, x)
        check_axes(axes, x.ndim, "axes")
        shape = tuple(s for i, s in enumerate(x.shape) if i not in axes)
        return ShapedArray(shape, x.dtype, x.weak_type)

    return rule


ABSTRACT_EVAL.register(reduce_sum_p, _reduction_rule("iufc", "numbers"))
ABSTRACT_EVAL.register(reduce_prod_p, _reduction_rule("iufc", "numbers"))
ABSTRACT_EVAL.register(reduce_max_p, _reduction_rule("biufc", "arrays"))
ABSTRACT_EVAL.register(reduce_min_p, _reduction_rule("biufc", "arrays"))


@ABSTRACT_EVAL.defines(argmax_p, argmin_p)
def _argminmax_abstract_eval(x: ShapedArray, *, axis: int, index_dtype: DType) -> ShapedArray:
    check_kinds("biuf", "real arrays", x)
    check_axes((axis,), x.ndim, "axis")
    if x.shape[axis] == 0:
        raise shape_failure("cannot take the arg-extremum of an empty axis")
    if index_dtype.kind not in "iu":
        raise dtype_failure(f"index_dtype must be an integer type, got {index_dtype}")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i != axis), index_dtype)


# --- wrappers -------------------------------------------------------------------------


def _bind_reduction(prim: Primitive, operand: ArrayLike, axes: Sequence[int] | int) -> Value:
    nd = ndim(operand)
    return bind_value(prim, as_operand(operand), axes=tuple(sorted(normalize_axes(axes, nd))))


def reduce_sum(operand: ArrayLike, axes: Sequence[int] | int) -> Value:
    """Sum over ``axes``."""
    return _bind_reduction(reduce_sum_p, operand, axes)


def reduce_max(operand: ArrayLike, axes: Sequence[int] | int) -> Value:
    """Maximum over ``axes``."""
    return _bind_reduction(reduce_max_p, operand, axes)


def reduce_min(operand: ArrayLike, axes: Sequence[int] | int) -> Value:
    """Minimum over ``axes``."""
    return _bind_reduction(reduce_min_p, operand, axes)


def reduce_prod(operand: ArrayLike, axes: Sequence[int] | int) -> Value:
    """Product over ``axes``."""
    return _bind_reduction(reduce_prod_p, operand, axes)


def argmax(operand: ArrayLike, axis: int, index_dtype: DTypeLike | None = None) -> Value:
    """Index of the (first) maximum along ``axis`` (``index_dtype``: the default int)."""
    axis = normalize_axis(axis, ndim(operand))
    dtype = dtypes.default_int() if index_dtype is None else dtypes.canonicalize(index_dtype)
    return bind_value(argmax_p, as_operand(operand), axis=axis, index_dtype=dtype)


def argmin(operand: ArrayLike, axis: int, index_dtype: DTypeLike | None = None) -> Value:
    """Index of the (first) minimum along ``axis`` (``index_dtype``: the default int)."""
    axis = normalize_axis(axis, ndim(operand))
    dtype = dtypes.default_int() if index_dtype is None else dtypes.canonicalize(index_dtype)
    return bind_value(argmin_p, as_operand(operand), axis=axis, index_dtype=dtype)
