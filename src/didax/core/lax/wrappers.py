"""The ``didax.lax`` functions: one bind wrapper per primitive, with strict types.

Design rules:
- Primitives are strict (element-wise operands have one shape and one
  dtype). The wrappers relax that only for weakly typed values, through
  ``core.promotion.coerce_weak``: a Python scalar or a weakly typed tracer
  takes its strong partner's dtype, and a Python scalar its shape (an
  explicit ``broadcast_in_dim``). NumPy-style broadcasting and promotion
  belong to ``didax.numpy``.
- Wrappers normalise their arguments (negative axes, defaults, dtypes) so
  that a primitive's params have exactly one spelling; that keeps
  fingerprints and caches exact.
- Interpreters' rules call these wrappers too (``lax.mul(t, y)`` in a jvp
  rule), so the rules read like the math.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.lax.precision import canonicalize_precision
from didax.core.lax.primitives import (
    ROUND_AWAY_FROM_ZERO,
    ROUND_TO_NEAREST_EVEN,
    abs_p,
    add_p,
    and_p,
    argmax_p,
    argmin_p,
    broadcast_in_dim_p,
    ceil_p,
    complex_p,
    concatenate_p,
    conj_p,
    convert_element_type_p,
    cos_p,
    cumsum_p,
    div_p,
    dot_general_p,
    dynamic_slice_p,
    dynamic_update_slice_p,
    eq_p,
    exp_p,
    expand_dims_p,
    expm1_p,
    floor_p,
    ge_p,
    gt_p,
    imag_p,
    integer_pow_p,
    iota_p,
    le_p,
    log1p_p,
    log_p,
    logistic_p,
    lt_p,
    max_p,
    min_p,
    mul_p,
    ne_p,
    neg_p,
    not_p,
    or_p,
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
    rsqrt_p,
    select_p,
    sign_p,
    sin_p,
    slice_p,
    sqrt_p,
    squeeze_p,
    stop_gradient_p,
    sub_p,
    tan_p,
    tanh_p,
    transpose_p,
)
from didax.core.primitive import Primitive
from didax.core.promotion import coerce_to, coerce_weak
from didax.core.trace import Tracer
from didax.core.values import (
    ArrayLike,
    as_array,
    get_aval,
    is_python_scalar,
    wrap_host,
)
from didax.core.values import (
    PythonScalar as Scalar,
)

__all__ = [
    "add",
    "sub",
    "mul",
    "div",
    "rem",
    "pow",
    "max",
    "min",
    "integer_pow",
    "neg",
    "sign",
    "abs",
    "exp",
    "log",
    "log1p",
    "expm1",
    "sin",
    "cos",
    "tan",
    "tanh",
    "logistic",
    "sqrt",
    "rsqrt",
    "floor",
    "ceil",
    "round",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "and_",
    "or_",
    "not_",
    "select",
    "convert_element_type",
    "stop_gradient",
    "real",
    "imag",
    "conj",
    "complex",
    "broadcast_in_dim",
    "full",
    "full_like",
    "broadcast",
    "reshape",
    "transpose",
    "squeeze",
    "expand_dims",
    "slice",
    "dynamic_slice",
    "dynamic_update_slice",
    "concatenate",
    "pad",
    "rev",
    "iota",
    "reduce_sum",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "argmax",
    "argmin",
    "cumsum",
    "dot_general",
    "dot",
]


def _nary(prim: Primitive, *args: ArrayLike, **params: Any) -> Any:
    return prim.bind(*coerce_weak(prim, args), **params)


def add(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x + y``.

    >>> add(np.float32(1), 2.0)
    Array(3., dtype=float32)
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
    on_true, on_false = coerce_weak(select_p, (on_true, on_false))
    if is_python_scalar(pred):
        pred = np.asarray(pred, dtypes.bool_)
    return select_p.bind(pred, on_true, on_false)


def convert_element_type(x: ArrayLike, new_dtype: Any, weak_type: bool = False) -> Any:
    """Converts ``x`` to ``new_dtype`` (floats to integers round toward zero).

    >>> convert_element_type(np.arange(3), np.float32)
    Array([0., 1., 2.], dtype=float32)
    """
    if is_python_scalar(x):
        x = np.asarray(x, dtypes.python_scalar_dtype(x))
    new = dtypes.canonicalize(new_dtype)
    if dtypes.is_complex(get_aval(x).dtype) and not dtypes.is_complex(new):
        # As JAX (and NumPy): the conversion keeps the real part, with a warning.
        warnings.warn(
            "Casting complex values to real discards the imaginary part",
            np.exceptions.ComplexWarning,
            stacklevel=2,
        )
    return convert_element_type_p.bind(x, new_dtype=new, weak_type=bool(weak_type))


def stop_gradient(x: ArrayLike) -> Any:
    """The identity, whose derivative is zero."""
    return _nary(stop_gradient_p, x)


def real(x: ArrayLike) -> Any:
    """The real part of a complex ``x``.

    >>> real(np.array([1 + 2j]))
    Array([1.], dtype=float32)
    """
    return _nary(real_p, x)


def imag(x: ArrayLike) -> Any:
    """The imaginary part of a complex ``x``.

    >>> imag(np.array([1 + 2j]))
    Array([2.], dtype=float32)
    """
    return _nary(imag_p, x)


def conj(x: ArrayLike) -> Any:
    """The complex conjugate of ``x``; as JAX's, a real ``x`` gives a complex result.

    >>> conj(np.array([1 + 2j]))
    Array([1.-2.j], dtype=complex64)
    """
    return conj_p.bind(x, input_dtype=get_aval(x).dtype)


def complex(x: ArrayLike, y: ArrayLike) -> Any:  # noqa: A001 - lax's name
    """The complex number ``x + i y`` of two real arrays of one dtype.

    >>> complex(np.array([1.0]), np.array([2.0]))
    Array([1.+2.j], dtype=complex64)
    """
    return _nary(complex_p, x, y)


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
    return get_aval(x).ndim


def _as_operand(x: ArrayLike) -> ArrayLike:
    """A Python scalar as a weakly typed Array of its default dtype; anything else as it is."""
    return wrap_host(as_array(x), type(x) is not bool) if is_python_scalar(x) else x


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


def full(shape: Sequence[int], fill_value: Scalar, dtype: Any) -> Any:
    """An array of ``shape`` and ``dtype`` filled with ``fill_value`` (a broadcast scalar).

    >>> full((2,), 1.5, np.float32)
    Array([1.5, 1.5], dtype=float32)
    """
    value = np.asarray(fill_value, dtypes.canonicalize(dtype))
    shape = tuple(int(s) for s in shape)
    return wrap_host(value) if shape == () else broadcast_in_dim(value, shape, ())


def full_like(x: ArrayLike, fill_value: Scalar) -> Any:
    """An array of ``x``'s shape and dtype (and weak type, as JAX's) filled with ``fill_value``."""
    aval = get_aval(x)
    value = wrap_host(np.asarray(fill_value, aval.dtype), aval.weak_type)
    return value if aval.shape == () else broadcast_in_dim(value, aval.shape, ())


def broadcast(operand: ArrayLike, sizes: Sequence[int]) -> Any:
    """Adds leading axes of ``sizes`` to ``operand``."""
    nd = _ndim(operand)
    shape = (*sizes, *get_aval(operand).shape)
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
    return arr.astype(dtypes.default_int()) if is_python_scalar(i) else arr


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
    operand, update = coerce_weak(dynamic_update_slice_p, (operand, update))
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
    """Pads with ``padding_value``: per axis ``(low, high, interior)``; negative low/high crop.

    A weakly typed padding value (a Python scalar) takes the operand's dtype.

    >>> pad(np.arange(2.0), 0.0, [(1, 1, 0)])
    Array([0., 0., 1., 0.], dtype=float32)
    """
    operand = _as_operand(operand)
    aval = get_aval(operand)
    padding_value = coerce_to(pad_p, padding_value, ShapedArray((), aval.dtype))
    config = tuple((int(lo), int(hi), int(i)) for lo, hi, i in padding_config)
    return pad_p.bind(operand, padding_value, padding_config=config)


def rev(operand: ArrayLike, dimensions: Sequence[int]) -> Any:
    """Reverses ``operand`` along ``dimensions``."""
    dims = tuple(sorted(_normalize_axes(dimensions, _ndim(operand))))
    return rev_p.bind(_as_operand(operand), dimensions=dims)


def iota(dtype: Any, size: int) -> Any:
    """``[0, 1, ..., size - 1]`` of ``dtype``."""
    return iota_p.bind(dtype=dtypes.canonicalize(dtype), size=int(size))


def _bind_reduction(prim: Primitive, operand: ArrayLike, axes: Sequence[int] | int) -> Any:
    nd = _ndim(operand)
    return prim.bind(_as_operand(operand), axes=tuple(sorted(_normalize_axes(axes, nd))))


def reduce_sum(operand: ArrayLike, axes: Sequence[int] | int) -> Any:
    """Sum over ``axes``."""
    return _bind_reduction(reduce_sum_p, operand, axes)


def reduce_max(operand: ArrayLike, axes: Sequence[int] | int) -> Any:
    """Maximum over ``axes``."""
    return _bind_reduction(reduce_max_p, operand, axes)


def reduce_min(operand: ArrayLike, axes: Sequence[int] | int) -> Any:
    """Minimum over ``axes``."""
    return _bind_reduction(reduce_min_p, operand, axes)


def reduce_prod(operand: ArrayLike, axes: Sequence[int] | int) -> Any:
    """Product over ``axes``."""
    return _bind_reduction(reduce_prod_p, operand, axes)


def argmax(operand: ArrayLike, axis: int, index_dtype: Any = None) -> Any:
    """Index of the (first) maximum along ``axis`` (``index_dtype``: the default int)."""
    axis = _normalize_axis(axis, _ndim(operand))
    dtype = dtypes.default_int() if index_dtype is None else dtypes.canonicalize(index_dtype)
    return argmax_p.bind(_as_operand(operand), axis=axis, index_dtype=dtype)


def argmin(operand: ArrayLike, axis: int, index_dtype: Any = None) -> Any:
    """Index of the (first) minimum along ``axis`` (``index_dtype``: the default int)."""
    axis = _normalize_axis(axis, _ndim(operand))
    dtype = dtypes.default_int() if index_dtype is None else dtypes.canonicalize(index_dtype)
    return argmin_p.bind(_as_operand(operand), axis=axis, index_dtype=dtype)


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
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Any:
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
    nl, nr = _ndim(lhs), _ndim(rhs)
    dims = (
        (_normalize_axes(lc, nl), _normalize_axes(rc, nr)),
        (_normalize_axes(lb, nl), _normalize_axes(rb, nr)),
    )
    preferred = (
        None if preferred_element_type is None else dtypes.canonicalize(preferred_element_type)
    )
    return dot_general_p.bind(
        lhs,
        rhs,
        dimension_numbers=dims,
        precision=canonicalize_precision(precision),
        preferred_element_type=preferred,
    )


def dot(
    lhs: ArrayLike,
    rhs: ArrayLike,
    precision: Any = None,
    preferred_element_type: Any = None,
    *,
    dimension_numbers: Any = None,
) -> Any:
    """Vector/matrix product: contracts lhs's last axis with rhs's first (or only) axis.

    With ``dimension_numbers``, ``dot_general`` (JAX's ``lax.dot`` takes
    both); ``precision`` and ``preferred_element_type`` as there.

    >>> dot(np.ones((2, 3), np.float32), np.ones(3, np.float32), precision="highest")
    Array([3., 3.], dtype=float32)
    """
    if dimension_numbers is None:
        nl, nr = _ndim(lhs), _ndim(rhs)
        if nl not in (1, 2) or nr not in (1, 2):
            raise TypeError(f"dot needs vectors or matrices, got ranks {nl} and {nr}")
        dimension_numbers = (((nl - 1,), (0,)), ((), ()))
    return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type)
