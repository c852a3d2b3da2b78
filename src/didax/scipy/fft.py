"""didax.scipy.fft: the discrete cosine transforms, as ``jax.scipy.fft`` defines them.

``dct``, ``dctn``, ``idct`` and ``idctn``, re-exported from ``didax.api.scipy_fft``.
"""

from didax.api import scipy_fft as _scipy_fft
from didax.api.scipy_fft import *  # noqa: F403

__all__ = [*_scipy_fft.__all__]
