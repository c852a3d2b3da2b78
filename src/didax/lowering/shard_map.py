"""StableHLO lowering of ``shard_map`` (``core.lax.shard_map``): the body in XLA's manual mode.

Design rules:
- A ``shard_map`` body is lowered inline in XLA's manual mode, as JAX
  lowers it for GSPMD: each operand is pinned to its layout (``@Sharding``)
  and cut to its local piece (``@SPMDFullToShardShape``, sharding
  ``{manual}``); each result is marked ``{manual}`` and put back together
  (``@SPMDShardToFullShape``, its layout).
- While the body is lowered its mesh is on the module context
  (``manual_mesh``), where the collectives' lowerings (``lowering.parallel``)
  find their replica groups; a ``shard_map`` inside a body is refused.
"""

from __future__ import annotations

from typing import Any, Final

from didax.core.lax.shard_map import ShardMapParams, shard_map_p
from didax.core.sharding import NamedSharding
from didax.ir.jaxpr import Jaxpr
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext, lower_jaxpr_body
from didax.lowering.parallel import sharding_custom_call
from didax.lowering.sharding import hlo_sharding_text

MANUAL: Final = "{manual}"


@LOWERING_RULES.defines(shard_map_p)
def _shard_map_lowering(
    ctx: LoweringRuleContext,
    *args: IrValue,
    **params: Any,
) -> list[IrValue]:
    p: ShardMapParams[Jaxpr] = ShardMapParams(**params)
    mctx = ctx.module_context
    if mctx.manual_mesh is not None:
        raise NotImplementedError("shard_map inside a shard_map body")
    pieces = []
    for x, whole, spec, local in zip(args, ctx.avals_in, p.in_specs, p.jaxpr.in_avals, strict=True):
        pinned = sharding_custom_call(
            x, whole, hlo_sharding_text(NamedSharding(p.mesh, spec), whole.ndim)
        )
        pieces.append(sharding_custom_call(pinned, local, MANUAL, "SPMDFullToShardShape"))
    mctx.manual_mesh = p.mesh
    try:
        outs = lower_jaxpr_body(mctx, p.jaxpr, pieces)
    finally:
        mctx.manual_mesh = None
    results = []
    for y, local, spec, whole in zip(
        outs, p.jaxpr.out_avals, p.out_specs, ctx.avals_out, strict=True
    ):
        marked = sharding_custom_call(y, local, MANUAL)
        text = hlo_sharding_text(NamedSharding(p.mesh, spec), whole.ndim)
        results.append(sharding_custom_call(marked, whole, text, "SPMDShardToFullShape"))
    return results
