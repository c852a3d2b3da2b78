"""The exceptions didax raises for misuse (defined in ``didax.core.errors``)."""

from didax.core import errors as _errors
from didax.core.errors import *  # noqa: F403

__all__ = [*_errors.__all__]
