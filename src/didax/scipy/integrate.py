"""didax.scipy.integrate: ``trapezoid``, as ``jax.scipy.integrate`` defines it."""

from didax.api.scipy_misc import trapezoid as trapezoid

__all__ = ["trapezoid"]
