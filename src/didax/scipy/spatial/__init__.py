"""didax.scipy.spatial: the ``transform`` module (rotations), as ``jax.scipy.spatial``."""

from didax.scipy.spatial import transform as transform

__all__ = ["transform"]
