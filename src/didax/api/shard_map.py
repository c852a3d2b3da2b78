"""``shard_map`` and ``pmap`` at the API: JAX's signatures over pytrees.

Design rules:
- ``in_specs`` is a ``PartitionSpec`` for every argument or a tuple with
  one entry per positional argument, each a prefix of that argument's
  pytree; ``out_specs`` the same over the result. Each array leaf is cut
  into its per-device piece by its spec, and the function is traced once,
  on the pieces, with the mesh's axis names bound for its collectives.
- Values the function closes over enter the body replicated (``P()``).
- ``pmap(f, axis_name)`` is ``jit(shard_map(...))`` over a 1-d mesh of the
  first ``n`` devices (``n`` the mapped size): each device gets one slice of
  the mapped axis, runs ``f`` on it, and the results are stacked along the
  mesh. So it is one SPMD program, compiled by XLA, like JAX's; results
  come back laid out over the devices. The jitted program is kept per
  mapped size and argument structure.
- ``check_vma`` (on by default, as JAX's) refuses a result declared
  replicated over an axis it varies over (``replication_error``); off, such
  a result is read from the first device along the axis. Gradients follow
  JAX's rules without replication types (see ``interpreters.shard_map``),
  which agree with JAX's wherever the check passes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from jax import tree_util

from didax.api.jit import jit
from didax.core import lax
from didax.core.lax.shard_map import REPLICATED, local_aval, shard_map_p
from didax.core.sharding import Mesh, PartitionSpec
from didax.core.source_info import user_frame_summary
from didax.core.values import get_aval
from didax.interpreters.shard_map import replication_error, trace_body
from didax.lowering import xla

__all__ = ["shard_map", "pmap"]


def _is_spec(s: Any) -> bool:
    return s is None or isinstance(s, PartitionSpec)


def _specs_per_leaf(specs: Any, tree: Any, what: str) -> list[PartitionSpec]:
    n = tree.num_leaves
    if isinstance(specs, PartitionSpec):
        return [specs] * n
    positions = tree_util.tree_unflatten(tree, range(n))
    out: list[PartitionSpec] = [REPLICATED] * n

    def assign(s: Any, sub: Any) -> None:
        for i in tree_util.tree_leaves(sub):
            out[i] = REPLICATED if s is None else s

    try:
        tree_util.tree_map(assign, specs, positions, is_leaf=_is_spec)
    except ValueError as e:
        raise ValueError(f"shard_map: {what} do not match the pytree they describe: {e}") from None
    return out


def shard_map(
    f: Callable[..., Any] | None = None,
    /,
    *,
    mesh: Mesh,
    in_specs: Any,
    out_specs: Any,
    check_vma: bool = True,
) -> Any:
    """``f`` run once per device of ``mesh`` on its pieces of the arguments (``jax.shard_map``).

    Each argument is split as its ``in_specs`` entry says; inside ``f``,
    ``lax.psum`` and the other collectives work over the mesh's axis names;
    results are put back together as ``out_specs`` says.

    >>> import numpy as np
    >>> import didax as dx
    >>> from didax.sharding import Mesh, PartitionSpec as P
    >>> mesh = Mesh(np.array(dx.devices()[:1]), ("i",))
    >>> total = dx.shard_map(lambda x: dx.lax.psum(x.sum(), "i"), mesh=mesh, in_specs=P("i"),
    ...                      out_specs=P())
    >>> total(np.arange(4.0))
    Array(6., dtype=float32)
    """
    if f is None:
        return functools.partial(
            shard_map, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check_vma
        )
    if not isinstance(mesh, Mesh):
        raise TypeError(f"shard_map's mesh must be a didax.sharding.Mesh, got {mesh!r}")
    name = getattr(f, "__name__", "fun")

    @functools.wraps(f)
    def wrapped(*args: Any) -> Any:
        leaves, in_tree = tree_util.tree_flatten(args)
        prefix = in_specs if isinstance(in_specs, PartitionSpec) else tuple(in_specs)
        specs = _specs_per_leaf(prefix, in_tree, "in_specs")
        where = f"shard_map({name}) at {user_frame_summary()}"
        pieces = [
            local_aval(get_aval(x), mesh, s, f"argument leaf {i} of {where}")
            for i, (x, s) in enumerate(zip(leaves, specs, strict=True))
        ]
        out_tree: list[Any] = []

        def flat(*xs: Any) -> list[Any]:
            out = f(*tree_util.tree_unflatten(in_tree, xs))
            flat_out, tree = tree_util.tree_flatten(out)
            out_tree.append(tree)
            return flat_out

        body, consts = trace_body(flat, pieces, mesh, f"shard_map({name})")
        o_specs = _specs_per_leaf(out_specs, out_tree[0], "out_specs")
        for i, (a, s) in enumerate(zip(body.out_avals, o_specs, strict=True)):
            if len(s) > a.ndim:
                raise ValueError(
                    f"{where}: out_specs entry {s} is too long for result leaf {i} of "
                    f"rank {a.ndim} (a rank-0 result takes P())"
                )
        if check_vma:
            all_in_specs = (REPLICATED,) * len(consts) + tuple(specs)
            error = replication_error(body, mesh, all_in_specs, o_specs)
            if error is not None:
                raise ValueError(f"{where}: {error}")
        outs = shard_map_p.bind(
            *consts,
            *leaves,
            jaxpr=body,
            mesh=mesh,
            in_specs=(REPLICATED,) * len(consts) + tuple(specs),
            out_specs=tuple(o_specs),
        )
        return tree_util.tree_unflatten(out_tree[0], outs)

    return wrapped


def pmap(
    fun: Callable[..., Any],
    axis_name: str | None = None,
    *,
    in_axes: Any = 0,
    out_axes: Any = 0,
) -> Callable[..., Any]:
    """``fun`` run on each device over the leading axis of its arguments (``jax.pmap``).

    ``in_axes`` is 0 or None for all arguments, or a tuple of them (one per
    positional argument; None broadcasts it to every device); results are
    stacked along axis 0 (``out_axes=0``). Collectives in ``fun`` may name
    ``axis_name``.

    >>> import numpy as np
    >>> import didax as dx
    >>> dx.pmap(lambda x: x / dx.lax.psum(x, "d"), axis_name="d")(np.ones(1))
    Array([1.], dtype=float32)
    """
    if out_axes != 0:
        raise NotImplementedError("pmap supports out_axes=0 only")
    name = axis_name if axis_name is not None else "_pmap"
    programs: dict[Any, Any] = {}

    @functools.wraps(fun)
    def mapped(*args: Any) -> Any:
        axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
        if len(axes) != len(args) or any(a not in (0, None) for a in axes):
            raise ValueError(f"pmap in_axes must be 0 or None per argument, got {in_axes!r}")
        sizes = {
            get_aval(leaf).shape[0]
            for arg, ax in zip(args, axes, strict=True)
            if ax == 0
            for leaf in tree_util.tree_leaves(arg)
        }
        if len(sizes) != 1:
            raise ValueError(f"pmap needs one mapped size, got {sorted(sizes)}")
        (n,) = sizes
        available = xla.devices()
        if n > len(available):
            raise ValueError(
                f"pmap over {n} positions needs {n} devices, but only {len(available)} "
                "XLA devices are available"
            )
        key = (n, tuple(axes), tree_util.tree_structure(args))
        program = programs.get(key)
        if program is None:
            program = _pmap_program(fun, name, n, tuple(axes), available[:n])
            programs[key] = program
        return program(*args)

    return mapped


def _pmap_program(
    fun: Callable[..., Any], name: str, n: int, axes: tuple[Any, ...], devices: list[Any]
) -> Any:
    mesh = Mesh(np.array(devices, dtype=object), (name,))
    mapped = PartitionSpec(name)

    def per_device(*pieces: Any) -> Any:
        inner = [
            tree_util.tree_map(lambda leaf: lax.squeeze(leaf, (0,)), p) if ax == 0 else p
            for p, ax in zip(pieces, axes, strict=True)
        ]
        out = fun(*inner)
        return tree_util.tree_map(lambda leaf: lax.expand_dims(leaf, (0,)), out)

    in_specs = tuple(mapped if ax == 0 else REPLICATED for ax in axes)
    return jit(shard_map(per_device, mesh=mesh, in_specs=in_specs, out_specs=mapped))
