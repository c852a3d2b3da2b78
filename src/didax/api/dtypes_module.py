"""``didax.dtypes``: JAX's ``jax.dtypes`` (canonical dtypes, promotion, the special dtypes).

Design rules:
- The answers are core's (``core.dtypes``' lattice and canonicalization,
  ``core.promotion.result_type``), so ``didax.dtypes.result_type`` and the
  dtype of a ``didax.numpy`` operation agree, in both x64 modes and under
  ``jax_numpy_dtype_promotion='strict'``.
- ``extended`` and ``prng_key`` are the abstract scalar types JAX's are:
  ``issubdtype(key.dtype, prng_key)`` holds for didax's typed keys.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from didax.api.numpy.more_routines import finfo as finfo
from didax.api.numpy.more_routines import iinfo as iinfo
from didax.api.numpy.more_routines import issubdtype as _numpy_issubdtype
from didax.api.prng import KeyDType
from didax.core import dtypes
from didax.core.dtypes import TypePromotionError as TypePromotionError
from didax.core.promotion import result_type as _result_type
from didax.core.values import get_aval

__all__ = [
    "TypePromotionError",
    "bfloat16",
    "canonicalize_dtype",
    "extended",
    "finfo",
    "float0",
    "iinfo",
    "issubdtype",
    "itemsize_bits",
    "prng_key",
    "result_type",
    "scalar_type_of",
]

bfloat16 = dtypes.bfloat16.type
float0 = dtypes.float0


class extended(np.generic):
    """The abstract type of JAX's extended dtypes (``jax.dtypes.extended``)."""


class prng_key(extended):
    """The abstract type of typed PRNG keys' dtypes (``jax.dtypes.prng_key``)."""


def canonicalize_dtype(dtype: Any, allow_extended_dtype: bool = False) -> np.dtype[Any] | KeyDType:
    """``dtype`` as didax stores it: 32-bit with x64 off (``jax.dtypes.canonicalize_dtype``).

    >>> canonicalize_dtype(np.int64)
    dtype('int32')
    """
    if isinstance(dtype, KeyDType):
        if not allow_extended_dtype:
            raise ValueError(f"canonicalize_dtype: {dtype} is an extended dtype")
        return dtype
    return dtypes.canonical(np.dtype(dtype))


def issubdtype(a: Any, b: Any) -> bool:
    """NumPy's ``issubdtype``, with bfloat16 a float and typed keys ``prng_key``s (as JAX's)."""
    a_key = isinstance(a, KeyDType) or a in (extended, prng_key)
    if a_key or b in (extended, prng_key):
        if isinstance(a, KeyDType) or a is prng_key:
            return b in (extended, prng_key) or isinstance(b, KeyDType)
        return a is extended and b is extended
    return _numpy_issubdtype(a, b)


def result_type(*args: Any, return_weak_type_flag: bool = False) -> Any:
    """The dtype ``args`` (values, dtypes) promote to on JAX's lattice (``jax.dtypes.result_type``).

    >>> result_type(np.int32, 2.0)
    dtype('float32')
    >>> result_type(1, 2.0, return_weak_type_flag=True)
    (dtype('float32'), True)
    """
    if not args:
        raise ValueError("at least one array or dtype is required")
    dtype, weak = dtypes.result_type(_typed(a) for a in args)
    return (dtype, weak) if return_weak_type_flag else dtype


def _typed(a: Any) -> tuple[np.dtype[Any], bool]:
    """``(dtype, weak)`` of a value, or of a dtype (a strong one) named any way NumPy takes."""
    if isinstance(a, (type, str, np.dtype)):
        return dtypes.canonical(dtypes.as_dtype(a)), False
    aval = get_aval(a)
    return aval.dtype, aval.weak_type


def scalar_type_of(x: Any) -> type:
    """The Python scalar type of ``x``'s dtype: bool, int, float or complex."""
    given = getattr(x, "dtype", None)
    dtype = dtypes.as_dtype(given) if given is not None else _result_type(x)[0]
    if dtypes.is_bool(dtype):
        return bool
    if dtypes.is_integer(dtype):
        return int
    if dtypes.is_float(dtype):
        return float
    if dtypes.is_complex(dtype):
        return complex
    raise TypeError(f"scalar_type_of: no Python scalar type for dtype {dtype}")


def itemsize_bits(dtype: DTypeLike) -> int:
    """The size of one element of ``dtype`` in bits (``jax.dtypes.itemsize_bits``)."""
    if dtype is None:
        raise ValueError("itemsize_bits: dtype cannot be None")
    return int(np.dtype(dtype).itemsize) * 8
