"""Array creation: dtypes usable as converters, arrays from data, ranges and constants.

Functions of static arguments only (``zeros``, ``arange``, ``eye``, ...) build
their result from ``iota`` and ``broadcast_in_dim``: staged they are a few
equations instead of a hoisted constant, eager they are NumPy arrays.
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Sequence
from typing import Any, Final, Literal, final, overload

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import add, divide, floor, multiply, subtract
from didax.api.numpy.manipulation import broadcast_to, concatenate, expand_dims, moveaxis, reshape
from didax.api.numpy.operands import (
    as_result,
    asarray,
    astype,
    dtype_arg,
    full_of,
    operand,
    promote,
    shape_arg,
    static_scalar,
)
from didax.core import dtypes, lax
from didax.core.array import Array as DidaxArray
from didax.core.dtypes import DType, DTypeLike
from didax.core.values import get_aval

__all__ = [
    "bfloat16",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "complex_",
    "int8",
    "int16",
    "int32",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "int64",
    "bool_",
    "array",
    "asarray",
    "zeros",
    "ones",
    "zeros_like",
    "ones_like",
    "full",
    "arange",
    "linspace",
    "eye",
]


@final
class _ScalarType:
    """A dtype that is also a converter, as JAX's ``jnp.float32``.

    ``np.dtype(dnp.float32)`` reads the ``dtype`` attribute, so the object
    works wherever NumPy or didax expect a dtype.
    """

    __slots__ = ("dtype", "name")

    def __init__(self, name: str, dtype: DType) -> None:
        self.dtype: Final = dtype
        self.name: Final = name

    def __call__(self, x: ArrayLike) -> Array:
        """Converts ``x`` (a value or a tracer) to this dtype."""
        return asarray(x, dtype=self.dtype)

    def __repr__(self) -> str:
        return f"didax.numpy.{self.name}"


bool_: Final = _ScalarType("bool_", dtypes.bool_)
int8: Final = _ScalarType("int8", dtypes.int8)
int16: Final = _ScalarType("int16", dtypes.int16)
int32: Final = _ScalarType("int32", dtypes.int32)
int64: Final = _ScalarType("int64", dtypes.int64)
uint8: Final = _ScalarType("uint8", dtypes.uint8)
uint16: Final = _ScalarType("uint16", dtypes.uint16)
uint32: Final = _ScalarType("uint32", dtypes.uint32)
uint64: Final = _ScalarType("uint64", dtypes.uint64)
bfloat16: Final = _ScalarType("bfloat16", dtypes.bfloat16)
float16: Final = _ScalarType("float16", dtypes.float16)
float32: Final = _ScalarType("float32", dtypes.float32)
float64: Final = _ScalarType("float64", dtypes.float64)
complex64: Final = _ScalarType("complex64", dtypes.complex64)
complex128: Final = _ScalarType("complex128", dtypes.complex128)
complex_: Final = complex128


def array(
    object: ArrayLike, dtype: DTypeLike = None, *, copy: bool = True, ndmin: int = 0
) -> Array:
    """A new array from ``object`` (NumPy's ``array``); nested lists of tracers are stacked.

    >>> array([[1, 2], [3, 4]], dtype=float32).shape
    (2, 2)
    """
    out = asarray(object, dtype)
    if copy and out is object and isinstance(out, DidaxArray):
        out = out.copy()
    ndim = get_aval(out).ndim
    if ndmin > ndim:
        out = reshape(out, (1,) * (ndmin - ndim) + get_aval(out).shape)
    return out


def zeros(shape: int | Sequence[int], dtype: DTypeLike = None) -> Array:
    """An array of zeros (of the default float unless ``dtype`` says otherwise).

    >>> zeros((2, 3), dtype=int32)
    Array([[0, 0, 0],
           [0, 0, 0]], dtype=int32)
    """
    return full_of(shape_arg(shape, "zeros"), 0, dtype_arg(dtype) or dtypes.default_float())


def ones(shape: int | Sequence[int], dtype: DTypeLike = None) -> Array:
    """An array of ones (of the default float unless ``dtype`` says otherwise)."""
    return full_of(shape_arg(shape, "ones"), 1, dtype_arg(dtype) or dtypes.default_float())


def full(shape: int | Sequence[int], fill_value: ArrayLike, dtype: DTypeLike = None) -> Array:
    """An array of ``shape`` filled with ``fill_value`` (broadcast, if it is an array)."""
    shp = shape_arg(shape, "full")
    v = operand(fill_value)
    dt = dtype_arg(dtype) or get_aval(v).dtype
    # As JAX's: without a dtype, a weak fill value (a Python scalar) gives a weak array.
    weak = dtype is None and get_aval(v).weak_type
    return as_result(broadcast_to(astype(v, dt, weak), shp))


def _filled_like(
    name: str, value: int, a: ArrayLike, dtype: DTypeLike, shape: int | Sequence[int] | None
) -> Array:
    """``value`` in ``a``'s shape and dtype, or ``dtype``/``shape``; weak as ``a`` without dtype."""
    aval = get_aval(operand(a))
    shp = aval.shape if shape is None else shape_arg(shape, name)
    return full_of(shp, value, dtype_arg(dtype) or aval.dtype, dtype is None and aval.weak_type)


def zeros_like(
    a: ArrayLike, dtype: DTypeLike = None, shape: int | Sequence[int] | None = None
) -> Array:
    """Zeros of ``a``'s shape and dtype (or of ``dtype``/``shape`` if given)."""
    return _filled_like("zeros_like", 0, a, dtype, shape)


def ones_like(
    a: ArrayLike, dtype: DTypeLike = None, shape: int | Sequence[int] | None = None
) -> Array:
    """Ones of ``a``'s shape and dtype (or of ``dtype``/``shape`` if given)."""
    return _filled_like("ones_like", 1, a, dtype, shape)


def arange(start: Any, stop: Any = None, step: Any = None, dtype: DTypeLike = None) -> Array:
    """Evenly spaced values in ``[start, stop)`` (static arguments), built from ``iota``.

    >>> arange(2, 11, 3)
    Array([2, 5, 8], dtype=int32)
    """
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    lo, hi, st = (static_scalar(v, "arange's arguments") for v in (start, stop, step))
    if st == 0:
        raise ZeroDivisionError("arange: step must not be zero")
    any_float = builtins.any(isinstance(v, (float, np.floating)) for v in (lo, hi, st))
    # The arguments are read as Python numbers: the default int or float, whatever their types.
    dt = dtype_arg(dtype) or (dtypes.default_float() if any_float else dtypes.default_int())
    if any_float:
        n = math.ceil((float(hi) - float(lo)) / float(st))
    else:
        n = -(-(int(hi) - int(lo)) // int(st))
    n = builtins.max(n, 0)
    # Computed in the result dtype unless that would lose the fractions of
    # float arguments (NumPy's arange with an integer dtype truncates).
    work = dtypes.default_float() if any_float and not dtypes.is_float(dt) else dt
    out: Any = lax.iota(work, n)
    if st != 1:
        out = lax.mul(out, full_of((n,), st, work))
    if lo != 0:
        out = lax.add(out, full_of((n,), lo, work))
    result: Array = out if work == dt else lax.convert_element_type(out, dt)
    return result


@overload
def linspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    retstep: Literal[False] = False,
    dtype: DTypeLike = None,
    axis: int = 0,
) -> Array: ...
@overload
def linspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    *,
    retstep: Literal[True],
    dtype: DTypeLike = None,
    axis: int = 0,
) -> tuple[Array, Array]: ...
def linspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: DTypeLike = None,
    axis: int = 0,
) -> Array | tuple[Array, Array]:
    """``num`` evenly spaced values from ``start`` to ``stop`` (NumPy's algorithm).

    ``start`` and ``stop`` may be traced arrays; ``num`` is static.

    >>> linspace(0.0, 1.0, 5)
    Array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    """
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"linspace: number of samples, {num}, must be non-negative")
    (lo, hi, _), dt, _ = promote("linspace", start, stop, float(num), inexact=True)
    lo, hi = as_result(lo), as_result(hi)
    shape = get_aval(lo).shape
    div = num - 1 if endpoint else num
    full_shape = (num, *shape)
    steps = lax.broadcast_in_dim(lax.iota(dt, num), full_shape, (0,))
    delta = subtract(hi, lo)
    step: Any
    if div > 0:
        step = divide(delta, float(div))
        y = add(multiply(steps, step), lo)
    else:
        step = full(shape, np.nan, dt)
        y = add(multiply(steps, delta), lo)
    if endpoint and num > 1:
        # The last sample is exactly ``stop``, as NumPy makes it.
        y = concatenate([y[: num - 1], expand_dims(hi, 0)], axis=0)
    if axis != 0:
        y = moveaxis(y, 0, axis)
    out_dt = dtype_arg(dtype)
    if out_dt is not None and out_dt != dt:
        y = asarray(floor(y) if dtypes.is_integer(out_dt) else y, out_dt)
    return (y, step) if retstep else y


def eye(N: int, M: int | None = None, k: int = 0, dtype: DTypeLike = None) -> Array:
    """The ``N x M`` matrix with ones on diagonal ``k``, built from two ``iota``.

    >>> eye(2, 3, k=1, dtype=int32)
    Array([[0, 1, 0],
           [0, 0, 1]], dtype=int32)
    """
    n = operator.index(N)
    m = n if M is None else operator.index(M)
    k = operator.index(k)
    dt = dtype_arg(dtype) or dtypes.default_float()
    index = dtypes.default_int()
    rows: Any = lax.iota(index, n)
    if k:
        rows = lax.add(rows, full_of((n,), k, index))
    rows = lax.broadcast_in_dim(rows, (n, m), (0,))
    cols = lax.broadcast_in_dim(lax.iota(index, m), (n, m), (1,))
    mask = lax.eq(rows, cols)
    out: Array = mask if dt == dtypes.bool_ else lax.convert_element_type(mask, dt)
    return out
