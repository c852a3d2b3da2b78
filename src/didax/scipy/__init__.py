"""didax.scipy: SciPy's functions over didax's primitives (JAX's ``jax.scipy``).

``didax.scipy.special`` holds the special functions,
``didax.scipy.linalg`` the linear algebra and ``didax.scipy.stats`` the
distributions; they live in ``didax.api.scipy_special``,
``didax.api.scipy_linalg`` and ``didax.api.stats``, and this
package only re-exports them.
"""

from didax.scipy import cluster as cluster
from didax.scipy import fft as fft
from didax.scipy import integrate as integrate
from didax.scipy import interpolate as interpolate
from didax.scipy import linalg as linalg
from didax.scipy import ndimage as ndimage
from didax.scipy import optimize as optimize
from didax.scipy import signal as signal
from didax.scipy import sparse as sparse
from didax.scipy import spatial as spatial
from didax.scipy import special as special
from didax.scipy import stats as stats

__all__ = [
    "cluster",
    "fft",
    "integrate",
    "interpolate",
    "linalg",
    "ndimage",
    "optimize",
    "signal",
    "sparse",
    "spatial",
    "special",
    "stats",
]
