"""didax.export: jitted functions as serialized StableHLO programs that JAX reads (``jax.export``).

The names live in ``didax.api.export.exported``; this module re-exports its
``__all__``.

    >>> import didax as dx
    >>> import numpy as np
    >>> exp = dx.export.export(dx.jit(lambda x: x + 1.0))(dx.ShapeDtypeStruct((2,), np.float32))
    >>> dx.export.deserialize(dx.export.serialize(exp)).call(np.zeros(2, np.float32))
    Array([1., 1.], dtype=float32)
"""

from didax.api.export import exported as _exported
from didax.api.export.exported import *  # noqa: F403

__all__ = [*_exported.__all__]
