"""Lowering helpers the families' rules share (``lowering.<family>`` modules).

Design rules:
- The StableHLO spellings of operations several families need are here,
  once: ``compare`` (the comparison type follows the operands' dtype),
  the identities of ``max`` and ``min`` for each dtype, and ``maximum`` /
  ``minimum`` with NumPy's semantics on booleans and JAX's lexicographic
  order on complex numbers. Each primitive family's rules are in its own
  module (``lowering.elementwise``, ``lowering.reductions``, ...).
- A primitive that is one op (``add``, ``xor``, ``chlo.erf``, ...) is
  registered from its family's table by ``register_one_op``.
- Result types come from ``ctx.avals_out``, never from op type inference,
  so a lowered program has exactly the types its jaxpr says; constants go
  through ``mlir.constant``/``mlir.full`` so that bool and unsigned
  constants are spelled one way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeAlias

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import dtypes
from didax.core.dtypes import DType
from didax.core.primitive import Primitive
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext, aval_to_ir_type

Value: TypeAlias = IrValue


# --- helpers -----------------------------------------------------------------------


def compare(x: Value, y: Value, direction: str, dtype: DType) -> Value:
    """``stablehlo.compare``; the comparison type follows the operands' dtype."""
    if dtypes.is_inexact(dtype):
        compare_type = "FLOAT"  # IEEE: every comparison with NaN is false, except NE
    elif dtypes.kind(dtype) == "i":
        compare_type = "SIGNED"
    else:  # unsigned integers and bool (false < true)
        compare_type = "UNSIGNED"
    return hlo.compare(
        x,
        y,
        hlo.ComparisonDirectionAttr.get(direction),
        compare_type=hlo.ComparisonTypeAttr.get(compare_type),
    )


def max_identity(dtype: DType) -> bool | int | float | complex:
    """The identity of ``max``: the least value of ``dtype``.

    For complex numbers, in the lexicographic order, ``-inf - inf j``.
    """
    if dtypes.is_complex(dtype):
        return complex(-np.inf, -np.inf)
    if dtype == dtypes.bool_:
        return False
    if dtypes.is_integer(dtype):
        return dtypes.int_bounds(dtype)[0]
    return -dtypes.float_max(dtype)


def min_identity(dtype: DType) -> bool | int | float | complex:
    """The identity of ``min``: the greatest value of ``dtype``.

    For complex numbers, in the lexicographic order, ``inf + inf j``.
    """
    if dtypes.is_complex(dtype):
        return complex(np.inf, np.inf)
    if dtype == dtypes.bool_:
        return True
    if dtypes.is_integer(dtype):
        return dtypes.int_bounds(dtype)[1]
    return dtypes.float_max(dtype)


def _complex_pick(x: Value, y: Value, direction: str, dtype: DType) -> Value:
    # XLA has no order on complex numbers: JAX's lexicographic one (real parts,
    # then imaginary), as JAX lowers max and min of complex operands.
    part = dtypes.real_dtype(dtype)
    rx, ry = hlo.real(x), hlo.real(y)
    by_imag = compare(hlo.imag(x), hlo.imag(y), direction, part)
    pick_x = hlo.select(compare(rx, ry, "EQ", part), by_imag, compare(rx, ry, direction, part))
    return hlo.select(pick_x, x, y)


def maximum(x: Value, y: Value, dtype: DType) -> Value:
    """``max`` of two values of ``dtype``: "or" on booleans, lexicographic on complex numbers."""
    # On booleans said directly rather than trusting XLA's i1 maximum.
    if dtypes.is_complex(dtype):
        return _complex_pick(x, y, "GT", dtype)
    return hlo.or_(x, y) if dtype == dtypes.bool_ else hlo.maximum(x, y)


def minimum(x: Value, y: Value, dtype: DType) -> Value:
    """``min`` of two values of ``dtype``: "and" on booleans, lexicographic on complex numbers."""
    if dtypes.is_complex(dtype):
        return _complex_pick(x, y, "LT", dtype)
    return hlo.and_(x, y) if dtype == dtypes.bool_ else hlo.minimum(x, y)


OneOp: TypeAlias = Callable[..., IrValue]


def register_one_op(table: Mapping[Primitive, OneOp], *, typed: bool = False) -> None:
    """Lower each primitive of ``table`` to its one op on the operands.

    ``typed``: the op is given its result type (``chlo`` ops, whose Python
    builders do not infer it); otherwise StableHLO infers it from the operands,
    which for these element-wise ops is the jaxpr's type.
    """

    def one_op_rule(op: OneOp) -> Callable[..., list[IrValue]]:
        def rule(ctx: LoweringRuleContext, *args: IrValue) -> list[IrValue]:
            if typed:
                return [op(*args, results=[aval_to_ir_type(ctx.avals_out[0])])]
            return [op(*args)]

        return rule

    for prim, op in table.items():
        LOWERING_RULES.register(prim, one_op_rule(op))
