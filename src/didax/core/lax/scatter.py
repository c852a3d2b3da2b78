"""The scatter family: its primitives, typing rule and ``didax.lax`` wrappers.

``scatter_p`` replaces; ``scatter_add_p``, ``scatter_sub_p``,
``scatter_mul_p``, ``scatter_min_p`` and ``scatter_max_p`` combine
(``scatter_apply``, a function applied at the indices, is
``api.lax_extras``'). Their dimension numbers
and modes are shared with ``gather_p`` and live beside it in
``core.lax.indexing``: a scatter's dimension numbers are those of the
gather that reads back the windows it writes
(``gather_dnums_of_scatter``). The family's interpreter rules are in
``interpreters.scatter``, its lowering in ``lowering.scatter``.

Design rules:
- The scatters have no ``update_jaxpr`` param: each primitive is one
  combiner (replace, +, -, *, min, max), which its lowering writes as the
  scatter's update region.
- The typing rule is XLA's shape inference, as JAX checks it; the operand
  and updates have one dtype (the wrappers give a weakly typed update the
  operand's dtype).
- Out-of-bounds updates are dropped by default (``FILL_OR_DROP``), as in
  JAX; ``CLIP`` clamps them in bounds.
"""

from __future__ import annotations

from typing import Final, Protocol

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, AbstractEvalRule, dtype_failure, shape_failure
from didax.core.basearray import Value
from didax.core.lax.indexing import (
    GatherScatterMode,
    ScatterDimensionNumbers,
    _check_batching,
    _check_fill_value,
    _check_index_map,
    _check_indices,
    _disjoint,
    _distinct,
    _dnums,
    _in_range,
    _indices,
    _operand,
    _sorted,
)
from didax.core.lax.operands import bind_value
from didax.core.primitive import Primitive, primitives
from didax.core.promotion import coerce_to
from didax.core.values import ArrayLike, get_aval

__all__ = [
    "scatter_p",
    "scatter_add_p",
    "scatter_sub_p",
    "scatter_mul_p",
    "scatter_min_p",
    "scatter_max_p",
    "scatter",
    "scatter_add",
    "scatter_sub",
    "scatter_max",
    "scatter_min",
    "scatter_mul",
]

scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p, scatter_max_p = primitives(
    "scatter", "scatter-add", "scatter-sub", "scatter-mul", "scatter-min", "scatter-max"
)

SCATTERS: Final = (
    scatter_p,
    scatter_add_p,
    scatter_sub_p,
    scatter_mul_p,
    scatter_min_p,
    scatter_max_p,
)


# --- typing rule ------------------------------------------------------------------------


def _scatter_rule(kinds: str, what: str) -> AbstractEvalRule:
    def rule(
        operand: ShapedArray,
        indices: ShapedArray,
        updates: ShapedArray,
        *,
        dimension_numbers: ScatterDimensionNumbers,
        indices_are_sorted: bool,
        unique_indices: bool,
        mode: GatherScatterMode,
    ) -> ShapedArray:
        dn = dimension_numbers
        _check_indices(indices)
        _check_fill_value(mode, None)
        if dtypes.kind(operand.dtype) not in kinds:
            raise dtype_failure(f"operands must be {what}, got {operand.dtype}")
        if updates.dtype != operand.dtype:
            raise dtype_failure(
                f"updates dtype {updates.dtype} differs from operand dtype {operand.dtype}"
            )
        batch_shape = indices.shape[:-1]
        if updates.ndim != len(batch_shape) + len(dn.update_window_dims):
            raise shape_failure(
                f"updates must have rank {len(batch_shape) + len(dn.update_window_dims)} "
                f"(the indices' batch axes and update_window_dims), got {updates.ndim}"
            )
        _sorted(dn.update_window_dims, "update_window_dims")
        _distinct(dn.update_window_dims, "update_window_dims")
        _in_range(dn.update_window_dims, updates.ndim, "update_window_dims")
        _sorted(dn.inserted_window_dims, "inserted_window_dims")
        _distinct(dn.inserted_window_dims, "inserted_window_dims")
        _in_range(dn.inserted_window_dims, operand.ndim, "inserted_window_dims")
        _check_batching(
            operand,
            indices,
            dn.operand_batching_dims,
            dn.scatter_indices_batching_dims,
            "scatter_indices_batching_dims",
        )
        _disjoint(
            dn.inserted_window_dims,
            dn.operand_batching_dims,
            "inserted_window_dims",
            "operand_batching_dims",
        )
        _disjoint(
            dn.scatter_dims_to_operand_dims,
            dn.operand_batching_dims,
            "scatter_dims_to_operand_dims",
            "operand_batching_dims",
        )
        window_rank = (
            len(dn.update_window_dims)
            + len(dn.inserted_window_dims)
            + len(dn.operand_batching_dims)
        )
        if window_rank != operand.ndim:
            raise shape_failure(
                f"the window has rank {window_rank} (update_window_dims, inserted_window_dims "
                f"and operand_batching_dims), the operand {operand.ndim}"
            )
        _check_index_map(
            dn.scatter_dims_to_operand_dims, "scatter_dims_to_operand_dims", operand, indices
        )
        window_axes = [
            d
            for d in range(operand.ndim)
            if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims
        ]
        for d, u in zip(window_axes, dn.update_window_dims, strict=True):
            if updates.shape[u] > operand.shape[d]:
                raise shape_failure(
                    f"window axis {u} of updates {updates.shape} is longer than axis {d} "
                    f"of the operand {operand.shape}"
                )
        scatter_axes = [i for i in range(updates.ndim) if i not in dn.update_window_dims]
        if tuple(updates.shape[i] for i in scatter_axes) != batch_shape:
            raise shape_failure(
                f"the scatter axes of updates {updates.shape} must match the indices' batch "
                f"axes {batch_shape}"
            )
        return operand

    return rule


ABSTRACT_EVAL.register(scatter_p, _scatter_rule("biufc", "arrays"))
for _p in (scatter_add_p, scatter_sub_p, scatter_mul_p):
    ABSTRACT_EVAL.register(_p, _scatter_rule("iufc", "numbers"))
for _p in (scatter_min_p, scatter_max_p):
    ABSTRACT_EVAL.register(_p, _scatter_rule("biuf", "arrays"))


# --- didax.lax wrappers ----------------------------------------------------------------


class ScatterFunction(Protocol):
    """The signature every scatter wrapper has (JAX's ``lax.scatter*``)."""

    def __call__(
        self,
        operand: ArrayLike,
        scatter_indices: ArrayLike,
        updates: ArrayLike,
        dimension_numbers: ScatterDimensionNumbers,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
    ) -> Value: ...


def _scatter_function(prim: Primitive, name: str, doc: str) -> ScatterFunction:
    """The ``didax.lax`` wrapper ``name`` of scatter primitive ``prim``, documented by ``doc``."""

    def wrapper(
        operand: ArrayLike,
        scatter_indices: ArrayLike,
        updates: ArrayLike,
        dimension_numbers: ScatterDimensionNumbers,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
    ) -> Value:
        operand = _operand(operand)
        # A weakly typed update takes the operand's dtype (and a Python scalar is a rank-0 one).
        updates = coerce_to(prim, updates, ShapedArray((), get_aval(operand).dtype))
        return bind_value(
            prim,
            operand,
            _indices(scatter_indices),
            _operand(updates),
            dimension_numbers=_dnums(ScatterDimensionNumbers, dimension_numbers),
            indices_are_sorted=bool(indices_are_sorted),
            unique_indices=bool(unique_indices),
            mode=GatherScatterMode.from_any(mode),
        )

    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__doc__ = doc
    return wrapper


_DNUMS_EXAMPLE = """
    >>> from didax import lax
    >>> dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
    ...                                     scatter_dims_to_operand_dims=(0,))"""

scatter = _scatter_function(
    scatter_p,
    "scatter",
    """``operand`` with the windows of ``updates`` written at ``scatter_indices``.

    Of several updates to one element the last is kept (XLA on CPUs
    applies them in order). Out-of-bounds updates are dropped (``mode``
    ``"clip"`` clamps them in bounds instead).
"""
    + _DNUMS_EXAMPLE
    + """
    >>> lax.scatter(np.zeros(3), np.array([[2], [0]]), np.array([5.0, 6.0]), dnums)
    Array([6., 0., 5.], dtype=float32)
    """,
)
scatter_add = _scatter_function(
    scatter_add_p,
    "scatter_add",
    """``operand`` plus ``updates`` at ``scatter_indices``; repeated indices accumulate.
"""
    + _DNUMS_EXAMPLE
    + """
    >>> lax.scatter_add(np.zeros(3), np.array([[2], [2], [7]]), np.ones(3), dnums)
    Array([0., 0., 2.], dtype=float32)
    """,
)
scatter_sub = _scatter_function(
    scatter_sub_p,
    "scatter_sub",
    """``operand`` minus ``updates`` at ``scatter_indices``; repeated indices accumulate.
"""
    + _DNUMS_EXAMPLE
    + """
    >>> lax.scatter_sub(np.zeros(3), np.array([[2], [2], [7]]), np.ones(3), dnums)
    Array([ 0.,  0., -2.], dtype=float32)
    """,
)
scatter_mul = _scatter_function(
    scatter_mul_p,
    "scatter_mul",
    "``operand`` times ``updates`` at ``scatter_indices``; repeated indices multiply.",
)
scatter_min = _scatter_function(
    scatter_min_p,
    "scatter_min",
    "The minimum of ``operand`` and ``updates`` at ``scatter_indices``.",
)
scatter_max = _scatter_function(
    scatter_max_p,
    "scatter_max",
    "The maximum of ``operand`` and ``updates`` at ``scatter_indices``.",
)
