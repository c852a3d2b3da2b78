"""The exceptions didax raises for misuse (defined in ``didax.core.errors``).

``JaxRuntimeError`` is jaxlib's class for a program that fails on the
device (out of memory, say): ``jax.errors`` re-exports it, and so does this
module (a facade may import jax; the layers below reach jaxlib only
through ``didax.lowering``).
"""

from jax.errors import JaxRuntimeError as JaxRuntimeError

from didax.core import errors as _errors
from didax.core.errors import *  # noqa: F403

__all__ = [*_errors.__all__, "JaxRuntimeError"]
