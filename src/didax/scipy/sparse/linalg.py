"""didax.scipy.sparse.linalg: ``cg``, ``bicgstab`` and ``gmres``, as ``jax.scipy.sparse.linalg``.

Re-exported from ``didax.api.scipy_sparse_linalg``.
"""

from didax.api import scipy_sparse_linalg as _scipy_sparse_linalg
from didax.api.scipy_sparse_linalg import *  # noqa: F403

__all__ = [*_scipy_sparse_linalg.__all__]
