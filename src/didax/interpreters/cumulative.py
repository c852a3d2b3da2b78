"""The interpreters' rules for the cumulative primitives (``core.lax.cumulative``).

Impl (NumPy), jvp, batching and flops rules for ``cumprod``, ``cummax``,
``cummin`` and ``cumlogsumexp``, registered in each interpreter's table;
the lowering is in ``lowering.cumulative``. None of them is linear, so
none has a transpose rule: linearize computes them in the known part.
``cumsum``, linear, has the rules of a linear map (at the end).

Design rules:
- The impl is NumPy's ``accumulate`` of the matching ufunc
  (``multiply``, ``logaddexp``) in the operand's dtype, on the flipped
  axis when ``reverse``; 16-bit floats go through ``in_float32`` as
  ``cumsum``'s impl does. ``cummax``/``cummin`` have none: eager
  evaluation compiles their lowering, since for complex numbers JAX's
  lexicographic pick does not propagate NaNs, so with a NaN the answer
  depends on the scan's pairing.
- The jvp is JAX's: the tangent is the jvp of an associative scan of the
  binary operation (``associative_scan`` below, the same odd/even
  recursion as the lowering's and as JAX's ``lax.associative_scan``, on
  the reversed operand when ``reverse``), written directly as a scan of
  (primal, tangent) pairs. Each pair combination is the jvp of the binary
  primitive: ``mul``'s product rule, ``max``/``min``'s balanced rule (on a
  tie each side gets half the tangent), and JAX's ``logaddexp`` rule. So
  ties in ``cummax``/``cummin`` split their tangents exactly as JAX's do,
  which depends on the shape of the recursion. The primal result is the
  primitive itself.
- vmap leaves the batch axis where it is and shifts ``axis`` past it, as
  JAX's rule does: nothing is moved.
- Flops: ``n - 1`` combinations along the axis for each position of the
  other axes, as for ``cumsum`` (what a running reduction needs; the
  associative scan XLA runs does about twice that: ``docs/flops.md``).
  A ``logaddexp`` costs 8 flops and 2 transcendentals (``exp``, ``log1p``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, TypeAlias

import numpy as np

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray, Value
from didax.core.lax.cumulative import cumlogsumexp_p, cummax_p, cummin_p, cumprod_p, cumsum_p
from didax.core.primitive import Primitive
from didax.core.values import ArrayLike, get_aval
from didax.interpreters.batching import BATCH_RULES, Dim, front_batcher
from didax.interpreters.evaluation import IMPL_RULES, in_float32
from didax.interpreters.flops import FLOPS_RULES, ZERO, Cost, Operand
from didax.interpreters.jvp import JVP_RULES, linear_jvp
from didax.interpreters.transpose import TRANSPOSE_RULES

# A combination of two tuples of arrays (one element of the scan each) into one.
Combine: TypeAlias = Callable[[Sequence[Any], Sequence[Any]], Sequence[Any]]

__all__ = ["associative_scan"]


# --- impl -----------------------------------------------------------------------------


def _accumulate_impl(ufunc: np.ufunc) -> Callable[..., HostArray]:
    def impl(x: HostArray, *, axis: int, reverse: bool) -> HostArray:
        if reverse:
            return np.flip(ufunc.accumulate(np.flip(x, axis), axis=axis, dtype=x.dtype), axis)
        return np.asarray(ufunc.accumulate(x, axis=axis, dtype=x.dtype))

    return in_float32(impl)


IMPL_RULES.register(cumprod_p, _accumulate_impl(np.multiply))


# cummax and cummin have no impl rule: eager evaluation compiles them (see
# interpreters.evaluation). For complex numbers JAX's lexicographic pick is
# not associative where a NaN is met (it does not propagate NaNs as NumPy's
# does), so its answer is the one its scan's pairing gives: didax's lowering
# (that same scan) computes it, eagerly as under jit.
IMPL_RULES.register(cumlogsumexp_p, _accumulate_impl(np.logaddexp))


# --- the associative scan ----------------------------------------------------------------


def _slice_axis(x: ArrayLike, axis: int, start: int, limit: int | None, stride: int = 1) -> Value:
    shape = get_aval(x).shape
    starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
    starts[axis] = start
    limits[axis] = shape[axis] if limit is None else limit
    strides[axis] = stride
    out: Value = lax.slice(x, starts, limits, strides)
    return out


def _interleave(even: Value, odd: ArrayLike, axis: int) -> Value:
    """``even[0], odd[0], even[1], odd[1], ...`` along ``axis`` (``even`` may be one longer)."""
    m, k = get_aval(even).shape[axis], get_aval(odd).shape[axis]
    if k == 0:
        return even
    head = _slice_axis(even, axis, 0, k)
    pairs = lax.concatenate(
        [lax.expand_dims(head, (axis + 1,)), lax.expand_dims(odd, (axis + 1,))], axis + 1
    )
    shape = list(get_aval(odd).shape)
    shape[axis] = 2 * k
    out: Value = lax.reshape(pairs, shape)
    if m > k:
        out = lax.concatenate([out, _slice_axis(even, axis, k, m)], axis)
    return out


def associative_scan(
    combine: Combine, elems: Sequence[Any], axis: int, reverse: bool = False
) -> list[Any]:
    """The inclusive scan of ``elems`` (arrays of one shape) by the associative ``combine``.

    JAX's ``lax.associative_scan``, with its recursion exactly: combine
    adjacent pairs, scan that half, combine its results with the remaining
    even elements, interleave. ``combine`` gets and returns tuples holding
    one array per element of ``elems``; O(n) combinations in O(log n) depth.

    >>> scan = associative_scan(lambda a, b: [lax.add(a[0], b[0])], [np.arange(5.0)], 0)
    >>> scan[0]
    Array([ 0.,  1.,  3.,  6., 10.], dtype=float32)
    """
    xs = [lax.rev(e, (axis,)) for e in elems] if reverse else list(elems)

    def scan(xs: list[Any]) -> list[Any]:
        n = get_aval(xs[0]).shape[axis]
        if n < 2:
            return xs
        pairs = combine(
            [_slice_axis(x, axis, 0, n - 1, 2) for x in xs],
            [_slice_axis(x, axis, 1, None, 2) for x in xs],
        )
        odd = scan(list(pairs))
        if n % 2 == 0:
            odd_part = [_slice_axis(o, axis, 0, get_aval(o).shape[axis] - 1) for o in odd]
        else:
            odd_part = odd
        even = combine(odd_part, [_slice_axis(x, axis, 2, None, 2) for x in xs])
        even = [
            lax.concatenate([_slice_axis(x, axis, 0, 1), e], axis)
            for x, e in zip(xs, even, strict=True)
        ]
        return [_interleave(e, o, axis) for e, o in zip(even, odd, strict=True)]

    out = scan(xs)
    return [lax.rev(o, (axis,)) for o in out] if reverse else out


# --- jvp ------------------------------------------------------------------------------------


def _mul_pairs(a: Sequence[Any], b: Sequence[Any]) -> list[Any]:
    (x, tx), (y, ty) = a, b
    return [lax.mul(x, y), lax.add(lax.mul(tx, y), lax.mul(x, ty))]


def _balanced_eq(x: Value, z: Value, y: Value) -> Value:
    """1 where ``x`` is the extremum ``z`` alone, 1/2 where ``y`` ties it, else 0 (JAX's)."""
    one, zero = lax.full_like(z, 1), lax.full_like(z, 0)
    x_is = lax.select(lax.eq(x, z), one, zero)
    y_is = lax.select(lax.eq(y, z), one, zero)
    out: Value = lax.div(x_is, lax.add(one, y_is))
    return out


def _chooser_pairs(choose: Callable[[Value, Value], Value]) -> Combine:
    def combine(a: Sequence[Any], b: Sequence[Any]) -> list[Any]:
        (x, tx), (y, ty) = a, b
        z = choose(x, y)
        return [z, lax.add(lax.mul(tx, _balanced_eq(x, z, y)), lax.mul(ty, _balanced_eq(y, z, x)))]

    return combine


def _logaddexp(x: Value, y: Value) -> Value:
    """``log(exp(x) + exp(y))`` without overflow, as JAX's ``logaddexp`` computes it."""
    delta = lax.sub(x, y)
    out: Value = lax.select(
        lax.ne(delta, delta),  # NaNs, or infinities of one sign: their sum says which
        lax.add(x, y),
        lax.add(lax.max(x, y), lax.log1p(lax.exp(lax.neg(lax.abs(delta))))),
    )
    return out


def _replace_inf(x: Value) -> Value:
    out: Value = lax.select(lax.eq(x, lax.full_like(x, np.inf)), lax.full_like(x, 0), x)
    return out


def _logaddexp_pairs(a: Sequence[Any], b: Sequence[Any]) -> list[Any]:
    # JAX's custom jvp rule of logaddexp: each tangent weighted by exp(x - out),
    # with +inf read as 0 so that inf - inf gives no NaN.
    (x, tx), (y, ty) = a, b
    z = _logaddexp(x, y)
    rz = _replace_inf(z)
    wx = lax.exp(lax.sub(_replace_inf(x), rz))
    wy = lax.exp(lax.sub(_replace_inf(y), rz))
    return [z, lax.add(lax.mul(tx, wx), lax.mul(ty, wy))]


def _cumulative_jvp(prim: Primitive, combine: Combine) -> None:
    def rule(
        primals: Sequence[Any], tangents: Sequence[Any], *, axis: int, reverse: bool
    ) -> tuple[Any, Any]:
        # The one operand has a tangent (else the primitive is not differentiated),
        # and it is a float: integer operands have symbolic zero tangents.
        (x,), (t,) = primals, tangents
        out = prim.bind(x, axis=axis, reverse=reverse)
        _, t_out = associative_scan(combine, [x, t], axis, reverse)
        return out, t_out

    JVP_RULES.register(prim, rule)


_cumulative_jvp(cumprod_p, _mul_pairs)
_cumulative_jvp(cummax_p, _chooser_pairs(lax.max))
_cumulative_jvp(cummin_p, _chooser_pairs(lax.min))
_cumulative_jvp(cumlogsumexp_p, _logaddexp_pairs)


# --- batching and flops ---------------------------------------------------------------------


def _cumulative_batcher(prim: Primitive) -> None:
    def rule(
        axis_size: int, args: Sequence[Any], dims: Sequence[Dim], *, axis: int, reverse: bool
    ) -> tuple[Any, Dim]:
        (x,), (d,) = args, dims
        assert d is not None  # a rule only runs with a batched operand
        return prim.bind(x, axis=axis if axis < d else axis + 1, reverse=reverse), d

    BATCH_RULES.register(prim, rule)


# Per combination: 1 flop; a logaddexp 8 (max, sub, ne, two adds, abs, neg, select)
# and 2 transcendentals (exp, log1p), as lowering.cumulative computes it.
_COMBINE_COST: Final[dict[Primitive, Cost]] = {
    cumprod_p: Cost(1),
    cummax_p: Cost(1),
    cummin_p: Cost(1),
    cumlogsumexp_p: Cost(8, 2),
}


def _cumulative_flops(prim: Primitive) -> None:
    def rule(
        operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, *, axis: int, **_: bool
    ) -> Cost:
        # n - 1 combinations along the axis, for each position of the other axes.
        aval = operands[0].aval
        n = aval.shape[axis]
        return ZERO if n == 0 else _COMBINE_COST[prim] * (aval.size - aval.size // n)

    FLOPS_RULES.register(prim, rule)


for _p in (cumprod_p, cummax_p, cummin_p, cumlogsumexp_p):
    _cumulative_batcher(_p)
    _cumulative_flops(_p)


# --- cumsum -----------------------------------------------------------------------------------
# Linear: its jvp is itself on the tangent, its transpose the cumulative sum
# the other way.


@IMPL_RULES.defines(cumsum_p)
@in_float32
def _cumsum_impl(x: HostArray, *, axis: int, reverse: bool) -> HostArray:
    if reverse:
        return np.flip(np.cumsum(np.flip(x, axis), axis=axis, dtype=x.dtype), axis)
    return np.cumsum(x, axis=axis, dtype=x.dtype)


linear_jvp(cumsum_p)
front_batcher(cumsum_p, lambda n, *, axis, reverse: dict(axis=axis + 1, reverse=reverse))


@TRANSPOSE_RULES.defines(cumsum_p)
def _cumsum_transpose(ct: Any, x: Any, *, axis: int, reverse: bool) -> list[Any]:
    # Each input feeds the partial sums at and after it (before it, reversed).
    return [lax.cumsum(ct, axis, reverse=not reverse)]


@FLOPS_RULES.defines(cumsum_p)
def _cumsum_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, *, axis: int, reverse: bool
) -> Cost:
    # n - 1 additions along the axis, for each position of the other axes.
    aval = operands[0].aval
    n = aval.shape[axis]
    return ZERO if n == 0 else Cost(aval.size - aval.size // n)
