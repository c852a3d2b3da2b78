"""What a didax value is: the one place that classifies Python objects.

Design rules:
- ``value_kind`` decides, once, what kind of value an object is: a weakly
  typed Python scalar, a host NumPy array or scalar, a didax ``Array``, a
  tracer, or a foreign array read through ``__array__`` (a JAX array, ...).
  Everything else that asks "is this a value, and what is its type?"
  (``get_aval``, ``as_array``, the jit signature, ``didax.numpy``'s operand
  conversion, the transformations' argument checks) asks it, so the answer
  cannot differ from one place to another.
- The answer depends only on the object's type, so it is memoised per type:
  after the first value of a type, classifying costs one dict lookup (the
  jit cache-hit path and every traced operation pay it).
- Python scalars are weakly typed (as JAX's): ``get_aval(2.0)`` is a weak
  ``f64[]``; ``bool`` is the exception, as in JAX. Only exactly ``bool``,
  ``int`` and ``float`` are scalars (an ``IntEnum`` is not a value).
- Data entering didax is canonical: with ``jax_enable_x64`` off, 64-bit
  NumPy data becomes 32-bit where it enters (``as_array``), as in JAX.
"""

from __future__ import annotations

import enum
from typing import Any, Final, Protocol, TypeAlias, TypeGuard

import numpy as np

from didax.core import dtypes, transfer_guard
from didax.core.abstract import ShapedArray
from didax.core.array import Array, backend
from didax.core.basearray import HostArray, Value
from didax.core.trace import Tracer


class SupportsArray(Protocol):
    """An array of another library (a JAX array, ...), read through ``__array__``."""

    def __array__(self) -> np.ndarray[Any, Any]: ...


PythonScalar: TypeAlias = bool | int | float | complex
# What a primitive's operand may be. Results of eager evaluation are Arrays;
# under a transformation they are tracers: either is a ``Value``.
ArrayLike: TypeAlias = Value | HostArray | np.generic | PythonScalar | SupportsArray

PYTHON_SCALARS: Final = (bool, int, float, complex)


class ValueKind(enum.Enum):
    SCALAR = "a Python scalar"
    HOST = "a NumPy array or scalar"
    ARRAY = "a didax Array"
    TRACER = "a tracer"
    FOREIGN = "an array of another library"


_KIND_BY_TYPE: Final[dict[type, ValueKind]] = {
    bool: ValueKind.SCALAR,
    int: ValueKind.SCALAR,
    float: ValueKind.SCALAR,
    complex: ValueKind.SCALAR,
    np.ndarray: ValueKind.HOST,
    Array: ValueKind.ARRAY,
}


def _classify_type(t: type) -> ValueKind | None:
    if issubclass(t, Tracer):
        return ValueKind.TRACER
    if issubclass(t, Array):
        return ValueKind.ARRAY
    if issubclass(t, (np.ndarray, np.generic)):
        return ValueKind.HOST
    if hasattr(t, "__array__"):
        return ValueKind.FOREIGN
    return None


def kind_or_none(x: object) -> ValueKind | None:
    """The kind of value ``x`` is, or None when it is not a didax value (a cheap test)."""
    t = type(x)
    kind = _KIND_BY_TYPE.get(t)
    if kind is None:
        kind = _classify_type(t)
        if kind is not None:
            _KIND_BY_TYPE[t] = kind  # types are few; a racing write stores the same
    return kind


def value_kind(x: object) -> ValueKind:
    """The kind of value ``x`` is; ``TypeError`` if it is not a didax value.

    >>> value_kind(2.0), value_kind(np.ones(2))
    (<ValueKind.SCALAR: 'a Python scalar'>, <ValueKind.HOST: 'a NumPy array or scalar'>)
    """
    kind = kind_or_none(x)
    if kind is None:
        raise TypeError(f"{type(x).__name__} {x!r} is not a valid didax value")
    return kind


def is_value(x: object) -> bool:
    """Whether ``x`` is a didax value (an array, a scalar or a tracer)."""
    return kind_or_none(x) is not None


def is_python_scalar(x: object) -> TypeGuard[PythonScalar]:
    """Exactly a ``bool``, ``int``, ``float`` or ``complex`` (not a NumPy scalar subclass)."""
    return type(x) in PYTHON_SCALARS


def get_aval(x: object) -> ShapedArray:
    """The abstract value of any didax value: a tracer, an array, or a (weak) Python scalar.

    >>> get_aval(2.0)
    ShapedArray(f32[], weak)
    """
    if type(x) is Array:  # the hot case: eager code on Arrays
        return x.aval
    kind = value_kind(x)
    if kind is ValueKind.TRACER or kind is ValueKind.ARRAY:
        assert isinstance(x, (Tracer, Array))
        return x.aval
    if kind is ValueKind.SCALAR:
        assert isinstance(x, PYTHON_SCALARS)
        return ShapedArray((), dtypes.python_scalar_dtype(x), weak_type=type(x) is not bool)
    arr = x if kind is ValueKind.HOST else np.asarray(x)
    assert isinstance(arr, (np.ndarray, np.generic))
    if arr.dtype not in dtypes.SUPPORTED and arr.dtype != dtypes.float0:
        raise dtypes.unsupported(arr.dtype, "arrays of dtype")
    return ShapedArray(arr.shape, dtypes.canonical(arr.dtype))


def as_array(x: object) -> HostArray:
    """Converts a concrete didax value to a NumPy array of a supported dtype.

    Python scalars take their default dtype (float64, int64, bool); an
    Array gives its host data (which must not be written to); foreign
    arrays are read through ``__array__`` (a tracer must be concrete). With
    x64 off, 64-bit data becomes 32-bit. Raises ``TypeError`` for anything
    that is not an array of a supported dtype, and ``OverflowError`` for a
    Python int outside the default int (as JAX does).

    >>> as_array(True)
    array(True)
    """
    if type(x) is Array:
        return x.host()
    kind = value_kind(x)
    arr: HostArray
    if kind is ValueKind.SCALAR:
        assert isinstance(x, PYTHON_SCALARS)
        arr = np.asarray(x, dtypes.python_scalar_dtype(x))
    elif type(x) is np.ndarray:
        arr = x
    else:
        arr = np.asarray(x)
    # float0 arrays (tangents of integers) are values too, though no
    # primitive takes them.
    if arr.dtype not in dtypes.SUPPORTED and arr.dtype != dtypes.float0:
        raise dtypes.unsupported(arr.dtype, "arrays of dtype")
    canonical = dtypes.canonical(arr.dtype)
    return arr if canonical == arr.dtype else arr.astype(canonical)


def wrap_host(host: HostArray, weak_type: bool = False) -> Array:
    """An Array over fresh host data that nobody else holds (no copy is made)."""
    return Array.from_host(host, ShapedArray(host.shape, host.dtype, weak_type))


def to_array(x: object) -> Any:
    """``x`` as a value didax hands back: an ``Array`` (a tracer stays a tracer).

    A Python scalar becomes a weakly typed Array, as JAX's results are;
    NumPy data is copied when it is the caller's own array (an Array must
    not see later writes to it). float0 arrays (tangents of integers) stay
    NumPy arrays, as in JAX.

    >>> to_array(2.0)
    Array(2., dtype=float32, weak_type=True)
    """
    if type(x) is Array or isinstance(x, Tracer):
        return x
    aval = get_aval(x)
    host = as_array(x)
    if host.dtype == dtypes.float0:
        return host
    if host is x:
        host = host.copy()
    return Array.from_host(host, aval)


def guard_host_data(x: object) -> None:
    """The host-to-device guard on host data ``x`` (not an Array) given where an Array is used.

    Callers test ``transfer_guard.GUARDS_IN_FORCE[0]`` first, so that the
    check costs nothing while no guard is set.
    """
    transfer_guard.host_to_device(get_aval(x), backend().default_device())
