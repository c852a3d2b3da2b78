"""Lowering collectives and sharding constraints to XLA's SPMD forms.

Design rules:
- A collective lowers inside a ``shard_map`` body, which XLA partitions
  manually: ``stablehlo.all_reduce``, ``all_gather``, ``reduce_scatter``,
  ``all_to_all`` and ``collective_permute`` with explicit replica groups
  in the logical device ids of the program's mesh (``use_global_device_ids``), each with
  its own channel, as JAX lowers them. The group of a device is the
  devices that differ from it only along the collective's axes, ordered
  row-major over those axes (the order ``axis_index`` counts in).
- ``axis_index`` is computed from ``stablehlo.partition_id``: the mesh
  coordinates of the logical id, combined over the named axes.
- ``sharding_constraint`` is ``stablehlo.custom_call @Sharding`` carrying
  the ``mhlo.sharding`` text, which XLA's partitioner honours
  (``sharding_custom_call``, which ``lowering.shard_map`` uses too).
- Collectives find the mesh on the module context, where the lowering of
  the enclosing ``shard_map`` body (``lowering.shard_map``) puts it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Unpack

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.lax.parallel import AllGatherParams, AllToAllParams, PsumScatterParams
from didax.core.sharding import Mesh, NamedSharding
from didax.lowering.mlir import (
    LOWERING_RULES,
    IrValue,
    LoweringRule,
    LoweringRuleContext,
    ModuleContext,
    aval_to_ir_type,
    constant,
    dtype_to_ir_type,
)
from didax.lowering.sharding import hlo_sharding_text


def _mesh(ctx: LoweringRuleContext, name: str) -> Mesh:
    mesh = ctx.module_context.manual_mesh
    if mesh is None:
        raise NameError(f"{name} lowers only inside a shard_map body (its axes are unbound here)")
    assert isinstance(mesh, Mesh)
    return mesh


def replica_groups(mesh: Mesh, axes: tuple[str, ...]) -> np.ndarray[Any, Any]:
    """The logical device ids of each group along ``axes`` (one row per group).

    >>> m = Mesh(np.arange(8).reshape(4, 2), ("x", "y"))
    >>> replica_groups(m, ("x",)).tolist()
    [[0, 2, 4, 6], [1, 3, 5, 7]]
    """
    ids = np.arange(mesh.size).reshape(mesh.axis_sizes)
    named = [mesh.axis_names.index(a) for a in axes]
    rest = [i for i in range(len(mesh.axis_names)) if i not in named]
    size = math.prod(mesh.axis_sizes[i] for i in named)
    return np.transpose(ids, rest + named).reshape(-1, size)


def _groups_attr(groups: np.ndarray[Any, Any]) -> ir.DenseIntElementsAttr:
    data: Any = np.ascontiguousarray(groups, dtype=np.int64)  # a buffer, as MLIR takes it
    return ir.DenseIntElementsAttr.get(data)


def _groups(ctx: LoweringRuleContext, name: str, axes: tuple[str, ...]) -> ir.DenseIntElementsAttr:
    """The replica groups along ``axes`` of the body's mesh, for the collective ``name``."""
    return _groups_attr(replica_groups(_mesh(ctx, name), axes))


def _channel(mctx: ModuleContext) -> Any:
    return hlo.ChannelHandle.get(mctx.next_channel(), 1)  # 1: device to device


def _reducer(op: Callable[..., Any], region: ir.Region, dtype: np.dtype[Any]) -> None:
    scalar = ir.RankedTensorType.get((), dtype_to_ir_type(dtype))
    block = region.blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        hlo.ReturnOp([op(*block.arguments)])


def _all_reduce(combine: Callable[..., Any]) -> LoweringRule:
    def rule(
        ctx: LoweringRuleContext, x: IrValue, *, axes: tuple[str, ...], axis_size: int
    ) -> list[IrValue]:
        aval = ctx.avals_out[0]
        op = hlo.AllReduceOp(
            [aval_to_ir_type(aval)],
            [x],
            _groups(ctx, "a collective", axes),
            channel_handle=_channel(ctx.module_context),
            use_global_device_ids=True,
        )
        _reducer(combine, op.regions[0], aval.dtype)
        return [op.results[0]]

    return rule


LOWERING_RULES.register(lax.psum_p, _all_reduce(hlo.add))
LOWERING_RULES.register(lax.pmax_p, _all_reduce(hlo.maximum))
LOWERING_RULES.register(lax.pmin_p, _all_reduce(hlo.minimum))


def _reshape(x: IrValue, aval: ShapedArray) -> IrValue:
    return hlo.reshape(aval_to_ir_type(aval), x)


@LOWERING_RULES.defines(lax.all_gather_p)
def _all_gather_lowering(
    ctx: LoweringRuleContext, x: IrValue, **params: Unpack[AllGatherParams]
) -> list[IrValue]:
    axis, tiled = params["axis"], params["tiled"]
    aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
    if not tiled:
        # Gather a new unit axis, tiled: that stacks the pieces.
        unit = aval_in.update(shape=(*aval_in.shape[:axis], 1, *aval_in.shape[axis:]))
        x = _reshape(x, unit)
    op = hlo.AllGatherOp(
        [aval_to_ir_type(aval_out)],
        [x],
        axis,
        _groups(ctx, "all_gather", params["axes"]),
        channel_handle=_channel(ctx.module_context),
        use_global_device_ids=True,
    )
    return [op.results[0]]


@LOWERING_RULES.defines(lax.psum_scatter_p)
def _psum_scatter_lowering(
    ctx: LoweringRuleContext, x: IrValue, **params: Unpack[PsumScatterParams]
) -> list[IrValue]:
    aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
    d, tiled = params["scatter_dimension"], params["tiled"]
    piece = aval_out
    if not tiled:
        piece = aval_in.update(shape=(*aval_in.shape[:d], 1, *aval_in.shape[d + 1 :]))
    op = hlo.ReduceScatterOp(
        aval_to_ir_type(piece),
        x,
        d,
        _groups(ctx, "psum_scatter", params["axes"]),
        channel_handle=_channel(ctx.module_context),
        use_global_device_ids=True,
    )
    _reducer(hlo.add, op.regions[0], aval_in.dtype)
    out = op.results[0]
    return [out if tiled else _reshape(out, aval_out)]


@LOWERING_RULES.defines(lax.all_to_all_p)
def _all_to_all_lowering(
    ctx: LoweringRuleContext, x: IrValue, **params: Unpack[AllToAllParams]
) -> list[IrValue]:
    groups = _groups(ctx, "all_to_all", params["axes"])
    axis_size = params["axis_size"]
    if axis_size == 1:
        return [x]
    op = hlo.AllToAllOp(
        [x],
        params["split_axis"],
        params["concat_axis"],
        axis_size,
        groups,
        channel_handle=_channel(ctx.module_context),
        results=[aval_to_ir_type(ctx.avals_out[0])],
    )
    return [op.results[0]]


@LOWERING_RULES.defines(lax.ppermute_p)
def _ppermute_lowering(
    ctx: LoweringRuleContext,
    x: IrValue,
    *,
    axes: tuple[str, ...],
    perm: tuple[tuple[int, int], ...],
) -> list[IrValue]:
    mesh = _mesh(ctx, "ppermute")
    groups = replica_groups(mesh, axes)
    pairs = [(int(g[s]), int(g[d])) for g in groups for s, d in perm]
    attr = _groups_attr(np.asarray(pairs, dtype=np.int64).reshape(-1, 2))
    op = hlo.CollectivePermuteOp(
        x,
        attr,
        channel_handle=_channel(ctx.module_context),
        results=[aval_to_ir_type(ctx.avals_out[0])],
    )
    return [op.result]


@LOWERING_RULES.defines(lax.axis_index_p)
def _axis_index_lowering(
    ctx: LoweringRuleContext, *, axes: tuple[str, ...], axis_size: int
) -> list[IrValue]:
    mesh = _mesh(ctx, "axis_index")
    pid = hlo.partition_id()
    u32 = np.dtype(np.uint32)
    index: IrValue | None = None
    for a in axes:
        i = mesh.axis_names.index(a)
        stride = math.prod(mesh.axis_sizes[i + 1 :])
        size = mesh.axis_sizes[i]
        coord = hlo.remainder(
            hlo.divide(pid, constant(np.asarray(stride, u32))), constant(np.asarray(size, u32))
        )
        if index is None:
            index = coord
        else:
            index = hlo.add(hlo.multiply(index, constant(np.asarray(size, u32))), coord)
    assert index is not None
    return [hlo.convert(ir.RankedTensorType.get((), ir.IntegerType.get_signless(32)), index)]


def sharding_custom_call(
    x: IrValue, aval: ShapedArray, text: str, target: str = "Sharding"
) -> IrValue:
    """``stablehlo.custom_call @target(x)`` with ``mhlo.sharding = text`` (result of ``aval``)."""
    op = hlo.CustomCallOp(
        [aval_to_ir_type(aval)], [x], target, backend_config=ir.StringAttr.get("")
    )
    op.attributes["mhlo.sharding"] = ir.StringAttr.get(text)
    out: IrValue = op.results[0]
    return out


@LOWERING_RULES.defines(lax.sharding_constraint_p)
def _sharding_constraint_lowering(
    ctx: LoweringRuleContext, x: IrValue, *, sharding: NamedSharding
) -> list[IrValue]:
    if ctx.module_context.manual_mesh is not None:
        raise NotImplementedError(
            "with_sharding_constraint inside a shard_map body (its values are per-device pieces)"
        )
    aval = ctx.avals_out[0]
    return [sharding_custom_call(x, aval, hlo_sharding_text(sharding, aval.ndim))]
