"""didax.numpy: NumPy's names over didax's primitives, with NumPy broadcasting and promotion.

    >>> import didax as dx
    >>> import didax.numpy as dnp
    >>> x = np.arange(3, dtype=np.float32)
    >>> dnp.multiply(x, 2.0).dtype
    dtype('float32')
    >>> print(dx.make_jaxpr(lambda x: dnp.sum(x * 2.0))(x))
    { lambda a:f32[3] .
      let b:f32[3] = broadcast_in_dim[broadcast_dimensions=() shape=(3,)] 2.0
          c:f32[3] = mul a b
          d:f32[] = reduce_sum[axes=(0,)] c
      in ( d ) }

Design rules:
- Every function is a composition of the strict ``didax.lax`` primitives.
  Broadcasting and promotion are never left to a primitive: they are done
  here, explicitly, with ``convert_element_type`` and ``broadcast_in_dim``
  before a primitive is bound, so that a jaxpr shows every conversion.
- dtypes are NumPy 2's, with 64-bit defaults, and NEP 50 weak scalars:
  ``dtypes.result_type`` decides every result dtype. Python scalars and
  weakly typed tracers only raise the *kind* of a result, so
  ``float32_array * 2.0`` stays float32. Where NumPy and JAX disagree on a
  detail, JAX is followed and the function says so (integers and booleans
  become float64 in ``exp``/``sqrt``/..., where NumPy picks float16 for
  int8).
- Weak types are kept where JAX keeps them: when every operand of an
  element-wise operation is weak, the primitive is bound directly with the
  weak operands (the ``lax`` wrappers would make a Python scalar strong), so
  under staging ``x * 2.0`` of a weak ``x`` stays weak. Eager results are
  NumPy arrays, which cannot be weak.
- Concrete operands (NumPy arrays, lists) are converted on the host, traced
  ones with primitives; Python scalars stay Python scalars until the dtype
  they take is known.
- Functions of static arguments only (``zeros``, ``arange``, ``eye``, ...)
  build their result from ``iota`` and ``broadcast_in_dim``: staged they are
  a few equations instead of a hoisted constant, eager they are NumPy arrays.
- Array methods: importing this module installs NumPy's operators
  (``+ - * / // % ** @``, comparisons, ``& | ~``, unary ``- + abs``),
  ``__getitem__`` with basic indexing, ``__iter__``, ``.T`` and a few methods
  (``reshape``, ``sum``, ``mean``, ``astype``, ...) on ``core.trace.Tracer``,
  as JAX's ``_set_tracer_aval_forwarding`` does. Core knows nothing of
  NumPy's broadcasting, so its tracers get their operators from this layer.
  Tracers stay unhashable.
"""

from __future__ import annotations

import builtins
import math
import operator
import string
from collections.abc import Callable, Sequence
from typing import Any, Final, final

import numpy as np

import didax.interpreters  # noqa: F401  (installs the root trace and all rules)
from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray, as_array, is_python_scalar
from didax.core.dtypes import DType
from didax.core.errors import ShapeError
from didax.core.primitive import Primitive
from didax.core.source_info import user_frame_summary
from didax.core.trace import Tracer, get_aval
from didax.lowering import array as _device

ArrayLike = Any  # a Tracer, NumPy array or scalar, Python scalar, or (nested) list
Array = Any  # a Tracer under a transformation, a NumPy array in eager code

__all__ = [
    # dtypes, usable as converters
    "float32",
    "float64",
    "int32",
    "int64",
    "bool_",
    # creation
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
    # element-wise
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "power",
    "negative",
    "abs",
    "exp",
    "log",
    "log1p",
    "sqrt",
    "sin",
    "cos",
    "tan",
    "tanh",
    "maximum",
    "minimum",
    "where",
    "clip",
    "sign",
    "floor",
    "ceil",
    "round",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "equal",
    "not_equal",
    "logical_and",
    "logical_or",
    "logical_not",
    # reductions
    "sum",
    "mean",
    "max",
    "min",
    "prod",
    "argmax",
    "argmin",
    "cumsum",
    # linear algebra
    "dot",
    "matmul",
    "einsum",
    "outer",
    # shapes
    "transpose",
    "swapaxes",
    "moveaxis",
    "reshape",
    "ravel",
    "broadcast_to",
    "expand_dims",
    "squeeze",
    "concatenate",
    "stack",
]


# --- scalar types ---------------------------------------------------------------


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


float32: Final = _ScalarType("float32", dtypes.float32)
float64: Final = _ScalarType("float64", dtypes.float64)
int32: Final = _ScalarType("int32", dtypes.int32)
int64: Final = _ScalarType("int64", dtypes.int64)
bool_: Final = _ScalarType("bool_", dtypes.bool_)


def _dtype_arg(dtype: Any) -> DType | None:
    if dtype is None:
        return None
    return dtypes.canonicalize(dtype.dtype if isinstance(dtype, _ScalarType) else dtype)


# --- operands, promotion and broadcasting ----------------------------------------


def _contains_tracer(x: Any) -> bool:
    if isinstance(x, Tracer):
        return True
    if isinstance(x, (list, tuple)):
        return builtins.any(_contains_tracer(e) for e in x)
    return False


def _value(x: ArrayLike) -> Any:
    """``x`` as an operand: a Tracer, a (weak) Python scalar, or a typed array.

    Values that know their own type (tracers, device arrays) are kept as they
    are, so that nothing is copied to the host; lists go through ``asarray``.
    """
    if isinstance(x, (Tracer, np.ndarray)) or is_python_scalar(x):
        if isinstance(x, np.ndarray):
            return as_array(x)  # rejects dtypes didax does not support
        return x
    if isinstance(x, (list, tuple)):
        return asarray(x)
    if isinstance(getattr(x, "aval", None), ShapedArray):
        return x
    return as_array(x)


def _is_array_like(x: object) -> bool:
    return (
        isinstance(x, (Tracer, np.ndarray, np.generic, list, tuple))
        or is_python_scalar(x)
        or hasattr(x, "__array__")
    )


def _python_scalar_as(x: bool | int | float, dtype: DType, weak: bool) -> Any:
    # A weak result of the default width keeps the Python scalar itself: it is
    # weak to every trace (a weak literal when staged).
    if weak and dtype == dtypes.float64:
        return float(x)
    if weak and dtype == dtypes.int64 and not isinstance(x, float):
        return int(x)
    return np.asarray(x, dtype)


def _cast(x: Any, dtype: DType, weak: bool = False) -> Any:
    """``x`` (an operand from ``_value``) converted to ``dtype``."""
    if is_python_scalar(x):
        return _python_scalar_as(x, dtype, weak)
    aval = get_aval(x)
    if aval.dtype == dtype:
        return x
    if isinstance(x, np.ndarray):
        if dtype.kind in "iu" and x.dtype.kind == "f":
            x = np.trunc(x)  # as convert_element_type: toward zero, never a warning
        with np.errstate(invalid="ignore", over="ignore"):
            return x.astype(dtype)
    return lax.convert_element_type(x, dtype, weak_type=weak)


def _broadcast(x: Any, shape: tuple[int, ...]) -> Any:
    """``x`` broadcast to ``shape`` by NumPy's rule (trailing axes aligned)."""
    aval = get_aval(x)
    if aval.shape == shape:
        return x
    if is_python_scalar(x):
        # Bound directly so that a weak scalar stays weak (lax's wrapper would
        # make it a strong array first).
        return lax.broadcast_in_dim_p.bind(x, shape=shape, broadcast_dimensions=())
    offset = len(shape) - aval.ndim
    if offset < 0 or builtins.any(
        s not in (1, shape[offset + i]) for i, s in enumerate(aval.shape)
    ):
        raise ValueError(f"operand of shape {aval.shape} cannot be broadcast to {shape}")
    return lax.broadcast_in_dim(x, shape, tuple(range(offset, len(shape))))


def _broadcast_shapes(name: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        # A TypeError (ShapeError), as lax's and JAX's, pointing at the user's line.
        raise ShapeError(
            f"{name}: operands could not be broadcast together with shapes "
            + " ".join(str(s) for s in shapes)
            + f" (at {user_frame_summary()})"
        ) from None


def _result_type(*vals: Any) -> tuple[DType, bool]:
    avals = [get_aval(v) for v in vals]
    return dtypes.result_type(*((a.dtype, a.weak_type) for a in avals))


def _promote(name: str, *args: ArrayLike, inexact: bool = False) -> tuple[list[Any], DType, bool]:
    """Operands of one dtype and one shape, NumPy's broadcasting and NEP 50's promotion.

    With ``inexact`` a non-float result dtype becomes float64 (weakness kept).
    Returns the operands, the dtype and whether the result is weakly typed.
    """
    vals = [_value(a) for a in args]
    dtype, weak = _result_type(*vals)
    if inexact and not dtypes.is_float(dtype):
        dtype = dtypes.float64
    shape = _broadcast_shapes(name, *(get_aval(v).shape for v in vals))
    return [_broadcast(_cast(v, dtype, weak), shape) for v in vals], dtype, weak


def _as_result(x: Any) -> Array:
    """A Python scalar that survived to the result becomes an array, as NumPy returns."""
    return np.asarray(x, dtypes.python_scalar_dtype(x)) if is_python_scalar(x) else x


def _bind(prim: Primitive, *vals: Any, **params: Any) -> Array:
    # Operands are already of one shape and dtype; binding directly (not via
    # the lax wrapper) keeps weak Python scalars weak.
    return _as_result(prim.bind(*vals, **params))


def _full(shape: tuple[int, ...], value: bool | int | float, dtype: DType) -> Array:
    scalar = np.asarray(value, dtype)
    return scalar if shape == () else lax.broadcast_in_dim(scalar, shape, ())


# --- creation --------------------------------------------------------------------


def asarray(a: ArrayLike, dtype: Any = None) -> Array:
    """``a`` as an array of ``dtype``; tracers (also inside nested lists) stay traced.

    >>> asarray([1, 2.5])
    array([1. , 2.5])
    >>> asarray(np.arange(3), dtype=float32)
    array([0., 1., 2.], dtype=float32)
    """
    dt = _dtype_arg(dtype)
    if isinstance(a, (list, tuple)) and _contains_tracer(a):
        if len(a) == 0:
            raise ValueError("asarray: an empty sequence has no dtype to stack")
        a = stack([asarray(e) for e in a])
    if isinstance(a, Tracer) or isinstance(getattr(a, "aval", None), ShapedArray):
        aval = get_aval(a)
        if dt is None or (dt == aval.dtype and not aval.weak_type):
            return a
        return lax.convert_element_type(a, dt)
    if dt is not None and dt.kind in "iu" and not is_python_scalar(a):
        arr = np.asarray(a)
        if arr.dtype.kind == "f":  # as convert_element_type: toward zero, quietly
            with np.errstate(invalid="ignore", over="ignore"):
                return as_array(np.trunc(arr).astype(dt))
    return as_array(np.asarray(a, dtype=dt))


def array(object: ArrayLike, dtype: Any = None, *, copy: bool = True, ndmin: int = 0) -> Array:
    """A new array from ``object`` (NumPy's ``array``); nested lists of tracers are stacked.

    >>> array([[1, 2], [3, 4]], dtype=float32).shape
    (2, 2)
    """
    out = asarray(object, dtype)
    if copy and isinstance(out, np.ndarray) and out is object:
        out = out.copy()
    ndim = get_aval(out).ndim
    if ndmin > ndim:
        out = reshape(out, (1,) * (ndmin - ndim) + get_aval(out).shape)
    return out


def _shape_arg(shape: int | Sequence[int]) -> tuple[int, ...]:
    dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    out = tuple(operator.index(d) for d in dims)
    if builtins.any(d < 0 for d in out):
        raise ValueError(f"negative dimensions are not allowed, got shape {out}")
    return out


def zeros(shape: int | Sequence[int], dtype: Any = None) -> Array:
    """An array of zeros (float64 unless ``dtype`` says otherwise).

    >>> zeros((2, 3), dtype=int32)
    array([[0, 0, 0],
           [0, 0, 0]], dtype=int32)
    """
    return _full(_shape_arg(shape), 0, _dtype_arg(dtype) or dtypes.float64)


def ones(shape: int | Sequence[int], dtype: Any = None) -> Array:
    """An array of ones (float64 unless ``dtype`` says otherwise)."""
    return _full(_shape_arg(shape), 1, _dtype_arg(dtype) or dtypes.float64)


def full(shape: int | Sequence[int], fill_value: ArrayLike, dtype: Any = None) -> Array:
    """An array of ``shape`` filled with ``fill_value`` (broadcast, if it is an array)."""
    shp = _shape_arg(shape)
    v = _value(fill_value)
    dt = _dtype_arg(dtype) or get_aval(v).dtype
    out = broadcast_to(_cast(v, dt), shp)
    return out.copy() if out is fill_value and isinstance(out, np.ndarray) else out


def zeros_like(a: ArrayLike, dtype: Any = None, shape: Any = None) -> Array:
    """Zeros of ``a``'s shape and dtype (or of ``dtype``/``shape`` if given)."""
    aval = get_aval(_value(a))
    shp = aval.shape if shape is None else _shape_arg(shape)
    return _full(shp, 0, _dtype_arg(dtype) or aval.dtype)


def ones_like(a: ArrayLike, dtype: Any = None, shape: Any = None) -> Array:
    """Ones of ``a``'s shape and dtype (or of ``dtype``/``shape`` if given)."""
    aval = get_aval(_value(a))
    shp = aval.shape if shape is None else _shape_arg(shape)
    return _full(shp, 1, _dtype_arg(dtype) or aval.dtype)


def _static_scalar(x: Any, what: str) -> Any:
    """A concrete Python or NumPy number; a tracer must be concrete (int()/float() say why not)."""
    if isinstance(x, Tracer):
        return x.dtype.type(float(x) if dtypes.is_float(x.dtype) else int(x))
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return x[()]
    if is_python_scalar(x) or isinstance(x, np.generic):
        return x
    raise TypeError(f"{what} must be a scalar, got {type(x).__name__}")


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Array:
    """Evenly spaced values in ``[start, stop)`` (static arguments), built from ``iota``.

    >>> arange(2, 11, 3)
    array([2, 5, 8])
    """
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    lo, hi, st = (_static_scalar(v, "arange's arguments") for v in (start, stop, step))
    if st == 0:
        raise ZeroDivisionError("arange: step must not be zero")
    any_float = builtins.any(isinstance(v, (float, np.floating)) for v in (lo, hi, st))
    # NumPy reads the arguments as Python numbers: int64 or float64, whatever their types.
    dt = _dtype_arg(dtype) or (dtypes.float64 if any_float else dtypes.int64)
    if any_float:
        n = math.ceil((float(hi) - float(lo)) / float(st))
    else:
        n = -(-(int(hi) - int(lo)) // int(st))
    n = builtins.max(n, 0)
    # Computed in the result dtype unless that would lose the fractions of
    # float arguments (NumPy's arange with an integer dtype truncates).
    work = dtypes.float64 if any_float and not dtypes.is_float(dt) else dt
    out: Any = lax.iota(work, n)
    if st != 1:
        out = lax.mul(out, _full((n,), st, work))
    if lo != 0:
        out = lax.add(out, _full((n,), lo, work))
    return out if work == dt else lax.convert_element_type(out, dt)


def linspace(
    start: ArrayLike,
    stop: ArrayLike,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: Any = None,
    axis: int = 0,
) -> Any:
    """``num`` evenly spaced values from ``start`` to ``stop`` (NumPy's algorithm).

    ``start`` and ``stop`` may be traced arrays; ``num`` is static.

    >>> linspace(0.0, 1.0, 5)
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"linspace: number of samples, {num}, must be non-negative")
    (lo, hi, _), dt, _ = _promote("linspace", start, stop, float(num), inexact=True)
    lo, hi = _as_result(lo), _as_result(hi)
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
    out_dt = _dtype_arg(dtype)
    if out_dt is not None and out_dt != dt:
        y = asarray(floor(y) if dtypes.is_integer(out_dt) else y, out_dt)
    return (y, step) if retstep else y


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Array:
    """The ``N x M`` matrix with ones on diagonal ``k``, built from two ``iota``.

    >>> eye(2, 3, k=1, dtype=int32)
    array([[0, 1, 0],
           [0, 0, 1]], dtype=int32)
    """
    n = operator.index(N)
    m = n if M is None else operator.index(M)
    k = operator.index(k)
    dt = _dtype_arg(dtype) or dtypes.float64
    rows: Any = lax.iota(dtypes.int64, n)
    if k:
        rows = lax.add(rows, _full((n,), k, dtypes.int64))
    rows = lax.broadcast_in_dim(rows, (n, m), (0,))
    cols = lax.broadcast_in_dim(lax.iota(dtypes.int64, m), (n, m), (1,))
    mask = lax.eq(rows, cols)
    return mask if dt == dtypes.bool_ else lax.convert_element_type(mask, dt)


# --- element-wise arithmetic ------------------------------------------------------


def add(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 + x2`` with broadcasting (booleans: logical or, as NumPy).

    >>> add(np.ones(2, np.float32), 2.0)
    array([3., 3.], dtype=float32)
    """
    (a, b), dt, _ = _promote("add", x1, x2)
    return _bind(lax.or_p if dt == dtypes.bool_ else lax.add_p, a, b)


def subtract(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 - x2`` with broadcasting."""
    (a, b), dt, _ = _promote("subtract", x1, x2)
    if dt == dtypes.bool_:
        raise TypeError("subtract: boolean subtraction is not supported (NumPy's rule)")
    return _bind(lax.sub_p, a, b)


def multiply(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 * x2`` with broadcasting (booleans: logical and, as NumPy)."""
    (a, b), dt, _ = _promote("multiply", x1, x2)
    return _bind(lax.and_p if dt == dtypes.bool_ else lax.mul_p, a, b)


def divide(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise true division ``x1 / x2``; integers and booleans divide as float64.

    >>> divide(np.array([1, 2]), 4)
    array([0.25, 0.5 ])
    """
    (a, b), _, _ = _promote("divide", x1, x2, inexact=True)
    return _bind(lax.div_p, a, b)


true_divide = divide


def _floor_divide(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``x1 // x2``, rounding toward minus infinity (NumPy's ``floor_divide``)."""
    (a, b), dt, _ = _promote("floor_divide", x1, x2)
    if dt == dtypes.bool_:
        a, b = _cast(a, dtypes.int8), _cast(b, dtypes.int8)  # NumPy's loop for booleans
    if dtypes.is_float(dt):
        return _float_divmod(a, b)[0]
    # lax.div truncates toward zero: one less where the division was inexact
    # and the operands' signs differ.
    q = _bind(lax.div_p, a, b)
    if dt.kind == "u":
        return q
    zero = lax.full_like(q, 0)
    r = lax.rem(a, b)
    fix = lax.and_(lax.ne(r, zero), lax.ne(lax.lt(r, zero), lax.lt(b, zero)))
    return lax.select(fix, lax.sub(q, lax.full_like(q, 1)), q)


def _remainder(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``x1 % x2`` with the sign of ``x2`` (NumPy's ``remainder``)."""
    (a, b), dt, _ = _promote("remainder", x1, x2)
    if dt == dtypes.bool_:
        a, b = _cast(a, dtypes.int8), _cast(b, dtypes.int8)
    if dtypes.is_float(dt):
        return _float_divmod(a, b)[1]
    r = _bind(lax.rem_p, a, b)
    if dt.kind == "u":
        return r
    zero = lax.full_like(r, 0)
    fix = lax.and_(lax.ne(r, zero), lax.ne(lax.lt(r, zero), lax.lt(b, zero)))
    return lax.select(fix, lax.add(r, b), r)


def _float_divmod(a: Any, b: Any) -> tuple[Array, Array]:
    # JAX's formulation: from fmod, then move the remainder to the divisor's sign.
    mod = lax.rem(a, b)
    div = lax.div(lax.sub(a, mod), b)
    zero = lax.full_like(mod, 0)
    fix = lax.and_(lax.ne(mod, zero), lax.ne(lax.lt(b, zero), lax.lt(mod, zero)))
    mod = lax.select(fix, lax.add(mod, b), mod)
    div = lax.select(fix, lax.sub(div, lax.full_like(div, 1)), div)
    return lax.round(div, lax.ROUND_TO_NEAREST_EVEN), mod


def _is_static_int(x: Any) -> bool:
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, (int, np.integer)):
        return True
    return isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "iu"


def power(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 ** x2`` with broadcasting.

    A static integer exponent becomes ``integer_pow`` (exact for integers, and
    differentiable at negative bases); integer arrays are raised to traced
    integer exponents by binary exponentiation over the exponent's low 6 bits
    (as JAX: any larger exponent overflows unless the base is 0 or +-1).

    >>> power(np.array([1.5, 2.0]), 2)
    array([2.25, 4.  ])
    """
    if _is_static_int(x2):
        base = _value(x1)
        dt, weak = _result_type(base, _value(x2))
        y = int(x2)
        if not dtypes.is_float(dt) and y < 0:
            raise ValueError("power: integers to negative integer powers are not allowed")
        if dt == dtypes.bool_:
            dt = dtypes.int8  # NumPy's loop for booleans
        return _bind(lax.integer_pow_p, _cast(base, dt, weak), y=y)
    (a, b), dt, _ = _promote("power", x1, x2)
    if dtypes.is_float(dt):
        return _bind(lax.pow_p, a, b)
    if dt == dtypes.bool_:
        a, b = _cast(a, dtypes.int8), _cast(b, dtypes.int8)
    a, b = _as_result(a), _as_result(b)
    zero, one = lax.full_like(a, 0), lax.full_like(a, 1)
    # pow(0, y) is 0 for y != 0 and 1 for y == 0.
    acc = lax.select(lax.and_(lax.eq(a, zero), lax.ne(b, zero)), zero, one)
    for _ in range(6):
        acc = lax.select(lax.ne(lax.and_(b, one), zero), lax.mul(acc, a), acc)
        a = lax.mul(a, a)
        b = lax.div(b, lax.full_like(b, 2))
    return acc


def negative(x: ArrayLike) -> Array:
    """Element-wise ``-x``."""
    v = _value(x)
    if get_aval(v).dtype == dtypes.bool_:
        raise TypeError("negative: the boolean negative is not supported; use logical_not")
    return _bind(lax.neg_p, v)


def abs(x: ArrayLike) -> Array:
    """Element-wise absolute value (booleans and unsigned integers are unchanged)."""
    v = _value(x)
    if get_aval(v).dtype.kind in "bu":
        return _as_result(v)
    return _bind(lax.abs_p, v)


def sign(x: ArrayLike) -> Array:
    """Element-wise sign: -1, 0 or +1 (NaN stays NaN)."""
    v = _value(x)
    if get_aval(v).dtype == dtypes.bool_:
        raise TypeError("sign: booleans have no sign (NumPy's rule)")
    return _bind(lax.sign_p, v)


def _inexact_unary(prim: Primitive, x: ArrayLike) -> Array:
    v = _value(x)
    aval = get_aval(v)
    if not dtypes.is_float(aval.dtype):
        v = _cast(v, dtypes.float64, aval.weak_type)
    return _bind(prim, v)


def exp(x: ArrayLike) -> Array:
    """Element-wise exponential; integers and booleans give float64.

    >>> exp(np.array([0, 1]))
    array([1.        , 2.71828183])
    """
    return _inexact_unary(lax.exp_p, x)


def log(x: ArrayLike) -> Array:
    """Element-wise natural logarithm."""
    return _inexact_unary(lax.log_p, x)


def log1p(x: ArrayLike) -> Array:
    """Element-wise ``log(1 + x)``, accurate near 0."""
    return _inexact_unary(lax.log1p_p, x)


def sqrt(x: ArrayLike) -> Array:
    """Element-wise square root."""
    return _inexact_unary(lax.sqrt_p, x)


def sin(x: ArrayLike) -> Array:
    """Element-wise sine."""
    return _inexact_unary(lax.sin_p, x)


def cos(x: ArrayLike) -> Array:
    """Element-wise cosine."""
    return _inexact_unary(lax.cos_p, x)


def tan(x: ArrayLike) -> Array:
    """Element-wise tangent."""
    return _inexact_unary(lax.tan_p, x)


def tanh(x: ArrayLike) -> Array:
    """Element-wise hyperbolic tangent."""
    return _inexact_unary(lax.tanh_p, x)


def _rounding(prim: Primitive, x: ArrayLike, **params: Any) -> Array:
    v = _value(x)
    if not dtypes.is_float(get_aval(v).dtype):
        return _as_result(v)  # integers are already whole (NumPy 2 keeps their dtype)
    return _bind(prim, v, **params)


def floor(x: ArrayLike) -> Array:
    """Element-wise floor; integer and boolean inputs are returned unchanged (NumPy 2)."""
    return _rounding(lax.floor_p, x)


def ceil(x: ArrayLike) -> Array:
    """Element-wise ceiling; integer and boolean inputs are returned unchanged (NumPy 2)."""
    return _rounding(lax.ceil_p, x)


def round(a: ArrayLike, decimals: int = 0) -> Array:
    """Rounds to ``decimals`` places, halves to even (NumPy's ``round``).

    >>> round(np.array([0.5, 1.5, 2.5, 1.234]), 1)
    array([0.5, 1.5, 2.5, 1.2])
    """
    decimals = operator.index(decimals)
    v = _value(a)
    dt = get_aval(v).dtype
    if not dtypes.is_float(dt):
        if decimals >= 0:
            return _as_result(v)
        # NumPy rounds integers to tens, hundreds, ... through floats as well.
        factor = 10.0 ** (-decimals)
        as_float = _cast(v, dtypes.float64)
        scaled = _rounding(lax.round_p, divide(as_float, factor), rounding_method=1)
        return asarray(multiply(scaled, factor), dt)
    even = {"rounding_method": lax.ROUND_TO_NEAREST_EVEN}
    if decimals == 0:
        return _rounding(lax.round_p, v, **even)
    # NumPy's order of operations, so that results agree to the last bit.
    if decimals > 0:
        factor = 10.0**decimals
        return divide(_rounding(lax.round_p, multiply(v, factor), **even), factor)
    factor = 10.0 ** (-decimals)
    return multiply(_rounding(lax.round_p, divide(v, factor), **even), factor)


def maximum(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise maximum with broadcasting; NaN propagates."""
    (a, b), _, _ = _promote("maximum", x1, x2)
    return _bind(lax.max_p, a, b)


def minimum(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise minimum with broadcasting; NaN propagates."""
    (a, b), _, _ = _promote("minimum", x1, x2)
    return _bind(lax.min_p, a, b)


def clip(
    a: ArrayLike,
    a_min: ArrayLike = None,
    a_max: ArrayLike = None,
    *,
    min: ArrayLike = None,
    max: ArrayLike = None,
) -> Array:
    """``a`` limited to ``[a_min, a_max]`` (either may be None; ``min=``/``max=`` as NumPy 2).

    >>> clip(np.array([-2, 0, 5]), 0, 3)
    array([0, 0, 3])
    """
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    if (a_min is not None and min is not None) or (a_max is not None and max is not None):
        raise TypeError("clip: pass a_min/a_max or min/max, not both")
    out = _value(a)
    if lo is not None:
        out = maximum(out, lo)
    if hi is not None:
        out = minimum(out, hi)
    return _as_result(out)


def where(condition: ArrayLike, x: ArrayLike = None, y: ArrayLike = None) -> Array:
    """Element-wise ``x if condition else y`` with broadcasting of all three.

    The one-argument form (indices of nonzeros) has a data-dependent shape
    and is not supported.

    >>> where(np.array([True, False]), 1.0, np.array([5.0, 6.0]))
    array([1., 6.])
    """
    if x is None or y is None:
        if x is None and y is None:
            raise NotImplementedError(
                "where(condition) returns indices of data-dependent shape; "
                "didax supports only where(condition, x, y)"
            )
        raise ValueError("where: either both or neither of x and y must be given")
    c = _value(condition)
    if get_aval(c).dtype != dtypes.bool_:
        c = not_equal(c, 0)
    (a, b), _, _ = _promote("where", x, y)
    shape = _broadcast_shapes("where", get_aval(c).shape, get_aval(a).shape)
    c = _broadcast(_cast(c, dtypes.bool_), shape)
    a, b = _broadcast(a, shape), _broadcast(b, shape)
    return _bind(lax.select_p, c, a, b)


# --- comparisons and logic ---------------------------------------------------------


def _compare(name: str, prim: Primitive, x1: ArrayLike, x2: ArrayLike) -> Array:
    (a, b), _, _ = _promote(name, x1, x2)
    return _bind(prim, a, b)


def equal(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 == x2`` (compared in the promoted dtype)."""
    return _compare("equal", lax.eq_p, x1, x2)


def not_equal(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 != x2``."""
    return _compare("not_equal", lax.ne_p, x1, x2)


def less(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 < x2``.

    >>> less(np.array([1, 2, 3]), 2.5)
    array([ True,  True, False])
    """
    return _compare("less", lax.lt_p, x1, x2)


def less_equal(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 <= x2``."""
    return _compare("less_equal", lax.le_p, x1, x2)


def greater(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 > x2``."""
    return _compare("greater", lax.gt_p, x1, x2)


def greater_equal(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 >= x2``."""
    return _compare("greater_equal", lax.ge_p, x1, x2)


def _truth(x: ArrayLike) -> Any:
    v = _value(x)
    if get_aval(v).dtype == dtypes.bool_:
        return v
    if is_python_scalar(v):
        return np.asarray(bool(v))
    return not_equal(v, 0)


def logical_and(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise truth of ``x1 and x2`` (nonzero is true)."""
    (a, b), _, _ = _promote("logical_and", _truth(x1), _truth(x2))
    return _bind(lax.and_p, a, b)


def logical_or(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise truth of ``x1 or x2`` (nonzero is true)."""
    (a, b), _, _ = _promote("logical_or", _truth(x1), _truth(x2))
    return _bind(lax.or_p, a, b)


def logical_not(x: ArrayLike) -> Array:
    """Element-wise truth of ``not x`` (nonzero is true)."""
    return _bind(lax.not_p, _truth(x))


def _bitwise(name: str, prim: Primitive, x1: ArrayLike, x2: ArrayLike) -> Array:
    (a, b), dt, _ = _promote(name, x1, x2)
    if dtypes.is_float(dt):
        raise TypeError(f"{name}: not supported for floating-point operands ({dt})")
    return _bind(prim, a, b)


def _invert(x: ArrayLike) -> Array:
    v = _value(x)
    if dtypes.is_float(get_aval(v).dtype):
        raise TypeError(f"invert: not supported for floating-point operands ({get_aval(v).dtype})")
    return _bind(lax.not_p, v)


# --- reductions ---------------------------------------------------------------------


def _axes(axis: int | Sequence[int] | None, ndim: int, name: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    raw = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    out = []
    for a in raw:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(a, ndim)
        out.append(a % ndim if ndim else a)
    if len(set(out)) != len(out):
        raise ValueError(f"{name}: duplicate value in 'axis': {axis}")
    return tuple(sorted(out))


def _accumulator_dtype(dtype: DType) -> DType:
    # NumPy sums and multiplies booleans and small integers in the default
    # integer of their signedness.
    if dtype == dtypes.bool_ or (dtype.kind == "i" and dtype.itemsize < 8):
        return dtypes.int64
    if dtype.kind == "u" and dtype.itemsize < 8:
        return dtypes.uint64
    return dtype


def _reduce(
    name: str,
    reducer: Callable[[Any, tuple[int, ...]], Any],
    a: ArrayLike,
    axis: int | Sequence[int] | None,
    keepdims: bool,
    dtype: DType | None,
    needs_identity: bool = False,
) -> Array:
    v = _value(a)
    aval = get_aval(v)
    axes = _axes(axis, aval.ndim, name)
    if dtype is not None:
        v = _cast(v, dtype, weak=aval.weak_type and dtype == aval.dtype)
    if needs_identity and builtins.any(aval.shape[i] == 0 for i in axes):
        raise ValueError(f"{name}: zero-size array to reduction operation which has no identity")
    out = reducer(v, axes) if axes else _as_result(v)
    return lax.expand_dims(out, axes) if keepdims and axes else out


def sum(
    a: ArrayLike,
    axis: int | Sequence[int] | None = None,
    dtype: Any = None,
    keepdims: bool = False,
) -> Array:
    """Sum over ``axis`` (all axes by default); booleans and small integers sum in int64.

    >>> sum(np.array([[1, 2], [3, 4]], np.int32), axis=0)
    array([4, 6])
    """
    dt = _dtype_arg(dtype) or _accumulator_dtype(get_aval(_value(a)).dtype)
    return _reduce("sum", lax.reduce_sum, a, axis, keepdims, dt)


def prod(
    a: ArrayLike,
    axis: int | Sequence[int] | None = None,
    dtype: Any = None,
    keepdims: bool = False,
) -> Array:
    """Product over ``axis``; booleans and small integers multiply in int64."""
    dt = _dtype_arg(dtype) or _accumulator_dtype(get_aval(_value(a)).dtype)
    return _reduce("prod", lax.reduce_prod, a, axis, keepdims, dt)


def max(a: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Array:
    """Maximum over ``axis``; NaN propagates; an empty reduction is an error."""
    return _reduce("max", lax.reduce_max, a, axis, keepdims, None, needs_identity=True)


def min(a: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Array:
    """Minimum over ``axis``; NaN propagates; an empty reduction is an error."""
    return _reduce("min", lax.reduce_min, a, axis, keepdims, None, needs_identity=True)


def mean(
    a: ArrayLike,
    axis: int | Sequence[int] | None = None,
    dtype: Any = None,
    keepdims: bool = False,
) -> Array:
    """Arithmetic mean over ``axis``; integers and booleans average in float64.

    >>> mean(np.array([[1, 2], [3, 5]]), axis=1)
    array([1.5, 4. ])
    """
    v = _value(a)
    aval = get_aval(v)
    out_dt = _dtype_arg(dtype) or (aval.dtype if dtypes.is_float(aval.dtype) else dtypes.float64)
    # float16 accumulates in float32, as NumPy does.
    work = dtypes.float32 if out_dt == dtypes.float16 else out_dt
    axes = _axes(axis, aval.ndim, "mean")
    count = int(np.prod([aval.shape[i] for i in axes], dtype=np.int64))
    total = sum(v, axis=axes, dtype=work, keepdims=keepdims)
    out = divide(total, float(count))
    return asarray(out, out_dt) if get_aval(out).dtype != out_dt else out


def _arg_reduce(
    name: str,
    reducer: Callable[[Any, int], Any],
    a: ArrayLike,
    axis: int | None,
    keepdims: bool,
) -> Array:
    v = _value(a)
    aval = get_aval(v)
    if axis is None:
        if aval.size == 0:
            raise ValueError(f"{name}: attempt to get {name} of an empty sequence")
        out = reducer(ravel(v), 0)
        return reshape(out, (1,) * aval.ndim) if keepdims else out
    (ax,) = _axes(axis, aval.ndim, name)
    if aval.shape[ax] == 0:
        raise ValueError(f"{name}: attempt to get {name} of an empty sequence")
    out = reducer(_as_result(v), ax)
    return lax.expand_dims(out, (ax,)) if keepdims else out


def argmax(a: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index (int64) of the first maximum along ``axis``, or in the flattened array."""
    return _arg_reduce("argmax", lax.argmax, a, axis, keepdims)


def argmin(a: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Array:
    """Index (int64) of the first minimum along ``axis``, or in the flattened array."""
    return _arg_reduce("argmin", lax.argmin, a, axis, keepdims)


def cumsum(a: ArrayLike, axis: int | None = None, dtype: Any = None) -> Array:
    """Inclusive cumulative sum along ``axis`` (of the flattened array by default).

    >>> cumsum(np.array([[1, 2], [3, 4]]), axis=1)
    array([[1, 3],
           [3, 7]])
    """
    v = _value(a)
    if axis is None:
        v, axis = ravel(v), 0
    aval = get_aval(v)
    dt = _dtype_arg(dtype) or _accumulator_dtype(aval.dtype)
    (ax,) = _axes(axis, aval.ndim, "cumsum")
    return lax.cumsum(_as_result(_cast(v, dt)), ax)


# --- linear algebra -------------------------------------------------------------------


def _dot_general(a: Any, b: Any, dims: lax.DotDimensionNumbers, dt: DType) -> Array:
    """``lax.dot_general`` of operands already of dtype ``dt``; booleans as NumPy (any of ands)."""
    if dt == dtypes.bool_:
        ai, bi = _cast(a, dtypes.int64), _cast(b, dtypes.int64)
        return not_equal(lax.dot_general(ai, bi, dims), 0)
    return lax.dot_general(a, b, dims)


def _promote_no_broadcast(name: str, *args: ArrayLike) -> tuple[list[Any], DType]:
    vals = [_value(x) for x in args]
    dt, weak = _result_type(*vals)
    return [_as_result(_cast(v, dt, weak)) for v in vals], dt


def dot(a: ArrayLike, b: ArrayLike) -> Array:
    """NumPy's ``dot``: contracts ``a``'s last axis with ``b``'s second-to-last (or only) axis.

    >>> dot(np.array([[1.0, 2.0]]), np.array([3.0, 4.0]))
    array([11.])
    """
    (x, y), dt = _promote_no_broadcast("dot", a, b)
    ax, bx = get_aval(x), get_aval(y)
    if ax.ndim == 0 or bx.ndim == 0:
        return multiply(x, y)
    rc = 0 if bx.ndim == 1 else bx.ndim - 2
    if ax.shape[-1] != bx.shape[rc]:
        raise ValueError(
            f"dot: shapes {ax.shape} and {bx.shape} not aligned: "
            f"{ax.shape[-1]} (dim {ax.ndim - 1}) != {bx.shape[rc]} (dim {rc})"
        )
    return _dot_general(x, y, (((ax.ndim - 1,), (rc,)), ((), ())), dt)


def matmul(a: ArrayLike, b: ArrayLike) -> Array:
    """NumPy's ``matmul`` (``@``): batched matrix product with broadcast batch axes.

    >>> matmul(np.ones((2, 1, 6, 3)), np.ones((4, 3, 5))).shape
    (2, 4, 6, 5)
    """
    (x, y), dt = _promote_no_broadcast("matmul", a, b)
    ax, bx = get_aval(x), get_aval(y)
    if ax.ndim == 0 or bx.ndim == 0:
        raise ValueError("matmul: operands must not be scalars (use multiply)")
    lc, rc = ax.ndim - 1, builtins.max(bx.ndim - 2, 0)
    if ax.shape[lc] != bx.shape[rc]:
        raise ValueError(
            f"matmul: mismatch in its core dimension: {ax.shape} @ {bx.shape} "
            f"({ax.shape[lc]} != {bx.shape[rc]})"
        )
    if bx.ndim <= 2:
        # b has no batch axes: a's leading axes are free axes of one dot_general.
        return _dot_general(x, y, (((lc,), (rc,)), ((), ())), dt)
    if ax.ndim <= 2:
        # (n, k) @ (..., k, m): the dot_general result is (n, ..., m).
        out = _dot_general(x, y, (((lc,), (rc,)), ((), ())), dt)
        if ax.ndim == 1:
            return out
        perm = (*range(1, bx.ndim - 1), 0, bx.ndim - 1)
        return lax.transpose(out, perm)
    batch = _broadcast_shapes("matmul", ax.shape[:-2], bx.shape[:-2])
    x = _broadcast(x, batch + ax.shape[-2:])
    y = _broadcast(y, batch + bx.shape[-2:])
    nb = len(batch)
    return _dot_general(x, y, (((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb)))), dt)


def outer(a: ArrayLike, b: ArrayLike) -> Array:
    """``outer(a, b)[i, j] = ravel(a)[i] * ravel(b)[j]``."""
    x, y = ravel(a), ravel(b)
    return multiply(reshape(x, (-1, 1)), reshape(y, (1, -1)))


def einsum(subscripts: str, *operands: ArrayLike) -> Array:
    """Two-operand Einstein summation, e.g. ``einsum("bij,bjk->bik", x, y)``.

    Letters in both operands and in the output are batch axes, letters in
    both operands only are contracted, and letters of one operand missing
    from the output are summed first. Ellipses, repeated letters within an
    operand and other operand counts raise ``NotImplementedError``.

    >>> einsum("ij,jk", np.eye(2), np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([[1., 2.],
           [3., 4.]])
    """
    if len(operands) != 2:
        raise NotImplementedError(f"einsum: only two operands are supported, got {len(operands)}")
    spec = subscripts.replace(" ", "")
    if "." in spec:
        raise NotImplementedError("einsum: ellipsis ('...') is not supported")
    inputs, arrow, out_spec = spec.partition("->")
    parts = inputs.split(",")
    if len(parts) != 2:
        raise ValueError(f"einsum: {subscripts!r} names {len(parts)} operands, 2 were given")
    ls, rs = parts
    for s in (ls, rs, out_spec):
        if not builtins.all(c in string.ascii_letters for c in s):
            raise ValueError(f"einsum: invalid subscript in {subscripts!r}")
    for s in (ls, rs):
        if len(set(s)) != len(s):
            raise NotImplementedError(
                f"einsum: repeated subscripts within one operand ({s!r}: diagonals) "
                "are not supported"
            )
    if not arrow:
        # NumPy's implicit output: the letters that appear once, in order.
        counts = {c: (ls + rs).count(c) for c in ls + rs}
        out_spec = "".join(sorted(c for c, n in counts.items() if n == 1))
    if len(set(out_spec)) != len(out_spec):
        raise ValueError(f"einsum: output subscript {out_spec!r} repeats a letter")
    for c in out_spec:
        if c not in ls and c not in rs:
            raise ValueError(f"einsum: output subscript {c!r} does not appear in the inputs")
    (x, y), dt = _promote_no_broadcast("einsum", *operands)
    for s, v, side in ((ls, x, "first"), (rs, y, "second")):
        if len(s) != get_aval(v).ndim:
            raise ValueError(
                f"einsum: {s!r} has {len(s)} letters but the {side} operand has rank "
                f"{get_aval(v).ndim}"
            )
    sizes: dict[str, int] = {}
    for s, v in ((ls, x), (rs, y)):
        for c, n in zip(s, get_aval(v).shape, strict=True):
            if sizes.setdefault(c, n) != n:
                raise ValueError(f"einsum: letter {c!r} has sizes {sizes[c]} and {n}")

    # Letters of one operand only and not in the output are summed out first.
    def drop_lone(s: str, v: Any, other: str) -> tuple[str, Any]:
        lone = tuple(i for i, c in enumerate(s) if c not in other and c not in out_spec)
        if not lone:
            return s, v
        return "".join(c for i, c in enumerate(s) if i not in lone), sum(v, axis=lone, dtype=dt)

    ls, x = drop_lone(ls, x, rs)
    rs, y = drop_lone(rs, y, ls)
    batch = [c for c in ls if c in rs and c in out_spec]
    contract = [c for c in ls if c in rs and c not in out_spec]
    dims = (
        (tuple(ls.index(c) for c in contract), tuple(rs.index(c) for c in contract)),
        (tuple(ls.index(c) for c in batch), tuple(rs.index(c) for c in batch)),
    )
    out = _dot_general(x, y, dims, dt)
    got = (
        "".join(batch)
        + "".join(c for c in ls if c not in rs)
        + "".join(c for c in rs if c not in ls)
    )
    perm = tuple(got.index(c) for c in out_spec)
    return lax.transpose(out, perm) if perm != tuple(range(len(perm))) else out


# --- shapes -----------------------------------------------------------------------------


def transpose(a: ArrayLike, axes: Sequence[int] | None = None) -> Array:
    """Permutes axes (reverses them by default); result axis i is ``a``'s axis ``axes[i]``."""
    v = _as_result(_value(a))
    nd = get_aval(v).ndim
    perm = tuple(reversed(range(nd))) if axes is None else tuple(operator.index(i) for i in axes)
    if len(perm) != nd:
        raise ValueError(f"transpose: axes {axes} don't match an array of rank {nd}")
    perm = tuple(p % nd if -nd <= p < nd else p for p in perm)
    if sorted(perm) != list(range(nd)):
        raise ValueError(f"transpose: axes {axes} are not a permutation of {nd} axes")
    return v if perm == tuple(range(nd)) else lax.transpose(v, perm)


def swapaxes(a: ArrayLike, axis1: int, axis2: int) -> Array:
    """``a`` with axes ``axis1`` and ``axis2`` exchanged."""
    v = _value(a)
    nd = get_aval(v).ndim
    (i,), (j,) = _axes(axis1, nd, "swapaxes"), _axes(axis2, nd, "swapaxes")
    perm = list(range(nd))
    perm[i], perm[j] = j, i
    return transpose(v, perm)


def _as_sequence(x: int | Sequence[int]) -> Sequence[int]:
    return (x,) if isinstance(x, (int, np.integer)) else x


def moveaxis(a: ArrayLike, source: int | Sequence[int], destination: int | Sequence[int]) -> Array:
    """``a`` with axes ``source`` moved to positions ``destination``, the others in order."""
    v = _value(a)
    nd = get_aval(v).ndim
    src = [operator.index(s) for s in _as_sequence(source)]
    dst = [operator.index(d) for d in _as_sequence(destination)]
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination must have the same number of axes")
    src_n = [_axes(s, nd, "moveaxis")[0] for s in src]
    dst_n = [_axes(d, nd, "moveaxis")[0] for d in dst]
    if len(set(src_n)) != len(src_n) or len(set(dst_n)) != len(dst_n):
        raise ValueError("moveaxis: repeated axis")
    order = [i for i in range(nd) if i not in src_n]
    for d, s in sorted(zip(dst_n, src_n, strict=True)):
        order.insert(d, s)
    return transpose(v, order)


def reshape(a: ArrayLike, shape: int | Sequence[int], order: str = "C") -> Array:
    """``a`` with a new shape of the same size; one entry may be -1 (inferred).

    >>> reshape(np.arange(6), (2, -1))
    array([[0, 1, 2],
           [3, 4, 5]])
    """
    if order != "C":
        raise NotImplementedError(f"reshape: only order='C' is supported, got {order!r}")
    v = _as_result(_value(a))
    aval = get_aval(v)
    dims = [operator.index(d) for d in _as_sequence(shape)]
    unknown = [i for i, d in enumerate(dims) if d == -1]
    if len(unknown) > 1 or builtins.any(d < -1 for d in dims):
        raise ValueError(f"reshape: invalid shape {tuple(dims)}")
    if unknown:
        known = math.prod(d for d in dims if d != -1)
        if known == 0 or aval.size % known:
            raise ValueError(f"cannot reshape array of size {aval.size} into shape {tuple(dims)}")
        dims[unknown[0]] = aval.size // known
    new = tuple(dims)
    if math.prod(new) != aval.size:
        raise ValueError(f"cannot reshape array of size {aval.size} into shape {new}")
    return v if new == aval.shape else lax.reshape(v, new)


def ravel(a: ArrayLike) -> Array:
    """``a`` flattened to one axis (row-major)."""
    return reshape(a, (-1,))


def broadcast_to(array: ArrayLike, shape: int | Sequence[int]) -> Array:
    """``array`` broadcast to ``shape`` by NumPy's rule.

    >>> broadcast_to(np.array([1, 2]), (2, 2))
    array([[1, 2],
           [1, 2]])
    """
    v = _value(array)
    return _as_result(_broadcast(v, _shape_arg(shape)))


def expand_dims(a: ArrayLike, axis: int | Sequence[int]) -> Array:
    """``a`` with size-1 axes inserted at positions ``axis`` of the result."""
    v = _as_result(_value(a))
    n_new = 1 if isinstance(axis, (int, np.integer)) else len(axis)
    axes = _axes(axis, get_aval(v).ndim + n_new, "expand_dims")
    return lax.expand_dims(v, axes)


def squeeze(a: ArrayLike, axis: int | Sequence[int] | None = None) -> Array:
    """``a`` without its size-1 axes (all of them, or those in ``axis``)."""
    v = _as_result(_value(a))
    aval = get_aval(v)
    if axis is None:
        axes = tuple(i for i, s in enumerate(aval.shape) if s == 1)
    else:
        axes = _axes(axis, aval.ndim, "squeeze")
        if builtins.any(aval.shape[i] != 1 for i in axes):
            raise ValueError(
                "squeeze: cannot select an axis to squeeze out which has size not equal to one"
            )
    return lax.squeeze(v, axes) if axes else v


def concatenate(arrays: Sequence[ArrayLike], axis: int | None = 0, dtype: Any = None) -> Array:
    """``arrays`` joined along an existing ``axis`` (flattened first when ``axis`` is None).

    >>> concatenate([np.zeros(2, np.float32), np.array([1, 2])]).dtype
    dtype('float64')
    """
    if len(arrays) == 0:
        raise ValueError("concatenate: need at least one array to concatenate")
    vals = [_value(x) for x in arrays]
    if axis is None:
        vals, axis = [ravel(v) for v in vals], 0
    dt, weak = _result_type(*vals)
    dt = _dtype_arg(dtype) or dt
    vals = [_as_result(_cast(v, dt, weak)) for v in vals]
    nd = get_aval(vals[0]).ndim
    if nd == 0:
        raise ValueError("concatenate: zero-dimensional arrays cannot be concatenated")
    (ax,) = _axes(axis, nd, "concatenate")
    for v in vals:
        s, s0 = get_aval(v).shape, get_aval(vals[0]).shape
        if len(s) != nd or builtins.any(
            p != q for i, (p, q) in enumerate(zip(s, s0, strict=True)) if i != ax
        ):
            raise ValueError(
                f"concatenate: all input array dimensions except for the concatenation axis "
                f"must match, got shapes {s0} and {s}"
            )
    return vals[0] if len(vals) == 1 else lax.concatenate(vals, ax)


def stack(arrays: Sequence[ArrayLike], axis: int = 0, dtype: Any = None) -> Array:
    """``arrays`` (of one shape) joined along a new ``axis``.

    >>> stack([np.array([1, 2]), np.array([3, 4])], axis=1)
    array([[1, 3],
           [2, 4]])
    """
    if len(arrays) == 0:
        raise ValueError("stack: need at least one array to stack")
    vals = [_value(x) for x in arrays]
    shapes = {get_aval(v).shape for v in vals}
    if len(shapes) != 1:
        raise ValueError(f"stack: all input arrays must have the same shape, got {shapes}")
    (ax,) = _axes(axis, get_aval(vals[0]).ndim + 1, "stack")
    dt, weak = _result_type(*vals)
    dt = _dtype_arg(dtype) or dt
    expanded = [lax.expand_dims(_as_result(_cast(v, dt, weak)), (ax,)) for v in vals]
    return concatenate(expanded, axis=ax)


# --- indexing -------------------------------------------------------------------------


def _unsupported_index(i: Any) -> Exception:
    if isinstance(i, (bool, np.bool_)) or (
        isinstance(i, (Tracer, np.ndarray)) and i.dtype == dtypes.bool_
    ):
        return NotImplementedError(
            "boolean (mask) indexing has a data-dependent shape and is not supported; "
            "use where(mask, x, y)"
        )
    if isinstance(i, (Tracer, np.ndarray, list, tuple)):
        shape = get_aval(i).shape if isinstance(i, (Tracer, np.ndarray)) else "a list"
        return NotImplementedError(
            f"advanced indexing with an array index ({shape}) is not supported; "
            "only integers, slices, None, Ellipsis and scalar integer tracers are"
        )
    return IndexError(
        f"only integers, slices (':'), ellipsis ('...'), None and scalar integer "
        f"tracers are valid indices, got {type(i).__name__} {i!r}"
    )


def _classify_index(i: Any) -> Any:
    """An index entry as None, Ellipsis, a slice of ints, an int, or a scalar integer tracer."""
    if i is None or i is Ellipsis:
        return i
    if isinstance(i, slice):
        for part in (i.start, i.stop, i.step):
            if isinstance(part, Tracer):
                raise NotImplementedError(
                    "slices with traced bounds have a data-dependent shape; use "
                    "lax.dynamic_slice with a static size instead"
                )
        try:
            return slice(
                *(None if p is None else operator.index(p) for p in (i.start, i.stop, i.step))
            )
        except TypeError:
            raise IndexError(f"slice indices must be integers or None, got {i}") from None
    if isinstance(i, Tracer):
        if i.ndim == 0 and dtypes.is_integer(i.dtype):
            return i
        raise _unsupported_index(i)
    if _is_static_int(i):
        return operator.index(i)
    raise _unsupported_index(i)


def _getitem(x: ArrayLike, index: Any) -> Array:
    """NumPy's basic indexing of ``x``: static ints, slices, None, Ellipsis, and
    scalar integer tracers (a ``dynamic_slice``, clamped in bounds as XLA does)."""
    v = _as_result(_value(x))
    shape = get_aval(v).shape
    items = [_classify_index(i) for i in (index if isinstance(index, tuple) else (index,))]
    if builtins.sum(i is Ellipsis for i in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = builtins.sum(i is not None and i is not Ellipsis for i in items)
    if used > len(shape):
        raise IndexError(
            f"too many indices: array is {len(shape)}-dimensional, but {used} were indexed"
        )
    fill = [slice(None)] * (len(shape) - used)
    if Ellipsis in [i for i in items if not isinstance(i, Tracer)]:
        pos = next(k for k, i in enumerate(items) if i is Ellipsis)
        items = items[:pos] + fill + items[pos + 1 :]
    else:
        items = items + fill
    starts, limits, strides = [], [], []
    reverse, drop, dynamic, new_axes = [], [], {}, []
    dim = out_pos = 0
    for item in items:
        if item is None:
            new_axes.append(out_pos)
            out_pos += 1
            continue
        n = shape[dim]
        if isinstance(item, slice):
            start, stop, step = item.indices(n)
            count = len(range(start, stop, step))
            if count == 0:
                lo = hi = 0
            elif step > 0:
                lo, hi = start, start + (count - 1) * step + 1
            else:
                # Take the same elements in increasing order, then reverse them.
                lo, hi = start + (count - 1) * step, start + 1
                if count > 1:
                    reverse.append(dim)
            starts.append(lo)
            limits.append(hi)
            strides.append(builtins.abs(step) if count > 1 else 1)
            out_pos += 1
        elif isinstance(item, Tracer):
            starts.append(0)
            limits.append(n)
            strides.append(1)
            dynamic[dim] = item
            drop.append(dim)
        else:
            if not -n <= item < n:
                raise IndexError(f"index {item} is out of bounds for axis {dim} with size {n}")
            starts.append(item % n)
            limits.append(item % n + 1)
            strides.append(1)
            drop.append(dim)
        dim += 1
    if (starts, limits, strides) != ([0] * len(shape), list(shape), [1] * len(shape)):
        v = lax.slice(v, starts, limits, strides)
    if reverse:
        v = lax.rev(v, reverse)
    if dynamic:
        v = _dynamic_index(v, dynamic)
    if drop:
        v = lax.squeeze(v, drop)
    if new_axes:
        v = lax.expand_dims(v, new_axes)
    return v


def _dynamic_index(v: Any, dynamic: dict[int, Any]) -> Array:
    """A size-1 ``dynamic_slice`` at each traced index, negative indices counted from the end."""
    shape = get_aval(v).shape
    idx_dtype, _ = _result_type(*dynamic.values())
    starts: list[Any] = []
    for d, n in enumerate(shape):
        i = dynamic.get(d)
        if i is None:
            starts.append(np.zeros((), idx_dtype))
            continue
        i = _cast(i, idx_dtype)
        if dtypes.is_signed(idx_dtype):
            zero = lax.full_like(i, 0)
            i = lax.select(lax.lt(i, zero), lax.add(i, lax.full_like(i, n)), i)
        starts.append(i)
    sizes = [1 if d in dynamic else n for d, n in enumerate(shape)]
    return lax.dynamic_slice(v, starts, sizes)


# --- methods on tracers ----------------------------------------------------------------


def _binary_operator(fn: Callable[[Any, Any], Any], reflected: bool) -> Callable[[Any, Any], Any]:
    # An operand that is not array-like gets NotImplemented, so that Python
    # tries the other operand's method (and ``tracer == None`` is False).
    if reflected:

        def method(self: Any, other: Any) -> Any:
            return fn(other, self) if _is_array_like(other) else NotImplemented

    else:

        def method(self: Any, other: Any) -> Any:
            return fn(self, other) if _is_array_like(other) else NotImplemented

    return method


def _axes_args(args: tuple[Any, ...]) -> Any:
    """``x.reshape(2, 3)`` and ``x.reshape((2, 3))`` alike (also for transpose)."""
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        return args[0]
    return args


def _tracer_iter(self: Any) -> Any:
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    return (_getitem(self, i) for i in range(self.shape[0]))


_BINARY_OPERATORS: Final[dict[str, Callable[[Any, Any], Any]]] = {
    "add": add,
    "sub": subtract,
    "mul": multiply,
    "truediv": divide,
    "floordiv": _floor_divide,
    "mod": _remainder,
    "pow": power,
    "matmul": matmul,
    "and": lambda a, b: _bitwise("bitwise_and", lax.and_p, a, b),
    "or": lambda a, b: _bitwise("bitwise_or", lax.or_p, a, b),
}

_COMPARISON_OPERATORS: Final[dict[str, Callable[[Any, Any], Any]]] = {
    "eq": equal,
    "ne": not_equal,
    "lt": less,
    "le": less_equal,
    "gt": greater,
    "ge": greater_equal,
}

_METHODS: Final[dict[str, Callable[..., Any]]] = {
    "__neg__": negative,
    "__pos__": lambda self: self,
    "__abs__": abs,
    "__invert__": _invert,
    "__getitem__": _getitem,
    "__iter__": _tracer_iter,
    "reshape": lambda self, *shape, order="C": reshape(self, _axes_args(shape), order),
    "transpose": lambda self, *axes: transpose(self, _axes_args(axes) if axes else None),
    "sum": sum,
    "prod": prod,
    "mean": mean,
    "max": max,
    "min": min,
    "argmax": argmax,
    "argmin": argmin,
    "cumsum": cumsum,
    "astype": lambda self, dtype: asarray(self, dtype),
    "ravel": ravel,
    "flatten": ravel,
    "squeeze": squeeze,
    "swapaxes": swapaxes,
    "dot": dot,
    "clip": clip,
    "round": round,
}


def _install_array_methods(cls: type) -> None:
    """Gives ``cls`` NumPy's operators and methods (JAX's ``_set_tracer_aval_forwarding``).

    Installed on ``Tracer`` and on the device ``Array``, whose layers know
    nothing of NumPy semantics.
    """
    for name, fn in _BINARY_OPERATORS.items():
        setattr(cls, f"__{name}__", _binary_operator(fn, reflected=False))
        setattr(cls, f"__r{name}__", _binary_operator(fn, reflected=True))
    for name, fn in _COMPARISON_OPERATORS.items():
        setattr(cls, f"__{name}__", _binary_operator(fn, reflected=False))
    for name, fn in _METHODS.items():
        setattr(cls, name, fn)
    cls.T = property(lambda self: transpose(self))  # type: ignore[attr-defined]
    # Defining __eq__ must not make them hashable: keep their refusal.
    assert "__hash__" in vars(cls)


_install_array_methods(Tracer)
_install_array_methods(_device.Array)
