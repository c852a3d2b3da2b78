"""``Array``: every value didax hands back (``didax.Array``), eager or jitted.

Design rules:
- An Array is immutable data plus its abstract value (``ShapedArray``,
  weak type included, as a JAX Array carries ``weak_type``). Its data lives
  on the host (a NumPy array: the result of an eager primitive), on the
  device (a PJRT buffer: the result of a compiled program), or both; each
  side is made from the other at most once, on first use, and kept. So an
  Array made by ``dnp.asarray`` pays its transfer on the first jitted call
  and never again, and reading a jitted result on the host (printing,
  ``float()``, eager ops) copies it once (on the CPU not even that: the host
  view of a CPU buffer shares its memory).
- Eager primitives run where the data lives (see
  ``interpreters.evaluation``): on an accelerator as compiled programs on
  the device side; on a CPU, for small arrays, as NumPy impl rules on the
  host side (the fast path: a few microseconds, no XLA dispatch).
- Core knows buffers only through ``DeviceBackend``, which the lowering
  layer installs at import (``set_backend``): the transfers, and nothing
  else, are XLA's. Core cannot import the layer that owns XLA.
- Nobody writes into an Array's host data: ``__array__`` hands out
  read-only views, item assignment is a ``TypeError`` pointing to ``.at``,
  and an Array is unhashable (it defines ``==`` element-wise), as JAX's.
- An Array laid out over several devices (``device_put(x, NamedSharding)``,
  a sharded program's result) holds one buffer object with a piece per
  device (jaxlib's); its sharding lives in ``_key`` beside its aval, which
  is what keys a jitted call on it. An Array on the default device stores
  no sharding: its ``_key`` is its aval, so the single-device hit path reads
  one slot, as before sharding existed.
- NumPy's operators and array methods are installed by ``didax.numpy``
  (they are NumPy semantics, which belong to that layer), as on tracers.
- ``block_until_ready`` is jit's hit path's other half (a call's result is
  waited for through it): where the optional C extension ``_native`` was
  built, its C translation replaces the method below (``NATIVE``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any, Final, Protocol, final

import numpy as np
from numpy.typing import DTypeLike

from didax.core import transfer_guard
from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray, Value
from didax.core.sharding import Index, Sharding, SingleDeviceSharding


class DeviceBackend(Protocol):
    """What core needs of device buffers; the lowering layer's XLA adapter provides it."""

    # True on a CPU, where a buffer's host view shares its memory.
    host_is_device: bool

    def to_device(self, host: HostArray) -> Any: ...

    def to_host(self, buffer: Any) -> HostArray: ...

    def block_until_ready(self, buffer: Any) -> None: ...

    def default_device(self) -> Any: ...

    def shards(self, buffer: Any) -> list[tuple[Any, Any]]:
        """A multi-device buffer's pieces: (device, single-device buffer) each."""
        ...

    def empty(self, shape: tuple[int, ...], dtype: np.dtype[Any]) -> HostArray:
        """An uninitialised host array that ``to_device`` can take without a copy (on a CPU)."""
        ...


class _NoBackend:
    host_is_device = True

    def _missing(self) -> RuntimeError:
        return RuntimeError("no device backend: import didax (its lowering layer installs one)")

    def to_device(self, host: HostArray) -> Any:
        raise self._missing()

    def to_host(self, buffer: Any) -> HostArray:
        raise self._missing()

    def block_until_ready(self, buffer: Any) -> None:
        raise self._missing()

    def default_device(self) -> Any:
        raise self._missing()

    def shards(self, buffer: Any) -> list[tuple[Any, Any]]:
        raise self._missing()

    def empty(self, shape: tuple[int, ...], dtype: np.dtype[Any]) -> HostArray:
        return np.empty(shape, dtype)


_backend: DeviceBackend = _NoBackend()

# The buffer of a deleted Array (one donated to a jitted function).
_DELETED: Final = object()
DELETED: Final = _DELETED  # a deleted Array's ``_buffer`` (jit's hit path reads the slot)


def set_backend(backend: DeviceBackend) -> None:
    """Installs the device backend (called once, by ``didax.lowering``)."""
    global _backend
    _backend = backend


def backend() -> DeviceBackend:
    return _backend


_AT_MESSAGE: Final = (
    "didax Arrays are immutable and do not support in-place item assignment: "
    "instead of x[idx] = y, use x = x.at[idx].set(y) (or another .at[] method), as in JAX"
)


@final
class Array(Value):
    """An immutable array (``didax.Array``): host data, a device buffer, or both.

    >>> a = Array.from_host(np.arange(3.0), ShapedArray((3,), np.dtype(np.float64)))
    >>> a
    Array([0., 1., 2.], dtype=float64)
    >>> f"{a[1]:.2f}"
    '1.00'
    """

    __slots__ = ("__weakref__", "_aval", "_buffer", "_host", "_key")
    # NumPy defers its binary operators to ours (``np_array + array`` is an
    # Array), as for JAX's Arrays.
    __array_priority__ = 100

    _aval: ShapedArray
    _host: HostArray | None
    _buffer: Any
    # What keys a jitted call on this Array: its aval on the default device,
    # (aval, sharding) otherwise.
    _key: ShapedArray | tuple[ShapedArray, Sharding]

    def __init__(self) -> None:
        raise TypeError("Arrays are made by didax: use didax.numpy.asarray or didax.device_put")

    @staticmethod
    def _made(
        aval: ShapedArray,
        host: HostArray | None,
        buffer: Any,
        key: ShapedArray | tuple[ShapedArray, Sharding],
    ) -> Array:
        # Arrays are made here only: __init__ refuses users.
        out = object.__new__(Array)
        out._aval = aval
        out._host = host
        out._buffer = buffer
        out._key = key
        return out

    @staticmethod
    def from_host(host: HostArray, aval: ShapedArray) -> Array:
        """An Array over ``host`` (of ``aval``'s dtype and shape), which nobody may write to."""
        return Array._made(aval, host, None, aval)

    @staticmethod
    def from_buffer(buffer: Any, aval: ShapedArray) -> Array:
        """An Array over a device buffer (a compiled program's result)."""
        # ``_made`` written out: the jit hit path's every call comes here.
        out = object.__new__(Array)
        out._aval = aval
        out._host = None
        out._buffer = buffer
        out._key = aval
        return out

    @staticmethod
    def from_sharded(buffer: Any, aval: ShapedArray, sharding: Sharding) -> Array:
        """An Array over a buffer laid out as ``sharding`` says (one piece per device)."""
        return Array._made(aval, None, buffer, (aval, sharding))

    # --- the two sides ------------------------------------------------------
    @property
    def aval(self) -> ShapedArray:
        return self._aval

    def host(self) -> HostArray:
        """The data on the host (copied from the device once; shared thereafter)."""
        host = self._host
        if host is None:
            if self._buffer is _DELETED:
                raise self._deleted_error()
            if transfer_guard.GUARDS_IN_FORCE[0] and not _backend.host_is_device:
                # A read on the host; on a CPU the host is the device: no transfer.
                transfer_guard.device_to_host(self._aval, _backend.default_device())
            host = self._host = _backend.to_host(self._buffer)
        return host

    @property
    def buffer(self) -> Any:
        """The device buffer (transferred from the host once; kept thereafter)."""
        buffer = self._buffer
        if buffer is None:
            assert self._host is not None
            buffer = self._buffer = _backend.to_device(self._host)
        elif buffer is _DELETED:
            raise self._deleted_error()
        return buffer

    def delete(self) -> None:
        """Frees the data; any later use raises (as after donating the Array to ``jit``)."""
        self._host = None
        self._buffer = _DELETED

    def is_deleted(self) -> bool:
        return self._buffer is _DELETED

    def _deleted_error(self) -> RuntimeError:
        return RuntimeError(f"Array has been deleted with shape={self._aval.str_short()}.")

    @property
    def on_host(self) -> bool:
        """Whether host data is at hand (eager primitives run on it without a transfer)."""
        return self._host is not None or _backend.host_is_device

    @property
    def is_on_device(self) -> bool:
        """Whether the data has been transferred to (or computed on) the device."""
        return self._buffer is not None and self._buffer is not _DELETED

    # --- layout over devices ------------------------------------------------
    @property
    def jit_key(self) -> ShapedArray | tuple[ShapedArray, Sharding]:
        """What a jitted call keys on for this Array: its aval, and its sharding if not default."""
        return self._key

    @property
    def committed_sharding(self) -> Sharding | None:
        """The sharding, or None for the default device (the common case, stored as nothing)."""
        key = self._key
        return None if key is self._aval else key[1]  # type: ignore[index]

    @property
    def sharding(self) -> Sharding:
        """How the data is laid out over devices (``jax.Array.sharding``)."""
        committed = self.committed_sharding
        if committed is None:
            return SingleDeviceSharding(_backend.default_device())
        return committed

    @property
    def addressable_shards(self) -> list[Shard]:
        """Each device's piece: its device, its index into the whole, and its data."""
        committed = self.committed_sharding
        if committed is None:
            return [Shard(_backend.default_device(), tuple(slice(None) for _ in self.shape), self)]
        indices = committed.devices_indices_map(self.shape)
        out = []
        for device, buffer in _backend.shards(self.buffer):
            index = indices[device]
            aval = self._aval.update(shape=tuple(buffer.shape))
            out.append(Shard(device, index, Array.from_buffer(buffer, aval)))
        return out

    @property
    def committed(self) -> bool:
        """Whether the Array was placed explicitly (``device_put`` with a device or sharding)."""
        return self.committed_sharding is not None

    @property
    def device(self) -> Any:
        """The one device holding the Array; a sharded Array has several (``jax.Array.device``)."""
        devices = self.sharding.device_set
        if len(devices) != 1:
            raise ValueError(
                "device: the Array is sharded over several devices; use .sharding or "
                ".addressable_shards"
            )
        return next(iter(devices))

    @property
    def is_fully_addressable(self) -> bool:
        """Always True: didax runs one process, which addresses every device."""
        return True

    @property
    def is_fully_replicated(self) -> bool:
        """Whether every device holds the whole Array."""
        return self.sharding.is_fully_replicated

    @property
    def global_shards(self) -> list[Shard]:
        """Every device's piece (in one process: the addressable shards)."""
        return self.addressable_shards

    def addressable_data(self, index: int) -> Array:
        """The data of the ``index``-th addressable shard."""
        return self.addressable_shards[index].data

    def copy_to_host_async(self) -> None:
        """Starts the copy to the host (done at once here: the host copy is made and kept)."""
        self.host()

    # --- attributes (shape, dtype, ndim, size, weak_type: Value's) ---------
    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    # --- NumPy's protocols ----------------------------------------------------
    def __array__(self, dtype: DTypeLike | None = None, copy: bool | None = None) -> HostArray:
        host = self.host()
        if dtype is not None and np.dtype(dtype) != host.dtype:
            if copy is False:
                raise ValueError(f"converting an Array of {self.dtype} to {dtype} needs a copy")
            return host.astype(dtype)
        if copy:
            return host.copy()
        view = host.view()
        view.flags.writeable = False
        return view

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self.buffer.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        # DLPack's (device type, device id).
        device: tuple[int, int] = self.buffer.__dlpack_device__()
        return device

    def block_until_ready(self) -> Array:
        buffer = self._buffer
        if buffer is not None:
            if buffer is _DELETED:
                raise self._deleted_error()
            _backend.block_until_ready(buffer)
        return self

    def copy(self) -> Array:
        """A new Array with the same contents (``jnp.copy``)."""
        return Array.from_host(self.host().copy(), self._aval)

    def __reduce__(self) -> tuple[Callable[[HostArray, bool], Array], tuple[HostArray, bool]]:
        return (_rebuild, (self.host().copy(), self.weak_type))

    def __copy__(self) -> Array:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, object]) -> Array:
        return self.copy()

    # --- Python's protocols ---------------------------------------------------
    def __bool__(self) -> bool:
        return bool(self.host())

    def __int__(self) -> int:
        return int(self.host())

    def __float__(self) -> float:
        return float(self.host())

    def __complex__(self) -> complex:
        return complex(self.host())

    def __index__(self) -> int:
        if self.dtype.kind not in "iu":
            raise TypeError(f"only integer Arrays can be used as an index, got {self.dtype}")
        return int(self.host())

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object (a 0-d Array)")
        return self.shape[0]

    def __iter__(self) -> Iterator[Array]:
        if not self.shape:
            raise TypeError("iteration over a 0-d Array")
        host = self.host()
        row = self._aval.update(shape=self.shape[1:])
        # host[i, ...] is a 0-d array, not a NumPy scalar, for 1-d data.
        return (Array.from_host(host[i, ...], row) for i in range(self.shape[0]))

    def tolist(self) -> Any:
        return self.host().tolist()

    def item(self, *args: int) -> bool | int | float | complex:
        out: bool | int | float | complex = self.host().item(*args)
        return out

    def __format__(self, format_spec: str) -> str:
        host = self.host()
        if self.ndim == 0:
            return format(host[()], format_spec)
        return format(host, format_spec)

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        body = np.array2string(self.host(), separator=", ", prefix="Array(")
        return f"Array({body}, dtype={self.dtype.name}{weak})"

    def __str__(self) -> str:
        return str(self.host())

    def __hash__(self) -> int:
        raise TypeError("unhashable type: 'Array' (didax Arrays compare element-wise, as JAX's)")

    def __setitem__(self, index: object, value: object) -> None:
        raise TypeError(_AT_MESSAGE)

    def __delitem__(self, index: object) -> None:
        raise TypeError(_AT_MESSAGE)


def _load_native() -> ModuleType | None:
    """didax's C extension, or None where it was not built or ``DIDAX_NO_NATIVE`` is set."""
    if os.environ.get("DIDAX_NO_NATIVE", "") not in ("", "0"):
        return None
    try:
        from didax.core import _native
    except ImportError:  # built without a C compiler: the Python reference runs
        return None
    return _native


# The C extension, if in use: it waits for Arrays here and runs jit's hit
# path (``didax.api.hit_path``), reading the objects handed to it now.
NATIVE: Final = _load_native()
# The Python reference of the C method (tests hold the two to the same results).
PY_BLOCK_UNTIL_READY: Final = Array.block_until_ready
if NATIVE is not None:
    Array.block_until_ready = NATIVE.array_methods(Array, DELETED, globals())  # type: ignore[method-assign]


@final
class Shard:
    """One device's piece of an Array (``jax.Shard``): ``device``, ``index``, ``data``."""

    __slots__ = ("data", "device", "index")

    def __init__(self, device: Any, index: Index, data: Array) -> None:
        self.device = device
        self.index = index
        self.data = data

    def __repr__(self) -> str:
        return f"Shard(device={self.device!r}, index={self.index}, data={self.data!r})"


def _rebuild(host: HostArray, weak_type: bool) -> Array:
    return Array.from_host(host, ShapedArray(host.shape, host.dtype, weak_type))
