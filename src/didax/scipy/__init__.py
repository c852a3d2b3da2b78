"""didax.scipy: SciPy's functions over didax's primitives (JAX's ``jax.scipy``).

``didax.scipy.special`` holds the special functions,
``didax.scipy.linalg`` the linear algebra and ``didax.scipy.stats`` the
distributions; they live in ``didax.api.scipy_special``,
``didax.api.scipy_linalg`` and ``didax.api.stats``, and this
package only re-exports them.
"""

from didax.scipy import linalg as linalg
from didax.scipy import special as special
from didax.scipy import stats as stats

__all__ = ["linalg", "special", "stats"]
