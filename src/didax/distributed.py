"""didax.distributed: several processes, one program (``jax.distributed``'s names).

``initialize(coordinator_address, num_processes, process_id)`` joins a run
through jaxlib's distributed runtime; the functions live in
``didax.api.distributed``, whose ``__all__`` is re-exported here (and the
queries at the top level: ``didax.process_index()``, ``didax.process_count()``).

>>> import didax as dx
>>> dx.distributed.process_count()
1
"""

from didax.api import distributed as _distributed
from didax.api.distributed import *  # noqa: F403

__all__ = [*_distributed.__all__]
