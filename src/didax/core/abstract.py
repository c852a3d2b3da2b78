"""Abstract values: what a transformation knows about a value without its data.

Design rules:
- ``ShapedArray`` is a value (``attrs`` frozen, compared by value), so it can
  key caches and be compared in type checks.
- There is no ``ConcreteArray``: concreteness is a property of tracers (see
  ``trace.Tracer.to_concrete_value``), not of abstract values.
- ``get_aval`` is the one place that decides which Python objects are didax
  values; everything else asks it.
"""

from __future__ import annotations

from typing import Any, Final, final

import attrs
import numpy as np

from didax.core import dtypes
from didax.core.dtypes import DType


@final
@attrs.frozen(repr=False, cache_hash=True)
class ShapedArray:
    """The type of an array: shape, dtype and whether the dtype is weak.

    >>> ShapedArray((2, 3), dtypes.float32).str_short()
    'f32[2,3]'
    """

    shape: tuple[int, ...]
    dtype: DType
    weak_type: bool = False

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def str_short(self) -> str:
        return f"{dtypes.short_name(self.dtype)}[{','.join(map(str, self.shape))}]"

    def strip_weak(self) -> ShapedArray:
        return ShapedArray(self.shape, self.dtype) if self.weak_type else self

    def update(
        self,
        shape: tuple[int, ...] | None = None,
        dtype: DType | None = None,
        weak_type: bool | None = None,
    ) -> ShapedArray:
        return ShapedArray(
            self.shape if shape is None else shape,
            self.dtype if dtype is None else dtype,
            self.weak_type if weak_type is None else weak_type,
        )

    def __repr__(self) -> str:
        return f"ShapedArray({self.str_short()}{', weak' if self.weak_type else ''})"

    def __str__(self) -> str:
        return self.str_short()


class DeviceArray:
    """Base of array types whose data lives on a device (``lowering.array.Array``).

    Core knows only that such a value has an ``aval`` and converts to NumPy
    through ``__array__``; the lowering layer defines the real class. This
    lets ``get_aval`` type a device array without copying it to the host.
    """

    __slots__ = ()

    @property
    def aval(self) -> ShapedArray:
        raise NotImplementedError

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray[Any, Any]:
        raise NotImplementedError


PYTHON_SCALARS: Final = (bool, int, float)


def is_python_scalar(x: object) -> bool:
    return type(x) in PYTHON_SCALARS


def concrete_aval(x: np.ndarray[Any, Any] | np.generic) -> ShapedArray:
    """The abstract value of a NumPy array or scalar (always strongly typed)."""
    return ShapedArray(x.shape, x.dtype)


def as_array(x: object) -> np.ndarray[Any, Any]:
    """Converts a concrete didax value to a NumPy array of a supported dtype.

    Python scalars take their default dtype (float64, int64, bool); arrays of
    other libraries are read through ``__array__``. Raises ``TypeError`` for
    anything that is not an array of a supported dtype.
    """
    if isinstance(x, np.ndarray):
        arr = x
    elif is_python_scalar(x):
        arr = np.asarray(x, dtypes.python_scalar_dtype(x))  # type: ignore[arg-type]
    elif isinstance(x, np.generic) or hasattr(x, "__array__"):
        arr = np.asarray(x)
    else:
        raise TypeError(f"{type(x).__name__} {x!r} is not a valid didax value")
    # float0 arrays (tangents of integers) are values too, though no
    # primitive takes them.
    if arr.dtype not in dtypes.SUPPORTED and arr.dtype != dtypes.float0:
        raise TypeError(f"didax does not support arrays of dtype {arr.dtype}")
    return arr
