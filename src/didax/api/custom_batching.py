"""``didax.custom_batching``: functions with their own batching rule (``jax.custom_batching``).

Design rules:
- ``custom_vmap(f)`` traces ``f`` into a ``custom_vmap_call`` equation
  when called; ``def_vmap(rule)`` gives the rule vmap runs instead of
  batching ``f``'s equations: ``rule(axis_size, in_batched, *args)``
  returns ``(out, out_batched)``, with ``in_batched``/``out_batched`` the
  pytrees of bools JAX's take (a bool stands for a whole subtree of
  ``out``), batched values having the batch at axis 0.
- ``sequential_vmap(f)`` is ``custom_vmap`` whose rule maps ``f`` over the
  batch one element at a time (``lax.map``), as JAX's: for functions that
  cannot be batched (a host callback) or should not be.
- See ``interpreters.custom_batching`` for what differentiation does.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any, Generic, ParamSpec, TypeVar

from jax import tree_util

from didax.api.control_flow import map as lax_map
from didax.core.lax.custom_batching import VmapRule, custom_vmap_call_p
from didax.core.source_info import user_frame_summary
from didax.core.values import get_aval
from didax.interpreters.jaxpr_transforms import close_over_nothing
from didax.interpreters.staging import trace_to_jaxpr

__all__ = ["custom_vmap", "sequential_vmap"]

_P = ParamSpec("_P")
_R = TypeVar("_R")

# The user's rule: (axis_size, in_batched, *args) -> (out, out_batched).
Rule = Callable[..., tuple[Any, Any]]


def _positional(
    fun: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, ...]:
    if not kwargs:
        return args
    bound = inspect.signature(fun).bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.arguments.values())


def _flat_batched(name: str, tree: Any, batched: Any) -> list[bool]:
    """``batched`` (a bool, or a pytree of bools, a prefix of ``tree``) per leaf of ``tree``."""
    leaves: list[bool] = []

    def spread(flag: Any, sub: Any) -> None:
        if not isinstance(flag, bool):
            raise TypeError(
                f"custom_vmap function {name}: the vmap rule's out_batched must hold bools, "
                f"got {flag!r}"
            )
        leaves.extend([flag] * len(tree_util.tree_leaves(sub)))

    tree_util.tree_map(spread, batched, tree, is_leaf=lambda x: isinstance(x, bool))
    return leaves


class custom_vmap(Generic[_P, _R]):
    """``fun`` with a batching rule of its own (``jax.custom_batching.custom_vmap``).

    >>> import didax as dx
    >>> @dx.custom_batching.custom_vmap
    ... def f(x):
    ...     return x * 2.0
    >>> @f.def_vmap
    ... def f_vmap(axis_size, in_batched, x):
    ...     return x * 3.0, in_batched[0]
    >>> f(1.0), dx.vmap(f)(np.ones(2, np.float32))
    (Array(2., dtype=float32, weak_type=True), Array([3., 3.], dtype=float32))
    """

    def __init__(self, fun: Callable[_P, _R]) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vmap_rule: Rule | None = None
        self._name = getattr(fun, "__name__", "fun")

    def def_vmap(self, vmap_rule: Rule) -> Rule:
        """Sets the batching rule; returns it (usable as a decorator)."""
        self.vmap_rule = vmap_rule
        return vmap_rule

    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        name = f"custom_vmap function {self._name}"
        user_rule = self.vmap_rule
        if user_rule is None:
            raise AttributeError(f"No batching rule defined for {name} using def_vmap.")
        positional = _positional(self.fun, args, kwargs)
        leaves, in_tree = tree_util.tree_flatten(positional)
        out_trees: list[Any] = []
        fun: Callable[..., Any] = self.fun  # called on rebuilt arguments

        def call(*xs: Any) -> list[Any]:
            out = fun(*tree_util.tree_unflatten(in_tree, xs))
            flat, tree = tree_util.tree_flatten(out)
            out_trees.append(tree)
            return flat

        avals = [get_aval(x) for x in leaves]
        jaxpr, consts = close_over_nothing(trace_to_jaxpr(call, avals, self._name))
        out_tree = out_trees[0]

        def rule(
            axis_size: int, in_batched: Sequence[bool], xs: Sequence[Any]
        ) -> tuple[list[Any], list[bool]]:
            batched_tree = tree_util.tree_unflatten(in_tree, list(in_batched))
            out, out_batched = user_rule(
                axis_size, list(batched_tree), *tree_util.tree_unflatten(in_tree, list(xs))
            )
            flat, tree = tree_util.tree_flatten(out)
            if tree != out_tree:
                raise TypeError(
                    f"{name}: its vmap rule must return outputs structured as the function's "
                    f"({out_tree}), got {tree} (at {user_frame_summary()})"
                )
            return flat, _flat_batched(self._name, out, out_batched)

        outs = custom_vmap_call_p.bind(
            *consts,
            *leaves,
            call_jaxpr=jaxpr,
            rule=VmapRule(rule, f"{self._name}_vmap"),
            num_consts=len(consts),
        )
        result: _R = tree_util.tree_unflatten(out_tree, outs)
        return result


def sequential_vmap(f: Callable[_P, _R]) -> custom_vmap[_P, _R]:
    """``f`` whose vmap runs it on one batch element at a time (JAX's ``sequential_vmap``).

    >>> import didax as dx
    >>> g = dx.custom_batching.sequential_vmap(lambda x, y: x * y)
    >>> dx.vmap(g, in_axes=(0, None))(np.arange(3.0, dtype=np.float32), 2.0)
    Array([0., 2., 4.], dtype=float32)
    """
    wrapped: custom_vmap[_P, _R] = custom_vmap(f)
    fun: Callable[..., Any] = f  # called on rebuilt arguments, which mypy cannot follow

    def rule(axis_size: int, in_batched: list[Any], *args: Any) -> tuple[Any, Any]:
        flags = tree_util.tree_leaves(in_batched)
        leaves, tree = tree_util.tree_flatten(list(args))
        mapped = [x for x, b in zip(leaves, flags, strict=True) if b]

        def one(xs: list[Any]) -> Any:
            it = iter(xs)
            merged = [next(it) if b else x for x, b in zip(leaves, flags, strict=True)]
            return fun(*tree_util.tree_unflatten(tree, merged))

        out = lax_map(one, mapped)
        return out, True

    wrapped.def_vmap(rule)
    return wrapped
