"""The interpreters' rules for ``select_n`` and ``clamp`` (``core.lax.selection``).

Design rules:
- Impls are XLA's semantics in NumPy: ``select_n`` is XLA's nested
  selects (an integer ``which`` below 0 picks the first case, one past the
  end the last); ``clamp`` is ``min(max(x, lo), hi)`` with NaNs
  propagated, as XLA's.
- Jvps are JAX's: ``select_n`` selects the tangents (a zero tangent
  instantiated when another case has one); ``clamp``'s tangent flows from
  the operand the result equals (``x`` strictly inside, ``min`` where it is
  above ``x`` and below ``max``, ``max`` where it is below ``x``).
- ``select_n`` is linear in its cases: its transpose sends the cotangent
  to each undefined case where ``which`` picks it, zeros elsewhere.
- Batching moves every batch axis to the front; an unbatched rank-0
  ``which``, ``min`` or ``max`` stays rank-0 (the typing rules allow it),
  every other operand is broadcast to the batched result's shape.
- Flops are XLA's cost analysis: ``clamp`` one per element; ``select_n``
  one ``select`` per element for each case after the first, and for an
  integer ``which`` one comparison per element of ``which`` too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray, Value
from didax.core.lax.operands import bind_value
from didax.core.lax.selection import clamp_p, select_n, select_n_p
from didax.core.primitive import Primitive
from didax.core.values import ArrayLike, get_aval
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front, unbatched_aval
from didax.interpreters.evaluation import IMPL_RULES
from didax.interpreters.flops import FLOPS_RULES, Cost, Operand, per_element
from didax.interpreters.jvp import JVP_RULES, Zero, defjvp, instantiate_zeros
from didax.interpreters.transpose import (
    TRANSPOSE_RULES,
    PrimalOrUndefined,
    UndefinedPrimal,
    aval_of,
    is_undefined,
    not_linear,
    zeros_of,
)

__all__: list[str] = []


# --- impl -----------------------------------------------------------------------------------


@IMPL_RULES.defines(select_n_p)
def _select_n_impl(which: HostArray, *cases: HostArray) -> HostArray:
    if which.dtype == np.bool_:
        return cases[0].copy() if len(cases) == 1 else np.where(which, cases[1], cases[0])
    out = np.broadcast_to(cases[0], cases[0].shape)
    for i, case in enumerate(cases[1:], start=1):
        out = np.where(which >= i, case, out)
    return np.array(out, cases[0].dtype)


@IMPL_RULES.defines(clamp_p)
def _clamp_impl(lo: HostArray, x: HostArray, hi: HostArray) -> HostArray:
    return np.asarray(np.minimum(np.maximum(x, lo), hi), x.dtype)


# --- jvp ------------------------------------------------------------------------------------


@JVP_RULES.defines(select_n_p)
def _select_n_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[ArrayLike | Zero]
) -> tuple[Value, Value | Zero]:
    which, *cases = primals
    out = select_n(which, *cases)
    case_tangents = tangents[1:]
    if all(isinstance(t, Zero) for t in case_tangents):
        return out, Zero.like(get_aval(out))
    return out, select_n(which, *(instantiate_zeros(t) for t in case_tangents))


def _where(pred: ArrayLike, t: ArrayLike) -> Value:
    return lax.select(pred, t, lax.full_like(t, 0))


defjvp(
    clamp_p,
    lambda t, lo, x, hi, out: _where(lax.and_(lax.gt(lo, x), lax.lt(lo, hi)), t),
    lambda t, lo, x, hi, out: _where(lax.and_(lax.gt(x, lo), lax.lt(x, hi)), t),
    lambda t, lo, x, hi, out: _where(lax.lt(hi, x), t),
)


# --- transpose ------------------------------------------------------------------------------


@TRANSPOSE_RULES.defines(select_n_p)
def _select_n_transpose(
    ct: ArrayLike, which: PrimalOrUndefined, *cases: PrimalOrUndefined
) -> list[ArrayLike | None]:
    if isinstance(which, UndefinedPrimal):
        raise not_linear(select_n_p, "`which` is a linear input")
    if len(cases) == 1:  # the only case is always picked
        return [None, ct if is_undefined(cases[0]) else None]
    zeros = zeros_of(aval_of(ct))
    boolean = get_aval(which).dtype == dtypes.bool_
    cts: list[ArrayLike | None] = [None]
    for i, case in enumerate(cases):
        if not is_undefined(case):
            cts.append(None)
        elif boolean:
            cts.append(select_n(which, *((zeros, ct) if i else (ct, zeros))))
        else:
            cts.append(select_n(lax.eq(which, lax.full_like(which, i)), zeros, ct))
    return cts


# --- batching -------------------------------------------------------------------------------


def _batched(x: ArrayLike, d: Dim, axis_size: int, shape: tuple[int, ...]) -> ArrayLike:
    """``x`` with its batch axis in front, broadcast to the batched result's ``shape``."""
    x = bdim_at_front(x, d, axis_size)
    full = (axis_size, *shape)
    return x if get_aval(x).shape == full else lax.broadcast_in_dim(x, full, (0,))


def _register_batcher(prim: Primitive, full_operands: slice) -> None:
    """Operands in ``full_operands`` have the result's shape; the others may stay rank-0."""

    def rule(
        axis_size: int, args: Sequence[Any], dims: Sequence[Dim], **params: Any
    ) -> tuple[Value, Dim]:
        full = range(len(args))[full_operands]
        shape = unbatched_aval(args[full[0]], dims[full[0]]).shape
        ins = [
            x
            if i not in full and d is None and get_aval(x).shape == ()
            else _batched(x, d, axis_size, shape)
            for i, (x, d) in enumerate(zip(args, dims, strict=True))
        ]
        return bind_value(prim, *ins, **params), 0

    BATCH_RULES.register(prim, rule)


_register_batcher(select_n_p, slice(1, None))
_register_batcher(clamp_p, slice(1, 2))


# --- flops ----------------------------------------------------------------------------------

FLOPS_RULES.register(clamp_p, per_element(1))


@FLOPS_RULES.defines(select_n_p)
def _select_n_flops(operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /) -> Cost:
    which, *cases = (o.aval for o in operands)
    selects = (len(cases) - 1) * out_avals[0].size
    compares = 0 if which.dtype == dtypes.bool_ else (len(cases) - 1) * which.size
    return Cost(selects + compares)
