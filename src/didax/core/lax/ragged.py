"""Ragged dot products: ``ragged_dot`` and ``ragged_dot_general``, as JAX's CPU path computes them.

``lhs`` has one ragged dimension cut into consecutive groups by
``group_sizes``; each group meets its own slice of ``rhs`` (JAX's three
modes, by the kind of the ragged dimension):

1. non-contracting (``m``): ``[b..., m..., k...] x [g, b..., k..., n...] ->
   [b..., m..., n...]``, rows of group ``i`` multiplied by ``rhs[i]``;
2. contracting (``k``): ``[b..., m..., k...] x [b..., k..., n...] ->
   [g, b..., m..., n...]``, one product per group of ``k``;
3. batch (``b``): an ordinary ``dot_general``.

Design rules:
- A decomposition, not a primitive: JAX lowers its ``ragged_dot_general``
  on CPUs by this same expansion (each group's part of the ragged
  dimension masked into a dense copy, one per group, then one
  ``dot_general``), so the values are its CPU values, and jvp, grad and
  vmap are those of the primitives it is written with (all three modes
  differentiate, where JAX's transpose rule covers the first only).
- ``group_sizes`` is ``[g]`` or ``[p..., g]`` with ``p...`` the ragged
  dimension's prefix (batch axes, then the free or contracting axes before
  it), as JAX's; the checks and messages are JAX's shape rule's.
  ``group_offset`` is refused as JAX refuses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import attrs
import numpy as np
from numpy.typing import DTypeLike

from didax.core import dtypes
from didax.core.basearray import Value
from didax.core.lax.contractions import (
    DotDimensionNumbers,
    DotDimensionNumbersLike,
    dot_general,
)
from didax.core.lax.cumulative import cumsum
from didax.core.lax.elementwise import and_, le, lt, select, sub
from didax.core.lax.precision import PrecisionLike
from didax.core.lax.structural import broadcast_in_dim, full, iota, transpose
from didax.core.values import ArrayLike, get_aval

__all__ = ["RaggedDotDimensionNumbers", "ragged_dot", "ragged_dot_general"]


def _dot_dims(dims: DotDimensionNumbersLike) -> DotDimensionNumbers:
    (lc, rc), (lb, rb) = dims
    return ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))


def _ints(axes: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(a) for a in axes)


@attrs.frozen
class RaggedDotDimensionNumbers:
    """``dot_dimension_numbers``, the ``lhs_ragged_dimensions`` and ``rhs_group_dimensions``.

    Sequences are kept as tuples, as JAX's class does.

    >>> RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0]).lhs_ragged_dimensions
    (0,)
    """

    dot_dimension_numbers: DotDimensionNumbers = attrs.field(converter=_dot_dims)
    lhs_ragged_dimensions: tuple[int, ...] = attrs.field(converter=_ints)
    rhs_group_dimensions: tuple[int, ...] = attrs.field(converter=_ints)


_BASIC: Final = RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])

_NONCONTRACTING, _CONTRACTING, _BATCH = (
    "RAGGED_NONCONTRACTING",
    "RAGGED_CONTRACTING",
    "RAGGED_BATCH",
)


def _remaining(n: int, *taken: Sequence[int]) -> list[int]:
    used = {d for axes in taken for d in axes}
    return [d for d in range(n) if d not in used]


def _mode(rank: int, dims: RaggedDotDimensionNumbers) -> tuple[str, int]:
    ragged = dims.lhs_ragged_dimensions[0]
    (contract, _), (batch, _) = dims.dot_dimension_numbers
    if ragged in _remaining(rank, contract, batch):
        return _NONCONTRACTING, ragged
    if ragged in contract:
        return _CONTRACTING, ragged
    if ragged in batch:
        return _BATCH, ragged
    raise TypeError(
        f"lhs_ragged_dim {ragged} not found in lhs_noncontracting "
        f"{_remaining(rank, contract, batch)}, lhs_contracting {list(contract)}, or "
        f"lhs_batch {list(batch)}."
    )


def _prefix(
    mode: str, rank: int, ragged: int, batch: Sequence[int], contract: Sequence[int]
) -> list[int]:
    """The axes of the operand that ``group_sizes``' leading axes follow."""
    if mode == _NONCONTRACTING:
        free = _remaining(rank, contract, batch)
        return [*batch, *free[: free.index(ragged)]]
    if mode == _CONTRACTING:
        return [*batch, *contract[: list(contract).index(ragged)]]
    return list(batch[: list(batch).index(ragged)])


def _check_in_range(dim: int, rank: int, what: str, arg: str) -> None:
    if not 0 <= dim < rank:
        raise TypeError(
            f"ragged_dot_general requires {what} numbers to be nonnegative and less than the "
            f"number of axes of the {arg} value, got {dim} for {arg} of rank {rank}."
        )


def _expand(x: ArrayLike, dim: int, group_sizes: ArrayLike, prefix: Sequence[int]) -> Value:
    """``x`` once per group, zero outside the group's part of ``dim``: ``[g, *x.shape]``.

    ``group_sizes`` is ``[*(x.shape[a] for a in prefix), g]``.
    """
    aval = get_aval(x)
    gs_aval = get_aval(group_sizes)
    g = gs_aval.shape[-1]
    shape = (g, *aval.shape)
    ends = cumsum(group_sizes, axis=gs_aval.ndim - 1)
    starts = sub(ends, group_sizes)
    # group_sizes' axes to the order of x's: g first, then the prefix axes ascending.
    order = np.argsort(prefix).tolist()
    perm = [len(prefix), *order]
    dims = (0, *(sorted(a + 1 for a in prefix)))

    def spread(v: Value) -> Value:
        return broadcast_in_dim(transpose(v, perm), shape, dims)

    position = broadcast_in_dim(iota(gs_aval.dtype, aval.shape[dim]), shape, (dim + 1,))
    mask = and_(le(spread(starts), position), lt(position, spread(ends)))
    spread_x = broadcast_in_dim(x, shape, tuple(range(1, len(shape))))
    return select(mask, spread_x, full(shape, 0, aval.dtype))


def ragged_dot_general(
    lhs: ArrayLike,
    rhs: ArrayLike,
    group_sizes: ArrayLike,
    ragged_dot_dimension_numbers: RaggedDotDimensionNumbers,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
    group_offset: ArrayLike | None = None,
) -> Value:
    """A dot product whose lhs ragged dimension is cut into groups (JAX's three modes).

    >>> import numpy as np
    >>> x = np.ones((3, 2), np.float32)
    >>> w = np.stack([np.eye(2, dtype=np.float32), 2 * np.eye(2, dtype=np.float32)])
    >>> ragged_dot(x, w, np.array([1, 2], np.int32))
    Array([[1., 1.],
           [2., 2.],
           [2., 2.]], dtype=float32)
    """
    if group_offset is not None:
        raise NotImplementedError("Unimplemented group_offset support.")
    dims = ragged_dot_dimension_numbers
    if not isinstance(dims, RaggedDotDimensionNumbers):
        raise TypeError(f"ragged_dot_general takes a RaggedDotDimensionNumbers, got {dims!r}")
    la, ra, ga = get_aval(lhs), get_aval(rhs), get_aval(group_sizes)
    if len(dims.lhs_ragged_dimensions) != 1:
        raise TypeError("ragged_dot_general expects exactly one lhs ragged dimension.")
    ragged = dims.lhs_ragged_dimensions[0]
    _check_in_range(ragged, la.ndim, "lhs ragged dimension", "lhs")
    mode, _ = _mode(la.ndim, dims)
    (lc, rc), (lb, rb) = dims.dot_dimension_numbers
    if not dtypes.is_integer(ga.dtype):
        raise TypeError(
            "ragged_dot_general requires that group_sizes.dtype is subtype of np.integer."
        )
    if ga.ndim == 0:
        raise TypeError("expected rank of group_sizes to be >=1.")
    l_prefix = _prefix(mode, la.ndim, ragged, lb, lc)
    expected = (*(la.shape[i] for i in l_prefix), ga.shape[-1])
    if ga.ndim != 1 and ga.shape != expected:
        raise TypeError(f"expected group_sizes to have shape {expected}, got {ga.shape}.")
    g = ga.shape[-1]
    groups = dims.rhs_group_dimensions
    if mode in (_CONTRACTING, _BATCH) and groups:
        raise TypeError(
            "ragged_dot_general requires zero group dimensions in the rhs when lhs ragged "
            "dimension is contracting or batch."
        )
    if mode == _NONCONTRACTING:
        if len(groups) != 1:
            raise TypeError(
                "ragged_dot_general requires exactly one rhs group dimension when lhs ragged "
                "dimension is noncontracting."
            )
        _check_in_range(groups[0], ra.ndim, "rhs group dimension", "rhs")
        if groups[0] in rb or groups[0] in rc:
            raise TypeError(
                "ragged_dot_general requires rhs group dimension numbers to be distinct from "
                "contracting and batch dimensions."
            )
        if ra.shape[groups[0]] != g:
            raise TypeError(
                f"expected rhs group dimension size to be {g}, got {ra.shape[groups[0]]}."
            )
    if ga.ndim == 1:
        gs_shape = (*(la.shape[i] for i in l_prefix), g)
        group_sizes = broadcast_in_dim(group_sizes, gs_shape, (len(gs_shape) - 1,))

    def incr(axes: Sequence[int]) -> tuple[int, ...]:
        return tuple(a + 1 for a in axes)

    if mode == _NONCONTRACTING:
        return dot_general(
            _expand(lhs, ragged, group_sizes, l_prefix),
            rhs,
            ((((*incr(lc), 0)), (*rc, groups[0])), (incr(lb), rb)),
            precision,
            preferred_element_type,
        )
    if mode == _CONTRACTING:
        r_ragged = rc[list(lc).index(ragged)]
        r_prefix = _prefix(mode, ra.ndim, r_ragged, rb, rc)
        return dot_general(
            _expand(lhs, ragged, group_sizes, l_prefix),
            _expand(rhs, r_ragged, group_sizes, r_prefix),
            ((incr(lc), incr(rc)), ((0, *incr(lb)), (0, *incr(rb)))),
            precision,
            preferred_element_type,
        )
    return dot_general(lhs, rhs, ((lc, rc), (lb, rb)), precision, preferred_element_type)


def ragged_dot(
    lhs: ArrayLike,
    rhs: ArrayLike,
    group_sizes: ArrayLike,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
    group_offset: ArrayLike | None = None,
) -> Value:
    """Rows of ``lhs [m, k]`` in groups of ``group_sizes [g]``, group ``i`` times ``rhs[i]``.

    ``rhs`` is ``[g, k, n]``; the result ``[m, n]`` (JAX's ``lax.ragged_dot``).
    """
    return ragged_dot_general(
        lhs, rhs, group_sizes, _BASIC, precision, preferred_element_type, group_offset
    )
