"""didax.scipy: SciPy's functions over didax's primitives (JAX's ``jax.scipy``).

``didax.scipy.special`` holds the special functions and
``didax.scipy.linalg`` the linear algebra; they live in
``didax.api.scipy_special`` and ``didax.api.scipy_linalg``, and this
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

__all__ = ["linalg", "special"]
__all__ += [
    "cluster",
    "fft",
    "integrate",
    "interpolate",
    "ndimage",
    "optimize",
    "signal",
    "sparse",
    "spatial",
]
