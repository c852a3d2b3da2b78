"""Devices and shardings at the API: ``devices``, ``device_count``, ``didax.sharding``'s classes.

Design rules:
- The classes are core's values (``Mesh``, ``PartitionSpec``,
  ``NamedSharding``, ``SingleDeviceSharding``), re-exported as
  ``didax.sharding`` (and ``P`` at the top level, as users write it).
- Devices are jaxlib's own device objects, as in JAX: a mesh built from
  ``didax.devices()`` and one built from ``jax.devices()`` are the same.
"""

from __future__ import annotations

from typing import Any

from didax.core.sharding import Mesh as Mesh
from didax.core.sharding import NamedSharding as NamedSharding
from didax.core.sharding import PartitionSpec as PartitionSpec
from didax.core.sharding import Sharding as Sharding
from didax.core.sharding import SingleDeviceSharding as SingleDeviceSharding
from didax.lowering import xla

__all__ = ["devices", "device_count", "local_device_count", "P"]

# process_index, process_count and make_array_from_process_local_data are
# didax.distributed's (api.distributed), re-exported at the top level.

P = PartitionSpec


def devices() -> list[Any]:
    """The devices of the default backend (``jax.devices()``).

    >>> import didax as dx
    >>> dx.devices()[0].platform
    'cpu'
    """
    return xla.devices()


def device_count() -> int:
    """How many devices there are (``jax.device_count()``).

    >>> import didax as dx
    >>> dx.device_count() >= 1
    True
    """
    return len(xla.devices())


def local_device_count() -> int:
    """How many devices this process drives (all of them, in one process)."""
    return len(xla.local_devices())
