"""Bitwise functions: exclusive or, shifts and bit counts, as ``jax.numpy``'s.

Design rules:
- Operands promote and broadcast as every binary function's
  (``operands.promote``); shifts and bit counts then make booleans numeric
  as JAX does (``int32``), and refuse floats with the primitive's error.
- ``right_shift`` is arithmetic for signed integers and logical for
  unsigned ones, as NumPy's; shifts by the bit width or more give 0 (or the
  sign fill), as XLA's, where NumPy's are undefined.
"""

from __future__ import annotations

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import abs as _abs
from didax.api.numpy.elementwise import invert
from didax.api.numpy.operands import as_result, astype, bind, promote
from didax.core import dtypes, lax
from didax.core.primitive import Primitive

__all__ = [
    "bitwise_xor",
    "bitwise_not",
    "bitwise_invert",
    "left_shift",
    "right_shift",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "bitwise_count",
]


def bitwise_xor(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 ^ x2`` of integers (bitwise) or booleans (logical).

    >>> import numpy as np
    >>> bitwise_xor(np.array([12, 10], np.int8), 6)
    Array([10, 12], dtype=int8)
    """
    (a, b), dt, _ = promote("bitwise_xor", x1, x2, scalars=True)
    if dtypes.is_float(dt):
        raise TypeError(f"bitwise_xor: not supported for floating-point operands ({dt})")
    return bind(lax.xor_p, a, b)


def bitwise_not(x: ArrayLike) -> Array:
    """Element-wise ``~x`` (``invert``)."""
    return invert(x)


def bitwise_invert(x: ArrayLike) -> Array:
    """Element-wise ``~x`` (``invert``)."""
    return invert(x)


def _numeric(name: str, *args: ArrayLike) -> tuple[list[Array], dtypes.DType]:
    vals, dt, weak = promote(name, *args)
    if dtypes.is_bool(dt):
        # JAX's numeric promotion makes booleans int32.
        dt = dtypes.int32
        vals = [astype(v, dt, weak) for v in vals]
    return vals, dt


def _shift(name: str, prim: Primitive, x1: ArrayLike, x2: ArrayLike) -> Array:
    (a, b), _ = _numeric(name, x1, x2)
    return bind(prim, a, b)


def left_shift(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 << x2``; 0 where ``x2`` is at least the bit width.

    >>> import numpy as np
    >>> left_shift(np.int32(1), np.array([0, 4, 40], np.int32))
    Array([ 1, 16,  0], dtype=int32)
    """
    return _shift("left_shift", lax.shift_left_p, x1, x2)


def right_shift(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Element-wise ``x1 >> x2``: arithmetic for signed integers, logical for unsigned ones.

    >>> import numpy as np
    >>> right_shift(np.array([-100, 100], np.int8), 2)
    Array([-25,  25], dtype=int8)
    """
    (a, b), dt = _numeric("right_shift", x1, x2)
    prim = lax.shift_right_logical_p if dtypes.is_unsigned(dt) else lax.shift_right_arithmetic_p
    return bind(prim, a, b)


def bitwise_left_shift(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``left_shift``."""
    return left_shift(x1, x2)


def bitwise_right_shift(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``right_shift``."""
    return right_shift(x1, x2)


def bitwise_count(x: ArrayLike) -> Array:
    """Element-wise number of set bits of ``|x|``, as ``uint8`` (NumPy's and JAX's).

    >>> import numpy as np
    >>> bitwise_count(np.array([-3, 255], np.int16))
    Array([2, 8], dtype=uint8)
    """
    (v,), _ = _numeric("bitwise_count", x)
    counts = bind(lax.population_count_p, _abs(v))
    return as_result(astype(counts, dtypes.uint8))
