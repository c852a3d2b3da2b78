"""The exceptions didax raises for misuse, re-exported as ``didax.errors``.

Design rules:
- Every error a user can cause names what went wrong in the user's terms
  (the primitive, the operand types, the transformation) and points at the
  user's source line, found by ``source_info.user_frame``.
- The classes are JAX's (``jax.errors``), raised where JAX raises them:
  ``bool()`` of an abstract tracer raises ``TracerBoolConversionError``,
  ``operator.index`` ``TracerIntegerConversionError``, ``np.asarray``
  ``TracerArrayConversionError``, ``int()``/``float()``
  ``ConcretizationTypeError``, a boolean mask under ``jit``
  ``NonConcreteBooleanIndexError``.
- One deliberate difference from JAX's hierarchy: the integer and array
  conversion errors subclass ``ConcretizationTypeError`` here (JAX's
  subclass ``JAXTypeError`` only), so that code catching a concretization
  failure (``shape_arg``'s ``operator.index``) catches every form of it.
  Both are still ``TypeError``s, as JAX's.
"""

from __future__ import annotations

__all__ = [
    "JAXTypeError",
    "JAXIndexError",
    "ConcretizationTypeError",
    "TracerBoolConversionError",
    "TracerIntegerConversionError",
    "TracerArrayConversionError",
    "NonConcreteBooleanIndexError",
    "UnexpectedTracerError",
    "KeyReuseError",
    "JaxprTypeError",
    "ShapeError",
    "DTypeError",
    "InconclusiveDimensionOperation",
]


class JAXTypeError(TypeError):
    """The base of the ``TypeError``s named after JAX's (JAX's ``JAXTypeError``)."""


class JAXIndexError(IndexError):
    """The base of the ``IndexError``s named after JAX's (JAX's ``JAXIndexError``)."""


class ConcretizationTypeError(JAXTypeError):
    """A tracer was used where a concrete Python value is needed.

    Raised by ``int()`` or ``float()`` of an abstract tracer, e.g. under
    ``make_jaxpr`` or ``jit``, and by functions whose result's shape depends
    on their operands' values.
    """


class TracerBoolConversionError(ConcretizationTypeError):
    """``bool()`` of an abstract tracer: a Python ``if``/``while`` on a traced value."""


class TracerIntegerConversionError(ConcretizationTypeError):
    """``__index__`` of an abstract tracer: a traced value used as a Python index."""


class TracerArrayConversionError(ConcretizationTypeError):
    """``np.asarray`` (``__array__``) of a tracer that has no concrete value."""


class NonConcreteBooleanIndexError(JAXIndexError):
    """A boolean mask whose value is not known while tracing (under jit or vmap).

    A mask's ``True`` count is the result's shape, which must be static; use
    ``where(mask, x, y)`` or ``x.at[...]`` with integer indices instead.
    """


class UnexpectedTracerError(JAXTypeError):
    """A tracer escaped the transformation that made it and was used later."""


class KeyReuseError(JAXTypeError):
    """A PRNG key was used twice (JAX's class, raised by its key-reuse checker).

    didax has no key-reuse checker (JAX's runs only under the
    ``jax_debug_key_reuse`` flag), so didax itself never raises it; it is
    here so that code naming it works with either library.
    """


class JaxprTypeError(TypeError):
    """A jaxpr is ill-formed or ill-typed (raised by ``didax.ir.typecheck``)."""


class ShapeError(TypeError):
    """A primitive was applied to operands of incompatible shapes."""


class DTypeError(TypeError):
    """A primitive was applied to operands of unsupported or mismatched dtypes."""


class InconclusiveDimensionOperation(Exception):
    """A comparison or conversion of symbolic dimensions no single answer fits (JAX's).

    Raised by ``core.shape_poly`` (``b >= 2``, ``int(b)``) as JAX raises it.
    """


# Tracebacks name the public module, as JAX's errors do.
for _name in __all__:
    globals()[_name].__module__ = "didax.errors"
