"""The scatter family: its impl, jvp, transpose, batching and flops rules.

The primitives are declared and typed in ``core.lax.scatter``, their
lowering is in ``lowering.scatter``. Gather's rules, and the index
arithmetic both share, are in ``interpreters.indexing``.

Design rules:
- A scatter's impl is one NumPy assignment (replace) or one unbuffered
  ``ufunc.at`` (add, multiply, minimum, maximum) over the index arrays
  that gather's impl builds, which applies repeated indices in order, as
  XLA does on CPUs; a window that is not wholly inside is dropped (or
  clamped, in ``CLIP`` mode).
- The differentiation rules are JAX's: scatter-add and scatter-sub are
  linear in operand and updates (transpose: the operand's cotangent and a
  gather, negated for scatter-sub),
  scatter-mul in its operand; a scatter with possibly repeated indices is
  differentiated by scattering update ids, so that only the update that
  landed gets a tangent; min/max share the tangent among the values that
  tie for the extremum.
- Batching follows JAX: unbatched indices take the batch axis as an
  extra window axis of the updates; batched operand and indices become
  XLA's batching dimensions (``operand_batching_dims``).
- Flops are XLA's cost model: a scatter costs its combiner once per
  update element (a replace nothing), and ``CLIP`` a clamp per index.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray, Value
from didax.core.lax.indexing import (
    GatherScatterMode,
    ScatterDimensionNumbers,
    gather_dnums_of_scatter,
    scatter_slice_sizes,
)
from didax.core.lax.scatter import SCATTERS
from didax.core.primitive import Primitive
from didax.core.values import ArrayLike, get_aval
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front
from didax.interpreters.evaluation import IMPL_RULES, ImplRule
from didax.interpreters.flops import FLOPS_RULES, Cost, FlopsRule, Operand
from didax.interpreters.indexing import (
    _FILL,
    _both_batched,
    _index_arrays,
    _not_linear,
    _operand_batched,
)
from didax.interpreters.jvp import JVP_RULES, JVPRule, Zero, instantiate_zeros
from didax.interpreters.transpose import (
    TRANSPOSE_RULES,
    PrimalOrUndefined,
    UndefinedPrimal,
    aval_of,
    is_undefined,
)

_CLIP: Final = GatherScatterMode.CLIP


# --- impl rules -----------------------------------------------------------------------


def _scatter_impl(combine: Callable[[HostArray, tuple[Any, ...], HostArray], None]) -> ImplRule:
    def impl(
        operand: HostArray,
        indices: HostArray,
        updates: HostArray,
        *,
        dimension_numbers: ScatterDimensionNumbers,
        indices_are_sorted: bool,
        unique_indices: bool,
        mode: GatherScatterMode,
    ) -> HostArray:
        dn = dimension_numbers
        out = operand.copy()
        if updates.size == 0:
            return out
        window_axes = [
            d
            for d in range(operand.ndim)
            if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims
        ]
        sizes = scatter_slice_sizes(operand.shape, updates.shape, dn)
        index, in_bounds = _index_arrays(
            operand.shape,
            indices,
            dn.scatter_dims_to_operand_dims,
            dn.operand_batching_dims,
            dn.scatter_indices_batching_dims,
            window_axes,
            sizes,
            clamp=mode is _CLIP,
        )
        # Updates as (scatter axes, window axes), each index array broadcast to that shape.
        scatter_axes = [i for i in range(updates.ndim) if i not in dn.update_window_dims]
        values = np.transpose(updates, scatter_axes + list(dn.update_window_dims))
        target = out
        if out.ndim == 0:  # one element, which every update hits: index a 1-element view
            target, index = out.reshape(1), [0]
        arrays = [np.broadcast_to(i, values.shape) for i in index]
        if in_bounds is not None and not in_bounds.all():
            arrays = [a[in_bounds] for a in arrays]
            values = values[in_bounds]
        combine(target, tuple(arrays), values)
        return out

    return impl


def _replace(out: HostArray, index: tuple[Any, ...], values: HostArray) -> None:
    out[index] = values  # repeated indices: the last update stays, as XLA's on CPUs


def _ufunc_at(ufunc: np.ufunc) -> Callable[[HostArray, tuple[Any, ...], HostArray], None]:
    def combine(out: HostArray, index: tuple[Any, ...], values: HostArray) -> None:
        ufunc.at(out, index, values)

    return combine


IMPL_RULES.register(lax.scatter_p, _scatter_impl(_replace))
IMPL_RULES.register(lax.scatter_add_p, _scatter_impl(_ufunc_at(np.add)))
IMPL_RULES.register(lax.scatter_sub_p, _scatter_impl(_ufunc_at(np.subtract)))
IMPL_RULES.register(lax.scatter_mul_p, _scatter_impl(_ufunc_at(np.multiply)))
# On booleans minimum is "and" and maximum "or", in NumPy as in XLA.
IMPL_RULES.register(lax.scatter_min_p, _scatter_impl(_ufunc_at(np.minimum)))
IMPL_RULES.register(lax.scatter_max_p, _scatter_impl(_ufunc_at(np.maximum)))


# --- jvp rules ------------------------------------------------------------------------


def _zeros_like(x: ArrayLike) -> Value:
    return lax.full_like(x, 0)


def _ones_like(x: ArrayLike) -> Value:
    return lax.full_like(x, 1)


def _scatter_params(params: dict[str, Any]) -> dict[str, Any]:
    return dict(
        indices_are_sorted=params["indices_are_sorted"],
        unique_indices=params["unique_indices"],
        mode=params["mode"],
    )


def _inverse_gather(
    x: ArrayLike, indices: ArrayLike, updates_shape: tuple[int, ...], **params: Any
) -> Value:
    """The gather reading, from ``x``, the elements the scatter writes (XLA clamps them in)."""
    dn: ScatterDimensionNumbers = params["dimension_numbers"]
    sizes = scatter_slice_sizes(get_aval(x).shape, updates_shape, dn)
    return lax.gather(x, indices, gather_dnums_of_scatter(dn), sizes)


def _scatter_addsub_jvp(prim: Primitive) -> JVPRule:
    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
        operand, indices, updates = primals
        t_operand, _, t_updates = tangents
        out = prim.bind(operand, indices, updates, **params)
        t_out = prim.bind(
            instantiate_zeros(t_operand), indices, instantiate_zeros(t_updates), **params
        )
        return out, t_out

    return rule


JVP_RULES.register(lax.scatter_add_p, _scatter_addsub_jvp(lax.scatter_add_p))
JVP_RULES.register(lax.scatter_sub_p, _scatter_addsub_jvp(lax.scatter_sub_p))


@JVP_RULES.defines(lax.scatter_mul_p)
def _scatter_mul_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], **params: Any
) -> tuple[Any, Any]:
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents
    out = lax.scatter_mul_p.bind(operand, indices, updates, **params)
    t_out: Any = Zero.like(get_aval(out))
    if not isinstance(t_operand, Zero):
        t_out = lax.scatter_mul_p.bind(t_operand, indices, updates, **params)
    if not isinstance(t_updates, Zero):
        if not params["unique_indices"]:
            raise NotImplementedError(
                "scatter_mul gradients are only implemented if `unique_indices=True` (as in JAX)"
            )
        # With unique indices out = x * (1 at unscattered elements, u where u lands).
        spread = lax.scatter_add_p.bind(_zeros_like(operand), indices, t_updates, **params)
        term = lax.mul(operand, spread)
        t_out = term if isinstance(t_out, Zero) else lax.add(t_out, term)
    return out, t_out


def _scatter_extremal_jvp(prim: Primitive) -> JVPRule:
    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
        # JAX's rule: the tangent at an element is the mean of the tangents of
        # the values (the operand's and the updates') that tie for the result.
        operand, indices, updates = primals
        dn: ScatterDimensionNumbers = params["dimension_numbers"]
        out = prim.bind(operand, indices, updates, **params)
        g_operand = instantiate_zeros(tangents[0])
        g_updates = instantiate_zeros(tangents[2])
        shape = get_aval(updates).shape
        initial = _inverse_gather(operand, indices, shape, **params)
        target = _inverse_gather(out, indices, shape, **params)
        successful = lax.eq(updates, target)
        retained = lax.eq(initial, target)
        zeros_u, ones_u = _zeros_like(updates), _ones_like(updates)
        num_updates = _inverse_gather(
            lax.scatter_add(
                _zeros_like(operand), indices, lax.select(successful, ones_u, zeros_u), dn
            ),
            indices,
            shape,
            **params,
        )
        num_refs = _inverse_gather(
            lax.scatter_add(_zeros_like(operand), indices, ones_u, dn), indices, shape, **params
        )
        plus_one = lax.add(num_updates, ones_u)
        updates_normalizer = lax.select(
            retained, lax.div(ones_u, plus_one), lax.div(ones_u, num_updates)
        )
        updates_coef = lax.select(successful, updates_normalizer, zeros_u)
        operand_normalizer = lax.select(retained, lax.div(ones_u, plus_one), zeros_u)
        operand_coef = lax.div(lax.add(lax.neg(ones_u), operand_normalizer), num_refs)
        target_tangents = _inverse_gather(g_operand, indices, shape, **params)
        tangent_updates = lax.add(
            lax.mul(target_tangents, operand_coef), lax.mul(g_updates, updates_coef)
        )
        t_out = lax.scatter_add(g_operand, indices, tangent_updates, dn, **_scatter_params(params))
        return out, t_out

    return rule


JVP_RULES.register(lax.scatter_min_p, _scatter_extremal_jvp(lax.scatter_min_p))
JVP_RULES.register(lax.scatter_max_p, _scatter_extremal_jvp(lax.scatter_max_p))


def _id_dtype(count: int) -> dtypes.DType:
    """JAX's dtype for update ids 1..count: uint32 unless they need more."""
    return dtypes.uint32 if count < np.iinfo(np.uint32).max else dtypes.uint64


@JVP_RULES.defines(lax.scatter_p)
def _scatter_jvp(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
    operand, indices, updates = primals
    g_operand = instantiate_zeros(tangents[0])
    g_updates = instantiate_zeros(tangents[2])
    dn: ScatterDimensionNumbers = params["dimension_numbers"]
    if params["unique_indices"]:
        out = lax.scatter_p.bind(operand, indices, updates, **params)
        return out, lax.scatter_p.bind(g_operand, indices, g_updates, **params)
    # Of repeated indices one update wins, and which is unspecified: scatter
    # an id per update, read back which id landed where, and keep only the
    # winners (JAX's scheme). The rest is a scatter-add of masked values,
    # which transposes without a scatter transpose rule.
    shape = get_aval(updates).shape
    ids_shape = tuple(1 if i in dn.update_window_dims else n for i, n in enumerate(shape))
    count = int(np.prod(ids_shape, dtype=np.int64))
    id_dtype = _id_dtype(count)
    ids = lax.reshape(lax.iota(id_dtype, count), ids_shape)
    ids = lax.add(ids, lax.full_like(ids, 1))  # 0 marks the elements no update hit
    ids = lax.broadcast_in_dim(ids, shape, tuple(range(len(shape))))
    operand_shape = get_aval(operand).shape
    scattered = lax.scatter_p.bind(lax.full(operand_shape, 0, id_dtype), indices, ids, **params)
    gathered = _inverse_gather(scattered, indices, shape, **params)
    untouched = lax.eq(scattered, lax.full_like(scattered, 0))
    won = lax.eq(ids, gathered)

    def masked_operand(x: ArrayLike) -> Value:
        return lax.select(untouched, x, _zeros_like(x))

    def masked_updates(u: ArrayLike) -> Value:
        return lax.select(won, u, _zeros_like(u))

    out = lax.scatter_add_p.bind(
        masked_operand(operand), indices, masked_updates(updates), **params
    )
    t_out = lax.scatter_add_p.bind(
        masked_operand(g_operand), indices, masked_updates(g_updates), **params
    )
    return out, t_out


# --- transpose rules ------------------------------------------------------------------


def _updates_ct(
    ct: ArrayLike, indices: ArrayLike, updates: PrimalOrUndefined, params: dict[str, Any]
) -> Value:
    """The gather of ``ct`` at the updated elements (0 for updates that were dropped)."""
    dn: ScatterDimensionNumbers = params["dimension_numbers"]
    shape = aval_of(updates).shape
    sizes = scatter_slice_sizes(get_aval(ct).shape, shape, dn)
    mode = params["mode"]
    return lax.gather(
        ct,
        indices,
        gather_dnums_of_scatter(dn),
        sizes,
        mode=mode,
        fill_value=0 if mode is _FILL else None,
    )


def _scatter_addsub_transpose(prim: Primitive) -> None:
    def rule(
        ct: ArrayLike,
        operand: PrimalOrUndefined,
        indices: PrimalOrUndefined,
        updates: PrimalOrUndefined,
        **params: Any,
    ) -> list[ArrayLike | None]:
        if isinstance(indices, UndefinedPrimal):
            raise _not_linear(prim, "the indices are a linear input")
        operand_ct = ct if is_undefined(operand) else None
        updates_ct: ArrayLike | None = None
        if is_undefined(updates):
            updates_ct = _updates_ct(ct, indices, updates, params)
            if prim is lax.scatter_sub_p:
                updates_ct = lax.neg(updates_ct)
        return [operand_ct, None, updates_ct]

    TRANSPOSE_RULES.register(prim, rule)


_scatter_addsub_transpose(lax.scatter_add_p)
_scatter_addsub_transpose(lax.scatter_sub_p)


@TRANSPOSE_RULES.defines(lax.scatter_mul_p)
def _scatter_mul_transpose(
    ct: ArrayLike,
    operand: PrimalOrUndefined,
    indices: PrimalOrUndefined,
    updates: PrimalOrUndefined,
    **params: Any,
) -> list[ArrayLike | None]:
    if isinstance(indices, UndefinedPrimal):
        raise _not_linear(lax.scatter_mul_p, "the indices are a linear input")
    if is_undefined(updates):
        raise _not_linear(lax.scatter_mul_p, "the updates are a linear input")
    operand_ct = lax.scatter_mul_p.bind(ct, indices, updates, **params)
    return [operand_ct, None, None]


@TRANSPOSE_RULES.defines(lax.scatter_p)
def _scatter_transpose(
    ct: ArrayLike,
    operand: PrimalOrUndefined,
    indices: PrimalOrUndefined,
    updates: PrimalOrUndefined,
    **params: Any,
) -> list[ArrayLike | None]:
    if isinstance(indices, UndefinedPrimal):
        raise _not_linear(lax.scatter_p, "the indices are a linear input")
    if not params["unique_indices"]:
        raise NotImplementedError(
            "scatter transpose is only implemented where unique_indices=True (as in JAX)"
        )
    operand_ct = updates_ct = None
    if is_undefined(operand):
        # The overwritten elements get no cotangent.
        shape = aval_of(updates).shape
        zeros = lax.full(shape, 0, get_aval(ct).dtype)
        operand_ct = lax.scatter_p.bind(ct, indices, zeros, **params)
    if is_undefined(updates):
        updates_ct = _updates_ct(ct, indices, updates, params)
    return [operand_ct, None, updates_ct]


# --- batching rules -------------------------------------------------------------------


def _scatter_batcher(prim: Primitive) -> None:
    def rule(
        axis_size: int,
        args: Sequence[Any],
        dims: Sequence[Dim],
        *,
        dimension_numbers: ScatterDimensionNumbers,
        **params: Any,
    ) -> tuple[Any, Any]:
        (operand, indices, updates), (d_operand, d_indices, d_updates) = args, dims
        dn = dimension_numbers
        # The result is batched whatever is: scatter into a batched operand.
        operand = bdim_at_front(operand, d_operand, axis_size)
        updates = bdim_at_front(updates, d_updates, axis_size)
        if d_indices is None:
            new = _operand_batched(dn)
        else:
            indices = bdim_at_front(indices, d_indices, axis_size)
            new = _both_batched(dn)
        return prim.bind(operand, indices, updates, dimension_numbers=new, **params), 0

    BATCH_RULES.register(prim, rule)


for _p in SCATTERS:
    _scatter_batcher(_p)


# --- flops rules ----------------------------------------------------------------------


def _scatter_flops(per_update: int) -> FlopsRule:
    def rule(
        operands: Sequence[Operand],
        out_avals: Sequence[ShapedArray],
        /,
        *,
        mode: GatherScatterMode,
        **_: object,
    ) -> Cost:
        # The update computation runs once per update element; CLIP clamps every index.
        clamp = operands[1].aval.size if mode is _CLIP else 0
        return Cost(per_update * operands[2].aval.size + clamp)

    return rule


FLOPS_RULES.register(lax.scatter_p, _scatter_flops(0))
for _p in (
    lax.scatter_add_p,
    lax.scatter_sub_p,
    lax.scatter_mul_p,
    lax.scatter_min_p,
    lax.scatter_max_p,
):
    FLOPS_RULES.register(_p, _scatter_flops(1))
