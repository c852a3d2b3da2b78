"""didax.sharding: how arrays lie over devices (``jax.sharding``'s names).

``Mesh``, ``PartitionSpec``, ``NamedSharding`` and ``SingleDeviceSharding``
are values from ``didax.core.sharding``; this module re-exports them.

>>> import numpy as np
>>> import didax as dx
>>> from didax.sharding import Mesh, NamedSharding, PartitionSpec as P
>>> mesh = Mesh(np.array(dx.devices()[:1]), ("x",))
>>> NamedSharding(mesh, P("x")).shard_shape((4, 2))
(4, 2)
"""

from didax.api.sharding import Mesh as Mesh
from didax.api.sharding import NamedSharding as NamedSharding
from didax.api.sharding import PartitionSpec as PartitionSpec
from didax.api.sharding import Sharding as Sharding
from didax.api.sharding import SingleDeviceSharding as SingleDeviceSharding

__all__ = ["Mesh", "NamedSharding", "PartitionSpec", "Sharding", "SingleDeviceSharding"]
