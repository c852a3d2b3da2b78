"""Lowering programs with symbolic dimensions (batch-polymorphic exports), as JAX's.

Design rules:
- A symbolic dimension is ``?`` in its tensor type (``mlir.aval_to_ir_type``).
  ``main`` computes each dimension variable's size from the first argument
  dimension that is exactly that variable (``stablehlo.get_dimension_size``,
  as JAX's ``_wrap_main_func`` computes its dimension arguments), once at
  its entry; an op whose result size must be given as a value gets a shape
  operand evaluated from those sizes (``dynamic_broadcast_in_dim``,
  ``dynamic_reshape``). jaxlib's shape refinement makes the module static
  again at each call's shapes.
- Only primitives whose lowering is known to be right with ``?`` sizes take
  symbolic operands: the element-wise family (its ops infer their result
  types), conversions, ``dot_general``, ``transpose``, the monoid
  reductions, ``select_n``, ``clamp``, ``concatenate``, ``rev`` (their
  StableHLO ops infer their result types), custom-derivative calls (their body, inlined),
  and the rules here: broadcasts, reshapes (squeeze and expand_dims too),
  ``dim_as_value`` (a size as a number) and nested jit calls, inlined so
  the sizes stay in ``main``. Any other raises at export time, naming the
  primitive and its operand types; an equation whose types are all
  concrete lowers as usual.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Final, Unpack, final

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core.abstract import ShapedArray
from didax.core.lax.contractions import dot_general_p
from didax.core.lax.conversions import convert_element_type_p
from didax.core.lax.custom_derivatives import custom_jvp_call_p, custom_vjp_call_p
from didax.core.lax.jit import jit_p
from didax.core.lax.reductions import reduce_max_p, reduce_min_p, reduce_sum_p
from didax.core.lax.selection import clamp_p, select_n_p
from didax.core.lax.shape_poly import dim_as_value_p
from didax.core.lax.structural import (
    BroadcastInDimParams,
    broadcast_in_dim_p,
    concatenate_p,
    expand_dims_p,
    reshape_p,
    rev_p,
    squeeze_p,
    transpose_p,
)
from didax.core.primitive import Primitive
from didax.core.shape_poly import DimExpr, all_dim_vars, is_constant_shape
from didax.ir.jaxpr import Jaxpr
from didax.lowering.mlir import (
    LOWERING_RULES,
    IrValue,
    LoweringRule,
    LoweringRuleContext,
    aval_to_ir_type,
    constant,
    dense_i64,
    ir,
    lower_jaxpr_body,
)

__all__ = ["SymbolicSizes"]

_I64: Final = np.dtype(np.int64)

# Rules lowering a primitive with symbolic operands or results: (sizes, ctx, *operands, **params).
SymbolicRule = Callable[..., Sequence[IrValue]]
_RULES: Final[dict[Primitive, SymbolicRule]] = {}

# Primitives whose ordinary rules are right for ``?`` sizes.
_AS_USUAL: Final = frozenset(
    {
        convert_element_type_p,
        dot_general_p,
        transpose_p,
        reduce_sum_p,
        reduce_max_p,
        reduce_min_p,
        select_n_p,
        clamp_p,
        concatenate_p,
        rev_p,
        # Their lowering is their body's, inlined (as the nested jit calls here).
        custom_jvp_call_p,
        custom_vjp_call_p,
    }
)
_ELEMENTWISE_MODULE: Final = "didax.lowering.elementwise"


@final
class SymbolicSizes:
    """The sizes of the dimension variables of a jaxpr with inputs of types ``in_avals``."""

    def __init__(self, in_avals: Sequence[ShapedArray], where: str) -> None:
        self.where = where
        self.sources: dict[str, tuple[int, int]] = {}
        for var in all_dim_vars([a.shape for a in in_avals]):
            alone = DimExpr.variable(var)
            found = [
                (i, axis)
                for i, a in enumerate(in_avals)
                for axis, d in enumerate(a.shape)
                if d == alone
            ]
            if not found:
                raise NotImplementedError(
                    f"{where}: the dimension variable '{var}' is the whole size of no argument "
                    f"dimension ({', '.join(a.str_short() for a in in_avals)}); didax computes "
                    "a variable only from a dimension that is exactly it"
                )
            self.sources[var] = found[0]
        self.values: dict[str, IrValue] = {}

    def bind(self, args: Sequence[IrValue]) -> None:
        scalar = ir.RankedTensorType.get([], ir.IntegerType.get_signless(64))
        for var, (i, axis) in self.sources.items():
            self.values[var] = hlo.convert(scalar, hlo.get_dimension_size(args[i], axis))

    def size(self, d: int | DimExpr) -> IrValue:
        """The size ``d`` as a rank-0 ``i64`` value."""
        if not isinstance(d, DimExpr):
            return constant(np.asarray(d, _I64))
        total: IrValue | None = None
        for monomial, coefficient in d.terms:
            factors = [self.values[var] for var in monomial]
            if coefficient != 1:
                factors.insert(0, constant(np.asarray(coefficient, _I64)))
            term = functools.reduce(hlo.multiply, factors)
            total = term if total is None else hlo.add(total, term)
        assert total is not None  # a DimExpr has a term
        if d.constant:
            total = hlo.add(total, constant(np.asarray(d.constant, _I64)))
        return total

    def shape_operand(self, shape: Sequence[int]) -> IrValue:
        one = ir.RankedTensorType.get([1], ir.IntegerType.get_signless(64))
        sizes = [hlo.reshape(one, self.size(d)) for d in shape]
        return hlo.concatenate(sizes, 0) if sizes else constant(np.zeros((0,), _I64))

    def rule_for(
        self,
        prim: Primitive,
        avals: tuple[tuple[ShapedArray, ...], tuple[ShapedArray, ...]],
        rule: LoweringRule,
    ) -> LoweringRule:
        if all(is_constant_shape(a.shape) for group in avals for a in group):
            return rule
        if prim in _RULES:
            own = _RULES[prim]
            return lambda ctx, *args, **params: own(self, ctx, *args, **params)
        if prim in _AS_USUAL or LOWERING_RULES.registered_from(prim) == _ELEMENTWISE_MODULE:
            return rule
        types = ", ".join(a.str_short() for a in avals[0])
        raise NotImplementedError(
            f"{self.where}: symbolic dimensions are not supported by didax's lowering of "
            f"'{prim.name}' (operands {types}); export it with concrete shapes"
        )


def _rule(prim: Primitive) -> Callable[[SymbolicRule], SymbolicRule]:
    def deco(rule: SymbolicRule) -> SymbolicRule:
        _RULES[prim] = rule
        return rule

    return deco


def _result_type(ctx: LoweringRuleContext) -> ir.RankedTensorType:
    return aval_to_ir_type(ctx.avals_out[0])


@_rule(broadcast_in_dim_p)
def _broadcast_in_dim(
    sizes: SymbolicSizes,
    ctx: LoweringRuleContext,
    x: IrValue,
    **params: Unpack[BroadcastInDimParams],
) -> list[IrValue]:
    dims = dense_i64(params["broadcast_dimensions"])
    operand = sizes.shape_operand(params["shape"])
    return [hlo.dynamic_broadcast_in_dim(_result_type(ctx), x, operand, dims)]


@_rule(reshape_p)
@_rule(squeeze_p)
@_rule(expand_dims_p)
def _reshape(
    sizes: SymbolicSizes, ctx: LoweringRuleContext, x: IrValue, **params: object
) -> list[IrValue]:
    # Each keeps the elements in order: a reshape to the result's shape.
    shape = sizes.shape_operand(ctx.avals_out[0].shape)
    return [hlo.dynamic_reshape(_result_type(ctx), x, shape)]


@LOWERING_RULES.defines(dim_as_value_p)
def _dim_as_value(ctx: LoweringRuleContext, *, dim: DimExpr) -> list[IrValue]:
    sizes = ctx.module_context.sizes
    if sizes is None:
        raise NotImplementedError(
            f"dim_as_value({dim}): the size of a symbolic dimension is computed only in a "
            "module with symbolic argument shapes (export)"
        )
    return [hlo.convert(_result_type(ctx), sizes.size(dim))]


@_rule(jit_p)
def _jit(
    sizes: SymbolicSizes, ctx: LoweringRuleContext, *args: IrValue, jaxpr: Jaxpr, name: str
) -> list[IrValue]:
    # Inlined: the dimension sizes are values of ``main`` only.
    return lower_jaxpr_body(ctx.module_context, jaxpr, args)
