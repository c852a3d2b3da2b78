"""``shard_map`` at the API: JAX's signature over pytrees, specs as pytree prefixes.

Design rules:
- ``in_specs`` is a ``PartitionSpec`` for every argument or a tuple with
  one entry per positional argument, each a prefix of that argument's
  pytree; ``out_specs`` the same over the result. Each array leaf is cut
  into its per-device piece by its spec, and the function is traced once,
  on the pieces, with the mesh's axis names bound for its collectives.
- Values the function closes over enter the body replicated (``P()``).
- ``check_vma`` is accepted for JAX's signature; didax does not check
  replication: a result declared replicated (an axis its spec does not
  name) is read from the first device along that axis, and gradients
  follow JAX's rules without checking (see ``interpreters.shard_map``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from jax import tree_util

from didax.core.sharding import Mesh, PartitionSpec
from didax.core.source_info import user_frame_summary
from didax.core.values import get_aval
from didax.interpreters.shard_map import REPLICATED, local_aval, shard_map_p, trace_body

__all__ = ["shard_map"]


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
    Array(6., dtype=float64)
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
