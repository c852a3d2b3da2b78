"""The interpreters' rules for the reductions (``core.lax.reductions``).

Design rules:
- Impls are NumPy's reductions in the operand's dtype (NumPy would sum
  small integers in the platform integer); sums and products of 16-bit
  floats go through ``in_float32``, as XLA accumulates them. ``reduce_max``
  and ``reduce_min`` of complex numbers pick lexicographically (real part,
  then imaginary), as XLA's and JAX's.
- ``reduce_sum`` is linear (its transpose broadcasts the cotangent back);
  the tangent of ``reduce_max``/``reduce_min`` is the mean of the tangents
  at the extremal positions; ``reduce_prod``'s is the sum of each tangent
  times the product of the others, computed without dividing by zero;
  arg-extrema have zero tangents.
- The bitwise reductions (``reduce_and``/``or``/``xor``) have integer or
  boolean results: zero tangents.
- The generic ``reduce_p``'s tangent is JAX's: the reduced axes flattened
  into one, reduced as a balanced tree of halves (the shorter half padded
  with the init values), each step the reducer mapped over the elements,
  all differentiated as a function. Its init values must have zero
  tangents (JAX refuses the others). Batching moves the batch axes to the
  front; batched init values are refused, as JAX's.
- Batching moves the batch axis to the front and shifts the axes params.
- A reduction costs ``n - 1`` combinations per output element; a generic
  one its reducer's cost each time (XLA's cost analysis).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, TypedDict, Unpack

import numpy as np

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray, Value
from didax.core.lax.reductions import (
    LOGICAL_REDUCTIONS,
    REDUCTIONS,
    argmax_p,
    argmin_p,
    reduce_and_p,
    reduce_max_p,
    reduce_min_p,
    reduce_or_p,
    reduce_p,
    reduce_prod_p,
    reduce_sum_p,
    reduce_xor_p,
)
from didax.core.primitive import Primitive
from didax.core.values import ArrayLike, get_aval
from didax.interpreters.batching import (
    BATCH_RULES,
    Dim,
    bdim_at_front,
    front_batcher,
    shift_axes,
    vmap_flat,
)
from didax.interpreters.evaluation import IMPL_RULES, ImplRule, in_float32
from didax.interpreters.flops import FLOPS_RULES, Cost, Counted, Operand, count_jaxpr
from didax.interpreters.jaxpr_transforms import jaxpr_as_fun
from didax.interpreters.jvp import JVP_RULES, Zero, jvp_flat, linear_jvp, zero_jvp
from didax.interpreters.transpose import TRANSPOSE_RULES, UndefinedPrimal
from didax.ir.jaxpr import ClosedJaxpr

__all__: list[str] = []

# --- impl -----------------------------------------------------------------------------------


def _reduction(fn: Callable[..., object]) -> Callable[..., HostArray]:
    def impl(x: HostArray, *, axes: tuple[int, ...], **_: object) -> HostArray:
        return np.asarray(fn(x, axis=axes))

    return impl


# NumPy sums and multiplies small integers in the platform integer: keep the dtype.
_reduce_sum_impl: Final = in_float32(
    _reduction(lambda x, axis: np.sum(x, axis=axis, dtype=x.dtype))
)
IMPL_RULES.register(reduce_sum_p, _reduce_sum_impl)
IMPL_RULES.register(
    reduce_prod_p,
    in_float32(_reduction(lambda x, axis: np.prod(x, axis=axis, dtype=x.dtype))),
)


def _complex_extremum(x: HostArray, axes: tuple[int, ...], largest: bool) -> HostArray:
    """The lexicographic (real part, then imaginary) extremum over ``axes``, as XLA's."""
    kept = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(x, (*kept, *axes)).reshape(*(x.shape[i] for i in kept), -1)
    order = np.lexsort((moved.imag, moved.real), axis=-1)
    pick = order[..., -1:] if largest else order[..., :1]
    return np.take_along_axis(moved, pick, -1)[..., 0]


def _chooser_reduction(fn: Callable[..., object], largest: bool) -> ImplRule:
    def impl(x: HostArray, *, axes: tuple[int, ...]) -> HostArray:
        if x.dtype.kind == "c":
            return _complex_extremum(x, axes, largest)
        return np.asarray(fn(x, axis=axes))

    return impl


IMPL_RULES.register(reduce_max_p, _chooser_reduction(np.max, True))
IMPL_RULES.register(reduce_min_p, _chooser_reduction(np.min, False))


def _bitwise_reduction(fn: np.ufunc) -> ImplRule:
    def impl(x: HostArray, *, axes: tuple[int, ...]) -> HostArray:
        return np.asarray(fn.reduce(x, axis=axes, dtype=x.dtype))

    return impl


IMPL_RULES.register(reduce_and_p, _bitwise_reduction(np.bitwise_and))
IMPL_RULES.register(reduce_or_p, _bitwise_reduction(np.bitwise_or))
IMPL_RULES.register(reduce_xor_p, _bitwise_reduction(np.bitwise_xor))


@IMPL_RULES.defines(argmax_p)
def _argmax_impl(x: HostArray, *, axis: int, index_dtype: np.dtype[Any]) -> HostArray:
    return np.asarray(np.argmax(x, axis=axis)).astype(index_dtype)


@IMPL_RULES.defines(argmin_p)
def _argmin_impl(x: HostArray, *, axis: int, index_dtype: np.dtype[Any]) -> HostArray:
    return np.asarray(np.argmin(x, axis=axis)).astype(index_dtype)


# --- jvp ------------------------------------------------------------------------------------

zero_jvp(argmax_p)
zero_jvp(argmin_p)
for _p in LOGICAL_REDUCTIONS:
    zero_jvp(_p)
linear_jvp(reduce_sum_p)


def _chooser_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], *, axes: tuple[int, ...], prim: Primitive
) -> tuple[Any, Any]:
    # The tangent of a max/min is the mean of the tangents at the extremal positions.
    (x,), (t,) = primals, tangents
    out = prim.bind(x, axes=axes)
    shape = get_aval(x).shape
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    out_b = lax.broadcast_in_dim(out, shape, kept)
    mask = lax.convert_element_type(lax.eq(x, out_b), get_aval(x).dtype)
    counts = lax.reduce_sum(mask, axes)
    return out, lax.div(lax.reduce_sum(lax.mul(t, mask), axes), counts)


JVP_RULES.register(
    reduce_max_p, lambda p, t, *, axes: _chooser_jvp(p, t, axes=axes, prim=reduce_max_p)
)
JVP_RULES.register(
    reduce_min_p, lambda p, t, *, axes: _chooser_jvp(p, t, axes=axes, prim=reduce_min_p)
)


@JVP_RULES.defines(reduce_prod_p)
def _reduce_prod_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], *, axes: tuple[int, ...]
) -> tuple[Any, Any]:
    # d prod = sum_i t_i * prod_{j != i} x_j. The product of the others is
    # computed without dividing by zero: with no zero it is prod / x_i; with
    # exactly one zero it is the product of the nonzeros at that zero and 0
    # elsewhere; with more zeros it is 0 everywhere.
    (x,), (t,) = primals, tangents
    aval = get_aval(x)
    out = lax.reduce_prod(x, axes)
    kept = tuple(i for i in range(aval.ndim) if i not in axes)

    def spread(r: ArrayLike) -> Value:
        return lax.broadcast_in_dim(r, aval.shape, kept)

    zero, one = lax.full_like(x, 0), lax.full_like(x, 1)
    is_zero = lax.eq(x, zero)
    prod_nonzero = spread(lax.reduce_prod(lax.select(is_zero, one, x), axes))
    n_zeros = spread(lax.reduce_sum(lax.convert_element_type(is_zero, aval.dtype), axes))
    others = lax.select(
        is_zero,
        lax.select(lax.eq(n_zeros, one), prod_nonzero, zero),
        lax.select(lax.eq(n_zeros, zero), lax.div(prod_nonzero, lax.select(is_zero, one, x)), zero),
    )
    return out, lax.reduce_sum(lax.mul(t, others), axes)


# --- batching -------------------------------------------------------------------------------

for _p in (*REDUCTIONS, *LOGICAL_REDUCTIONS):
    front_batcher(_p, lambda n, *, axes: dict(axes=shift_axes(axes)))
for _p in (argmax_p, argmin_p):
    front_batcher(_p, lambda n, *, axis, index_dtype: dict(axis=axis + 1, index_dtype=index_dtype))


# --- transpose ------------------------------------------------------------------------------


@TRANSPOSE_RULES.defines(reduce_sum_p)
def _reduce_sum_transpose(ct: ArrayLike, x: UndefinedPrimal, *, axes: tuple[int, ...]) -> list[Any]:
    shape = x.aval.shape
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    return [lax.broadcast_in_dim(ct, shape, kept)]


# --- flops ----------------------------------------------------------------------------------


def _reduction_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **_: object
) -> Cost:
    # n - 1 combinations per output element: input size - output size.
    return Cost(max(0, operands[0].aval.size - out_avals[0].size))


for _p in (*REDUCTIONS, *LOGICAL_REDUCTIONS, argmax_p, argmin_p):
    FLOPS_RULES.register(_p, _reduction_flops)


class _ReduceParams(TypedDict):
    """``reduce_p``'s params, as its rules here receive them (``**params: Unpack[...]``)."""

    jaxpr: ClosedJaxpr
    dimensions: tuple[int, ...]


@FLOPS_RULES.defines(reduce_p)
def _reduce_flops(
    operands: Sequence[Operand],
    out_avals: Sequence[ShapedArray],
    /,
    **params: Unpack[_ReduceParams],
) -> Counted:
    # XLA's HandleReduce: the reducer's cost once per combination.
    jaxpr = params["jaxpr"]
    scalars = [Operand(v.aval) for v in jaxpr.jaxpr.in_binders]
    body = count_jaxpr(jaxpr.jaxpr, scalars).cost
    combinations = max(0, operands[0].aval.size - out_avals[0].size)
    return Counted(body * combinations, tuple(Operand(a) for a in out_avals))


# --- the generic reduce: jvp and batching ------------------------------------------------------


def _split(args: Sequence[Any]) -> tuple[Sequence[Any], Sequence[Any]]:
    return args[: len(args) // 2], args[len(args) // 2 :]


def _mapped_reducer(jaxpr: ClosedJaxpr) -> Callable[..., list[Any]]:
    """The reducer applied element by element to vectors (accumulators, then elements)."""
    body = jaxpr_as_fun(jaxpr.jaxpr)

    def mapped(*vectors: Any) -> list[Any]:
        size = get_aval(vectors[0]).shape[0]
        pairs = vmap_flat(lambda *a: body(*jaxpr.consts, *a), size, vectors, [0] * len(vectors))
        return [bdim_at_front(v, d, size) for v, d in pairs]

    return mapped


def _reduce_tree(
    jaxpr: ClosedJaxpr, inits: Sequence[Any], xs: Sequence[Any], kept: tuple[int, ...]
) -> list[Any]:
    """Reduces axis 0 of ``xs`` (each ``(n, m)``) by halves: JAX's reduction for the jvp."""
    reducer = _mapped_reducer(jaxpr)
    while (n := get_aval(xs[0]).shape[0]) > 1:
        m = get_aval(xs[0]).shape[1]
        half = (n + 1) // 2
        first = [lax.slice(x, (0, 0), (half, m)) for x in xs]
        second = [lax.slice(x, (half, 0), (n, m)) for x in xs]
        if n % 2:
            second = [
                lax.pad(x, i, ((0, 1, 0), (0, 0, 0))) for x, i in zip(second, inits, strict=True)
            ]
        flat = [lax.reshape(x, (half * m,)) for x in (*first, *second)]
        xs = [lax.reshape(y, (half, m)) for y in reducer(*flat)]
    if get_aval(xs[0]).shape[0] == 0:
        return [lax.broadcast_in_dim(i, kept, ()) for i in inits]
    return [lax.reshape(x, kept) for x in xs]


@JVP_RULES.defines(reduce_p)
def _reduce_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], **params: Unpack[_ReduceParams]
) -> tuple[list[Any], list[Any]]:
    jaxpr, dimensions = params["jaxpr"], params["dimensions"]
    xs, inits = _split(primals)
    t_xs, t_inits = _split(tangents)
    if any(not isinstance(t, Zero) for t in t_inits):
        raise NotImplementedError(
            "reduce: the gradient of a general lax.reduce with non-zero tangents for its "
            "initial values is not implemented (as in JAX)"
        )
    shape = get_aval(xs[0]).shape
    kept = tuple(d for d in range(len(shape)) if d not in dimensions)
    kept_shape = tuple(shape[d] for d in kept)
    n = int(np.prod([shape[d] for d in dimensions], dtype=np.int64))
    m = int(np.prod(kept_shape, dtype=np.int64))
    perm = (*dimensions, *kept)

    def flat(x: ArrayLike) -> Value:
        return lax.reshape(lax.transpose(x, perm), (n, m))

    def tree(*ys: Any) -> list[Any]:
        return _reduce_tree(jaxpr, inits, ys, kept_shape)

    tangents_2d = [
        Zero.like(ShapedArray((n, m), get_aval(x).dtype, get_aval(x).weak_type))
        if isinstance(t, Zero)
        else flat(t)
        for x, t in zip(xs, t_xs, strict=True)
    ]
    return jvp_flat(tree, [flat(x) for x in xs], tangents_2d)


@BATCH_RULES.defines(reduce_p)
def _reduce_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], **params: Unpack[_ReduceParams]
) -> tuple[list[Any], list[Dim]]:
    jaxpr, dimensions = params["jaxpr"], params["dimensions"]
    xs, inits = _split(args)
    x_dims, init_dims = _split(dims)
    if any(d is not None for d in init_dims):
        raise NotImplementedError(
            "reduce: batching over the initial values is not implemented (as in JAX)"
        )
    moved = [bdim_at_front(x, d, axis_size) for x, d in zip(xs, x_dims, strict=True)]
    outs = reduce_p.bind(*moved, *inits, jaxpr=jaxpr, dimensions=shift_axes(dimensions))
    return outs, [0] * len(outs)
