"""The interpreters' rules for the windowed reductions (``core.lax.windows``).

Jvp, transpose, batching and flops rules of ``reduce_window_sum``,
``reduce_window_max``, ``reduce_window_min``, ``select_and_gather_add``,
``select_and_scatter_add`` and the generic ``reduce_window``, registered in
each interpreter's table; the lowering is in ``lowering.windows``.

Design rules:
- No impl rule: each is evaluated eagerly by its compiled program (as JAX
  does), so eager values are XLA's ``reduce_window`` and
  ``select_and_scatter``, bit for bit the jitted ones.
- Derivatives are JAX's. ``reduce_window_sum`` is linear; its transpose
  pads the cotangent (by the window less the padding at the edges, and
  ``stride - 1`` zeros between elements) and sums windows of it with the
  base dilation as the strides. A max/min window's tangent is
  ``select_and_gather_add`` (the tangent at each window's chosen element),
  linear in the tangents; its transpose is ``select_and_scatter_add``
  (undoing a base dilation by padding the operand with the window's
  identity and taking every ``d``-th element; refused with a window
  dilation, as in JAX), whose transpose is ``select_and_gather_add`` again:
  so max-pooling has grads of any order. The generic ``reduce_window`` has
  only a jvp: the window reduction of (primal, tangent) pairs by the jvp of
  the reducer, beside the primal window on its own (so that linearize
  knows the primals; a vjp then stops at the missing transpose rule, where
  JAX's linearize stops).
- vmap: a monoid window gets a unit window axis at the batch axis (nothing
  moves, as JAX's rule); the others move the batch axis to the front. A
  batched init value of the generic one is refused, as in JAX.
- Flops are XLA's cost analysis of the lowering: ``window size - 1``
  combinations per output element, of one flop for a monoid, of the
  reducer's cost for the generic one, of three (a compare and two selects)
  for ``select_and_gather_add``; ``select_and_scatter_add`` costs a compare
  per combination and an addition per source element.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Unpack

import numpy as np

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import Value
from didax.core.lax.windows import (
    CHOOSERS,
    MONOID_WINDOWS,
    Pairs,
    ScatterKwargs,
    WindowKwargs,
    WindowParams,
    bind_window,
    dilate_shape,
    identity,
    is_float,
    reduce_window_p,
    reduce_window_sum_p,
    scatter_window,
    select_and_gather_add_p,
    select_and_scatter_add,
    select_and_scatter_add_p,
    select_and_scatter_p,
)
from didax.core.primitive import Primitive
from didax.core.values import ArrayLike, get_aval
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front
from didax.interpreters.evaluation import eval_jaxpr
from didax.interpreters.flops import FLOPS_RULES, ZERO, Cost, Operand, count_jaxpr, operand_of
from didax.interpreters.jvp import JVP_RULES, Zero, instantiate_zeros, jvp_flat, linear_jvp
from didax.interpreters.staging import trace_to_jaxpr
from didax.interpreters.transpose import TRANSPOSE_RULES, PrimalOrUndefined, aval_of
from didax.ir.jaxpr import Jaxpr

__all__: list[str] = []


# --- reduce_window_sum: linear --------------------------------------------------------------

linear_jvp(reduce_window_sum_p)


def transpose_padding(
    in_shape: Sequence[int], out_shape: Sequence[int], w: WindowParams
) -> list[tuple[int, int]]:
    """The edges to pad a cotangent with so that its windows sum back to the operand's shape.

    JAX's ``_conv_general_vjp_lhs_padding``: before, the dilated window less
    the low padding, less one; after, what makes up the base-dilated operand.
    """
    base = dilate_shape(in_shape, w.base_dilation)
    window = dilate_shape(w.window_dimensions, w.window_dilation)
    out = dilate_shape(out_shape, w.window_strides)
    before = [k - lo - 1 for k, (lo, _) in zip(window, w.padding, strict=True)]
    return [(b, n + k - 1 - o - b) for b, n, k, o in zip(before, base, window, out, strict=True)]


@TRANSPOSE_RULES.defines(reduce_window_sum_p)
def _reduce_window_sum_transpose(
    ct: ArrayLike | Zero, x: PrimalOrUndefined, **params: Unpack[WindowKwargs]
) -> list[Any]:
    w = WindowParams(**params)
    in_shape = aval_of(x).shape
    ct = instantiate_zeros(ct)
    pads = transpose_padding(in_shape, get_aval(ct).shape, w)
    config = [(lo, hi, s - 1) for (lo, hi), s in zip(pads, w.window_strides, strict=True)]
    padded = lax.pad(ct, np.zeros((), get_aval(ct).dtype), config)
    # Each input element is summed by the windows over it: the window again,
    # striding by the base dilation over the padded cotangent.
    back = WindowParams.of(w.window_dimensions, w.base_dilation, window_dilation=w.window_dilation)
    out = bind_window(reduce_window_sum_p, padded, window=back)
    assert get_aval(out).shape == in_shape, (get_aval(out).shape, in_shape)
    return [out]


# --- max and min windows: select_and_gather_add -----------------------------------------


def _chooser_jvp(prim: Primitive) -> None:
    select_prim = CHOOSERS[prim]

    def rule(
        primals: Sequence[Any], tangents: Sequence[Any], **params: Unpack[WindowKwargs]
    ) -> tuple[Any, Any]:
        (x,), (t,) = primals, tangents
        out = prim.bind(x, **params)
        if isinstance(t, Zero):
            return out, Zero.like(get_aval(out))
        return out, select_and_gather_add_p.bind(t, x, select_prim=select_prim, **params)

    JVP_RULES.register(prim, rule)


for _p in CHOOSERS:
    _chooser_jvp(_p)


def _monoid_batcher(prim: Primitive) -> None:
    def rule(
        axis_size: int, args: Sequence[Any], dims: Sequence[Dim], **params: Unpack[WindowKwargs]
    ) -> tuple[Any, Dim]:
        (x,), (d,) = args, dims
        assert d is not None
        return bind_window(prim, x, window=WindowParams(**params).with_unit_axis(d)), d

    BATCH_RULES.register(prim, rule)


def _monoid_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **params: Unpack[WindowKwargs]
) -> Cost:
    return Cost(out_avals[0].size * max(WindowParams(**params).size - 1, 0))


for _p in MONOID_WINDOWS:
    _monoid_batcher(_p)
    FLOPS_RULES.register(_p, _monoid_flops)


# --- select_and_gather_add and select_and_scatter_add: linear in their first operand ----


def _linear_in_first(prim: Primitive) -> None:
    # The operand only says which element each window chooses: a tangent of
    # it changes nothing (the choice is piecewise constant).
    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: object) -> tuple[Any, Any]:
        (t, x), (g, _) = primals, tangents
        out = prim.bind(t, x, **params)
        if isinstance(g, Zero):
            return out, Zero.like(get_aval(out))
        return out, prim.bind(g, x, **params)

    JVP_RULES.register(prim, rule)


_linear_in_first(select_and_gather_add_p)
_linear_in_first(select_and_scatter_add_p)


@TRANSPOSE_RULES.defines(select_and_gather_add_p)
def _select_and_gather_add_transpose(
    ct: ArrayLike | Zero,
    t: PrimalOrUndefined,
    x: ArrayLike,
    *,
    select_prim: Primitive,
    **params: Unpack[WindowKwargs],
) -> list[Any]:
    w = WindowParams(**params)
    if any(d != 1 for d in w.window_dilation):
        raise NotImplementedError(
            "VJP not implemented for select_and_gather (MaxPool) with window dilation, got "
            f"window_dilation={w.window_dilation}."
        )
    if isinstance(ct, Zero):
        return [Zero.like(aval_of(t)), None]
    dilated = any(d != 1 for d in w.base_dilation)
    if dilated:
        # The holes of a base dilation are the window's identity: never chosen.
        fill = identity(select_prim, get_aval(x).dtype)
        x = lax.pad(x, fill, [(0, 0, d - 1) for d in w.base_dilation])
    window = scatter_window(w.window_dimensions, w.window_strides, w.padding)
    out = select_and_scatter_add(ct, x, select_prim, window)
    if dilated:
        shape = get_aval(out).shape
        out = lax.slice(out, (0,) * len(shape), shape, w.base_dilation)
    return [out, None]


@TRANSPOSE_RULES.defines(select_and_scatter_add_p)
def _select_and_scatter_add_transpose(
    ct: ArrayLike | Zero,
    source: PrimalOrUndefined,
    x: ArrayLike,
    *,
    select_prim: Primitive,
    **params: Unpack[ScatterKwargs],
) -> list[Any]:
    if isinstance(ct, Zero):
        return [Zero.like(aval_of(source)), None]
    w = scatter_window(**params)
    out = select_and_gather_add_p.bind(ct, x, select_prim=select_prim, **w.as_params())
    return [out, None]


def _front_batcher(prim: Primitive, window_of: Callable[..., WindowParams]) -> None:
    def rule(
        axis_size: int,
        args: Sequence[Any],
        dims: Sequence[Dim],
        *,
        select_prim: Primitive,
        **params: object,
    ) -> tuple[Any, Dim]:
        t, x = (bdim_at_front(a, d, axis_size) for a, d in zip(args, dims, strict=True))
        w = window_of(**params).with_unit_axis(0)
        if prim is select_and_scatter_add_p:
            return select_and_scatter_add(t, x, select_prim, w), 0
        return bind_window(prim, t, x, window=w, select_prim=select_prim), 0

    BATCH_RULES.register(prim, rule)


_front_batcher(select_and_gather_add_p, WindowParams)
_front_batcher(select_and_scatter_add_p, scatter_window)


@FLOPS_RULES.defines(select_and_gather_add_p)
def _select_and_gather_add_flops(
    operands: Sequence[Operand],
    out_avals: Sequence[ShapedArray],
    /,
    *,
    select_prim: Primitive,
    **params: Unpack[WindowKwargs],
) -> Cost:
    # Each combination of (value, tangent) pairs: a compare and two selects.
    return Cost(3 * out_avals[0].size * max(WindowParams(**params).size - 1, 0))


@FLOPS_RULES.defines(select_and_scatter_add_p)
def _select_and_scatter_add_flops(
    operands: Sequence[Operand],
    out_avals: Sequence[ShapedArray],
    /,
    *,
    window_dimensions: tuple[int, ...],
    window_strides: tuple[int, ...],
    padding: Pairs,
    **_: object,
) -> Cost:
    # Per source element: window size - 1 comparisons to choose, one addition to scatter.
    n = operands[0].aval.size
    window = scatter_window(window_dimensions, window_strides, padding)
    return Cost(n * max(window.size - 1, 0) + n)


@FLOPS_RULES.defines(select_and_scatter_p)
def _select_and_scatter_flops(
    operands: Sequence[Operand],
    out_avals: Sequence[ShapedArray],
    /,
    *,
    select_jaxpr: Jaxpr,
    scatter_jaxpr: Jaxpr,
    **params: Unpack[ScatterKwargs],
) -> Cost:
    # As select_and_scatter_add's, with the programs' costs: per source
    # element, window size - 1 selects to choose and one scatter.
    n = operands[1].aval.size
    selects = n * max(scatter_window(**params).size - 1, 0)
    select, scatter = (
        count_jaxpr(j, [operand_of(a) for a in j.in_avals]).cost
        for j in (select_jaxpr, scatter_jaxpr)
    )
    return select * selects + scatter * n


# --- the generic reduce_window ------------------------------------------------------------


def _jvp_reducer(jaxpr: Jaxpr, avals: Sequence[ShapedArray], diff: Sequence[bool]) -> Jaxpr:
    """The reducer of (value, tangent) pairs: ``(x, tx, y, ty) -> (out, t_out)``.

    Tangents only for the operands flagged in ``diff`` (the floats); the
    pairs are laid out as the window reduction's operands are, each side's
    values then its tangents.
    """
    n, k = len(avals), sum(diff)
    t_avals = [a for a, d in zip(avals, diff, strict=True) if d]

    def tangents_of(ts: Sequence[Any]) -> list[Any]:
        it = iter(ts)
        return [next(it) if d else Zero.like(a) for a, d in zip(avals, diff, strict=True)]

    def reducer(*args: ArrayLike) -> list[Any]:
        xs, txs = args[:n], args[n : n + k]
        ys, tys = args[n + k : 2 * n + k], args[2 * n + k :]
        outs, t_outs = jvp_flat(
            lambda *a: eval_jaxpr(jaxpr, a), [*xs, *ys], [*tangents_of(txs), *tangents_of(tys)]
        )
        kept = [instantiate_zeros(t) for t, d in zip(t_outs, diff, strict=True) if d]
        return [*outs, *kept]

    closed = trace_to_jaxpr(reducer, [*avals, *t_avals, *avals, *t_avals], "reduce_window_jvp")
    if closed.consts:
        raise NotImplementedError("reduce_window: the reducer's jvp closes over arrays")
    return closed.jaxpr


def _reduce_window_jvp(
    primals: Sequence[Any],
    tangents: Sequence[Any],
    *,
    jaxpr: Jaxpr,
    **params: Unpack[WindowKwargs],
) -> tuple[Any, Any]:
    n = len(primals) // 2
    operands, inits = primals[:n], primals[n:]
    if not all(isinstance(t, Zero) for t in tangents[n:]):
        raise TypeError("reduce_window jvp does not support non-zero init_value tangents.")
    avals = [ShapedArray((), get_aval(x).dtype) for x in operands]
    diff = [is_float(a) for a in avals]
    t_ops = [instantiate_zeros(t) for t, d in zip(tangents[:n], diff, strict=True) if d]
    t_inits = [np.zeros((), a.dtype) for a, d in zip(avals, diff, strict=True) if d]
    outs = reduce_window_p.bind(
        *operands,
        *t_ops,
        *inits,
        *t_inits,
        jaxpr=_jvp_reducer(jaxpr, avals, diff),
        **params,
    )
    t_out = iter(outs[n:])
    out_tangents = [
        next(t_out) if d else Zero.like(get_aval(o)) for o, d in zip(outs[:n], diff, strict=True)
    ]
    # The primals again, on their own: so that under linearize they are known
    # (the pairs' window, fed tangents, is not). Under jit XLA computes both.
    primals_out = reduce_window_p.bind(*primals, jaxpr=jaxpr, **params)
    return list(primals_out), out_tangents


JVP_RULES.register(reduce_window_p, _reduce_window_jvp)


@BATCH_RULES.defines(reduce_window_p)
def _reduce_window_batch(
    axis_size: int,
    args: Sequence[Any],
    dims: Sequence[Dim],
    *,
    jaxpr: Jaxpr,
    **params: Unpack[WindowKwargs],
) -> tuple[Any, Any]:
    n = len(args) // 2
    if any(d is not None for d in dims[n:]):
        raise NotImplementedError("reduce_window batching is not implemented for initial values")
    operands = [bdim_at_front(x, d, axis_size) for x, d in zip(args[:n], dims[:n], strict=True)]
    w = WindowParams(**params).with_unit_axis(0)
    outs: list[Value] = reduce_window_p.bind(*operands, *args[n:], jaxpr=jaxpr, **w.as_params())
    return outs, [0] * n


@FLOPS_RULES.defines(reduce_window_p)
def _reduce_window_flops(
    operands: Sequence[Operand],
    out_avals: Sequence[ShapedArray],
    /,
    *,
    jaxpr: Jaxpr,
    **params: Unpack[WindowKwargs],
) -> Cost:
    combinations = out_avals[0].size * max(WindowParams(**params).size - 1, 0)
    if combinations == 0:
        return ZERO
    reducer = count_jaxpr(jaxpr, [operand_of(a) for a in jaxpr.in_avals]).cost
    return reducer * combinations
