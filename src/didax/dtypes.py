"""didax.dtypes: JAX's ``jax.dtypes`` (canonical dtypes, promotion, float0, bfloat16, keys' dtypes).

The names live in ``didax.api.dtypes_module``; this module re-exports its ``__all__``.

>>> import didax.dtypes
>>> didax.dtypes.result_type(np.int8, np.uint8)
dtype('int16')
"""

from didax.api import dtypes_module as _dtypes_module
from didax.api.dtypes_module import *  # noqa: F403

__all__ = [*_dtypes_module.__all__]
