"""didax.scipy.ndimage: ``map_coordinates``, as ``jax.scipy.ndimage`` defines it."""

from didax.api.scipy_misc import map_coordinates as map_coordinates

__all__ = ["map_coordinates"]
