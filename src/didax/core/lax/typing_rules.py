"""The typing (abstract-evaluation) rule of every standard primitive.

Design rules:
- A rule maps operand types (and params) to result types, never touching
  data, and refuses an ill-typed application by raising a
  ``TypingFailure`` (``shape_failure``/``dtype_failure``) with the reason;
  ``core.abstract_eval`` turns that into an error naming the primitive, the
  operand types and the user's line.
- Primitives are strict: element-wise operands have one shape and one
  dtype; only weak types may differ (a result is weak when every operand
  is). Promotion and broadcasting happen before a primitive is bound, with
  one exception, JAX's: the operands of a ``scalar_operands`` primitive
  (the arithmetic, comparison and logical binary operations here; ``xor``
  and the shifts in ``core.lax.bits``; ``atan2``, ``nextafter`` and
  ``polygamma`` in ``core.lax.special``) may be rank-0 scalars beside
  arrays of one shape (``mul x 2.0:f32[]``), so that a Python scalar costs
  no ``broadcast_in_dim`` equation.
- Importing this module registers the rules (``core.lax`` imports it).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import numpy as np

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, AbstractEvalRule, dtype_failure, shape_failure
from didax.core.dtypes import DType
from didax.core.lax.precision import CanonicalPrecision, Precision
from didax.core.lax.primitives import (
    COMPARISONS,
    FLOAT_UNARY,
    LOGICAL_BINARY,
    NUMERIC_UNARY,
    DotDimensionNumbers,
    abs_p,
    add_p,
    argmax_p,
    argmin_p,
    broadcast_in_dim_p,
    ceil_p,
    complex_p,
    concatenate_p,
    conj_p,
    convert_element_type_p,
    cumsum_p,
    div_p,
    dot_general_p,
    dynamic_slice_p,
    dynamic_update_slice_p,
    eq_p,
    expand_dims_p,
    floor_p,
    imag_p,
    integer_pow_p,
    iota_p,
    max_p,
    min_p,
    mul_p,
    ne_p,
    not_p,
    pad_p,
    pow_p,
    real_p,
    reduce_max_p,
    reduce_min_p,
    reduce_prod_p,
    reduce_sum_p,
    rem_p,
    reshape_p,
    rev_p,
    round_p,
    select_p,
    slice_p,
    squeeze_p,
    stop_gradient_p,
    sub_p,
    transpose_p,
)


def _check_kinds(kinds: str, what: str, *avals: ShapedArray) -> None:
    for a in avals:
        if dtypes.kind(a.dtype) not in kinds:
            raise dtype_failure(f"operands must be {what}, got {a.dtype}")


def same_shapes_and_dtypes(*avals: ShapedArray, scalars: bool = False) -> ShapedArray:
    """The operands' common type; with ``scalars``, rank-0 operands may join any shape.

    The element-wise typing rule of every family (``special``, ``bits`` too):
    one shape, one dtype, weak only if every operand is.
    """
    first = avals[0]
    shape = first.shape
    for a in avals[1:]:
        if a.shape != shape:
            if scalars and a.shape == ():
                pass
            elif scalars and shape == ():
                shape = a.shape
            else:
                raise shape_failure(
                    "operands must have equal shapes"
                    + (" (or be rank-0 scalars)" if scalars else "")
                    + ", got "
                    + " and ".join(str(x.shape) for x in avals)
                )
        if a.dtype != first.dtype:
            raise dtype_failure(
                "operands must have equal dtypes, got " + " and ".join(str(x.dtype) for x in avals)
            )
    return ShapedArray(shape, first.dtype, builtins.all(a.weak_type for a in avals))


def _elementwise_rule(
    kinds: str, what: str, out_dtype: DType | None = None, scalars: bool = False
) -> AbstractEvalRule:
    def rule(*avals: ShapedArray) -> ShapedArray:
        _check_kinds(kinds, what, *avals)
        out = same_shapes_and_dtypes(*avals, scalars=scalars)
        return out if out_dtype is None else ShapedArray(out.shape, out_dtype)

    return rule


for _p in (add_p, sub_p, mul_p, div_p):
    ABSTRACT_EVAL.register(_p, _elementwise_rule("iufc", "numbers", scalars=True))
ABSTRACT_EVAL.register(rem_p, _elementwise_rule("iuf", "real numbers", scalars=True))
ABSTRACT_EVAL.register(pow_p, _elementwise_rule("fc", "floating-point or complex", scalars=True))
# As JAX's, max and min of complex numbers order them lexicographically.
for _p in (max_p, min_p):
    ABSTRACT_EVAL.register(_p, _elementwise_rule("biufc", "arrays", scalars=True))
for _p in NUMERIC_UNARY:
    if _p is not abs_p:
        ABSTRACT_EVAL.register(_p, _elementwise_rule("iufc", "numbers"))


@ABSTRACT_EVAL.defines(abs_p)
def _abs_abstract_eval(x: ShapedArray) -> ShapedArray:
    # As JAX's: abs of an unsigned integer is refused (it would be the identity);
    # abs of a complex number is its real modulus.
    _check_kinds("ifc", "signed numbers", x)
    return ShapedArray(x.shape, dtypes.real_dtype(x.dtype), x.weak_type)


# Rounding is for reals; the analytic functions take complex numbers too.
for _p in FLOAT_UNARY:
    if _p in (floor_p, ceil_p):
        ABSTRACT_EVAL.register(_p, _elementwise_rule("f", "floating-point"))
    elif _p is not round_p:
        ABSTRACT_EVAL.register(_p, _elementwise_rule("fc", "floating-point or complex"))


@ABSTRACT_EVAL.defines(round_p)
def _round_abstract_eval(x: ShapedArray, *, rounding_method: int) -> ShapedArray:
    _check_kinds("f", "floating-point", x)
    return x


for _p in COMPARISONS:
    if _p in (eq_p, ne_p):
        ABSTRACT_EVAL.register(_p, _elementwise_rule("biufc", "arrays", dtypes.bool_, True))
    else:
        ABSTRACT_EVAL.register(_p, _elementwise_rule("biuf", "real arrays", dtypes.bool_, True))
for _p in (*LOGICAL_BINARY, not_p):
    ABSTRACT_EVAL.register(
        _p, _elementwise_rule("biu", "booleans or integers", scalars=_p.scalar_operands)
    )
ABSTRACT_EVAL.register(stop_gradient_p, _elementwise_rule("biufc", "arrays"))


def _parts_rule(x: ShapedArray) -> ShapedArray:
    _check_kinds("c", "complex", x)
    return ShapedArray(x.shape, dtypes.real_dtype(x.dtype), x.weak_type)


ABSTRACT_EVAL.register(real_p, _parts_rule)
ABSTRACT_EVAL.register(imag_p, _parts_rule)


@ABSTRACT_EVAL.defines(conj_p)
def _conj_abstract_eval(x: ShapedArray, *, input_dtype: DType) -> ShapedArray:
    # As JAX's lax.conj: a real operand's conjugate is the complex number itself.
    _check_kinds("fc", "floating-point or complex", x)
    return ShapedArray(x.shape, dtypes.complex_dtype(x.dtype), x.weak_type)


@ABSTRACT_EVAL.defines(complex_p)
def _complex_abstract_eval(x: ShapedArray, y: ShapedArray) -> ShapedArray:
    if x.dtype not in (dtypes.float32, dtypes.float64):
        raise dtype_failure(f"the parts must be float32 or float64, got {x.dtype}")
    out = same_shapes_and_dtypes(x, y)
    return ShapedArray(out.shape, dtypes.complex_dtype(out.dtype), out.weak_type)


@ABSTRACT_EVAL.defines(integer_pow_p)
def _integer_pow_abstract_eval(x: ShapedArray, *, y: int) -> ShapedArray:
    _check_kinds("iufc", "numbers", x)
    if x.dtype.kind in "iu" and y < 0:
        raise dtype_failure(f"integers cannot be raised to the negative power {y}")
    return x


@ABSTRACT_EVAL.defines(select_p)
def _select_abstract_eval(
    pred: ShapedArray, on_true: ShapedArray, on_false: ShapedArray
) -> ShapedArray:
    if pred.dtype != dtypes.bool_:
        raise dtype_failure(f"the predicate must be boolean, got {pred.dtype}")
    if pred.shape != on_true.shape:
        raise shape_failure(
            f"the predicate's shape {pred.shape} differs from the cases' shape {on_true.shape}"
        )
    return same_shapes_and_dtypes(on_true, on_false)


@ABSTRACT_EVAL.defines(convert_element_type_p)
def _convert_element_type_abstract_eval(
    x: ShapedArray, *, new_dtype: DType, weak_type: bool
) -> ShapedArray:
    return ShapedArray(x.shape, new_dtype, weak_type)


def _check_axes(axes: Sequence[int], ndim: int, what: str) -> None:
    if len(set(axes)) != len(axes):
        raise shape_failure(f"{what} {tuple(axes)} has repeated axes")
    for a in axes:
        if not 0 <= a < ndim:
            raise shape_failure(f"{what} {tuple(axes)} is out of range for rank {ndim}")


@ABSTRACT_EVAL.defines(broadcast_in_dim_p)
def _broadcast_in_dim_abstract_eval(
    x: ShapedArray, *, shape: tuple[int, ...], broadcast_dimensions: tuple[int, ...]
) -> ShapedArray:
    if len(broadcast_dimensions) != x.ndim:
        raise shape_failure(
            f"broadcast_dimensions {broadcast_dimensions} must have one entry per operand axis"
        )
    _check_axes(broadcast_dimensions, len(shape), "broadcast_dimensions")
    if list(broadcast_dimensions) != sorted(broadcast_dimensions):
        raise shape_failure(f"broadcast_dimensions {broadcast_dimensions} must be increasing")
    for d, size in zip(broadcast_dimensions, x.shape, strict=True):
        if size not in (1, shape[d]):
            raise shape_failure(f"operand shape {x.shape} cannot broadcast to {shape}")
    return ShapedArray(shape, x.dtype, x.weak_type)


@ABSTRACT_EVAL.defines(reshape_p)
def _reshape_abstract_eval(x: ShapedArray, *, new_sizes: tuple[int, ...]) -> ShapedArray:
    if builtins.any(s < 0 for s in new_sizes) or int(np.prod(new_sizes)) != x.size:
        raise shape_failure(f"cannot reshape {x.shape} to {new_sizes}")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


@ABSTRACT_EVAL.defines(transpose_p)
def _transpose_abstract_eval(x: ShapedArray, *, permutation: tuple[int, ...]) -> ShapedArray:
    if sorted(permutation) != list(range(x.ndim)):
        raise shape_failure(f"{permutation} is not a permutation of the operand's axes")
    return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)


@ABSTRACT_EVAL.defines(squeeze_p)
def _squeeze_abstract_eval(x: ShapedArray, *, dimensions: tuple[int, ...]) -> ShapedArray:
    _check_axes(dimensions, x.ndim, "dimensions")
    if builtins.any(x.shape[d] != 1 for d in dimensions):
        raise shape_failure(f"cannot squeeze axes {dimensions} of shape {x.shape}")
    shape = tuple(s for i, s in enumerate(x.shape) if i not in dimensions)
    return ShapedArray(shape, x.dtype, x.weak_type)


@ABSTRACT_EVAL.defines(expand_dims_p)
def _expand_dims_abstract_eval(x: ShapedArray, *, dimensions: tuple[int, ...]) -> ShapedArray:
    ndim = x.ndim + len(dimensions)
    _check_axes(dimensions, ndim, "dimensions")
    rest = iter(x.shape)
    shape = tuple(1 if i in dimensions else next(rest) for i in range(ndim))
    return ShapedArray(shape, x.dtype, x.weak_type)


@ABSTRACT_EVAL.defines(slice_p)
def _slice_abstract_eval(
    x: ShapedArray,
    *,
    start_indices: tuple[int, ...],
    limit_indices: tuple[int, ...],
    strides: tuple[int, ...],
) -> ShapedArray:
    if not len(start_indices) == len(limit_indices) == len(strides) == x.ndim:
        raise shape_failure("start_indices, limit_indices and strides need one entry per axis")
    shape = []
    for lo, hi, st, n in zip(start_indices, limit_indices, strides, x.shape, strict=True):
        if not (0 <= lo <= hi <= n) or st < 1:
            raise shape_failure(
                f"slice {start_indices}:{limit_indices}:{strides} is out of bounds for {x.shape}"
            )
        shape.append((hi - lo + st - 1) // st)
    return ShapedArray(tuple(shape), x.dtype, x.weak_type)


def _check_indices(indices: Sequence[ShapedArray], ndim: int) -> None:
    if len(indices) != ndim:
        raise shape_failure(f"needs {ndim} start indices, got {len(indices)}")
    for i in indices:
        if i.shape != () or i.dtype.kind not in "iu":
            raise dtype_failure(f"start indices must be integer scalars, got {i.str_short()}")


@ABSTRACT_EVAL.defines(dynamic_slice_p)
def _dynamic_slice_abstract_eval(
    x: ShapedArray, *indices: ShapedArray, slice_sizes: tuple[int, ...]
) -> ShapedArray:
    _check_indices(indices, x.ndim)
    if len(slice_sizes) != x.ndim or builtins.any(
        not 0 <= s <= n for s, n in zip(slice_sizes, x.shape, strict=True)
    ):
        raise shape_failure(f"slice_sizes {slice_sizes} do not fit operand shape {x.shape}")
    return ShapedArray(slice_sizes, x.dtype, x.weak_type)


@ABSTRACT_EVAL.defines(dynamic_update_slice_p)
def _dynamic_update_slice_abstract_eval(
    x: ShapedArray, update: ShapedArray, *indices: ShapedArray
) -> ShapedArray:
    _check_indices(indices, x.ndim)
    if update.dtype != x.dtype:
        raise dtype_failure(f"update dtype {update.dtype} differs from operand dtype {x.dtype}")
    if update.ndim != x.ndim or builtins.any(
        u > n for u, n in zip(update.shape, x.shape, strict=True)
    ):
        raise shape_failure(f"update shape {update.shape} does not fit operand shape {x.shape}")
    return x


@ABSTRACT_EVAL.defines(concatenate_p)
def _concatenate_abstract_eval(*xs: ShapedArray, dimension: int) -> ShapedArray:
    if not xs:
        raise shape_failure("needs at least one operand")
    first = xs[0]
    _check_axes((dimension,), first.ndim, "dimension")
    for x in xs:
        if x.dtype != first.dtype:
            raise dtype_failure("operands must have equal dtypes")
        if x.ndim != first.ndim or builtins.any(
            a != b
            for i, (a, b) in enumerate(zip(x.shape, first.shape, strict=True))
            if i != dimension
        ):
            raise shape_failure(f"operands must agree on all axes but {dimension}")
    shape = list(first.shape)
    shape[dimension] = builtins.sum(x.shape[dimension] for x in xs)
    return ShapedArray(tuple(shape), first.dtype, builtins.all(x.weak_type for x in xs))


@ABSTRACT_EVAL.defines(pad_p)
def _pad_abstract_eval(
    x: ShapedArray, padding_value: ShapedArray, *, padding_config: tuple[tuple[int, int, int], ...]
) -> ShapedArray:
    if padding_value.shape != () or padding_value.dtype != x.dtype:
        raise dtype_failure(
            "padding_value must be a scalar of the operand's dtype, "
            f"got {padding_value.str_short()}"
        )
    if len(padding_config) != x.ndim:
        raise shape_failure("padding_config needs one (lo, hi, interior) per axis")
    shape = []
    for (lo, hi, interior), n in zip(padding_config, x.shape, strict=True):
        if interior < 0:
            raise shape_failure("interior padding must be non-negative")
        size = lo + hi + n + builtins.max(0, n - 1) * interior
        if size < 0:
            raise shape_failure(f"padding_config {padding_config} gives a negative size")
        shape.append(size)
    return ShapedArray(tuple(shape), x.dtype, x.weak_type)


@ABSTRACT_EVAL.defines(rev_p)
def _rev_abstract_eval(x: ShapedArray, *, dimensions: tuple[int, ...]) -> ShapedArray:
    _check_axes(dimensions, x.ndim, "dimensions")
    return x


@ABSTRACT_EVAL.defines(iota_p)
def _iota_abstract_eval(*, dtype: DType, size: int) -> ShapedArray:
    if size < 0:
        raise shape_failure(f"size must be non-negative, got {size}")
    return ShapedArray((size,), dtype)


def _reduction_rule(kinds: str, what: str) -> AbstractEvalRule:
    def rule(x: ShapedArray, *, axes: tuple[int, ...]) -> ShapedArray:
        _check_kinds(kinds, what, x)
        _check_axes(axes, x.ndim, "axes")
        shape = tuple(s for i, s in enumerate(x.shape) if i not in axes)
        return ShapedArray(shape, x.dtype, x.weak_type)

    return rule


ABSTRACT_EVAL.register(reduce_sum_p, _reduction_rule("iufc", "numbers"))
ABSTRACT_EVAL.register(reduce_prod_p, _reduction_rule("iufc", "numbers"))
ABSTRACT_EVAL.register(reduce_max_p, _reduction_rule("biufc", "arrays"))
ABSTRACT_EVAL.register(reduce_min_p, _reduction_rule("biufc", "arrays"))


@ABSTRACT_EVAL.defines(argmax_p, argmin_p)
def _argminmax_abstract_eval(x: ShapedArray, *, axis: int, index_dtype: DType) -> ShapedArray:
    _check_kinds("biuf", "real arrays", x)
    _check_axes((axis,), x.ndim, "axis")
    if x.shape[axis] == 0:
        raise shape_failure("cannot take the arg-extremum of an empty axis")
    if index_dtype.kind not in "iu":
        raise dtype_failure(f"index_dtype must be an integer type, got {index_dtype}")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i != axis), index_dtype)


@ABSTRACT_EVAL.defines(cumsum_p)
def _cumsum_abstract_eval(x: ShapedArray, *, axis: int, reverse: bool) -> ShapedArray:
    _check_kinds("iufc", "numbers", x)
    _check_axes((axis,), x.ndim, "axis")
    return x


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
    _check_kinds("iufc", "numbers", lhs, rhs)
    if lhs.dtype != rhs.dtype:
        raise dtype_failure(f"operands must have equal dtypes, got {lhs.dtype} and {rhs.dtype}")
    given: object = precision  # (bound directly, it may be anything)
    if given is not None and not (
        isinstance(given, tuple)
        and len(given) == 2
        and builtins.all(isinstance(p, Precision) for p in given)
    ):
        raise dtype_failure(f"precision must be None or a pair of lax.Precision, got {precision}")
    _check_axes(lc + lb, lhs.ndim, "lhs contracting and batch dimensions")
    _check_axes(rc + rb, rhs.ndim, "rhs contracting and batch dimensions")
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
