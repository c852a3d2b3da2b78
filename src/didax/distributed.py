"""didax.distributed: several processes, one program (``jax.distributed``'s names).

``initialize(coordinator_address, num_processes, process_id)`` joins a run
through jaxlib's distributed runtime; the functions live in
``didax.api.distributed``, re-exported here (and the queries at the top
level: ``didax.process_index()``, ``didax.process_count()``).

>>> import didax as dx
>>> dx.distributed.process_count()
1
"""

from didax.api.distributed import initialize as initialize
from didax.api.distributed import (
    make_array_from_process_local_data as make_array_from_process_local_data,
)
from didax.api.distributed import process_count as process_count
from didax.api.distributed import process_index as process_index
from didax.api.distributed import shutdown as shutdown

__all__ = [
    "initialize",
    "shutdown",
    "process_index",
    "process_count",
    "make_array_from_process_local_data",
]
