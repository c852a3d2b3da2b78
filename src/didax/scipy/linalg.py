"""didax.scipy.linalg: SciPy's linear algebra, as ``jax.scipy.linalg`` defines it.

The factorizations and solves of ``didax.api.scipy_linalg`` and
``didax.api.scipy_linalg_decomp``, ``polar`` (``didax.api.scipy_linalg_polar``),
the Schur-form functions (``didax.api.scipy_linalg_schur``),
``eigh_tridiagonal`` (``didax.api.scipy_linalg_tridiagonal``) and the special
matrices of ``didax.api.scipy_linalg_matrices``, re-exported.
"""

from didax.api import scipy_linalg as _scipy_linalg
from didax.api import scipy_linalg_decomp as _decomp
from didax.api import scipy_linalg_matrices as _matrices
from didax.api import scipy_linalg_polar as _polar
from didax.api import scipy_linalg_schur as _schur
from didax.api import scipy_linalg_tridiagonal as _tridiagonal
from didax.api.scipy_linalg import *  # noqa: F403
from didax.api.scipy_linalg_decomp import *  # noqa: F403
from didax.api.scipy_linalg_matrices import *  # noqa: F403
from didax.api.scipy_linalg_polar import *  # noqa: F403
from didax.api.scipy_linalg_schur import *  # noqa: F403
from didax.api.scipy_linalg_tridiagonal import *  # noqa: F403

__all__ = [
    *_scipy_linalg.__all__,
    *_decomp.__all__,
    *_polar.__all__,
    *_schur.__all__,
    *_tridiagonal.__all__,
    *_matrices.__all__,
]
