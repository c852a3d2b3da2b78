"""``dim_as_value``: a symbolic dimension's size as an integer array (JAX's ``dimension_as_value``).

Design rules:
- A program traced with symbolic dimensions (``core.shape_poly``) may use a
  size as a number (a mean divides by ``x.shape[0]``): the size becomes the
  result of ``dim_as_value``, a weakly typed default integer, which the
  lowering computes from the module's argument shapes
  (``lowering.shape_poly``). A constant size stays a Python int.
"""

from __future__ import annotations

from typing import Final

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL
from didax.core.basearray import Value
from didax.core.lax.operands import bind_value
from didax.core.primitive import Primitive
from didax.core.shape_poly import DimExpr

__all__ = ["dim_as_value_p", "dimension_as_value"]

dim_as_value_p: Final = Primitive("dim_as_value")


@ABSTRACT_EVAL.defines(dim_as_value_p)
def _dim_as_value_abstract_eval(*, dim: DimExpr) -> ShapedArray:
    return ShapedArray((), dtypes.default_int(), weak_type=True)


def dimension_as_value(d: int | DimExpr) -> int | Value:
    """The size ``d`` as a value: ``d`` itself when constant, else ``dim_as_value``'s result."""
    if not isinstance(d, DimExpr):
        return d
    return bind_value(dim_as_value_p, dim=d)
