"""``didax.dlpack``: arrays from other libraries through DLPack, as ``jax.dlpack``.

Design rules:
- ``from_dlpack`` is ``didax.numpy.from_dlpack`` (any object with
  ``__dlpack__``); didax Arrays export through their own ``__dlpack__``.
- The supported dtypes are the ones both DLPack and didax's arrays have
  (JAX's list: bfloat16 included, float0 and typed keys not).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from didax.api.numpy.type_names import from_dlpack as from_dlpack
from didax.core import dtypes

__all__ = ["from_dlpack", "is_supported_dtype"]

SUPPORTED_DTYPES: Final = frozenset(dtypes.SUPPORTED) - frozenset(dtypes.NARROW)  # as JAX's


def is_supported_dtype(dtype: Any) -> bool:
    """Whether arrays of ``dtype`` cross DLPack (``jax.dlpack.is_supported_dtype``).

    >>> is_supported_dtype(np.float32), is_supported_dtype(np.dtype("U3"))
    (True, False)
    """
    if dtype is None:
        # NumPy would read None as float64, which may surprise (JAX's check).
        raise TypeError(f"Expected a string or dtype-like object; got {dtype=}")
    return np.dtype(dtype) in SUPPORTED_DTYPES
