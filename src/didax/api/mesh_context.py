"""The mesh in context: ``set_mesh``, and what reads it (``reshard``, ``smap``).

Design rules:
- ``set_mesh(mesh)`` sets this thread's mesh at once (a global setter, as
  JAX's) and, used as a context manager, puts the previous one back when
  the block ends. It is refused under a transformation, as JAX's is.
- With a mesh in context a bare ``PartitionSpec`` names a sharding
  (``NamedSharding(mesh, spec)``) wherever ``reshard`` takes one.
- didax's meshes have no axis types (``make_mesh``): ``reshard`` lays a
  concrete array out as ``device_put`` does and constrains a traced one
  as ``with_sharding_constraint`` does. ``smap`` is ``shard_map`` over one
  axis of the mesh in context; its other axes see each piece whole (the
  values JAX's partially manual ``smap`` computes).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from types import TracebackType
from typing import Any, Final, TypeVar, final

from jax import tree_util

from didax.api.parallel import with_sharding_constraint
from didax.api.shard_map import shard_map
from didax.core.sharding import Mesh, NamedSharding, PartitionSpec
from didax.core.trace import current_trace
from didax.core.values import ValueKind, value_kind
from didax.interpreters.evaluation import EVAL_TRACE
from didax.lowering.sharding import device_put_sharded

__all__ = ["set_mesh", "reshard", "smap"]

_F = TypeVar("_F", bound=Callable[..., Any])


class _MeshState(threading.local):
    def __init__(self) -> None:
        self.mesh: Mesh | None = None


_STATE: Final = _MeshState()


def current_mesh() -> Mesh | None:
    """The mesh ``set_mesh`` put in context in this thread, if any."""
    return _STATE.mesh


@final
class set_mesh:
    """Sets this thread's mesh; as a context manager, until the block ends (``jax.set_mesh``).

    >>> import didax as dx
    >>> mesh = dx.make_mesh((1,), ("x",))
    >>> with dx.set_mesh(mesh):
    ...     dx.reshard(dx.numpy.arange(4.0), dx.P("x")).sharding
    NamedSharding(mesh=Mesh('x': 1), spec=P('x',))
    """

    __slots__ = ("_previous",)

    def __init__(self, mesh: Mesh | None) -> None:
        if mesh is not None and not isinstance(mesh, Mesh):
            raise ValueError(f"set_mesh: expected a didax.sharding.Mesh, got {type(mesh)}")
        if current_trace() is not EVAL_TRACE:
            raise ValueError("`set_mesh` can only be used outside of `jax.jit`.")
        self._previous = _STATE.mesh
        _STATE.mesh = mesh

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        _STATE.mesh = self._previous


def _as_sharding(fn: str, s: object) -> NamedSharding:
    if isinstance(s, NamedSharding):
        return s
    if isinstance(s, PartitionSpec):
        mesh = _STATE.mesh
        if mesh is None:
            raise ValueError(
                f"{fn}: a bare PartitionSpec {s} needs a mesh in context (set_mesh); "
                "or pass a NamedSharding"
            )
        return NamedSharding(mesh, s)
    raise TypeError(f"{fn}: expected a NamedSharding or a PartitionSpec, got {type(s).__name__}")


def _is_sharding(s: object) -> bool:
    return isinstance(s, (NamedSharding, PartitionSpec))


def _reshard_one(x: Any, sharding: NamedSharding) -> Any:
    if value_kind(x) is ValueKind.TRACER:
        return with_sharding_constraint(x, sharding)
    return device_put_sharded(x, sharding)


def reshard(xs: Any, out_shardings: Any) -> Any:
    """``xs`` (a pytree) laid out as ``out_shardings`` say (``jax.reshard``).

    ``out_shardings`` is one sharding for every leaf, or a prefix of
    ``xs``; a bare ``PartitionSpec`` takes the mesh in context.
    """
    if _is_sharding(out_shardings):
        s = _as_sharding("reshard", out_shardings)
        return tree_util.tree_map(lambda x: _reshard_one(x, s), xs)
    return tree_util.tree_map(
        lambda s, sub: tree_util.tree_map(
            lambda x: _reshard_one(x, _as_sharding("reshard", s)), sub
        ),
        out_shardings,
        xs,
        is_leaf=_is_sharding,
    )


def _axes_to_spec(axis_name: Any, axis: int | None) -> PartitionSpec:
    return PartitionSpec() if axis is None else PartitionSpec(*([None] * axis), axis_name)


def _specs(fn: str, axes: Any, axis_name: Any) -> Any:
    for leaf in tree_util.tree_leaves(axes):
        if not isinstance(leaf, int):
            raise TypeError(f"{fn}: axes must be ints, None, or containers of them, got {axes!r}")
    return tree_util.tree_map(
        lambda a: _axes_to_spec(axis_name, a), axes, is_leaf=lambda a: a is None
    )


def smap(
    f: Callable[..., Any] | None = None,
    /,
    *,
    in_axes: Any = 0,
    out_axes: Any = 0,
    axis_name: Hashable,
) -> Any:
    """``f`` mapped over one axis of the mesh in context (``jax.smap``).

    Each argument is split along its ``in_axes`` entry over the mesh axis
    ``axis_name`` (None: passed whole), and the results are put back
    together along ``out_axes``; inside ``f`` the collectives work over
    ``axis_name``.

    >>> import didax as dx
    >>> with dx.set_mesh(dx.make_mesh((1,), ("i",))):
    ...     dx.smap(lambda x: x * 2, axis_name="i")(dx.numpy.arange(3.0))
    Array([0., 2., 4.], dtype=float32)
    """
    if isinstance(axis_name, (list, tuple)):
        raise TypeError(f"smap axis_name should be a `str` or a `Hashable`, but got {axis_name}")
    if f is None:
        return lambda g: smap(g, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name)
    if in_axes is not None and not isinstance(in_axes, (int, tuple)):
        raise TypeError(
            "smap in_axes must be an int, None, or a tuple of entries corresponding to the "
            f"positional arguments passed to the function, but got {in_axes}."
        )
    in_specs = _specs("smap in_axes", in_axes, axis_name)
    out_specs = _specs("smap out_axes", out_axes, axis_name)
    if isinstance(in_specs, list):
        in_specs = tuple(in_specs)

    def mapped(*args: Any) -> Any:
        mesh = _STATE.mesh
        if mesh is None:
            raise ValueError("smap: no mesh in context; use it under `with set_mesh(mesh):`")
        if axis_name not in mesh.axis_names:
            raise NameError(
                f"smap: unbound axis name {axis_name!r}: the mesh's axes are {mesh.axis_names}"
            )
        return shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs)(*args)

    return mapped
