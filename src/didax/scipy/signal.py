"""didax.scipy.signal: convolutions and spectral estimates, as ``jax.scipy.signal`` defines them.

Re-exported from ``didax.api.scipy_signal`` (the convolutions, ``detrend``)
and ``didax.api.scipy_spectral`` (``csd``, ``welch``, ``stft``, ``istft``).
"""

from didax.api import scipy_signal as _scipy_signal
from didax.api import scipy_spectral as _scipy_spectral
from didax.api.scipy_signal import *  # noqa: F403
from didax.api.scipy_spectral import *  # noqa: F403

__all__ = [*_scipy_signal.__all__, *_scipy_spectral.__all__]
