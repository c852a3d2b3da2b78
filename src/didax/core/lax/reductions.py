"""Reductions: declarations, typing rules and ``didax.lax`` wrappers.

``reduce_sum``, ``reduce_max``, ``reduce_min`` and ``reduce_prod`` combine
the elements along ``axes``, as ``reduce_and``, ``reduce_or`` and
``reduce_xor`` combine the bits of booleans and integers; ``argmax`` and
``argmin`` find the index of the first extremum along one ``axis`` (JAX's
primitives of those names). ``reduce_p`` is XLA's generic (variadic)
reduce: it holds its reducer, a program, in its params; ``lax.reduce``,
which traces a Python reducer and recognises the monoids, is
``api.reductions``'.
Running (cumulative) reductions are ``core.lax.cumulative``'s. The
interpreters' rules are in ``interpreters.reductions``, the lowerings in
``lowering.reductions``.

Design rules:
- ``axes`` are non-negative and sorted (the wrappers normalise); a
  reduction over no axes is the identity. The result keeps the operand's
  dtype and weak type; an arg-extremum's is ``index_dtype`` (the default
  int unless given).
- ``REDUCTIONS`` groups the four arithmetic ``reduce_*`` primitives,
  ``LOGICAL_REDUCTIONS`` the three bitwise ones, whose rules have one shape
  (params ``axes`` only). The bitwise ones take booleans and integers and
  drop the weak type, as JAX's.
- ``reduce_p`` binds ``(*operands, *init_values)`` with params ``jaxpr`` (a
  closed program from two lists of scalars, accumulators then elements, to
  the new accumulators; its constants are concrete) and ``dimensions``.
  Operands share one shape; init values are scalars of the operands'
  dtypes; a result is weak when its operand and init value both are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol

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
from didax.core.lax.operands import (
    as_operand,
    bind_value,
    lax_wrapper,
    ndim,
    normalize_axes,
    normalize_axis,
)
from didax.core.lax.programs import Program, check_types
from didax.core.primitive import Primitive, primitives
from didax.core.values import ArrayLike

__all__ = [
    "reduce_sum_p",
    "reduce_max_p",
    "reduce_min_p",
    "reduce_prod_p",
    "argmax_p",
    "argmin_p",
    "reduce_and_p",
    "reduce_or_p",
    "reduce_xor_p",
    "reduce_p",
    "reduce_sum",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "argmax",
    "argmin",
    "reduce_and",
    "reduce_or",
    "reduce_xor",
]

reduce_sum_p, reduce_max_p, reduce_min_p, reduce_prod_p = primitives(
    "reduce_sum", "reduce_max", "reduce_min", "reduce_prod"
)
argmax_p, argmin_p = primitives("argmax", "argmin")
reduce_and_p, reduce_or_p, reduce_xor_p = primitives("reduce_and", "reduce_or", "reduce_xor")
reduce_p: Final = Primitive("reduce", multiple_results=True)

REDUCTIONS: Final = (reduce_sum_p, reduce_max_p, reduce_min_p, reduce_prod_p)
LOGICAL_REDUCTIONS: Final = (reduce_and_p, reduce_or_p, reduce_xor_p)


# --- typing ---------------------------------------------------------------------------


def _reduction_rule(kinds: str, what: str, keep_weak: bool = True) -> AbstractEvalRule:
    def rule(x: ShapedArray, *, axes: tuple[int, ...]) -> ShapedArray:
        check_kinds(kinds, what, x)
        check_axes(axes, x.ndim, "axes")
        shape = tuple(s for i, s in enumerate(x.shape) if i not in axes)
        return ShapedArray(shape, x.dtype, keep_weak and x.weak_type)

    return rule


for _p in (reduce_sum_p, reduce_prod_p):
    ABSTRACT_EVAL.register(_p, _reduction_rule("iufc", "numbers"))
for _p in (reduce_max_p, reduce_min_p):
    ABSTRACT_EVAL.register(_p, _reduction_rule("biufc", "arrays"))
for _p in LOGICAL_REDUCTIONS:
    ABSTRACT_EVAL.register(_p, _reduction_rule("biu", "booleans or integers", keep_weak=False))


@ABSTRACT_EVAL.defines(reduce_p)
def _reduce_abstract_eval(
    *avals: ShapedArray, jaxpr: Program, dimensions: tuple[int, ...]
) -> list[ShapedArray]:
    if not avals or len(avals) % 2:
        raise shape_failure("takes operands and as many init values, at least one of each")
    operands, inits = avals[: len(avals) // 2], avals[len(avals) // 2 :]
    if any(x.shape != operands[0].shape for x in operands):
        raise shape_failure(
            "operands must have equal shapes, got " + " and ".join(str(x.shape) for x in operands)
        )
    if any(i.shape != () for i in inits):
        raise shape_failure(f"found non-scalar initial value: {[i.shape for i in inits]}")
    if any(x.dtype != i.dtype for x, i in zip(operands, inits, strict=True)):
        raise dtype_failure(
            "operand dtypes should match corresponding initial value dtypes, got "
            f"operands={[x.str_short() for x in operands]} and "
            f"initial_values={[i.str_short() for i in inits]}"
        )
    check_axes(dimensions, operands[0].ndim, "dimensions")
    scalars = [i.strip_weak() for i in inits]
    check_types("the reducer's input", jaxpr.in_avals, [*scalars, *scalars])
    check_types("the reducer's output", jaxpr.out_avals, scalars)
    shape = tuple(s for d, s in enumerate(operands[0].shape) if d not in dimensions)
    return [
        ShapedArray(shape, x.dtype, x.weak_type and i.weak_type)
        for x, i in zip(operands, inits, strict=True)
    ]


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


class ReductionFunction(Protocol):
    """The signature of the ``didax.lax`` reductions over ``axes`` (JAX's ``lax.reduce_sum``...)."""

    __name__: str

    def __call__(self, operand: ArrayLike, axes: Sequence[int] | int) -> Value: ...


def _reduction(prim: Primitive, doc: str) -> ReductionFunction:
    def wrapper(operand: ArrayLike, axes: Sequence[int] | int) -> Value:
        return _bind_reduction(prim, operand, axes)

    return lax_wrapper(wrapper, prim.name, doc)


reduce_sum = _reduction(reduce_sum_p, "Sum over ``axes``.")
reduce_max = _reduction(reduce_max_p, "Maximum over ``axes``.")
reduce_min = _reduction(reduce_min_p, "Minimum over ``axes``.")
reduce_prod = _reduction(reduce_prod_p, "Product over ``axes``.")
reduce_and = _reduction(reduce_and_p, "Bitwise AND (logical for booleans) over ``axes``.")
reduce_or = _reduction(reduce_or_p, "Bitwise OR (logical for booleans) over ``axes``.")
reduce_xor = _reduction(reduce_xor_p, "Bitwise XOR (parity for booleans) over ``axes``.")


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
