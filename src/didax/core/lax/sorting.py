"""The sort primitive: its declaration, typing rule and ``didax.lax`` wrappers.

``sort`` is XLA's (and JAX's) variadic sort, and ``eq_to_p``, ``le_to_p``
and ``lt_to_p`` are JAX's comparisons in XLA's total order
(``TOTALORDER``: ``-NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN``, each
NaN by its bits), primitives JAX exposes without wrappers. ``sort``: every operand is permuted
along ``dimension`` by the one permutation that sorts the first
``num_keys`` operands lexicographically (the first key primary). The
interpreters' rules are in ``interpreters.sorting``, the lowering in
``lowering.sorting``.

Design rules:
- The order is JAX's total order: for floats ``-inf < ... < -0.0 == 0.0 <
  ... < inf < NaN``, every NaN equal to every other, so that a stable sort
  keeps zeros and NaNs in their original order; booleans ``False < True``.
  Only the comparison canonicalises: the values themselves (a ``-0.0``, a
  NaN's payload) come out as they went in.
- Operands share one shape, and may have different dtypes; the results
  have the operands' types (weak types included).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Final

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, shape_failure
from didax.core.lax.elementwise import _elementwise_rule as elementwise_rule
from didax.core.lax.operands import as_operand, normalize_axis
from didax.core.primitive import Primitive
from didax.core.values import ArrayLike, get_aval

__all__ = ["sort_p", "eq_to_p", "le_to_p", "lt_to_p", "sort", "sort_key_val"]

sort_p: Final = Primitive("sort", multiple_results=True)
eq_to_p: Final = Primitive("eq_to", scalar_operands=True)
le_to_p: Final = Primitive("le_to", scalar_operands=True)
lt_to_p: Final = Primitive("lt_to", scalar_operands=True)
TOTAL_ORDER_COMPARISONS: Final = (eq_to_p, le_to_p, lt_to_p)

for _p in TOTAL_ORDER_COMPARISONS:
    # As the comparisons: a rank-0 operand beside an array, a boolean result.
    ABSTRACT_EVAL.register(_p, elementwise_rule("biuf", "real arrays", dtypes.bool_, True))


@ABSTRACT_EVAL.defines(sort_p)
def _sort_abstract_eval(
    *operands: ShapedArray, dimension: int, is_stable: bool, num_keys: int
) -> list[ShapedArray]:
    if not operands:
        raise shape_failure("needs at least one operand")
    first = operands[0]
    if any(x.shape != first.shape for x in operands):
        raise shape_failure(
            "operands must have equal shapes, got " + " and ".join(str(x.shape) for x in operands)
        )
    if first.ndim == 0:
        raise shape_failure("cannot sort a scalar (rank 0)")
    if not 0 <= dimension < first.ndim:
        raise shape_failure(f"dimension {dimension} is out of range for rank {first.ndim}")
    if not 1 <= num_keys <= len(operands):
        raise shape_failure(f"num_keys={num_keys} must be between 1 and {len(operands)}")
    return list(operands)


def sort(
    operand: ArrayLike | Sequence[ArrayLike],
    dimension: int = -1,
    is_stable: bool = True,
    num_keys: int = 1,
) -> Any:
    """Sorts along ``dimension``: one array, or a sequence permuted by its first ``num_keys``.

    Floats sort in JAX's total order (NaNs last, ``-0.0`` equal to ``0.0``).
    A sequence gives a tuple of results, one array gives one.

    >>> import numpy as np
    >>> sort(np.array([3.0, np.nan, -1.0, 2.0]))
    Array([-1.,  2.,  3., nan], dtype=float32)
    >>> keys, values = sort((np.array([2, 1, 2]), np.array([10, 20, 30])))
    >>> values
    Array([20, 10, 30], dtype=int32)
    """
    if isinstance(operand, (list, tuple)):
        if not operand:
            raise TypeError("sort requires at least one operand")
        ops = [as_operand(x) for x in operand]
        if not 1 <= operator.index(num_keys) <= len(ops):
            raise ValueError(f"num_keys={num_keys} must be between 1 and {len(ops)}")
        dim = normalize_axis(operator.index(dimension), get_aval(ops[0]).ndim)
        return tuple(
            sort_p.bind(*ops, dimension=dim, is_stable=bool(is_stable), num_keys=int(num_keys))
        )
    if num_keys != 1:
        raise ValueError(f"num_keys={num_keys} must equal 1 for a single operand")
    x = as_operand(operand)  # type: ignore[arg-type]
    dim = normalize_axis(operator.index(dimension), get_aval(x).ndim)
    return sort_p.bind(x, dimension=dim, is_stable=bool(is_stable), num_keys=1)[0]


def sort_key_val(
    keys: ArrayLike, values: ArrayLike, dimension: int = -1, is_stable: bool = True
) -> tuple[Any, Any]:
    """Sorts ``keys`` along ``dimension`` and permutes ``values`` the same way."""
    k, v = sort((keys, values), dimension, is_stable, 1)
    return k, v
