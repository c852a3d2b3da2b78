"""``custom_gradient`` and ``closure_convert``, built on ``custom_vjp`` as JAX builds them.

Design rules:
- ``custom_gradient(fun)``: ``fun(*args)`` returns ``(out, rule)`` with
  ``rule(g)`` the cotangents of the arguments (a tuple, or one value for a
  single argument). It is a ``custom_vjp`` whose forward pass traces
  ``rule`` into a jaxpr on the output's types: the rule's closure (values
  of the forward pass) becomes the jaxpr's constants, which travel as the
  residuals (arrays, as residuals must be), and the backward pass
  evaluates the jaxpr on the cotangent. The jaxpr rides in the residuals'
  static part (``_RuleResiduals``, a pytree node).
- ``closure_convert(fun, *example_args)`` traces ``fun`` on the examples'
  types and returns ``(converted, hoisted)``: the constants the trace
  closed over that may carry a derivative (JAX's ``_maybe_perturbed``:
  tracers of differentiation or of staging with a float type) become
  trailing arguments of ``converted``, so a ``custom_vjp`` can take them as
  formal arguments; the others stay closed over.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs
from jax import tree_util

from didax.api.custom_derivatives import custom_vjp
from didax.api.transformations import PyTreeDef, _FlatFun
from didax.core import dtypes
from didax.core.trace import Tracer
from didax.core.values import get_aval
from didax.interpreters.batching import BatchTracer
from didax.interpreters.evaluation import eval_jaxpr
from didax.interpreters.jaxpr_transforms import close_over_nothing
from didax.interpreters.jvp import JVPTracer, Zero
from didax.interpreters.staging import StagingTracer, trace_to_jaxpr
from didax.ir.jaxpr import Jaxpr

__all__ = ["custom_gradient", "closure_convert"]


@tree_util.register_pytree_node_class
@attrs.frozen(eq=False)
class _RuleResiduals:
    """A traced gradient rule: its jaxpr and trees (static), its constants (the leaves)."""

    jaxpr: Jaxpr
    in_tree: PyTreeDef
    out_tree: PyTreeDef
    consts: tuple[Any, ...]

    def tree_flatten(self) -> tuple[tuple[Any, ...], tuple[Jaxpr, PyTreeDef, PyTreeDef]]:
        return self.consts, (self.jaxpr, self.in_tree, self.out_tree)

    @classmethod
    def tree_unflatten(
        cls, aux: tuple[Jaxpr, PyTreeDef, PyTreeDef], consts: Sequence[Any]
    ) -> _RuleResiduals:
        return cls(*aux, tuple(consts))


def _pair(result: Any) -> tuple[Any, Callable[..., Any]]:
    if not (isinstance(result, (tuple, list)) and len(result) == 2 and callable(result[1])):
        raise TypeError(
            "custom_gradient: the function must return a pair (out, rule) with rule a "
            f"function of the output's cotangent, got {type(result).__name__}"
        )
    return result[0], result[1]


def custom_gradient(fun: Callable[..., Any]) -> custom_vjp:
    """``fun``, returning ``(out, rule)``, as a function with ``rule`` as its gradient.

    >>> import didax as dx
    >>> import didax.numpy as dnp
    >>> @dx.custom_gradient
    ... def f(x):
    ...     return x ** 2, lambda g: g * x
    >>> float(f(3.0)), float(dx.grad(f)(3.0))
    (9.0, 3.0)
    """

    def primal(*args: Any, **kwargs: Any) -> Any:
        return _pair(fun(*args, **kwargs))[0]

    wrapped = custom_vjp(primal)

    def fwd(*args: Any, **kwargs: Any) -> tuple[Any, _RuleResiduals]:
        out, rule = _pair(fun(*args, **kwargs))
        out_leaves, out_tree = tree_util.tree_flatten((out,))
        ct_avals = [get_aval(x).strip_weak() for x in out_leaves]
        flat_rule = _FlatFun(rule, out_tree)
        closed = trace_to_jaxpr(flat_rule, ct_avals, "custom_gradient rule")
        jaxpr, consts = close_over_nothing(closed)
        assert flat_rule.out_tree is not None
        return out, _RuleResiduals(jaxpr, flat_rule.out_tree, out_tree, consts)

    def bwd(res: _RuleResiduals, g: Any) -> tuple[Any, ...]:
        cts, ct_tree = tree_util.tree_flatten((g,))
        if ct_tree != res.out_tree:
            raise TypeError(f"custom_gradient: cotangent tree {ct_tree} != {res.out_tree}")
        cts_out = tree_util.tree_unflatten(res.in_tree, eval_jaxpr(res.jaxpr, [*res.consts, *cts]))
        # A leaf (one argument's cotangent) stands for the 1-tuple, as JAX's.
        return (cts_out,) if tree_util.treedef_is_leaf(res.in_tree) else tuple(cts_out)

    wrapped.defvjp(fwd, bwd)
    return wrapped


def _maybe_perturbed(x: object) -> bool:
    """Whether ``x`` may carry a derivative (JAX's heuristic of the same name)."""
    if not isinstance(x, Tracer):
        return False
    if isinstance(x, JVPTracer) and isinstance(x.tangent, Zero):
        return _maybe_perturbed(x.primal)
    if isinstance(x, StagingTracer):
        # Staged values may be differentiated later, unless their type cannot be.
        return dtypes.is_inexact(x.aval.dtype)
    if isinstance(x, BatchTracer):
        return _maybe_perturbed(x.val)
    return True


def closure_convert(
    fun: Callable[..., Any], *example_args: Any
) -> tuple[Callable[..., Any], list[Any]]:
    """``(converted, hoisted)``: ``converted(*args, *hoisted)`` computes ``fun(*args)``.

    The hoisted values are the ones ``fun`` closed over that may carry a
    derivative (tracers of an enclosing differentiation or ``jit``).

    >>> import didax as dx
    >>> def outer(a):
    ...     f = lambda x: x * a
    ...     g, consts = dx.closure_convert(f, 1.0)
    ...     return len(consts), g(2.0, *consts)
    >>> outer(3.0)
    (0, Array(6., dtype=float32, weak_type=True))
    >>> n, y = dx.jvp(lambda a: outer(a)[1], (3.0,), (1.0,))
    >>> float(n), float(y)
    (6.0, 2.0)
    """
    in_tree: PyTreeDef
    leaves, in_tree = tree_util.tree_flatten(example_args)
    flat = _FlatFun(fun, in_tree)
    closed = trace_to_jaxpr(flat, [get_aval(x) for x in leaves], "closure_convert")
    jaxpr, consts = close_over_nothing(closed)
    out_tree = flat.out_tree
    hoist = [_maybe_perturbed(c) for c in consts]
    hoisted = [c for c, h in zip(consts, hoist, strict=True) if h]
    kept = [c for c, h in zip(consts, hoist, strict=True) if not h]

    def converted(*args_and_consts: Any) -> Any:
        n = len(args_and_consts) - len(hoisted)
        args, extra = args_and_consts[:n], args_and_consts[n:]
        arg_leaves, tree = tree_util.tree_flatten(tuple(args))
        if tree != in_tree:
            raise TypeError(
                "closure_convert: the inputs to the converted function must have the same "
                f"pytree structure as the example arguments, expected {in_tree}, got {tree}"
            )
        kept_it, extra_it = iter(kept), iter(extra)
        all_consts = [next(extra_it) if h else next(kept_it) for h in hoist]
        return tree_util.tree_unflatten(out_tree, eval_jaxpr(jaxpr, [*all_consts, *arg_leaves]))

    return converted, hoisted
