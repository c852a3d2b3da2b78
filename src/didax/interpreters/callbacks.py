"""The interpreters' rules for host callbacks (``core.lax.callbacks``).

Design rules:
- Eagerly a callback is its impl: the user's function on the operands'
  host data, its results checked against ``result_avals`` (a debug
  callback has none).
- jvp, as JAX's: a debug callback prints its primals (it is not
  differentiated, and has no results to differentiate); ``pure_callback``
  and ``io_callback`` refuse, naming ``custom_jvp`` as the way. Under
  ``grad`` the debug callback's operands are primals, known on the forward
  pass, so partial evaluation binds it there, once.
- vmap, as JAX's: a debug callback runs once per batch element (unrolled,
  in order); ``pure_callback`` follows its ``vmap_method`` (``expand_dims``
  and ``broadcast_all`` call it once on the batch, ``sequential`` once per
  element, None refuses); an unordered ``io_callback`` runs per element,
  an ordered one refuses.
- Flops: a callback runs on the host, outside XLA's cost model: none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray
from didax.core.effects import Effect
from didax.core.lax.callbacks import (
    CALLBACK_PRIMITIVES,
    HostCallback,
    checked_results,
    debug_callback_p,
    io_callback_p,
    pure_callback_p,
)
from didax.core.primitive import Primitive
from didax.core.values import get_aval
from didax.interpreters.batching import BATCH_RULES, BatchRule, Dim, bdim_at_front
from didax.interpreters.evaluation import IMPL_RULES
from didax.interpreters.flops import FLOPS_RULES, ZERO, Cost, Operand
from didax.interpreters.jvp import JVP_RULES

__all__: list[str] = []


# --- impl ----------------------------------------------------------------------------


@IMPL_RULES.defines(debug_callback_p)
def _debug_callback_impl(*args: HostArray, callback: HostCallback, effect: Effect) -> list[Any]:
    callback(*args)
    return []


def _callback_impl(
    *args: HostArray, callback: HostCallback, result_avals: tuple[ShapedArray, ...], **_: object
) -> list[HostArray]:
    return checked_results(callback.name, callback(*args), result_avals)


IMPL_RULES.register(pure_callback_p, _callback_impl)
IMPL_RULES.register(io_callback_p, _callback_impl)


# --- jvp -----------------------------------------------------------------------------


@JVP_RULES.defines(debug_callback_p)
def _debug_callback_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], **params: Any
) -> tuple[list[Any], list[Any]]:
    debug_callback_p.bind(*primals, **params)
    return [], []


def _refuse_jvp(message: str) -> Callable[..., tuple[Any, Any]]:
    def rule(primals: Sequence[Any], tangents: Sequence[Any], **params: object) -> tuple[Any, Any]:
        raise ValueError(message)

    return rule


JVP_RULES.register(
    pure_callback_p,
    _refuse_jvp(
        "Pure callbacks do not support JVP. "
        "Please use `didax.custom_jvp` to use callbacks while taking gradients."
    ),
)
JVP_RULES.register(io_callback_p, _refuse_jvp("IO callbacks do not support JVP."))


# --- vmap ----------------------------------------------------------------------------


def _axis_size(args: Sequence[Any], dims: Sequence[Dim]) -> int:
    return next(get_aval(x).shape[d] for x, d in zip(args, dims, strict=True) if d is not None)


def _element(args: Sequence[Any], dims: Sequence[Dim], i: int) -> list[Any]:
    """The operands of batch element ``i``: batched ones indexed, the others as they are."""
    return [
        x if d is None else lax.index_in_dim(x, i, d, keepdims=False)
        for x, d in zip(args, dims, strict=True)
    ]


def _sequential(
    prim: Primitive,
    axis_size: int,
    args: Sequence[Any],
    dims: Sequence[Dim],
    params: dict[str, Any],
) -> tuple[list[Any], list[Dim]]:
    """``prim`` bound once per batch element, in order; its results stacked on axis 0."""
    per_element = [prim.bind(*_element(args, dims, i), **params) for i in range(axis_size)]
    outs = [lax.stack(list(xs), 0) for xs in zip(*per_element, strict=True)]
    return outs, [0] * len(outs)


@BATCH_RULES.defines(debug_callback_p)
def _debug_callback_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], **params: Any
) -> tuple[list[Any], list[Dim]]:
    return _sequential(debug_callback_p, axis_size, args, dims, params)


def _batched_avals(axis_size: int, avals: Sequence[ShapedArray]) -> tuple[ShapedArray, ...]:
    return tuple(ShapedArray((axis_size, *a.shape), a.dtype) for a in avals)


def vmap_method_batcher(prim: Primitive) -> BatchRule:
    """The batching rule of a primitive with ``result_avals`` and ``vmap_method`` params.

    JAX's ``ffi_batching_rule``, shared by ``pure_callback`` and ``ffi_call``.
    """

    def rule(
        axis_size: int, args: Sequence[Any], dims: Sequence[Dim], **params: Any
    ) -> tuple[list[Any], list[Dim]]:
        method = params["vmap_method"]
        if method in ("sequential", "sequential_unrolled"):
            return _sequential(prim, axis_size, args, dims, params)
        if method not in ("expand_dims", "broadcast_all", "legacy_vectorized"):
            raise NotImplementedError(
                f"vmap is only supported for the {prim.name} primitive when vmap_method is one "
                "of 'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
                f"'legacy_vectorized'. Got vmap_method={method!r}."
            )
        size = axis_size if method == "broadcast_all" else 1
        ins = [
            bdim_at_front(x, d, axis_size)
            if d is not None
            else x
            if method == "legacy_vectorized"
            else lax.broadcast(x, (size,))
            for x, d in zip(args, dims, strict=True)
        ]
        batched = {**params, "result_avals": _batched_avals(axis_size, params["result_avals"])}
        outs = prim.bind(*ins, **batched)
        return list(outs), [0] * len(outs)

    return rule


BATCH_RULES.register(pure_callback_p, vmap_method_batcher(pure_callback_p))


@BATCH_RULES.defines(io_callback_p)
def _io_callback_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], **params: Any
) -> tuple[list[Any], list[Dim]]:
    if params["ordered"]:
        raise ValueError("Cannot `vmap` ordered IO callback.")
    return _sequential(io_callback_p, axis_size, args, dims, params)


# --- flops ---------------------------------------------------------------------------


def _no_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **_: object
) -> Cost:
    return ZERO


for _p in CALLBACK_PRIMITIVES:
    FLOPS_RULES.register(_p, _no_flops)
