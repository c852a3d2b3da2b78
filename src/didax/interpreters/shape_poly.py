"""``dim_as_value``'s interpreter rules: it has no operands and a constant tangent.

Design rules:
- It is bound only while tracing a program with symbolic dimensions (for an
  export), whose values are never computed eagerly: its impl raises JAX's
  ``InconclusiveDimensionOperation`` (``int()`` of the dimension), naming it.
- Its tangent is zero (a size does not vary), it has no operand to batch or
  transpose, and it costs no flops.
"""

from __future__ import annotations

import numpy as np

from didax.core import dtypes
from didax.core.basearray import HostArray
from didax.core.lax.shape_poly import dim_as_value_p
from didax.core.shape_poly import DimExpr
from didax.interpreters.evaluation import IMPL_RULES
from didax.interpreters.flops import FLOPS_RULES, per_element
from didax.interpreters.jvp import zero_jvp

__all__: list[str] = []


@IMPL_RULES.defines(dim_as_value_p)
def _dim_as_value_impl(*, dim: DimExpr) -> HostArray:
    return np.asarray(int(dim), dtypes.default_int())


zero_jvp(dim_as_value_p)
FLOPS_RULES.register(dim_as_value_p, per_element(0))
