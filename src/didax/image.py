"""didax.image: JAX's ``jax.image`` (``resize``, ``scale_and_translate``, ``ResizeMethod``).

The names live in ``didax.api.image``; this module re-exports its ``__all__``.
"""

from didax.api import image as _image
from didax.api.image import *  # noqa: F403

__all__ = [*_image.__all__]
