"""didax.scipy.interpolate: ``RegularGridInterpolator``, as ``jax.scipy.interpolate`` defines it."""

from didax.api.scipy_misc import RegularGridInterpolator as RegularGridInterpolator

__all__ = ["RegularGridInterpolator"]
