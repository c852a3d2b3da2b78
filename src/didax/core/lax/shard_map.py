"""``shard_map``: a function run once per device of a mesh, on its pieces; declaration and typing.

``shard_map_p`` binds ``(*operands)`` with params ``jaxpr`` (the body, a
constant-free jaxpr over each device's *local* pieces), ``mesh``, and a
``PartitionSpec`` per operand (``in_specs``) and per result
(``out_specs``). ``didax.shard_map`` binds it (``api.shard_map``). The
interpreters' rules (and replication checking, which reads the body's
equations) are in ``interpreters.shard_map``, the lowering (XLA's manual
mode) in ``lowering.shard_map``.

Design rules:
- Operand ``i``'s global type divided by ``in_specs[i]`` is the body's
  input type, and a result's global type is the body's output type
  multiplied back by its spec (``local_aval``, ``global_aval``). Operands
  the body closed over are replicated (``REPLICATED``, ``P()``).
- Typed against ``core.lax.programs.Program``: core sees the body's
  types, never its equations.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, Final, Generic

import attrs

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, shape_failure
from didax.core.lax.programs import P, Program, ProgramParams
from didax.core.primitive import Primitive
from didax.core.sharding import Mesh, PartitionSpec

__all__ = [
    "shard_map_p",
    "ShardMapParams",
    "REPLICATED",
    "local_aval",
    "global_aval",
    "unmentioned_axes",
]

shard_map_p: Final = Primitive("shard_map", multiple_results=True)

REPLICATED: Final = PartitionSpec()


@attrs.frozen
class ShardMapParams(ProgramParams, Generic[P]):
    """``shard_map_p``'s params; ``ShardMapParams(**eqn.params)`` reads an equation's."""

    primitive: ClassVar[Primitive] = shard_map_p

    jaxpr: P
    mesh: Mesh
    in_specs: tuple[PartitionSpec, ...]
    out_specs: tuple[PartitionSpec, ...]


def _splits(mesh: Mesh, spec: PartitionSpec, dim: int) -> int:
    return math.prod(mesh.axis_size(a) for a in spec.axes_of(dim))


def local_aval(aval: ShapedArray, mesh: Mesh, spec: PartitionSpec, what: str) -> ShapedArray:
    """One device's piece of a value of type ``aval`` laid out as ``spec`` says."""
    if len(spec) > aval.ndim:
        raise ValueError(f"shard_map: {what} has rank {aval.ndim}, too low for {spec}")
    shape = []
    for d, n in enumerate(aval.shape):
        k = _splits(mesh, spec, d)
        if n % k:
            raise ValueError(
                f"shard_map: {what} of shape {aval.shape} cannot be split by {spec}: "
                f"dimension {d} ({n}) is not a multiple of {k}"
            )
        shape.append(n // k)
    return aval.update(shape=tuple(shape))


def global_aval(aval: ShapedArray, mesh: Mesh, spec: PartitionSpec) -> ShapedArray:
    """The whole of values whose pieces have type ``aval``, laid out as ``spec`` says."""
    shape = tuple(n * _splits(mesh, spec, d) for d, n in enumerate(aval.shape))
    return aval.update(shape=shape)


def unmentioned_axes(mesh: Mesh, spec: PartitionSpec) -> tuple[str, ...]:
    """The mesh axes ``spec`` does not split over: the value is replicated along them."""
    used = set(spec.used_axes())
    return tuple(a for a in mesh.axis_names if a not in used)


@ABSTRACT_EVAL.defines(shard_map_p)
def _shard_map_abstract_eval(
    *avals: ShapedArray,
    **params: Any,
) -> list[ShapedArray]:
    p: ShardMapParams[Program] = ShardMapParams(**params)
    if len(avals) != len(p.in_specs) or len(avals) != len(p.jaxpr.in_avals):
        raise shape_failure(
            f"{len(avals)} operands for {len(p.in_specs)} in_specs and a body of "
            f"{len(p.jaxpr.in_avals)} inputs"
        )
    for i, (a, s, b) in enumerate(zip(avals, p.in_specs, p.jaxpr.in_avals, strict=True)):
        try:
            piece = local_aval(a, p.mesh, s, f"operand {i}")
        except ValueError as e:
            raise shape_failure(str(e)) from None
        if piece.strip_weak() != b.strip_weak():
            raise shape_failure(
                f"operand {i} of type {a.str_short()} split by {s} is {piece.str_short()}, "
                f"but the body takes {b.str_short()}"
            )
    if len(p.out_specs) != len(p.jaxpr.out_avals):
        raise shape_failure(f"{len(p.out_specs)} out_specs for {len(p.jaxpr.out_avals)} results")
    return [global_aval(a, p.mesh, s) for a, s in zip(p.jaxpr.out_avals, p.out_specs, strict=True)]
