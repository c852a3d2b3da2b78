"""Operands: how ``didax.numpy``'s arguments become arrays of one dtype and shape.

Design rules:
- ``operand`` turns an argument into something a primitive takes: a tracer
  or device array as it is (nothing is copied to the host), a Python scalar
  kept weak until the dtype it takes is known, a NumPy array checked for a
  supported dtype; a (nested) list goes through ``asarray``.
- Promotion is ``core.promotion``'s (JAX's lattice with weak Python
  scalars), shared with the ``lax`` wrappers; every conversion goes through
  ``core.promotion.convert`` (``convert_element_type``), so eager NumPy input
  and jitted code convert alike. Broadcasting is NumPy's, done here with an
  explicit ``broadcast_in_dim`` before a primitive is bound.
- Axis and shape arguments are normalised here once (``normalize_axes``,
  ``shape_arg``), with NumPy's errors.
"""

from __future__ import annotations

import builtins
import functools
import operator
import sys
import types
import warnings
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias, TypeGuard, TypeVar, cast, overload

import numpy as np

import didax.interpreters  # noqa: F401  (installs the root trace and all rules)
from didax.api.jit import jit
from didax.api.numpy.array_types import Array as Array
from didax.api.numpy.array_types import ArrayLike as ArrayLike
from didax.core import dtypes, lax, shape_poly, transfer_guard, values
from didax.core.array import Array as DidaxArray
from didax.core.basearray import HostArray, Value
from didax.core.config import config
from didax.core.dtypes import DType, DTypeLike
from didax.core.errors import ConcretizationTypeError, ShapeError
from didax.core.lax.operands import named as named
from didax.core.lax.shape_poly import dimension_as_value
from didax.core.primitive import Primitive
from didax.core.promotion import convert, result_type
from didax.core.shape_poly import is_constant_shape
from didax.core.source_info import user_frame_summary
from didax.core.trace import Tracer, current_trace
from didax.core.values import (
    ValueKind,
    as_array,
    get_aval,
    is_python_scalar,
    is_value,
    to_array,
    value_kind,
    wrap_host,
)
from didax.interpreters.evaluation import EVAL_TRACE, LARGE, eager_on_host

# What ``operand`` gives: a value that knows its type, or a weak Python scalar.
Operand: TypeAlias = Value | HostArray | values.PythonScalar


F = TypeVar("F", bound=Callable[..., Any])


def fused(fn: F) -> F:
    """``fn`` (whose arguments are all array operands) run eagerly as one compiled program.

    JAX's ``jax.numpy`` functions are jitted, so eagerly a broadcast and the
    operation after it are one fused XLA program. Here the primitives of a
    ``didax.numpy`` function run one by one, which is the fast path for the
    small arrays eager code is full of (NumPy on a CPU's host); but a
    broadcast materialised for a large operand then costs more than the
    operation (docs/performance.md). So at the root of the trace stack, a call with an
    operand of ``LARGE`` elements or more runs ``jit(fn)`` (on an
    accelerator, where every eager primitive is compiled anyway, every call
    does, as JAX's); under a transformation ``fn`` runs as it is, so staged
    programs are unchanged.
    """
    jitted = jit(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any) -> Any:
        if current_trace() is not EVAL_TRACE:
            return fn(*args)
        if eager_on_host():
            for a in args:
                t = type(a)
                if (t is DidaxArray or t is np.ndarray) and a.size >= LARGE:
                    return jitted(*args)
            return fn(*args)
        return jitted(*args)

    return cast(F, wrapper)


def dtype_arg(dtype: DTypeLike) -> DType | None:
    """A ``dtype=`` argument as a dtype (None stays None); ``dnp.float32`` works too."""
    return None if dtype is None else dtypes.canonicalize(dtype)


def contains_tracer(x: object) -> bool:
    if isinstance(x, Tracer):
        return True
    if isinstance(x, (list, tuple)):
        return builtins.any(contains_tracer(e) for e in x)
    return False


def operand(x: ArrayLike) -> Operand:
    """``x`` as an operand: a Tracer, a (weak) Python scalar, or a typed array.

    Values that know their own type (tracers, device arrays) are kept as they
    are, so that nothing is copied to the host. A list or tuple is refused,
    as by ``jax.numpy``: only ``array``/``asarray`` convert them, so no slow
    implicit conversion hides in a loop.
    """
    if type(x) is DidaxArray:
        return x
    if shape_poly.is_symbolic_dim(x):
        return cast(
            Operand, dimension_as_value(cast(shape_poly.DimExpr, x))
        )  # a symbolic size used as a number
    if isinstance(x, (list, tuple)):
        raise TypeError(
            f"{_calling_function()} requires ndarray or scalar arguments, got "
            f"{type(x).__name__} (use didax.numpy.asarray first) (at {user_frame_summary()})"
        )
    kind = value_kind(x)
    if kind is ValueKind.HOST or kind is ValueKind.FOREIGN:
        return as_array(x)  # rejects dtypes didax does not support
    # value_kind said: a tracer, a didax Array or a Python scalar.
    return cast("Value | values.PythonScalar", x)


def is_array_like(x: object) -> TypeGuard[values.ArrayLike]:
    """A value (not a list, as for JAX's operators): what the array operators accept."""
    return is_value(x) or shape_poly.is_symbolic_dim(x)


def _calling_function() -> str:
    """The didax.numpy function the user called (the outermost didax frame)."""
    frame: types.FrameType | None = sys._getframe(1)
    name = "didax.numpy"
    while frame is not None and frame.f_globals.get("__name__", "").startswith("didax."):
        if frame.f_globals["__name__"].startswith("didax.api.numpy."):
            name = frame.f_code.co_name
        frame = frame.f_back
    return name


@overload
def astype(x: Value, dtype: DType, weak: bool = False) -> Value: ...
@overload
def astype(x: values.ArrayLike, dtype: DType, weak: bool = False) -> Any: ...
def astype(x: values.ArrayLike, dtype: DType, weak: bool = False) -> Any:
    """``x`` (an operand from ``operand``) converted to ``dtype`` (``core.promotion.convert``)."""
    return convert(x, dtype, weak)


def broadcast_to_shape(x: Any, shape: tuple[int, ...]) -> Any:
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


def broadcast_shapes(name: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    # Most operations meet one shape, with scalars perhaps: no need for NumPy's rule.
    full = [s for s in shapes if s]
    if not full or all(s == full[0] for s in full[1:]):
        return full[0] if full else ()
    if len({len(s) for s in full}) > 1:
        _rank_promotion(name, shapes)
    try:
        if not all(is_constant_shape(s) for s in shapes):
            return shape_poly.broadcast_shapes(*shapes)
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        # A TypeError (ShapeError), as lax's and JAX's, pointing at the user's line.
        raise ShapeError(
            f"{name}: operands could not be broadcast together with shapes "
            + " ".join(str(s) for s in shapes)
            + f" (at {user_frame_summary()})"
        ) from None


def _rank_promotion(name: str, shapes: Sequence[tuple[int, ...]]) -> None:
    """``jax_numpy_rank_promotion``: warn of, or refuse, operands of different ranks (as JAX)."""
    mode = config.read("jax_numpy_rank_promotion")
    listed = " ".join(map(str, shapes))
    if mode == "warn":
        warnings.warn(
            f"Following NumPy automatic rank promotion for {name} on shapes {listed}. Set the "
            "jax_numpy_rank_promotion config option to 'allow' to disable this warning; for "
            "more information, see https://docs.jax.dev/en/latest/rank_promotion_warning.html.",
            stacklevel=4,
        )
    elif mode == "raise":
        raise ValueError(
            f"Operands could not be broadcast together for {name} on shapes {listed} and with "
            "the config option jax_numpy_rank_promotion='raise'. For more information, see "
            "https://docs.jax.dev/en/latest/rank_promotion_warning.html."
        )


def promote(
    name: str, *args: ArrayLike, inexact: bool = False, scalars: bool = False
) -> tuple[list[Any], DType, bool]:
    """Operands of one dtype and one shape, NumPy's broadcasting and JAX's promotion.

    With ``inexact`` a non-float result dtype becomes a float (``dtypes.to_inexact``,
    weakness kept). With ``scalars``, for a ``scalar_operands`` primitive,
    rank-0 operands stay rank-0 (JAX's ``mul x 2.0:f32[]``: no broadcast).
    Returns the operands, the dtype and whether the result is weakly typed.
    """
    vals = [operand(a) for a in args]
    avals = [get_aval(v) for v in vals]
    first = avals[0]
    if (
        not first.weak_type
        and all(a == first for a in avals[1:])
        and (not inexact or dtypes.is_float(first.dtype))
    ):
        return vals, first.dtype, False  # already of one type: nothing to do
    dtype, weak = dtypes.result_type((a.dtype, a.weak_type) for a in avals)
    if inexact:
        dtype = dtypes.to_inexact(dtype)
    shape = broadcast_shapes(name, *(a.shape for a in avals))
    return (
        [
            astype(v, dtype, weak)
            if scalars and a.shape == ()
            else broadcast_to_shape(astype(v, dtype, weak), shape)
            for v, a in zip(vals, avals, strict=True)
        ],
        dtype,
        weak,
    )


def as_result(x: object) -> Array:
    """An operand returned as a result becomes an Array (a Python scalar a weak one), as JAX's."""
    # to_array leaves float0 data (integers' tangents) on the host; no
    # operation's result is float0.
    out: Array = to_array(x)
    return out


def bind(prim: Primitive, *vals: Any, **params: Any) -> Array:
    # Operands are already of one shape and dtype; binding directly (not via
    # the lax wrapper) keeps weak Python scalars weak.
    return as_result(prim.bind(*vals, **params))


def full_of(
    shape: tuple[int, ...], value: bool | int | float, dtype: DType, weak: bool = False
) -> Array:
    scalar = wrap_host(np.asarray(value, dtype), weak)
    return scalar if shape == () else lax.broadcast_in_dim(scalar, shape, ())


def asarray(a: ArrayLike, dtype: DTypeLike = None) -> Array:
    """``a`` as an Array of ``dtype``; tracers (also inside nested lists) stay traced.

    NumPy data is copied (an Array never sees the caller's later writes); a
    Python scalar without a ``dtype`` gives a weakly typed Array, as JAX's.

    >>> asarray([1, 2.5])
    Array([1. , 2.5], dtype=float32)
    >>> asarray(np.arange(3), dtype=np.float32)
    Array([0., 1., 2.], dtype=float32)
    """
    dt = dtype_arg(dtype)
    if isinstance(a, (list, tuple)) and contains_tracer(a):
        if len(a) == 0:
            raise ValueError("asarray: an empty sequence has no dtype to stack")
        a = stack_along([asarray(e) for e in a], 0)
    if isinstance(a, (Tracer, DidaxArray)):
        aval = get_aval(a)
        if dt is None or (dt == aval.dtype and not aval.weak_type):
            return a
        out: Array = lax.convert_element_type(a, dt)
        return out
    if transfer_guard.GUARDS_IN_FORCE[0]:  # host data becomes an Array: a transfer in JAX
        values.guard_host_data(a if is_python_scalar(a) else np.asarray(a, dtype=dt))
    if is_python_scalar(a) and dt is None:
        return as_result(a)
    if dt is not None and dtypes.is_integer(dt) and not is_python_scalar(a):
        arr = np.asarray(a)
        if dtypes.is_float(arr.dtype):  # toward zero and saturating, as convert_element_type
            return as_result(astype(as_array(arr), dt))
    arr = np.asarray(a, dtype=dt)
    if arr.dtype == object and builtins.any(type(e) is int for e in arr.flat):
        raise OverflowError(
            f"asarray: a Python int in the input is too large for {dtypes.default_int()}"
        )
    if arr is a:
        arr = arr.copy()
    return wrap_host(as_array(arr))


def stack_along(values: Sequence[values.ArrayLike], axis: int, dtype: DType | None = None) -> Array:
    """Values of one shape joined along a new ``axis`` (normalised), promoted to one dtype."""
    shapes = {get_aval(v).shape for v in values}
    if len(shapes) != 1:
        raise ValueError(f"stack: all input arrays must have the same shape, got {shapes}")
    dt, weak = result_type(*values)
    dt = dtype or dt
    expanded = [lax.expand_dims(as_result(astype(v, dt, weak)), (axis,)) for v in values]
    out: Array = expanded[0] if len(expanded) == 1 else lax.concatenate(expanded, axis)
    return out


def shape_arg(shape: Any, fn: str) -> tuple[int, ...]:
    """A ``shape`` argument of ``fn`` (an int or a sequence of ints) known at trace time."""
    scalar = isinstance(shape, (int, np.integer)) or getattr(shape, "ndim", None) == 0
    dims = (shape,) if scalar else tuple(shape)
    try:
        out = tuple(operator.index(d) for d in dims)
    except ConcretizationTypeError as e:
        raise ConcretizationTypeError(
            f"the shape argument of {fn} must be concrete (static), got {shape!r}: {e}"
        ) from None
    if builtins.any(d < 0 for d in out):
        # JAX's type (a TypeError from broadcast_in_dim); NumPy's words.
        raise TypeError(f"{fn}: negative dimensions are not allowed, got shape {out}")
    return out


def static_scalar(x: Any, what: str) -> Any:
    """A concrete Python or NumPy number; a tracer must be concrete (int()/float() say why not)."""
    if isinstance(x, Tracer):
        return x.dtype.type(float(x) if dtypes.is_float(x.dtype) else int(x))
    if isinstance(x, (np.ndarray, DidaxArray)) and x.ndim == 0:
        return as_array(x)[()]
    if is_python_scalar(x) or isinstance(x, np.generic):
        return x
    raise TypeError(f"{what} must be a scalar, got {type(x).__name__}")


def is_static_int(x: object) -> bool:
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, (int, np.integer)):
        return True
    return isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "iu"


def normalize_axes(axis: int | Sequence[int] | None, ndim: int, name: str) -> tuple[int, ...]:
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


def as_sequence(x: int | Sequence[int]) -> Sequence[int]:
    return (x,) if isinstance(x, (int, np.integer)) else x


def concrete_value(x: Array, why: str) -> np.ndarray[Any, Any]:
    """``x``'s value, or a ``ConcretizationTypeError`` that says ``why`` it is needed."""
    try:
        return np.asarray(x)
    except ConcretizationTypeError as err:
        raise ConcretizationTypeError(f"{why}\n{err}") from None
