"""``Array``: a didax value whose data lives in a device buffer.

Design rules:
- An ``Array`` is a device buffer plus its abstract value; it is what jitted
  computations return, and feeding it back into a jitted function passes
  the buffer as it is (no host round trip).
- Conversions to the host (``__array__``, printing, ``float()``) copy once,
  explicitly, through the XLA adapter. Eager primitives on Arrays run the
  NumPy impl rules on that host copy.
- Operators, indexing and array methods are installed by ``didax.numpy``,
  as on tracers, since NumPy semantics belong to that layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, final

import numpy as np

from didax.core.abstract import DeviceArray, ShapedArray
from didax.lowering import xla


@final
class Array(DeviceArray):
    """A device-resident array (``didax.Array``)."""

    __slots__ = ("_aval", "_buffer", "_host")
    # NumPy must defer to our reflected operators instead of converting.
    __array_priority__ = 1000

    def __init__(self, buffer: xla.Buffer, aval: ShapedArray) -> None:
        self._buffer = buffer
        self._aval = aval
        self._host: np.ndarray[Any, Any] | None = None

    @property
    def aval(self) -> ShapedArray:
        return self._aval

    @property
    def buffer(self) -> xla.Buffer:
        return self._buffer

    @property
    def shape(self) -> tuple[int, ...]:
        return self._aval.shape

    @property
    def dtype(self) -> np.dtype[Any]:
        return self._aval.dtype

    @property
    def ndim(self) -> int:
        return self._aval.ndim

    @property
    def size(self) -> int:
        return self._aval.size

    def _value(self) -> np.ndarray[Any, Any]:
        if self._host is None:
            host = xla.to_host(self._buffer)
            host.flags.writeable = False
            self._host = host
        return self._host

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray[Any, Any]:
        value = self._value()
        if dtype is not None:
            return value.astype(dtype)
        return value.copy() if copy else value

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self._buffer.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> Any:
        return self._buffer.__dlpack_device__()

    def block_until_ready(self) -> Array:
        xla.block_until_ready(self._buffer)
        return self

    def __bool__(self) -> bool:
        return bool(self._value())

    def __int__(self) -> int:
        return int(self._value())

    def __float__(self) -> float:
        return float(self._value())

    def __index__(self) -> int:
        return int(self._value().__index__())

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d Array")
        return self.shape[0]

    def __iter__(self) -> Any:
        if not self.shape:
            raise TypeError("iteration over a 0-d Array")
        return iter(self._value())

    def tolist(self) -> Any:
        return self._value().tolist()

    def item(self) -> Any:
        return self._value().item()

    def __repr__(self) -> str:
        body = np.array2string(self._value(), separator=", ", prefix="Array(")
        return f"Array({body}, dtype={self.dtype})"

    def __str__(self) -> str:
        return str(self._value())

    def __hash__(self) -> int:
        raise TypeError("didax Arrays are not hashable")

    if TYPE_CHECKING:
        # Installed at import by didax.numpy (NumPy semantics live there);
        # declared here so that type checkers know them.
        def __add__(self, other: Any) -> Any: ...
        def __radd__(self, other: Any) -> Any: ...
        def __sub__(self, other: Any) -> Any: ...
        def __rsub__(self, other: Any) -> Any: ...
        def __mul__(self, other: Any) -> Any: ...
        def __rmul__(self, other: Any) -> Any: ...
        def __truediv__(self, other: Any) -> Any: ...
        def __rtruediv__(self, other: Any) -> Any: ...
        def __pow__(self, other: Any) -> Any: ...
        def __matmul__(self, other: Any) -> Any: ...
        def __rmatmul__(self, other: Any) -> Any: ...
        def __neg__(self) -> Any: ...
        def __lt__(self, other: Any) -> Any: ...
        def __le__(self, other: Any) -> Any: ...
        def __gt__(self, other: Any) -> Any: ...
        def __ge__(self, other: Any) -> Any: ...
        def __getitem__(self, index: Any) -> Any: ...
        @property
        def T(self) -> Any: ...
        def reshape(self, *shape: Any) -> Any: ...
        def astype(self, dtype: Any) -> Any: ...
        def sum(self, axis: Any = None, keepdims: bool = False) -> Any: ...
        def mean(self, axis: Any = None, keepdims: bool = False) -> Any: ...


def device_put(x: Any) -> Array:
    """Copies ``x`` (an array-like) to the device as an ``Array``; an Array is returned as is."""
    if isinstance(x, Array):
        return x
    from didax.core.values import as_array

    arr = as_array(x)
    return Array(xla.to_device(arr), ShapedArray(arr.shape, arr.dtype))
