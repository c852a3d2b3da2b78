"""didax.scipy: SciPy's functions over didax's primitives (JAX's ``jax.scipy``).

``didax.scipy.special`` holds the special functions; they live in
``didax.api.scipy_special``, and this package only re-exports them.
"""

from didax.scipy import special as special

__all__ = ["special"]
