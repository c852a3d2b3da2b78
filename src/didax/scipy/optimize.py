"""didax.scipy.optimize: ``minimize`` (BFGS) and ``OptimizeResults``, as ``jax.scipy.optimize``.

Re-exported from ``didax.api.scipy_optimize``.
"""

from didax.api import scipy_optimize as _scipy_optimize
from didax.api.scipy_optimize import *  # noqa: F403

__all__ = [*_scipy_optimize.__all__]
