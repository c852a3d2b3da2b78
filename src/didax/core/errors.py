"""The exceptions didax raises for misuse, re-exported as ``didax.errors``.

Design rule: every error a user can cause names what went wrong in the
user's terms (the primitive, the operand types, the transformation) and
points at the user's source line, found by ``source_info.user_frame``.
"""

from __future__ import annotations

__all__ = [
    "ConcretizationTypeError",
    "UnexpectedTracerError",
    "ShapeError",
    "DTypeError",
]


class ConcretizationTypeError(TypeError):
    """A tracer was used where a concrete Python value is needed.

    Raised by ``bool()``, ``int()``, ``float()`` or ``np.asarray`` of an
    abstract tracer, e.g. a Python ``if`` on a traced value under
    ``make_jaxpr`` or ``jit``.
    """


class UnexpectedTracerError(Exception):
    """A tracer escaped the transformation that made it and was used later."""


class ShapeError(TypeError):
    """A primitive was applied to operands of incompatible shapes."""


class DTypeError(TypeError):
    """A primitive was applied to operands of unsupported or mismatched dtypes."""


# Tracebacks name the public module, as JAX's errors do.
for _cls in (ConcretizationTypeError, UnexpectedTracerError, ShapeError, DTypeError):
    _cls.__module__ = "didax.errors"
