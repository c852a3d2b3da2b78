"""Shardings in XLA's terms: ``mhlo.sharding`` text, layouts of SPMD programs, sharded transfers.

Design rules:
- A program over several devices has one ``SpmdLayout``: the devices in
  the order of the compiled device assignment (the mesh's), a sharding per
  input, and a requested sharding (or None: XLA propagates one) per
  result. It is a value, part of the compile cache's key.
- didax's ``NamedSharding`` becomes XLA's text through its ``Tiling`` in
  logical ids (positions in the device assignment): ``{replicated}``, or
  ``{devices=[tiles...]ids...}`` with ``last_tile_dim_replicate`` when some
  mesh axes do not split the array. XLA's own parser checks it.
- A result whose sharding XLA chose is described back as a
  ``NamedSharding`` on the program's mesh: the spec whose text XLA finds
  equal to its own choice.
- Transfers to a sharding slice the host data per device and hand the
  pieces to jaxlib's batched transfer in one call; an Array already laid
  out as asked passes its buffer as it is.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator, Sequence
from typing import Any, Final, final

import attrs
import numpy as np

from didax.core import transfer_guard
from didax.core.abstract import ShapedArray
from didax.core.array import Array
from didax.core.sharding import Mesh, NamedSharding, PartitionSpec, Sharding, SingleDeviceSharding
from didax.core.values import as_array, get_aval
from didax.lowering import xla

REPLICATED: Final = "{replicated}"


def hlo_sharding_text(sharding: NamedSharding, ndim: int) -> str:
    """The ``mhlo.sharding`` text of ``sharding`` for an array of rank ``ndim``.

    >>> m = Mesh(np.arange(8).reshape(4, 2), ("x", "y"))
    >>> hlo_sharding_text(NamedSharding(m, PartitionSpec("x")), 2)
    '{devices=[4,1,2]0,1,2,3,4,5,6,7 last_tile_dim_replicate}'
    >>> hlo_sharding_text(NamedSharding(m, PartitionSpec("y", "x")), 2)
    '{devices=[2,4]0,2,4,6,1,3,5,7}'
    """
    t = sharding.tiling(ndim)
    if all(k == 1 for k in t.tile_dims):
        return REPLICATED
    ids = ",".join(map(str, t.device_order))
    if t.replicas == 1:
        return f"{{devices=[{','.join(map(str, t.tile_dims))}]{ids}}}"
    dims = ",".join(map(str, (*t.tile_dims, t.replicas)))
    return f"{{devices=[{dims}]{ids} last_tile_dim_replicate}}"


@final
@attrs.frozen
class SpmdLayout:
    """How one SPMD program's inputs and results lie over its mesh."""

    mesh: Mesh
    in_shardings: tuple[NamedSharding, ...]
    out_shardings: tuple[NamedSharding | None, ...]

    @property
    def num_partitions(self) -> int:
        return self.mesh.size

    def in_texts(self, avals: Sequence[ShapedArray]) -> list[str]:
        return [hlo_sharding_text(s, a.ndim) for s, a in zip(self.in_shardings, avals, strict=True)]

    def out_texts(self, avals: Sequence[ShapedArray]) -> list[str | None]:
        return [
            None if s is None else hlo_sharding_text(s, a.ndim)
            for s, a in zip(self.out_shardings, avals, strict=True)
        ]


def replicated(mesh: Mesh) -> NamedSharding:
    return NamedSharding(mesh, PartitionSpec())


def jax_sharding(sharding: NamedSharding) -> xla.JaxNamedSharding:
    """jax's equal sharding (for jaxlib's transfers and result handlers)."""
    mesh = sharding.mesh
    return xla.jax_named_sharding(
        mesh.device_list,  # type: ignore[arg-type]  # jaxlib devices, opaque to core
        mesh.axis_sizes,
        mesh.axis_names,
        sharding.spec.parts,
    )


def put(x: Any, sharding: NamedSharding) -> xla.Buffer:
    """``x``'s data laid out as ``sharding`` says: an Array's own buffer if it already is."""
    if type(x) is Array:
        if x.committed_sharding == sharding:
            buffer: xla.Buffer = x.buffer
            return buffer
        host = x.host()
    else:
        host = as_array(x)
    return _put_host(host, sharding)


@functools.lru_cache(maxsize=256)
def addressable(mesh: Mesh) -> tuple[xla.Device, ...]:
    """The mesh's devices this process drives (all of them, in one process), in mesh order."""
    local = set(xla.local_devices())
    return tuple(d for d in mesh.device_list if d in local)


def _put_host(host: np.ndarray[Any, Any], sharding: NamedSharding) -> xla.Buffer:
    indices = sharding.devices_indices_map(host.shape)
    # jaxlib takes the pieces in the order of the sharding's device assignment.
    devices = addressable(sharding.mesh)
    pieces = [host[indices[d]] for d in devices]
    return xla.to_devices(pieces, devices, host.shape, jax_sharding(sharding))


def from_process_local(
    sharding: NamedSharding, local: np.ndarray[Any, Any], global_shape: tuple[int, ...] | None
) -> Array:
    """The global Array whose pieces on this process's devices come from ``local``.

    ``local`` is this process's contiguous block of the whole (JAX's
    ``make_array_from_process_local_data``); by default each dimension the
    spec splits is ``local``'s times the number of blocks the processes hold
    along it.
    """
    mesh = sharding.mesh
    mine = addressable(mesh)
    if global_shape is None:
        # On a trial shape of one element per tile, count the tiles this
        # process holds along each dimension: the whole has tiles/held blocks.
        tiles = sharding.tiling(local.ndim).tile_dims
        trial = sharding.devices_indices_map(tiles)
        held = [len({trial[dev][d].start or 0 for dev in mine}) for d in range(local.ndim)]
        global_shape = tuple(n * k // h for n, k, h in zip(local.shape, tiles, held, strict=True))
    indices = sharding.devices_indices_map(global_shape)
    origin = [min((indices[dev][d].start or 0) for dev in mine) for d in range(len(global_shape))]
    pieces = []
    for dev in mine:
        index = indices[dev]
        local_index = tuple(
            slice((s.start or 0) - o, (s.stop if s.stop is not None else n) - o)
            for s, o, n in zip(index, origin, global_shape, strict=True)
        )
        pieces.append(local[local_index])
    buffer = xla.to_devices(pieces, mine, global_shape, jax_sharding(sharding))
    aval = get_aval(local).update(shape=global_shape)
    return Array.from_sharded(buffer, aval, sharding)


def device_put_sharded(x: Any, sharding: Sharding) -> Array:
    """``x`` as an Array laid out as ``sharding`` says (``jax.device_put(x, sharding)``)."""
    aval = get_aval(x)
    if transfer_guard.GUARDS_IN_FORCE[0]:
        _guard_put(x, aval, sharding)
    if isinstance(sharding, SingleDeviceSharding):
        if sharding.device == xla.device():
            host = x.host() if type(x) is Array else as_array(x)
            out = Array.from_host(host, aval)
            out.buffer  # noqa: B018 - transfers once
            return out
        raise NotImplementedError(
            "device_put to a single device other than the default one: "
            "use a NamedSharding over a mesh"
        )
    if type(x) is Array and x.committed_sharding == sharding:
        return x
    sharding.shard_shape(aval.shape)  # a clear error if the layout does not fit
    return Array.from_sharded(put(x, sharding), aval, sharding)


def _guard_put(x: Any, aval: ShapedArray, sharding: Sharding) -> None:
    if type(x) is not Array:
        transfer_guard.host_to_device(aval, sharding)
    elif x.committed_sharding != sharding and x.sharding != sharding:
        transfer_guard.device_to_device(aval, sharding)


def _candidate_specs(mesh: Mesh, ndim: int) -> Iterator[PartitionSpec]:
    """Every spec on ``mesh`` for rank ``ndim``: each axis on one dimension or none, each order."""
    names = mesh.axis_names
    for placement in itertools.product(range(ndim + 1), repeat=len(names)):
        per_dim: list[list[str]] = [[] for _ in range(ndim)]
        for name, d in zip(names, placement, strict=True):
            if d < ndim:
                per_dim[d].append(name)
        for orders in itertools.product(*(itertools.permutations(p) for p in per_dim)):
            yield PartitionSpec(*(o if o else None for o in orders))


@functools.lru_cache(maxsize=1024)
def _named_from_text(mesh: Mesh, ndim: int, chosen_text: str) -> NamedSharding | None:
    chosen = xla.hlo_sharding(chosen_text)
    for spec in _candidate_specs(mesh, ndim):
        candidate = NamedSharding(mesh, spec)
        if xla.hlo_sharding(hlo_sharding_text(candidate, ndim)) == chosen:
            return candidate
    return None


def named_from_hlo(mesh: Mesh, ndim: int, chosen: xla.HloSharding | None) -> NamedSharding:
    """The ``NamedSharding`` on ``mesh`` equal to XLA's ``HloSharding`` ``chosen``."""
    if chosen is None or chosen.is_replicated():
        return replicated(mesh)
    found = _named_from_text(mesh, ndim, str(chosen))
    if found is None:
        raise NotImplementedError(
            f"XLA laid a result out as {chosen}, which no PartitionSpec on {mesh} describes: "
            "pass out_shardings to jit"
        )
    return found


def sharded_result_handlers(
    out_avals: Sequence[ShapedArray], shardings: Sequence[NamedSharding]
) -> list[xla.ResultHandler]:
    return xla.result_handlers(
        [(a.shape, a.dtype) for a in out_avals], [jax_sharding(s) for s in shardings]
    )


def device_order(mesh: Mesh) -> list[xla.Device]:
    return list(mesh.device_list)  # type: ignore[arg-type]


def mesh_of(layout_args: Sequence[Sharding | Mesh | None]) -> Mesh | None:
    """The one mesh of these shardings and meshes (None if none); several are an error."""
    mesh: Mesh | None = None
    for s in layout_args:
        m = s.mesh if isinstance(s, NamedSharding) else s if isinstance(s, Mesh) else None
        if m is None:
            continue
        if mesh is None:
            mesh = m
        elif m.device_list != mesh.device_list:
            raise ValueError(
                f"a program's arrays must all be laid out over the same devices: "
                f"got {mesh} and {m} over other devices (or in another order)"
            )
    return mesh
