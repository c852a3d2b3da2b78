"""The exceptions didax raises for misuse (defined in ``didax.core.errors``).

``JaxRuntimeError`` is jaxlib's class for a program that fails on the
device (out of memory, say), the very class ``jax.errors`` names;
``JaxprTypeError`` is what the jaxpr verifier (``didax.ir.typecheck``) raises.
"""

from didax.core import errors as _errors
from didax.core.errors import *  # noqa: F403
from didax.ir.typecheck import JaxprTypeError as JaxprTypeError
from didax.lowering.xla import JaxRuntimeError as JaxRuntimeError

__all__ = [*_errors.__all__, "JaxRuntimeError", "JaxprTypeError"]
