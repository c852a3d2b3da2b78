"""``checkpoint`` (alias ``remat``) and ``checkpoint_policies``, as JAX's.

Design rules:
- ``checkpoint(fun)`` traces ``fun`` into a constant-free jaxpr (what it
  closed over becomes explicit operands) and binds
  ``core.lax.checkpoint.remat_p``; all the behaviour (what reverse mode
  saves and what it recomputes) is that primitive's partial-evaluation rule.
- A policy decides which intermediate values may be saved:
  ``checkpoint_policies.nothing_saveable`` (the default, as JAX's),
  ``dots_saveable``, ``dots_with_no_batch_dims_saveable``,
  ``everything_saveable``; ``save_only_these_names`` and
  ``save_any_names_but_these`` read the names ``checkpoint_name`` gives.
- JAX's offload policies (``offload_dot_with_no_batch_dims``,
  ``save_and_offload_only_these_names``) move a residual to another memory
  space (``offload_dst``, e.g. ``'pinned_host'``) instead of recomputing it.
  didax's lowering has one memory space, so an offloadable residual is
  saved where it is: the same values and the same residuals, kept in
  device memory (on a CPU that is the host's memory, where JAX's offload
  puts it too); the device memory the offload would free is not freed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Final, final

from jax import tree_util

from didax.api.transformations import partial_at
from didax.core.lax import checkpoint as _remat
from didax.core.values import get_aval
from didax.interpreters.jaxpr_transforms import close_over_nothing
from didax.interpreters.staging import trace_to_jaxpr

__all__ = ["checkpoint", "remat", "checkpoint_policies", "checkpoint_name"]


def _memory_kinds(fn: str, offload_src: object, offload_dst: object) -> None:
    for arg, kind in (("offload_src", offload_src), ("offload_dst", offload_dst)):
        if not isinstance(kind, str):
            raise TypeError(f"{fn}: {arg} must be a memory kind (a str), got {kind!r}")


def _offload_dot_with_no_batch_dims(offload_src: str, offload_dst: str) -> _remat.Policy:
    """``dots_with_no_batch_dims_saveable``, the products offloaded (here: saved; see above)."""
    _memory_kinds("offload_dot_with_no_batch_dims", offload_src, offload_dst)
    return _remat.dots_with_no_batch_dims_saveable


def _save_and_offload_only_these_names(
    *,
    names_which_can_be_saved: Sequence[str],
    names_which_can_be_offloaded: Sequence[str],
    offload_src: str,
    offload_dst: str,
) -> _remat.Policy:
    """``save_only_these_names``, with more names offloaded (here: saved; see above)."""
    saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
    intersection = saved & offloaded
    if intersection:
        raise ValueError(
            "The names should be exclusive and should not intersect in"
            " `names_which_can_be_saved` and `names_which_can_be_offloaded`. Got"
            f" names_which_can_be_saved={saved},"
            f" names_which_can_be_offloaded={offloaded} and the"
            f" intersection={intersection}"
        )
    _memory_kinds("save_and_offload_only_these_names", offload_src, offload_dst)
    return _remat.save_only_these_names(*saved, *offloaded)


@final
class _CheckpointPolicies:
    """The policies of ``checkpoint`` (JAX's ``jax.checkpoint_policies``)."""

    nothing_saveable: Final = staticmethod(_remat.nothing_saveable)
    everything_saveable: Final = staticmethod(_remat.everything_saveable)
    dots_saveable: Final = staticmethod(_remat.dots_saveable)
    checkpoint_dots: Final = staticmethod(_remat.dots_saveable)
    dots_with_no_batch_dims_saveable: Final = staticmethod(_remat.dots_with_no_batch_dims_saveable)
    save_only_these_names: Final = staticmethod(_remat.save_only_these_names)
    save_any_names_but_these: Final = staticmethod(_remat.save_any_names_but_these)
    save_anything_except_these_names: Final = staticmethod(_remat.save_anything_except_these_names)
    save_from_both_policies: Final = staticmethod(_remat.save_from_both_policies)
    checkpoint_dots_with_no_batch_dims: Final = staticmethod(
        _remat.dots_with_no_batch_dims_saveable
    )
    offload_dot_with_no_batch_dims: Final = staticmethod(_offload_dot_with_no_batch_dims)
    save_and_offload_only_these_names: Final = staticmethod(_save_and_offload_only_these_names)


checkpoint_policies: Final = _CheckpointPolicies()


def checkpoint(
    fun: Callable[..., Any] | None = None,
    *,
    prevent_cse: bool = True,
    policy: _remat.Policy | None = None,
    static_argnums: int | Sequence[int] = (),
) -> Any:
    """``fun``, whose intermediate values reverse mode recomputes instead of saving.

    Usable as ``checkpoint(f)`` or ``@checkpoint(policy=...)``. Values equal
    ``fun``'s; under ``grad``, only the region's inputs (and what ``policy``
    calls saveable) are kept from the forward pass.

    >>> import didax as dx
    >>> import didax.numpy as dnp
    >>> f = dx.checkpoint(lambda x: dnp.sin(dnp.sin(x)))
    >>> float(dx.grad(f)(0.0))
    1.0
    """
    if fun is None:
        return lambda f: checkpoint(
            f, prevent_cse=prevent_cse, policy=policy, static_argnums=static_argnums
        )
    nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    chosen = policy if policy is not None else _remat.nothing_saveable
    name = getattr(fun, "__name__", "fun")

    @functools.wraps(fun)
    def checkpointed(*args: Any) -> Any:
        dyn_idx = [i for i in range(len(args)) if i not in {n % len(args) for n in nums}]
        with_static = partial_at(fun, args, dyn_idx)
        leaves, in_tree = tree_util.tree_flatten(tuple(args[i] for i in dyn_idx))
        out_tree: list[Any] = []

        def flat(*xs: Any) -> list[Any]:
            out, tree = tree_util.tree_flatten(with_static(*tree_util.tree_unflatten(in_tree, xs)))
            out_tree.append(tree)
            return out

        closed = trace_to_jaxpr(flat, [get_aval(x) for x in leaves], f"checkpoint({name})")
        body, consts = close_over_nothing(closed)
        outs = _remat.remat_p.bind(
            *consts, *leaves, jaxpr=body, policy=chosen, prevent_cse=bool(prevent_cse)
        )
        return tree_util.tree_unflatten(out_tree[0], outs)

    return checkpointed


remat: Final = checkpoint


def checkpoint_name(x: Any, name: str) -> Any:
    """``x`` (a pytree of arrays), each leaf named ``name`` for the checkpoint policies.

    >>> import didax as dx
    >>> import didax.numpy as dnp
    >>> policy = dx.checkpoint_policies.save_only_these_names("s")
    >>> f = dx.checkpoint(lambda x: dnp.cos(dx.checkpoint_name(dnp.sin(x), "s")), policy=policy)
    >>> float(dx.grad(f)(0.0))
    -0.0
    """
    if not isinstance(name, str):
        raise TypeError(f"checkpoint_name: the name must be a str, got {type(name).__name__}")
    return tree_util.tree_map(lambda leaf: _remat.name_p.bind(leaf, name=name), x)
