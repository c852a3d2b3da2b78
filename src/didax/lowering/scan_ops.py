"""An associative scan in StableHLO: the lowering of every cumulative primitive.

``associative_scan`` lowers an inclusive prefix combination along one axis
(``cumsum``, ``cumprod``, ``cummax``, ``cummin``, ``cumlogsumexp``) as JAX's
``lax.associative_scan`` computes one: combine adjacent pairs, scan that
half recursively, combine its results with the remaining even-indexed
elements, and interleave the two: ``C(n) = n - 1 + C(floor(n / 2))``,
under ``2 n``, combinations in about ``2 log2 n`` dependent steps, where a
``reduce_window`` as long as the axis does ``n (n - 1) / 2``.

Design rules:
- Built from ``stablehlo.slice`` (strided), ``concatenate``, ``reshape``
  and the combining op only; the interleave is a concatenate along a new
  unit axis and a reshape, which moves data and computes nothing (JAX's
  pads with zeros and adds, which turns a ``-0.0`` into ``0.0``).
- ``reverse`` is reverse, scan, reverse, as JAX's: the same recursion on
  the reversed operand, so that ties and rounding match it.
- Association order: a scan's sums and products associate as the
  recursion does, not left to right as the NumPy impls do; results differ
  from the impl's in the last bits of floating-point sums and products.
- The combining op's operands are two arrays of one type; it returns one
  of that type, built at the current insertion point.
- ``cumulative`` chooses: an axis of up to ``WINDOW_MAX_LENGTH`` elements
  lowers to one ``reduce_window`` as long as the axis (as JAX lowers
  cumulative sums on the CPU), which XLA compiles several times faster
  than the scan (and which ran in near-linear time up to 10^5, not
  quadratic); longer axes take the scan, which runs faster there
  (docs/performance.md has the figures). A combination without an
  identity (``logaddexp``) always takes the scan.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, TypeAlias, final

import attrs
import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core.dtypes import DType
from didax.lowering.mlir import IrValue, constant, dense_i64, dtype_to_ir_type

__all__ = ["WINDOW_MAX_LENGTH", "Combine", "Scan", "associative_scan", "cumulative", "window_scan"]

# Combines two arrays of one type (and shape) element-wise into one more.
Combine: TypeAlias = Callable[[IrValue, IrValue], IrValue]


def _slice_axis(
    x: IrValue, shape: Sequence[int], axis: int, start: int, limit: int, stride: int = 1
) -> IrValue:
    starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
    starts[axis], limits[axis], strides[axis] = start, limit, stride
    return hlo.slice(x, dense_i64(starts), dense_i64(limits), dense_i64(strides))


def _with(shape: Sequence[int], axis: int, size: int) -> list[int]:
    out = list(shape)
    out[axis] = size
    return out


@final
@attrs.frozen
class Scan:
    """An inclusive scan along ``axis`` of an operand of ``shape`` and ``dtype``, by the
    associative ``combine`` (from the end where ``reverse``); ``identity`` is ``combine``'s,
    None where it has none."""

    shape: tuple[int, ...]
    dtype: DType
    axis: int
    reverse: bool
    combine: Combine
    identity: bool | int | float | complex | None = None


def associative_scan(x: IrValue, scan: Scan) -> IrValue:
    """``scan`` of ``x`` by JAX's recursion (pairs, then the half, then the interleave)."""
    shape, axis, combine = scan.shape, scan.axis, scan.combine
    element = dtype_to_ir_type(scan.dtype)

    def tensor(shape: Sequence[int]) -> ir.RankedTensorType:
        return ir.RankedTensorType.get(list(shape), element)

    def interleave(even: IrValue, odd: IrValue, m: int, k: int, shape: list[int]) -> IrValue:
        # even[0], odd[0], even[1], ...: m == k or m == k + 1 elements of each.
        if k == 0:
            return even
        head = _slice_axis(even, _with(shape, axis, m), axis, 0, k) if m > k else even
        unit = _with(shape, axis, k)
        unit.insert(axis + 1, 1)
        pairs = hlo.concatenate(
            [hlo.reshape(tensor(unit), head), hlo.reshape(tensor(unit), odd)], axis + 1
        )
        out = hlo.reshape(tensor(_with(shape, axis, 2 * k)), pairs)
        if m == k:
            return out
        last = _slice_axis(even, _with(shape, axis, m), axis, k, m)
        return hlo.concatenate([out, last], axis)

    def halves(x: IrValue, n: int) -> IrValue:
        if n < 2:
            return x
        full = _with(shape, axis, n)
        # Pairs (0, 1), (2, 3), ...: floor(n / 2) of them.
        half = n // 2
        pairs = combine(
            _slice_axis(x, full, axis, 0, n - 1, 2), _slice_axis(x, full, axis, 1, n, 2)
        )
        odd = halves(pairs, half)  # the results at positions 1, 3, 5, ...
        # The results at 2, 4, ...: the one before, combined with the element.
        rest = (n - 1) // 2
        before = _slice_axis(odd, _with(shape, axis, half), axis, 0, rest) if rest < half else odd
        even = combine(before, _slice_axis(x, full, axis, 2, n, 2)) if rest else None
        first = _slice_axis(x, full, axis, 0, 1)
        evens = first if even is None else hlo.concatenate([first, even], axis)
        return interleave(evens, odd, rest + 1, half, list(shape))

    if scan.reverse:
        x = hlo.reverse(x, dense_i64([axis]))
    out = halves(x, shape[axis])
    return hlo.reverse(out, dense_i64([axis])) if scan.reverse else out


# The longest axis lowered as one reduce_window (see the design rules).
WINDOW_MAX_LENGTH: Final = 2048


def window_scan(x: IrValue, scan: Scan) -> IrValue:
    """``scan`` of ``x`` as one ``reduce_window`` as long as the axis.

    Padded with ``n - 1`` identities before the axis (after it, for
    ``reverse``): output ``i`` combines inputs ``0..i`` (``i..n-1``).
    """
    shape, dtype, axis, identity = scan.shape, scan.dtype, scan.axis, scan.identity
    assert identity is not None, "a window scan pads with the identity"
    n, ndim = shape[axis], len(shape)
    if n == 0:
        return x
    window = [1] * ndim
    window[axis] = n
    padding = np.zeros((ndim, 2), np.int64)
    padding[axis] = (0, n - 1) if scan.reverse else (n - 1, 0)
    element = dtype_to_ir_type(dtype)
    op = hlo.ReduceWindowOp(
        [ir.RankedTensorType.get(list(shape), element)],
        [x],
        [constant(np.asarray(identity, dtype))],
        dense_i64(window),
        window_strides=dense_i64([1] * ndim),
        padding=ir.DenseIntElementsAttr.get(padding.data, shape=[ndim, 2]),
    )
    scalar = ir.RankedTensorType.get((), element)
    block = op.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        hlo.return_([scan.combine(*block.arguments)])
    return op.result


def cumulative(x: IrValue, scan: Scan) -> IrValue:
    """``scan`` of ``x``: a window for short axes, else the associative scan."""
    if scan.identity is not None and scan.shape[scan.axis] <= WINDOW_MAX_LENGTH:
        return window_scan(x, scan)
    return associative_scan(x, scan)
