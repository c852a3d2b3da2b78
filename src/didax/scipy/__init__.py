"""didax.scipy: SciPy's functions over didax's primitives (JAX's ``jax.scipy``).

``didax.scipy.special`` holds the special functions and
``didax.scipy.linalg`` the linear algebra; they live in
``didax.api.scipy_special`` and ``didax.api.scipy_linalg``, and this
package only re-exports them.
"""

from didax.scipy import linalg as linalg
from didax.scipy import special as special

__all__ = ["linalg", "special"]
