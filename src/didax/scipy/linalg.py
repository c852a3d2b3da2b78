"""didax.scipy.linalg: SciPy's linear algebra, as ``jax.scipy.linalg`` defines it.

``solve_triangular``, ``cho_factor``, ``cho_solve``, ``lu``, ``lu_factor``,
``lu_solve`` and ``expm``, re-exported from ``didax.api.scipy_linalg``.
"""

from didax.api import scipy_linalg as _scipy_linalg
from didax.api.scipy_linalg import *  # noqa: F403

__all__ = [*_scipy_linalg.__all__]
