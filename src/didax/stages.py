"""didax.stages: a jitted function traced, lowered and compiled (JAX's ``jax.stages``).

The classes live in ``didax.api.stages`` (``Traced``, ``Wrapped``) and
``didax.api.aot`` (``Lowered``, ``Compiled``); this module re-exports
``didax.api.stages``' ``__all__``.

    >>> import didax as dx
    >>> import numpy as np
    >>> lowered = dx.jit(lambda x: x + 1.0).lower(dx.ShapeDtypeStruct((2,), np.float32))
    >>> isinstance(lowered, dx.stages.Lowered)
    True
"""

from didax.api import stages as _stages
from didax.api.stages import *  # noqa: F403

__all__ = [*_stages.__all__]
