"""The lowering of ``random_gamma_p`` (``core.lax.random_gamma``): the rejection loop, staged.

JAX lowers its ``random_gamma_p`` with ``mlir.lower_fun`` of ``_gamma_impl``:
every element of ``a`` gets its own key (each key split into as many as
elements it draws), and Marsaglia and Tsang's rejection loop runs
vectorised over the elements (``vmap`` of a ``while_loop``: the loop runs
until every element has accepted a draw). The lowering here stages the
same function into a jaxpr and lowers that.

Design rules:
- The function is written with ``api``'s keys and control flow (the
  Threefry hash, ``while_loop``, ``vmap``), which sit above this layer:
  ``api.random_gamma`` hands it over at import (``set_sampler``), and
  the rule stages whatever was handed, so this module imports nothing
  from ``api``. ``import didax`` imports both, so a program always finds
  the sampler.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np

from didax.core.abstract import ShapedArray
from didax.core.basearray import Value
from didax.core.lax.random_gamma import random_gamma_p
from didax.interpreters.staging import trace_to_jaxpr
from didax.lowering.mlir import (
    LOWERING_RULES,
    IrValue,
    LoweringRuleContext,
    constant,
    lower_jaxpr_body,
)

__all__ = ["Sampler", "set_sampler"]

# (key data, a, log_space) -> samples of a's type.
Sampler = Callable[[Value, Value, bool], Value]

_SAMPLER: Final[list[Sampler]] = []


def set_sampler(sampler: Sampler) -> None:
    """Makes ``sampler`` the function ``random_gamma_p`` lowers to (api's, at import)."""
    _SAMPLER[:] = [sampler]


@LOWERING_RULES.defines(random_gamma_p)
def _random_gamma_lowering(
    ctx: LoweringRuleContext, key: IrValue, a: IrValue, *, log_space: bool
) -> list[IrValue]:
    if not _SAMPLER:
        raise RuntimeError("random_gamma: no sampler is set (import didax.random first)")
    sampler = _SAMPLER[0]
    avals = [ShapedArray(v.shape, v.dtype) for v in ctx.avals_in]
    closed = trace_to_jaxpr(lambda k, x: [sampler(k, x, log_space)], avals, "random_gamma")
    consts = [constant(np.asarray(c)) for c in closed.consts]
    return lower_jaxpr_body(ctx.module_context, closed.jaxpr, [*consts, key, a])
