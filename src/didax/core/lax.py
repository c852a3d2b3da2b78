"""The standard primitives: their definitions, typing rules and ``bind`` wrappers.

Design rules:
- One ``Primitive`` per ``didax.lax`` operation (except control flow, which
  lives with the interpreters because it carries jaxprs). Params are
  hashable values: tuples of ints, dtypes, nested tuples.
- Primitives are strict: element-wise operands have one shape and one dtype.
  The wrappers here (``add``, ``broadcast_in_dim``, ...) are the only place
  that relaxes this, and only for weakly typed values: a Python scalar or a
  weakly typed tracer takes its strong partner's dtype, and a rank-0 Python
  scalar is broadcast to its partner's shape with an explicit
  ``broadcast_in_dim``. NumPy-style broadcasting and promotion belong to
  ``didax.numpy``.
- Wrappers normalise their arguments (negative axes, defaults) so that a
  primitive's params have exactly one spelling; that keeps fingerprints
  and caches exact.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from didax.core import dtypes
from didax.core.abstract import ShapedArray, is_python_scalar
from didax.core.dtypes import DType
from didax.core.errors import DTypeError
from didax.core.primitive import Primitive
from didax.core.trace import Tracer
from didax.core.typerules import ABSTRACT_EVAL, dtype_failure, shape_failure

ArrayLike = Any  # a Tracer, np.ndarray, NumPy scalar, Python scalar or array-like

# --- primitives ---------------------------------------------------------------

# Element-wise, by the operand kinds they accept.
add_p: Final = Primitive("add")
sub_p: Final = Primitive("sub")
mul_p: Final = Primitive("mul")
div_p: Final = Primitive("div")
rem_p: Final = Primitive("rem")
pow_p: Final = Primitive("pow")
max_p: Final = Primitive("max")
min_p: Final = Primitive("min")
integer_pow_p: Final = Primitive("integer_pow")
neg_p: Final = Primitive("neg")
sign_p: Final = Primitive("sign")
abs_p: Final = Primitive("abs")
exp_p: Final = Primitive("exp")
log_p: Final = Primitive("log")
log1p_p: Final = Primitive("log1p")
expm1_p: Final = Primitive("expm1")
sin_p: Final = Primitive("sin")
cos_p: Final = Primitive("cos")
tan_p: Final = Primitive("tan")
tanh_p: Final = Primitive("tanh")
logistic_p: Final = Primitive("logistic")
sqrt_p: Final = Primitive("sqrt")
rsqrt_p: Final = Primitive("rsqrt")
floor_p: Final = Primitive("floor")
ceil_p: Final = Primitive("ceil")
round_p: Final = Primitive("round")
eq_p: Final = Primitive("eq")
ne_p: Final = Primitive("ne")
lt_p: Final = Primitive("lt")
le_p: Final = Primitive("le")
gt_p: Final = Primitive("gt")
ge_p: Final = Primitive("ge")
and_p: Final = Primitive("and")
or_p: Final = Primitive("or")
not_p: Final = Primitive("not")
select_p: Final = Primitive("select")
convert_element_type_p: Final = Primitive("convert_element_type")
stop_gradient_p: Final = Primitive("stop_gradient")

# Structural.
broadcast_in_dim_p: Final = Primitive("broadcast_in_dim")
reshape_p: Final = Primitive("reshape")
transpose_p: Final = Primitive("transpose")
squeeze_p: Final = Primitive("squeeze")
expand_dims_p: Final = Primitive("expand_dims")
slice_p: Final = Primitive("slice")
dynamic_slice_p: Final = Primitive("dynamic_slice")
dynamic_update_slice_p: Final = Primitive("dynamic_update_slice")
concatenate_p: Final = Primitive("concatenate")
pad_p: Final = Primitive("pad")
rev_p: Final = Primitive("rev")
iota_p: Final = Primitive("iota")

# Reductions and scans.
reduce_sum_p: Final = Primitive("reduce_sum")
reduce_max_p: Final = Primitive("reduce_max")
reduce_min_p: Final = Primitive("reduce_min")
reduce_prod_p: Final = Primitive("reduce_prod")
argmax_p: Final = Primitive("argmax")
argmin_p: Final = Primitive("argmin")
cumsum_p: Final = Primitive("cumsum")

# Linear algebra.
dot_general_p: Final = Primitive("dot_general")

ARITHMETIC_BINARY: Final = (add_p, sub_p, mul_p, div_p, rem_p, pow_p, max_p, min_p)
FLOAT_UNARY: Final = (
    exp_p,
    log_p,
    log1p_p,
    expm1_p,
    sin_p,
    cos_p,
    tan_p,
    tanh_p,
    logistic_p,
    sqrt_p,
    rsqrt_p,
    floor_p,
    ceil_p,
    round_p,
)
NUMERIC_UNARY: Final = (neg_p, sign_p, abs_p)
COMPARISONS: Final = (eq_p, ne_p, lt_p, le_p, gt_p, ge_p)
LOGICAL_BINARY: Final = (and_p, or_p)
REDUCTIONS: Final = (reduce_sum_p, reduce_max_p, reduce_min_p, reduce_prod_p)
ELEMENTWISE: Final = (
    *ARITHMETIC_BINARY,
    integer_pow_p,
    *NUMERIC_UNARY,
    *FLOAT_UNARY,
    *COMPARISONS,
    *LOGICAL_BINARY,
    not_p,
    select_p,
    convert_element_type_p,
    stop_gradient_p,
)

STANDARD_PRIMITIVES: Final[tuple[Primitive, ...]] = (
    *ELEMENTWISE,
    broadcast_in_dim_p,
    reshape_p,
    transpose_p,
    squeeze_p,
    expand_dims_p,
    slice_p,
    dynamic_slice_p,
    dynamic_update_slice_p,
    concatenate_p,
    pad_p,
    rev_p,
    iota_p,
    *REDUCTIONS,
    argmax_p,
    argmin_p,
    cumsum_p,
    dot_general_p,
)

# --- typing rules -----------------------------------------------------------

_KIND_NAMES: Final = {"f": "floating-point", "i": "integer", "u": "integer", "b": "boolean"}


def _check_kinds(kinds: str, what: str, *avals: ShapedArray) -> None:
    for a in avals:
        if a.dtype.kind not in kinds:
            raise dtype_failure(f"operands must be {what}, got {a.dtype}")


def _same_shapes_and_dtypes(*avals: ShapedArray) -> ShapedArray:
    first = avals[0]
    for a in avals[1:]:
        if a.shape != first.shape:
            raise shape_failure(
                "operands must have equal shapes, got " + " and ".join(str(x.shape) for x in avals)
            )
        if a.dtype != first.dtype:
            raise dtype_failure(
                "operands must have equal dtypes, got " + " and ".join(str(x.dtype) for x in avals)
            )
    return ShapedArray(first.shape, first.dtype, builtins.all(a.weak_type for a in avals))


def _elementwise_rule(kinds: str, what: str, out_dtype: DType | None = None) -> Any:
    def rule(*avals: ShapedArray) -> ShapedArray:
        _check_kinds(kinds, what, *avals)
        out = _same_shapes_and_dtypes(*avals)
        return out if out_dtype is None else ShapedArray(out.shape, out_dtype)

    return rule


for _p in (add_p, sub_p, mul_p, div_p, rem_p):
    ABSTRACT_EVAL.register(_p, _elementwise_rule("iuf", "numbers"))
ABSTRACT_EVAL.register(pow_p, _elementwise_rule("f", "floating-point"))
for _p in (max_p, min_p):
    ABSTRACT_EVAL.register(_p, _elementwise_rule("biuf", "arrays"))
for _p in NUMERIC_UNARY:
    ABSTRACT_EVAL.register(_p, _elementwise_rule("iuf", "numbers"))
for _p in FLOAT_UNARY:
    if _p is not round_p:
        ABSTRACT_EVAL.register(_p, _elementwise_rule("f", "floating-point"))


@ABSTRACT_EVAL.defines(round_p)
def _round_abstract_eval(x: ShapedArray, *, rounding_method: int) -> ShapedArray:
    _check_kinds("f", "floating-point", x)
    return x


for _p in COMPARISONS:
    ABSTRACT_EVAL.register(_p, _elementwise_rule("biuf", "arrays", dtypes.bool_))
for _p in (*LOGICAL_BINARY, not_p):
    ABSTRACT_EVAL.register(_p, _elementwise_rule("biu", "booleans or integers"))
ABSTRACT_EVAL.register(stop_gradient_p, _elementwise_rule("biuf", "arrays"))


@ABSTRACT_EVAL.defines(integer_pow_p)
def _integer_pow_abstract_eval(x: ShapedArray, *, y: int) -> ShapedArray:
    _check_kinds("iuf", "numbers", x)
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
    return _same_shapes_and_dtypes(on_true, on_false)


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


def _reduction_rule(kinds: str, what: str) -> Any:
    def rule(x: ShapedArray, *, axes: tuple[int, ...]) -> ShapedArray:
        _check_kinds(kinds, what, x)
        _check_axes(axes, x.ndim, "axes")
        shape = tuple(s for i, s in enumerate(x.shape) if i not in axes)
        return ShapedArray(shape, x.dtype, x.weak_type)

    return rule


ABSTRACT_EVAL.register(reduce_sum_p, _reduction_rule("iuf", "numbers"))
ABSTRACT_EVAL.register(reduce_prod_p, _reduction_rule("iuf", "numbers"))
ABSTRACT_EVAL.register(reduce_max_p, _reduction_rule("biuf", "arrays"))
ABSTRACT_EVAL.register(reduce_min_p, _reduction_rule("biuf", "arrays"))


@ABSTRACT_EVAL.defines(argmax_p, argmin_p)
def _argminmax_abstract_eval(x: ShapedArray, *, axis: int, index_dtype: DType) -> ShapedArray:
    _check_axes((axis,), x.ndim, "axis")
    if x.shape[axis] == 0:
        raise shape_failure("cannot take the arg-extremum of an empty axis")
    if index_dtype.kind not in "iu":
        raise dtype_failure(f"index_dtype must be an integer type, got {index_dtype}")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i != axis), index_dtype)


@ABSTRACT_EVAL.defines(cumsum_p)
def _cumsum_abstract_eval(x: ShapedArray, *, axis: int, reverse: bool) -> ShapedArray:
    _check_kinds("iuf", "numbers", x)
    _check_axes((axis,), x.ndim, "axis")
    return x


DotDimensionNumbers = tuple[
    tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]
]


@ABSTRACT_EVAL.defines(dot_general_p)
def _dot_general_abstract_eval(
    lhs: ShapedArray, rhs: ShapedArray, *, dimension_numbers: DotDimensionNumbers
) -> ShapedArray:
    (lc, rc), (lb, rb) = dimension_numbers
    _check_kinds("iuf", "numbers", lhs, rhs)
    if lhs.dtype != rhs.dtype:
        raise dtype_failure(f"operands must have equal dtypes, got {lhs.dtype} and {rhs.dtype}")
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
    return ShapedArray(batch + lhs_free + rhs_free, lhs.dtype, lhs.weak_type and rhs.weak_type)


# --- bind wrappers: the didax.lax functions ----------------------------------


def _aval_of(x: ArrayLike) -> ShapedArray | None:
    """The aval of a tracer or array; None for a Python scalar (weak, any shape)."""
    if isinstance(x, Tracer):
        return x.aval
    if is_python_scalar(x):
        return None
    arr = np.asarray(x)
    return ShapedArray(arr.shape, arr.dtype)


def _coerce_weak(prim: Primitive, args: Sequence[ArrayLike]) -> list[ArrayLike]:
    """Gives weakly typed operands their strong partners' dtype (and shape, for scalars)."""
    # Fast path (eager dispatch, most tracing): nothing is weakly typed.
    for a in args:
        if type(a) is not np.ndarray and not (isinstance(a, Tracer) and not a.aval.weak_type):
            break
    else:
        return list(args)
    avals = [_aval_of(a) for a in args]
    strong = [a for a in avals if a is not None and not a.weak_type]
    if not strong:
        weak_avals = [a for a in avals if a is not None]
        if weak_avals:
            target = weak_avals[0]
        else:  # only Python scalars: they take their own default dtype
            return [np.asarray(a, dtypes.python_scalar_dtype(a)) for a in args]
    else:
        target = strong[0]
    out: list[ArrayLike] = []
    for a, aval in zip(args, avals, strict=True):
        if aval is None:
            out.append(_python_scalar_as(prim, a, target))
        elif aval.weak_type and aval.dtype != target.dtype:
            out.append(convert_element_type(a, target.dtype))
        else:
            out.append(a)
    return out


def _python_scalar_as(prim: Primitive, x: bool | int | float, target: ShapedArray) -> ArrayLike:
    kind = dtypes.python_scalar_dtype(x).kind
    if {"b": 0, "i": 1, "f": 2}[kind] > {"b": 0, "u": 1, "i": 1, "f": 2}[target.dtype.kind]:
        from didax.core.source_info import user_frame_summary

        raise DTypeError(
            f"{prim.name}: the Python scalar {x!r} cannot take the dtype {target.dtype} "
            f"of its partner (at {user_frame_summary()})"
        )
    value = np.asarray(x, target.dtype)
    if target.shape == ():
        return value
    return broadcast_in_dim(value, target.shape, ())


def _nary(prim: Primitive, *args: ArrayLike, **params: Any) -> Any:
    return prim.bind(*_coerce_weak(prim, args), **params)


def add(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x + y``.

    >>> add(np.float32(1), 2.0)
    array(3., dtype=float32)
    """
    return _nary(add_p, x, y)


def sub(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x - y``."""
    return _nary(sub_p, x, y)


def mul(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x * y``."""
    return _nary(mul_p, x, y)


def div(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise division; integers round toward zero (as C and XLA)."""
    return _nary(div_p, x, y)


def rem(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise remainder with the sign of ``x`` (C's ``fmod``)."""
    return _nary(rem_p, x, y)


def pow(x: ArrayLike, y: ArrayLike) -> Any:  # noqa: A001 - lax's name
    """Element-wise ``x ** y`` for floating-point ``x`` and ``y``."""
    return _nary(pow_p, x, y)


def max(x: ArrayLike, y: ArrayLike) -> Any:  # noqa: A001 - lax's name
    """Element-wise maximum."""
    return _nary(max_p, x, y)


def min(x: ArrayLike, y: ArrayLike) -> Any:  # noqa: A001 - lax's name
    """Element-wise minimum."""
    return _nary(min_p, x, y)


def integer_pow(x: ArrayLike, y: int) -> Any:
    """Element-wise ``x ** y`` for a static Python integer ``y``."""
    return _nary(integer_pow_p, x, y=int(y))


def neg(x: ArrayLike) -> Any:
    """Element-wise ``-x``."""
    return _nary(neg_p, x)


def sign(x: ArrayLike) -> Any:
    """Element-wise sign: -1, 0 or 1."""
    return _nary(sign_p, x)


def abs(x: ArrayLike) -> Any:  # noqa: A001 - lax's name
    """Element-wise absolute value."""
    return _nary(abs_p, x)


def exp(x: ArrayLike) -> Any:
    """Element-wise exponential."""
    return _nary(exp_p, x)


def log(x: ArrayLike) -> Any:
    """Element-wise natural logarithm."""
    return _nary(log_p, x)


def log1p(x: ArrayLike) -> Any:
    """Element-wise ``log(1 + x)``, accurate near 0."""
    return _nary(log1p_p, x)


def expm1(x: ArrayLike) -> Any:
    """Element-wise ``exp(x) - 1``, accurate near 0."""
    return _nary(expm1_p, x)


def sin(x: ArrayLike) -> Any:
    """Element-wise sine."""
    return _nary(sin_p, x)


def cos(x: ArrayLike) -> Any:
    """Element-wise cosine."""
    return _nary(cos_p, x)


def tan(x: ArrayLike) -> Any:
    """Element-wise tangent."""
    return _nary(tan_p, x)


def tanh(x: ArrayLike) -> Any:
    """Element-wise hyperbolic tangent."""
    return _nary(tanh_p, x)


def logistic(x: ArrayLike) -> Any:
    """Element-wise logistic sigmoid ``1 / (1 + exp(-x))``."""
    return _nary(logistic_p, x)


def sqrt(x: ArrayLike) -> Any:
    """Element-wise square root."""
    return _nary(sqrt_p, x)


def rsqrt(x: ArrayLike) -> Any:
    """Element-wise reciprocal square root."""
    return _nary(rsqrt_p, x)


def floor(x: ArrayLike) -> Any:
    """Element-wise floor."""
    return _nary(floor_p, x)


def ceil(x: ArrayLike) -> Any:
    """Element-wise ceiling."""
    return _nary(ceil_p, x)


ROUND_AWAY_FROM_ZERO: Final = 0
ROUND_TO_NEAREST_EVEN: Final = 1


def round(x: ArrayLike, rounding_method: int = ROUND_AWAY_FROM_ZERO) -> Any:  # noqa: A001
    """Element-wise rounding; halves go away from zero (lax's default) or to even."""
    if rounding_method not in (ROUND_AWAY_FROM_ZERO, ROUND_TO_NEAREST_EVEN):
        raise ValueError(f"unknown rounding_method {rounding_method}")
    return _nary(round_p, x, rounding_method=int(rounding_method))


def eq(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x == y``."""
    return _nary(eq_p, x, y)


def ne(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x != y``."""
    return _nary(ne_p, x, y)


def lt(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x < y``."""
    return _nary(lt_p, x, y)


def le(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x <= y``."""
    return _nary(le_p, x, y)


def gt(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x > y``."""
    return _nary(gt_p, x, y)


def ge(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x >= y``."""
    return _nary(ge_p, x, y)


def and_(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise logical (booleans) or bitwise (integers) and."""
    return _nary(and_p, x, y)


def or_(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise logical (booleans) or bitwise (integers) or."""
    return _nary(or_p, x, y)


def not_(x: ArrayLike) -> Any:
    """Element-wise logical (booleans) or bitwise (integers) not."""
    return _nary(not_p, x)


def select(pred: ArrayLike, on_true: ArrayLike, on_false: ArrayLike) -> Any:
    """Element-wise ``on_true if pred else on_false``; ``pred`` is boolean of the same shape."""
    on_true, on_false = _coerce_weak(select_p, (on_true, on_false))
    if is_python_scalar(pred):
        pred = np.asarray(pred, dtypes.bool_)
    return select_p.bind(pred, on_true, on_false)


def convert_element_type(x: ArrayLike, new_dtype: Any, weak_type: bool = False) -> Any:
    """Converts ``x`` to ``new_dtype`` (floats to integers round toward zero).

    >>> convert_element_type(np.arange(3), np.float32)
    array([0., 1., 2.], dtype=float32)
    """
    if is_python_scalar(x):
        x = np.asarray(x, dtypes.python_scalar_dtype(x))
    return convert_element_type_p.bind(
        x, new_dtype=dtypes.canonicalize(new_dtype), weak_type=bool(weak_type)
    )


def stop_gradient(x: ArrayLike) -> Any:
    """The identity, whose derivative is zero."""
    return _nary(stop_gradient_p, x)


def _normalize_axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        from didax.core.source_info import user_frame_summary

        raise ValueError(f"axis {axis} is out of range for rank {ndim} (at {user_frame_summary()})")
    return axis % ndim if ndim else axis


def _normalize_axes(axes: Sequence[int] | int, ndim: int) -> tuple[int, ...]:
    if isinstance(axes, int):
        axes = (axes,)
    return tuple(_normalize_axis(int(a), ndim) for a in axes)


def _ndim(x: ArrayLike) -> int:
    aval = _aval_of(x)
    return 0 if aval is None else aval.ndim


def _as_operand(x: ArrayLike) -> ArrayLike:
    return np.asarray(x, dtypes.python_scalar_dtype(x)) if is_python_scalar(x) else x


def broadcast_in_dim(
    operand: ArrayLike, shape: Sequence[int], broadcast_dimensions: Sequence[int]
) -> Any:
    """Broadcasts ``operand`` to ``shape``; operand axis i becomes axis ``broadcast_dimensions[i]``.

    >>> broadcast_in_dim(np.array([1, 2]), (3, 2), (1,)).shape
    (3, 2)
    """
    return broadcast_in_dim_p.bind(
        _as_operand(operand),
        shape=tuple(int(s) for s in shape),
        broadcast_dimensions=tuple(int(d) for d in broadcast_dimensions),
    )


def full_like(x: ArrayLike, fill_value: bool | int | float) -> Any:
    """An array of ``x``'s shape and dtype filled with ``fill_value``."""
    aval = _aval_of(x)
    if aval is None:
        return np.asarray(fill_value, dtypes.python_scalar_dtype(x))
    value = np.asarray(fill_value, aval.dtype)
    return value if aval.shape == () else broadcast_in_dim(value, aval.shape, ())


def broadcast(operand: ArrayLike, sizes: Sequence[int]) -> Any:
    """Adds leading axes of ``sizes`` to ``operand``."""
    nd = _ndim(operand)
    shape = tuple(sizes) + tuple(_aval_of(operand).shape if nd else ())  # type: ignore[union-attr]
    return broadcast_in_dim(operand, shape, tuple(range(len(sizes), len(sizes) + nd)))


def reshape(
    operand: ArrayLike, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None
) -> Any:
    """Reshapes ``operand`` (after transposing it by ``dimensions`` if given)."""
    operand = _as_operand(operand)
    if dimensions is not None:
        operand = transpose(operand, dimensions)
    return reshape_p.bind(operand, new_sizes=tuple(int(s) for s in new_sizes))


def transpose(operand: ArrayLike, permutation: Sequence[int]) -> Any:
    """Permutes the axes of ``operand``: result axis i is operand axis ``permutation[i]``."""
    nd = _ndim(operand)
    return transpose_p.bind(_as_operand(operand), permutation=_normalize_axes(permutation, nd))


def squeeze(array: ArrayLike, dimensions: Sequence[int]) -> Any:
    """Removes the size-1 axes ``dimensions``."""
    nd = _ndim(array)
    dims = tuple(sorted(_normalize_axes(dimensions, nd)))
    return squeeze_p.bind(_as_operand(array), dimensions=dims)


def expand_dims(array: ArrayLike, dimensions: Sequence[int]) -> Any:
    """Inserts size-1 axes at positions ``dimensions`` of the result."""
    nd = _ndim(array) + len(dimensions)
    dims = tuple(sorted(_normalize_axes(dimensions, nd)))
    return expand_dims_p.bind(_as_operand(array), dimensions=dims)


def slice(  # noqa: A001 - lax's name
    operand: ArrayLike,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> Any:
    """The static slice ``operand[start:limit:stride]`` along every axis."""
    if strides is None:
        strides = (1,) * len(start_indices)
    return slice_p.bind(
        _as_operand(operand),
        start_indices=tuple(int(i) for i in start_indices),
        limit_indices=tuple(int(i) for i in limit_indices),
        strides=tuple(int(i) for i in strides),
    )


def _index_operand(i: ArrayLike) -> ArrayLike:
    if isinstance(i, Tracer):
        return i
    arr = np.asarray(i)
    if arr.dtype.kind not in "iu":
        return arr  # the typing rule names the bad dtype
    return arr.astype(dtypes.int64) if is_python_scalar(i) else arr


def dynamic_slice(
    operand: ArrayLike, start_indices: Sequence[ArrayLike], slice_sizes: Sequence[int]
) -> Any:
    """The slice of ``slice_sizes`` at traced ``start_indices``, clamped to stay in bounds."""
    return dynamic_slice_p.bind(
        _as_operand(operand),
        *(_index_operand(i) for i in start_indices),
        slice_sizes=tuple(int(s) for s in slice_sizes),
    )


def dynamic_update_slice(
    operand: ArrayLike, update: ArrayLike, start_indices: Sequence[ArrayLike]
) -> Any:
    """``operand`` with ``update`` written at traced ``start_indices`` (clamped in bounds)."""
    operand, update = _coerce_weak(dynamic_update_slice_p, (operand, update))
    return dynamic_update_slice_p.bind(operand, update, *(_index_operand(i) for i in start_indices))


def concatenate(operands: Sequence[ArrayLike], dimension: int) -> Any:
    """Joins ``operands`` along axis ``dimension``."""
    if not operands:
        raise ValueError("concatenate needs at least one operand")
    ops = [_as_operand(o) for o in operands]
    return concatenate_p.bind(*ops, dimension=_normalize_axis(dimension, _ndim(ops[0])))


def pad(
    operand: ArrayLike, padding_value: ArrayLike, padding_config: Sequence[tuple[int, int, int]]
) -> Any:
    """Pads with ``padding_value``: per axis ``(low, high, interior)``; negative low/high crop."""
    operand, padding_value = _coerce_weak(pad_p, (operand, padding_value))
    config = tuple((int(lo), int(hi), int(i)) for lo, hi, i in padding_config)
    return pad_p.bind(operand, padding_value, padding_config=config)


def rev(operand: ArrayLike, dimensions: Sequence[int]) -> Any:
    """Reverses ``operand`` along ``dimensions``."""
    dims = tuple(sorted(_normalize_axes(dimensions, _ndim(operand))))
    return rev_p.bind(_as_operand(operand), dimensions=dims)


def iota(dtype: Any, size: int) -> Any:
    """``[0, 1, ..., size - 1]`` of ``dtype``."""
    return iota_p.bind(dtype=dtypes.canonicalize(dtype), size=int(size))


def _reduce(prim: Primitive, operand: ArrayLike, axes: Sequence[int] | int) -> Any:
    nd = _ndim(operand)
    return prim.bind(_as_operand(operand), axes=tuple(sorted(_normalize_axes(axes, nd))))


def reduce_sum(operand: ArrayLike, axes: Sequence[int] | int) -> Any:
    """Sum over ``axes``."""
    return _reduce(reduce_sum_p, operand, axes)


def reduce_max(operand: ArrayLike, axes: Sequence[int] | int) -> Any:
    """Maximum over ``axes``."""
    return _reduce(reduce_max_p, operand, axes)


def reduce_min(operand: ArrayLike, axes: Sequence[int] | int) -> Any:
    """Minimum over ``axes``."""
    return _reduce(reduce_min_p, operand, axes)


def reduce_prod(operand: ArrayLike, axes: Sequence[int] | int) -> Any:
    """Product over ``axes``."""
    return _reduce(reduce_prod_p, operand, axes)


def argmax(operand: ArrayLike, axis: int, index_dtype: Any = np.int64) -> Any:
    """Index of the (first) maximum along ``axis``."""
    axis = _normalize_axis(axis, _ndim(operand))
    return argmax_p.bind(
        _as_operand(operand), axis=axis, index_dtype=dtypes.canonicalize(index_dtype)
    )


def argmin(operand: ArrayLike, axis: int, index_dtype: Any = np.int64) -> Any:
    """Index of the (first) minimum along ``axis``."""
    axis = _normalize_axis(axis, _ndim(operand))
    return argmin_p.bind(
        _as_operand(operand), axis=axis, index_dtype=dtypes.canonicalize(index_dtype)
    )


def cumsum(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Any:
    """Inclusive cumulative sum along ``axis`` (from the end when ``reverse``)."""
    axis = _normalize_axis(axis, _ndim(operand))
    return cumsum_p.bind(_as_operand(operand), axis=axis, reverse=bool(reverse))


def dot_general(
    lhs: ArrayLike,
    rhs: ArrayLike,
    dimension_numbers: tuple[
        tuple[Sequence[int], Sequence[int]], tuple[Sequence[int], Sequence[int]]
    ],
) -> Any:
    """Generalised dot product: ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``.

    The result's axes are the batch axes, then lhs's free axes, then rhs's.
    """
    (lc, rc), (lb, rb) = dimension_numbers
    lhs, rhs = _coerce_weak(dot_general_p, (lhs, rhs))
    nl, nr = _ndim(lhs), _ndim(rhs)
    dims = (
        (_normalize_axes(lc, nl), _normalize_axes(rc, nr)),
        (_normalize_axes(lb, nl), _normalize_axes(rb, nr)),
    )
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dims)


def dot(lhs: ArrayLike, rhs: ArrayLike) -> Any:
    """Vector/matrix product: contracts lhs's last axis with rhs's first (or only) axis."""
    nl, nr = _ndim(lhs), _ndim(rhs)
    if nl not in (1, 2) or nr not in (1, 2):
        raise TypeError(f"dot needs vectors or matrices, got ranks {nl} and {nr}")
    return dot_general(lhs, rhs, (((nl - 1,), (0,)), ((), ())))
