"""didax.export: jitted functions as serialized StableHLO programs that JAX reads (``jax.export``).

The names live in ``didax.api.export.exported``, ``didax.api.export.pytrees``
(custom pytree nodes in serialized exports) and ``didax.api.export.symbolic``
(symbolic dimensions); this module re-exports their ``__all__``.

    >>> import didax as dx
    >>> import numpy as np
    >>> exp = dx.export.export(dx.jit(lambda x: x + 1.0))(dx.ShapeDtypeStruct((2,), np.float32))
    >>> dx.export.deserialize(dx.export.serialize(exp)).call(np.zeros(2, np.float32))
    Array([1., 1.], dtype=float32)
"""

from didax.api.export import exported as _exported
from didax.api.export import pytrees as _pytrees
from didax.api.export import symbolic as _symbolic
from didax.api.export.exported import *  # noqa: F403
from didax.api.export.pytrees import *  # noqa: F403
from didax.api.export.symbolic import *  # noqa: F403

__all__ = [*_exported.__all__, *_pytrees.__all__, *_symbolic.__all__]
