"""Devices, processes and arrays assembled from pieces, with JAX's top-level names.

Design rules:
- Devices are jaxlib's own (``Device`` is jaxlib's class), so a device
  from ``didax.devices()`` and one from ``jax.devices()`` are the same.
- ``make_array_from_callback`` and ``make_array_from_single_device_arrays``
  build one Array laid out as a sharding says, from each device's piece,
  as JAX's do; the pieces go to their devices in one batched transfer.
- ``live_arrays`` lists the didax Arrays alive in the process (what the
  user and didax's caches hold), found through the garbage collector's
  list of objects: a debugging aid, not a hot path.
- The ``host_*`` names are JAX's deprecated spellings of the ``process_*``
  ones, and warn as JAX's do.
"""

from __future__ import annotations

import gc
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import jax.sharding
import numpy as np
from jax import tree_util

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.array import Array
from didax.core.array import Shard as Shard
from didax.core.sharding import Index, Mesh, SingleDeviceSharding
from didax.core.sharding import NamedSharding as NamedSharding
from didax.core.values import ValueKind, as_array, get_aval, value_kind
from didax.lowering import runtime, xla
from didax.lowering.sharding import addressable, device_put_sharded, jax_sharding

__all__ = [
    "Device",
    "NamedSharding",
    "Shard",
    "float0",
    "default_backend",
    "local_devices",
    "process_indices",
    "host_count",
    "host_id",
    "host_ids",
    "live_arrays",
    "make_mesh",
    "make_array_from_callback",
    "make_array_from_single_device_arrays",
    "copy_to_host_async",
    "print_environment_info",
    "typeof",
]

Device = xla.Device
float0 = dtypes.float0


def _one_backend(fn: str, backend: object) -> None:
    if backend is not None and backend != runtime.backend_platform():
        raise ValueError(
            f"{fn}: didax runs on one backend, {runtime.backend_platform()!r}; "
            f"got backend={backend!r}"
        )


def default_backend() -> str:
    """The default backend's platform: ``'cpu'``, ``'gpu'`` or ``'tpu'`` (``jax.default_backend``).

    >>> import didax as dx
    >>> dx.default_backend()
    'cpu'
    """
    return runtime.backend_platform()


def local_devices(
    process_index: int | None = None, backend: str | None = None, host_id: int | None = None
) -> list[Any]:
    """The devices of process ``process_index`` (this one by default), as ``jax.local_devices``."""
    _one_backend("local_devices", backend)
    if host_id is not None:
        warnings.warn(
            "The argument to jax.local_devices has been renamed from `host_id` to "
            "`process_index`. This alias will eventually be removed; please update your code.",
            stacklevel=2,
        )
        process_index = host_id
    if process_index is None:
        return xla.local_devices()
    return [d for d in xla.devices() if d.process_index == process_index]


def process_indices(backend: str | None = None) -> list[int]:
    """Every process's index, in order (``jax.process_indices``)."""
    _one_backend("process_indices", backend)
    return list(range(xla.process_count()))


def _renamed(old: str, new: str) -> None:
    """JAX's deprecation warning of its ``host_*`` aliases, word for word (its names are
    ``old``, as JAX spells them), pointing at the caller's caller."""
    warnings.warn(
        f"jax.{old} has been renamed to jax.{new}. This alias "
        "will eventually be removed; please update your code.",
        stacklevel=3,
    )


def host_count(backend: str | None = None) -> int:
    """``process_count()`` under its old name (``jax.host_count``, deprecated as in JAX)."""
    _renamed("process_count", "process_count")
    _one_backend("host_count", backend)
    return xla.process_count()


def host_id(backend: str | None = None) -> int:
    """``process_index()`` under its old name (``jax.host_id``, deprecated as in JAX)."""
    _renamed("process_index", "process_index")
    _one_backend("host_id", backend)
    return xla.process_index()


def host_ids(backend: str | None = None) -> list[int]:
    """``process_indices()`` under its old name (``jax.host_ids``, deprecated as in JAX)."""
    _renamed("process_indexs", "process_indices")
    return process_indices(backend)


def live_arrays(platform: str | None = None) -> list[Array]:
    """Every didax Array alive in the process and not deleted (``jax.live_arrays``)."""
    _one_backend("live_arrays", platform)
    return [o for o in gc.get_objects() if type(o) is Array and not o.is_deleted()]


def make_mesh(
    axis_shapes: Sequence[int],
    axis_names: Sequence[str],
    axis_types: Sequence[object] | None = None,
    *,
    devices: Sequence[Any] | None = None,
) -> Mesh:
    """A mesh of the first ``prod(axis_shapes)`` devices, laid out in order (``jax.make_mesh``).

    didax's mesh axes have one kind, which behaves as JAX's
    ``AxisType.Auto`` (shardings are explicit ``NamedSharding``s, never
    part of a type): ``axis_types`` may be None or all ``Auto``.

    >>> import didax as dx
    >>> dx.make_mesh((1,), ("x",))
    Mesh('x': 1)
    """
    shape = tuple(int(n) for n in axis_shapes)
    if axis_types is not None and any(t != jax.sharding.AxisType.Auto for t in axis_types):
        raise NotImplementedError(
            f"make_mesh: didax's mesh axes are all of JAX's Auto kind; got axis_types={axis_types}"
        )
    pool = list(xla.devices() if devices is None else devices)
    size = math.prod(shape)
    if size > len(pool):
        raise ValueError(
            f"make_mesh: Number of devices {len(pool)} must be >= the product of mesh_shape {shape}"
        )
    grid = np.empty(size, dtype=object)
    grid[:] = pool[:size]
    return Mesh(grid.reshape(shape), tuple(axis_names))


def _checked_shape(fn: str, shape: Sequence[int]) -> tuple[int, ...]:
    try:
        return tuple(int(n) for n in shape)
    except TypeError:
        raise TypeError(f"{fn}: shape must be a sequence of ints, got {shape!r}") from None


def _assemble(
    shape: tuple[int, ...],
    sharding: NamedSharding | SingleDeviceSharding,
    piece_of: Callable[[Any, Index], np.ndarray[Any, Any]],
    dtype: object,
) -> Array:
    """The Array laid out as ``sharding`` says, each device's piece ``piece_of(device, index)``."""
    indices = sharding.devices_indices_map(shape)
    if isinstance(sharding, SingleDeviceSharding):
        (index,) = indices.values()
        return device_put_sharded(_cast(piece_of(sharding.device, index), dtype), sharding)
    devices = addressable(sharding.mesh)
    pieces = [_cast(piece_of(d, indices[d]), dtype) for d in devices]
    expected = sharding.shard_shape(shape)
    for d, p in zip(devices, pieces, strict=True):
        if p.shape != expected:
            raise ValueError(
                f"the piece for device {d} has shape {p.shape}; the sharding's shard shape "
                f"for {shape} is {expected}"
            )
    buffer = xla.to_devices(pieces, devices, shape, jax_sharding(sharding))
    aval = ShapedArray(shape, pieces[0].dtype)
    return Array.from_sharded(buffer, aval, sharding)


def _cast(piece: np.ndarray[Any, Any], dtype: object) -> np.ndarray[Any, Any]:
    return piece if dtype is None else piece.astype(dtypes.canonicalize(dtype), copy=False)


def make_array_from_callback(
    shape: Sequence[int],
    sharding: NamedSharding | SingleDeviceSharding,
    data_callback: Callable[[Index], Any],
    dtype: object = None,
) -> Array:
    """The Array of ``shape`` over ``sharding``, each device's piece ``data_callback(index)``.

    ``index`` is the device's tuple of slices into the whole (``jax.make_array_from_callback``).

    >>> import didax as dx
    >>> mesh = dx.make_mesh((1,), ("x",))
    >>> data = np.arange(4.0)
    >>> dx.make_array_from_callback((4,), dx.NamedSharding(mesh, dx.P("x")), lambda i: data[i])
    Array([0., 1., 2., 3.], dtype=float32)
    """
    full = _checked_shape("make_array_from_callback", shape)

    def piece(device: Any, index: Index) -> np.ndarray[Any, Any]:
        data = data_callback(index)
        if value_kind(data) is ValueKind.TRACER:
            raise TypeError("make_array_from_callback cannot be called within a traced context")
        return as_array(data)

    return _assemble(full, sharding, piece, dtype)


def make_array_from_single_device_arrays(
    shape: Sequence[int],
    sharding: NamedSharding | SingleDeviceSharding,
    arrays: Sequence[Any],
    *,
    dtype: object = None,
) -> Array:
    """The Array of ``shape`` whose pieces are ``arrays``, one per device of ``sharding``.

    As ``jax.make_array_from_single_device_arrays``: ``arrays[i]`` is the
    piece of the ``i``-th of the sharding's devices (in its mesh order);
    each lies on its device, and the result shares their buffers.
    """
    full = _checked_shape("make_array_from_single_device_arrays", shape)
    for a in arrays:
        if not isinstance(a, Array):
            raise TypeError(
                "make_array_from_single_device_arrays: arrays must be didax Arrays, "
                f"got {type(a).__name__}"
            )
    devices = list(sharding.devices_indices_map(full))
    if len(arrays) != len(devices):
        raise ValueError(
            f"make_array_from_single_device_arrays: {len(arrays)} arrays for the "
            f"{len(devices)} devices of the sharding"
        )
    if isinstance(sharding, SingleDeviceSharding) or dtype is not None:
        by_device = dict(zip(devices, arrays, strict=True))
        return _assemble(full, sharding, lambda d, _: as_array(by_device[d]), dtype)
    pieces = [a.buffer for a in arrays]
    buffer = runtime.assemble(full, jax_sharding(sharding), pieces)
    return Array.from_sharded(buffer, arrays[0].aval.update(shape=full, weak_type=False), sharding)


def copy_to_host_async(x: object) -> None:
    """Starts copying every Array of the pytree ``x`` to the host (``jax.copy_to_host_async``)."""
    for leaf in tree_util.tree_leaves(x):
        if isinstance(leaf, Array):
            leaf.copy_to_host_async()


def print_environment_info(return_string: bool = False) -> str | None:
    """Prints (or returns) the versions, platform and devices (``jax.print_environment_info``)."""
    text = "\n".join(runtime.environment_lines())
    if return_string:
        return text
    print(text)
    return None


def typeof(x: object) -> ShapedArray:
    """The abstract value of ``x``: its shape, dtype and weak type (``jax.typeof``).

    >>> import didax as dx
    >>> dx.typeof(dx.numpy.ones((2, 3)))
    ShapedArray(f32[2,3])
    """
    return get_aval(x)
