"""How an array is laid out over devices: ``Mesh``, ``PartitionSpec``, ``NamedSharding``.

Design rules:
- These are values (``attrs`` frozen classes, hashable): a sharding keys
  caches (the jit trace cache, the compile cache) by what it says, never by
  identity, so two equal shardings made apart find the same program.
- Devices are opaque here: core only needs them to be hashable and ordered
  as the user laid them out; what a device is belongs to the lowering
  layer (jaxlib's ``Device``).
- A mesh's *logical* device ids are the positions of its devices in
  ``mesh.devices.flat``; the compiled program's device assignment is that
  order, and ``NamedSharding.tiling`` describes a layout in logical ids.
  Lowering turns the tiling into XLA's sharding text (``mhlo.sharding``).
- The default sharding (one array on the default device) is not stored on
  an Array at all (see ``core.array``): only non-default layouts pay for
  being one.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator, Sequence
from typing import Any, TypeAlias, final

import attrs
import numpy as np

# One entry of a PartitionSpec: a dimension replicated (None), split over one
# mesh axis, or over several (major to minor).
SpecEntry: TypeAlias = str | tuple[str, ...] | None
Index: TypeAlias = tuple[slice, ...]


def _entry(e: Any) -> SpecEntry:
    if e is None or isinstance(e, str):
        return e
    if isinstance(e, (tuple, list)):
        names: tuple[str, ...] = tuple(e)
        if not all(isinstance(n, str) for n in names):
            raise TypeError(f"PartitionSpec entries name mesh axes (str), got {e!r}")
        # JAX's canonical form, so that P(("x",), ("y",)) == P("x", "y"): one
        # name stands alone, no names is None.
        if len(names) == 1:
            return names[0]
        return names if names else None
    raise TypeError(
        f"PartitionSpec entries are None, a mesh axis name or a tuple of them, got {e!r}"
    )


@final
@attrs.frozen(init=False, repr=False)
class PartitionSpec:
    """Which mesh axes split each dimension of an array (``jax.sharding.PartitionSpec``).

    Entries are canonical, as JAX's: a tuple of one axis is that axis, an
    empty tuple is ``None``; equality, hashing and printing follow.

    >>> P = PartitionSpec
    >>> P("x", None)
    P('x', None)
    >>> P(("x",), ("y",)) == P("x", "y"), P(("x", "y")).axes_of(0), P("x").axes_of(1)
    (True, ('x', 'y'), ())
    """

    parts: tuple[SpecEntry, ...]

    def __init__(self, *parts: Any) -> None:
        self.__attrs_init__(tuple(_entry(p) for p in parts))

    def __iter__(self) -> Iterator[SpecEntry]:
        return iter(self.parts)

    def __len__(self) -> int:
        return len(self.parts)

    def __getitem__(self, i: int) -> SpecEntry:
        return self.parts[i]

    def axes_of(self, dim: int) -> tuple[str, ...]:
        """The mesh axes splitting dimension ``dim`` (none past the spec's end)."""
        if dim >= len(self.parts):
            return ()
        e = self.parts[dim]
        if e is None:
            return ()
        return (e,) if isinstance(e, str) else e

    def used_axes(self) -> tuple[str, ...]:
        return tuple(a for d in range(len(self.parts)) for a in self.axes_of(d))

    def __repr__(self) -> str:
        return f"P{self.parts!r}"


def _devices_tuple(devices: Any) -> tuple[tuple[Hashable, ...], tuple[int, ...]]:
    arr = np.asarray(devices, dtype=object)
    return tuple(arr.flat), tuple(arr.shape)


@final
@attrs.frozen(init=False, repr=False)
class Mesh:
    """Devices laid out in an n-d array whose axes have names (``jax.sharding.Mesh``).

    >>> m = Mesh(np.array(["d0", "d1", "d2", "d3"]).reshape(2, 2), ("x", "y"))
    >>> m.shape, m.size, m.axis_names
    ({'x': 2, 'y': 2}, 4, ('x', 'y'))
    """

    device_list: tuple[Hashable, ...]
    axis_sizes: tuple[int, ...]
    axis_names: tuple[str, ...]

    def __init__(self, devices: Any, axis_names: str | Sequence[str]) -> None:
        names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        flat, shape = _devices_tuple(devices)
        if len(shape) != len(names):
            raise ValueError(
                f"Mesh: {len(shape)}-d devices array with {len(names)} axis names {names}"
            )
        if len(set(names)) != len(names):
            raise ValueError(f"Mesh: repeated axis names {names}")
        if len(set(flat)) != len(flat):
            raise ValueError("Mesh: a device appears more than once")
        self.__attrs_init__(flat, shape, names)

    @property
    def devices(self) -> np.ndarray[Any, Any]:
        out = np.empty(len(self.device_list), dtype=object)
        out[:] = self.device_list
        return out.reshape(self.axis_sizes)

    @property
    def shape(self) -> dict[str, int]:
        return dict(zip(self.axis_names, self.axis_sizes, strict=True))

    @property
    def size(self) -> int:
        return math.prod(self.axis_sizes)

    def axis_size(self, name: str) -> int:
        try:
            return self.axis_sizes[self.axis_names.index(name)]
        except ValueError:
            raise NameError(
                f"unbound axis name {name!r}: the mesh's axes are {self.axis_names}"
            ) from None

    def __repr__(self) -> str:
        axes = ", ".join(
            f"'{n}': {s}" for n, s in zip(self.axis_names, self.axis_sizes, strict=True)
        )
        return f"Mesh({axes})"


@final
@attrs.frozen
class Tiling:
    """A layout in logical device ids, as XLA's tiled shardings describe one.

    ``tile_dims[d]`` tiles split array dimension ``d``; ``replicas`` copies of
    each tile; ``device_order`` lists the logical ids tile-major (the last,
    replica, index fastest), as XLA's ``tile_assignment_devices``.
    """

    tile_dims: tuple[int, ...]
    replicas: int
    device_order: tuple[int, ...]


@final
@attrs.frozen(cache_hash=True)  # a jit key on the hit path: hashed once, not per call
class NamedSharding:
    """An array laid out over ``mesh`` as ``spec`` says (``jax.sharding.NamedSharding``).

    >>> m = Mesh(np.array(["a", "b", "c", "d"]).reshape(2, 2), ("x", "y"))
    >>> s = NamedSharding(m, PartitionSpec("x"))
    >>> s.shard_shape((4, 6)), s.is_fully_replicated
    ((2, 6), False)
    >>> s.devices_indices_map((4,))["c"]
    (slice(2, 4, None),)
    """

    mesh: Mesh
    spec: PartitionSpec = attrs.field(factory=PartitionSpec)

    def __attrs_post_init__(self) -> None:
        used = self.spec.used_axes()
        for a in used:
            if a not in self.mesh.axis_names:
                raise ValueError(
                    f"{self.spec} names axis {a!r}, not an axis of the mesh {self.mesh.axis_names}"
                )
        if len(set(used)) != len(used):
            raise ValueError(f"{self.spec} uses a mesh axis more than once")

    @property
    def device_set(self) -> frozenset[Hashable]:
        return frozenset(self.mesh.device_list)

    @property
    def num_devices(self) -> int:
        return self.mesh.size

    @property
    def is_fully_replicated(self) -> bool:
        return all(self.mesh.axis_size(a) == 1 for a in self.spec.used_axes())

    def check_rank(self, ndim: int, what: str = "an array") -> None:
        if len(self.spec) > ndim:
            raise ValueError(
                f"{self.spec} has {len(self.spec)} entries, too many for {what} of rank {ndim}"
            )

    def _splits(self, dim: int) -> int:
        return math.prod(self.mesh.axis_size(a) for a in self.spec.axes_of(dim))

    def shard_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        """The shape of each device's piece of an array of ``shape``."""
        self.check_rank(len(shape))
        out = []
        for d, n in enumerate(shape):
            k = self._splits(d)
            if n % k:
                raise ValueError(
                    f"{self.spec} splits dimension {d} of shape {tuple(shape)} into {k} "
                    f"pieces, which does not divide {n}"
                )
            out.append(n // k)
        return tuple(out)

    def tiling(self, ndim: int) -> Tiling:
        """This layout for an array of rank ``ndim``, in logical device ids."""
        self.check_rank(ndim)
        names = self.mesh.axis_names
        ids = np.arange(self.mesh.size).reshape(self.mesh.axis_sizes)
        order = [names.index(a) for d in range(ndim) for a in self.spec.axes_of(d)]
        rest = [i for i in range(len(names)) if i not in order]
        tile_dims = tuple(self._splits(d) for d in range(ndim))
        replicas = math.prod(self.mesh.axis_sizes[i] for i in rest)
        devices = np.transpose(ids, order + rest).reshape(-1)
        return Tiling(tile_dims, replicas, tuple(int(i) for i in devices))

    def devices_indices_map(self, shape: Sequence[int]) -> dict[Hashable, Index]:
        """Each device's piece of an array of ``shape``, as slices of the whole."""
        piece = self.shard_shape(shape)
        t = self.tiling(len(shape))
        out: dict[Hashable, Index] = {}
        for pos, logical in zip(np.ndindex(*t.tile_dims, t.replicas), t.device_order, strict=True):
            # An unsplit dimension is slice(None), as JAX's indices.
            index = tuple(
                slice(i * p, (i + 1) * p) if k > 1 else slice(None)
                for i, p, k in zip(pos[: len(shape)], piece, t.tile_dims, strict=True)
            )
            out[self.mesh.device_list[logical]] = index
        return out


@final
@attrs.frozen
class SingleDeviceSharding:
    """The whole array on one device (``jax.sharding.SingleDeviceSharding``)."""

    device: Hashable

    @property
    def device_set(self) -> frozenset[Hashable]:
        return frozenset((self.device,))

    @property
    def num_devices(self) -> int:
        return 1

    @property
    def is_fully_replicated(self) -> bool:
        return True

    def shard_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        return tuple(shape)

    def devices_indices_map(self, shape: Sequence[int]) -> dict[Hashable, Index]:
        return {self.device: tuple(slice(None) for _ in shape)}


Sharding: TypeAlias = NamedSharding | SingleDeviceSharding
