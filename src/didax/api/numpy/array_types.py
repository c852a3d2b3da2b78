"""The types of ``didax.numpy``'s signatures (as JAX's ``jax._src.typing``).

Design rules:
- Types only: this module imports no ``didax.api`` module, so that every
  module of the layer can annotate with them, whatever it builds on.
- ``operands`` keeps the helpers that turn arguments into operands;
  ``Operand`` (what ``operands.operand`` gives) is named there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias, TypedDict

from didax.core import values
from didax.core.basearray import Value
from didax.core.dtypes import DTypeLike
from didax.core.lax.precision import PrecisionLike

__all__ = ["Array", "ArrayLike", "Axis", "DotOptions"]

# A didax value, or a (nested) list or tuple of them (``asarray`` stacks those).
ArrayLike: TypeAlias = values.ArrayLike | list[Any] | tuple[Any, ...]
# What a didax.numpy function returns: a Tracer under a transformation, a
# didax Array in eager code.
Array: TypeAlias = Value
# The axes a reduction takes: one, several, or all of them (None).
Axis: TypeAlias = int | Sequence[int] | None


class DotOptions(TypedDict, total=False):
    """The keyword options of the products (``dot``, ``matmul``, ``tensordot``, ``einsum``, ...).

    ``precision`` is their ``lax.Precision``; ``preferred_element_type`` the
    dtype they accumulate in and return (None: the operands'), as JAX's.
    ``linear_algebra.dot_options`` reads them.
    """

    precision: PrecisionLike
    preferred_element_type: DTypeLike
