"""The exceptions didax raises for misuse (see ``didax.api`` for where)."""

from didax.core.errors import ConcretizationTypeError as ConcretizationTypeError
from didax.core.errors import DTypeError as DTypeError
from didax.core.errors import ShapeError as ShapeError
from didax.core.errors import UnexpectedTracerError as UnexpectedTracerError

__all__ = ["ConcretizationTypeError", "DTypeError", "ShapeError", "UnexpectedTracerError"]
