"""didax.scipy.spatial.transform: ``Rotation`` and ``Slerp``, as ``jax.scipy.spatial.transform``.

Re-exported from ``didax.api.scipy_rotation``.
"""

from didax.api import scipy_rotation as _scipy_rotation
from didax.api.scipy_rotation import *  # noqa: F403

__all__ = [*_scipy_rotation.__all__]
