"""NumPy's other type names, dtype tests, printing options and I/O, as ``jax.numpy`` has them.

``ndarray`` is the Array type (JAX's ``jnp.ndarray`` is ``jax.Array``), so
it works in annotations and ``isinstance`` checks; ``bool``, ``float_``,
``int_``, ``uint``, ``single``, ``double``, ``csingle`` and ``cdouble`` are
converters as ``float32`` is; NumPy's abstract scalar classes
(``floating``, ``integer``, ``generic``, ...) are NumPy's own, as in JAX,
so that ``issubdtype(x.dtype, dnp.floating)`` works. The float8, float6,
float4 and sub-byte integer names are ml_dtypes' dtypes, as JAX's, and
dtypes of didax's arrays (``core.dtypes.NARROW``).

Design rules:
- What JAX takes from NumPy unchanged (the abstract classes, printing
  options, ``array_repr``, ``save``, ``iterable``) is NumPy's object, not a
  copy; what JAX wraps (``load``, ``frombuffer``, ``fromstring``,
  ``from_dlpack``) reads on the host with NumPy and returns an Array, and
  what JAX refuses (``fromfile``, ``fromiter``) is refused with JAX's advice.
- ``isdtype`` follows the Array API's kinds, with bfloat16 a real float.
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Callable
from typing import IO, Any, Final

import ml_dtypes
import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.creation import _ScalarType, array
from didax.api.numpy.operands import asarray
from didax.core import dtypes
from didax.core.array import Array as DidaxArray
from didax.core.basearray import Value
from didax.core.dtypes import DTypeLike

__all__ = [
    "ndarray",
    "bool",
    "float_",
    "int_",
    "uint",
    "single",
    "double",
    "csingle",
    "cdouble",
    "generic",
    "number",
    "integer",
    "signedinteger",
    "unsignedinteger",
    "inexact",
    "floating",
    "complexfloating",
    "character",
    "flexible",
    "object_",
    "ComplexWarning",
    "isdtype",
    "astype",
    "copy",
    "iterable",
    "printoptions",
    "get_printoptions",
    "set_printoptions",
    "array_repr",
    "array_str",
    "load",
    "save",
    "savez",
    "frombuffer",
    "fromstring",
    "fromfile",
    "fromiter",
    "from_dlpack",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float4_e2m1fn",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "int1",
    "int2",
    "int4",
    "uint1",
    "uint2",
    "uint4",
]

# JAX's ``jnp.ndarray`` is its Array type: didax's Value covers Arrays and tracers.
ndarray: Final = Value

bool: Final = _ScalarType("bool", dtypes.bool_)
float_: Final = _ScalarType("float_", dtypes.float64)
int_: Final = _ScalarType("int_", dtypes.int64)
uint: Final = _ScalarType("uint", dtypes.uint64)
single: Final = _ScalarType("single", dtypes.float32)
double: Final = _ScalarType("double", dtypes.float64)
csingle: Final = _ScalarType("csingle", dtypes.complex64)
cdouble: Final = _ScalarType("cdouble", dtypes.complex128)


def _narrow(name: str) -> _ScalarType:
    # By name: ml_dtypes' type stubs do not list every type it defines.
    return _ScalarType(name, np.dtype(getattr(ml_dtypes, name)))


# ml_dtypes' narrow types, as JAX's names: dtypes of didax's arrays as of NumPy's
# (core.dtypes.NARROW), promoted as JAX promotes them (only with weak scalars).
float8_e3m4: Final = _narrow("float8_e3m4")
float8_e4m3: Final = _narrow("float8_e4m3")
float8_e4m3b11fnuz: Final = _narrow("float8_e4m3b11fnuz")
float8_e4m3fn: Final = _narrow("float8_e4m3fn")
float8_e4m3fnuz: Final = _narrow("float8_e4m3fnuz")
float8_e5m2: Final = _narrow("float8_e5m2")
float8_e5m2fnuz: Final = _narrow("float8_e5m2fnuz")
float8_e8m0fnu: Final = _narrow("float8_e8m0fnu")
float4_e2m1fn: Final = _narrow("float4_e2m1fn")
float6_e2m3fn: Final = _narrow("float6_e2m3fn")
float6_e3m2fn: Final = _narrow("float6_e3m2fn")
int1: Final = _narrow("int1")
int2: Final = _narrow("int2")
int4: Final = _narrow("int4")
uint1: Final = _narrow("uint1")
uint2: Final = _narrow("uint2")
uint4: Final = _narrow("uint4")

generic: Final = np.generic
number: Final = np.number
integer: Final = np.integer
signedinteger: Final = np.signedinteger
unsignedinteger: Final = np.unsignedinteger
inexact: Final = np.inexact
floating: Final = np.floating
complexfloating: Final = np.complexfloating
character: Final = np.character
flexible: Final = np.flexible
object_: Final = np.object_

ComplexWarning: Final = np.exceptions.ComplexWarning
iterable: Final = np.iterable
printoptions: Final = np.printoptions
get_printoptions: Final = np.get_printoptions
set_printoptions: Final = np.set_printoptions
array_repr: Final = np.array_repr
array_str: Final = np.array_str
save: Final = np.save
savez: Final = np.savez

# The Array API's kinds (``isdtype``): each a test of a dtype.
_KINDS: Final[dict[str, Callable[[np.dtype[Any]], builtins.bool]]] = {
    "bool": lambda d: d == dtypes.bool_,
    "signed integer": lambda d: dtypes.is_integer(d) and dtypes.is_signed(d),
    "unsigned integer": dtypes.is_unsigned,
    "integral": dtypes.is_integer,
    "real floating": dtypes.is_float,
    "complex floating": dtypes.is_complex,
    "numeric": lambda d: d != dtypes.bool_,
}


def _kind_matches(dtype: np.dtype[Any], kind: object) -> builtins.bool:
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(
                f"isdtype: unknown kind {kind!r}; expected one of {sorted(_KINDS)} or a dtype"
            )
        return _KINDS[kind](dtype)
    if isinstance(kind, tuple):
        return builtins.any(_kind_matches(dtype, k) for k in kind)
    return dtype == dtypes.as_dtype(kind)


def isdtype(dtype: DTypeLike, kind: str | DTypeLike | tuple[Any, ...]) -> builtins.bool:
    """Whether ``dtype`` is of ``kind`` (the Array API's ``isdtype``).

    >>> isdtype(np.float32, "real floating"), isdtype("bfloat16", ("integral", "real floating"))
    (True, True)
    """
    return _kind_matches(dtypes.as_dtype(dtype), kind)


def astype(
    x: ArrayLike, dtype: DTypeLike, /, *, copy: builtins.bool = False, device: object = None
) -> Array:
    """``x`` converted to ``dtype`` (the Array API's function form of ``x.astype``).

    >>> astype(np.array([1.7, -1.7]), "int32")
    Array([ 1, -1], dtype=int32)
    """
    if device is not None:
        raise NotImplementedError("astype: the 'device' argument is not supported")
    if dtype is None:
        raise TypeError("astype: dtype must be given (None is not a dtype here, as in JAX)")
    return asarray(x, dtype)


def copy(a: ArrayLike, order: str | None = None) -> Array:
    """A copy of ``a`` (Arrays are immutable: the same values, a new Array for host data)."""
    if order not in (None, "K", "C"):
        raise NotImplementedError(f"copy: order={order!r} is not supported")
    return array(a, copy=True)


def load(file: IO[bytes] | str | os.PathLike[Any], *args: Any, **kwargs: Any) -> Any:
    """``numpy.load``, an ``.npy`` array returned as an Array (bfloat16 restored, as JAX's)."""
    out = np.load(file, *args, **kwargs)
    if not isinstance(out, np.ndarray):
        return out  # an .npz archive, read lazily: NumPy arrays, as JAX's
    if out.dtype == np.dtype("V2"):  # how NumPy saves bfloat16 (ml_dtypes' dtype has no code)
        out = out.view(dtypes.bfloat16)
    return asarray(out)


def frombuffer(buffer: Any, dtype: DTypeLike = float, count: int = -1, offset: int = 0) -> Array:
    """The array in a bytes-like ``buffer`` (read by ``numpy.frombuffer``, then copied)."""
    return asarray(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string: str, dtype: DTypeLike = float, count: int = -1, *, sep: str) -> Array:
    """The numbers written in ``string``, separated by ``sep`` (``numpy.fromstring``)."""
    return asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def fromfile(*args: Any, **kwargs: Any) -> Array:
    """Refused, as by JAX: read with ``numpy.fromfile`` and convert with ``asarray``."""
    raise NotImplementedError(
        "fromfile: reading arrays from files is not supported (as in JAX); "
        "use didax.numpy.asarray(numpy.fromfile(...))"
    )


def fromiter(*args: Any, **kwargs: Any) -> Array:
    """Refused, as by JAX: build with ``numpy.fromiter`` and convert with ``asarray``."""
    raise NotImplementedError(
        "fromiter: building arrays from iterators is not supported (as in JAX); "
        "use didax.numpy.asarray(numpy.fromiter(...))"
    )


def from_dlpack(x: Any, /, *, device: object = None, copy: builtins.bool | None = None) -> Array:
    """An Array holding the data of ``x``, an object with ``__dlpack__`` (copied to the host).

    didax Arrays live on the host CPU: the data are read through NumPy's
    DLPack import and copied.
    """
    if device is not None:
        raise NotImplementedError("from_dlpack: the 'device' argument is not supported")
    if isinstance(x, DidaxArray):
        return x
    return asarray(np.from_dlpack(x))
