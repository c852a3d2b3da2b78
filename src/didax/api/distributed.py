"""Past one machine: ``didax.distributed.initialize`` and the process queries.

Design rules:
- Processes join through jaxlib's own distributed runtime (its
  coordination service), as JAX's ``jax.distributed.initialize``; on CPUs
  their devices talk through the collectives that
  ``config.update("jax_cpu_collectives_implementation", "gloo")`` names.
  It must run before anything starts the backend (``didax`` starts it on
  first use, not at import).
- Afterwards ``devices()`` lists every process's devices and
  ``local_device_count()`` this process's; a mesh over all of them makes
  one SPMD program for all processes, each running its part.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from didax.core.array import Array
from didax.core.config import config
from didax.core.sharding import NamedSharding
from didax.core.values import as_array
from didax.lowering import xla
from didax.lowering.sharding import from_process_local

__all__ = [
    "initialize",
    "shutdown",
    "process_index",
    "process_count",
    "make_array_from_process_local_data",
]


def initialize(
    coordinator_address: str,
    num_processes: int,
    process_id: int,
    local_device_ids: Sequence[int] | None = None,
) -> None:
    """Joins this process to a run of ``num_processes`` (``jax.distributed.initialize``).

    Process 0 also serves the coordination service at ``coordinator_address``
    (``host:port``). Call it before any computation.
    """
    collectives = config.read("jax_cpu_collectives_implementation")
    xla.distributed_initialize(
        coordinator_address,
        num_processes,
        process_id,
        None if collectives is None else str(collectives),
        local_device_ids,
    )


def shutdown() -> None:
    """Leaves the distributed run (``jax.distributed.shutdown``)."""
    xla.distributed_shutdown()


def process_index() -> int:
    """This process's index in the run (0 in a single process)."""
    return xla.process_index()


def process_count() -> int:
    """How many processes the run has (1 unless ``initialize`` was called)."""
    return xla.process_count()


def make_array_from_process_local_data(
    sharding: NamedSharding, local_data: Any, global_shape: Sequence[int] | None = None
) -> Array:
    """The global Array whose pieces on this process come from ``local_data``.

    Each process passes its contiguous block of the whole; the global shape
    defaults to the blocks put together along the dimensions ``sharding``
    splits (JAX's ``make_array_from_process_local_data``).

    >>> import didax as dx
    >>> from didax.sharding import Mesh, NamedSharding, PartitionSpec as P
    >>> s = NamedSharding(Mesh(np.array(dx.devices()[:1]), ("i",)), P("i"))
    >>> dx.make_array_from_process_local_data(s, np.arange(3.0)).shape
    (3,)
    """
    host = np.asarray(as_array(local_data))
    shape = None if global_shape is None else tuple(int(n) for n in global_shape)
    return from_process_local(sharding, host, shape)
