"""``linear_call(fun, fun_transpose, residual_args, linear_args)``, as JAX's.

Design rules:
- ``fun(residual_args, linear_args)`` must be linear in ``linear_args``;
  ``fun_transpose(residual_args, out_cotangent)`` is its transpose, which
  reverse mode and ``linear_transpose`` use instead of transposing
  ``fun``'s own equations. Both are traced here, on the operands' types,
  into constant-free jaxprs and bound as ``core.lax.linear_call.linear_call_p``.
- The transpose must return cotangents structured as ``linear_args``;
  checked here, when it is traced (JAX checks it when it first transposes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jax import tree_util

from didax.api.transformations import PyTreeDef
from didax.core.lax.linear_call import linear_call_p
from didax.core.values import get_aval
from didax.interpreters.jaxpr_transforms import close_over_nothing
from didax.interpreters.staging import trace_to_jaxpr
from didax.ir.jaxpr import Jaxpr

__all__ = ["linear_call"]


def _trace(
    fun: Callable[..., Any],
    res_tree: PyTreeDef,
    second_tree: PyTreeDef,
    avals: list[Any],
    name: str,
) -> tuple[Jaxpr, tuple[Any, ...], PyTreeDef]:
    """``fun(res, second)`` as a constant-free jaxpr of the flat leaves, its constants, out tree."""
    n_res = res_tree.num_leaves
    out_tree: list[PyTreeDef] = []

    def flat(*leaves: Any) -> list[Any]:
        res = tree_util.tree_unflatten(res_tree, leaves[:n_res])
        second = tree_util.tree_unflatten(second_tree, leaves[n_res:])
        outs, tree = tree_util.tree_flatten(fun(res, second))
        out_tree.append(tree)
        return outs

    jaxpr, consts = close_over_nothing(trace_to_jaxpr(flat, avals, name))
    return jaxpr, consts, out_tree[0]


def linear_call(
    fun: Callable[..., Any],
    fun_transpose: Callable[..., Any],
    residual_args: Any,
    linear_args: Any,
) -> Any:
    """``fun(residual_args, linear_args)``, transposed by ``fun_transpose`` under autodiff.

    >>> import didax as dx
    >>> from didax.custom_derivatives import linear_call
    >>> def f(x, y):
    ...     mul = lambda r, v: r * v
    ...     transpose = lambda r, ct: 10.0 * ct  # deliberately not mul's transpose
    ...     return linear_call(mul, transpose, x, y)
    >>> float(f(2.0, 3.0)), float(dx.grad(f, argnums=1)(2.0, 3.0))
    (6.0, 10.0)
    """
    res_leaves, res_tree = tree_util.tree_flatten(residual_args)
    lin_leaves, lin_tree = tree_util.tree_flatten(linear_args)
    res_avals = [get_aval(x) for x in res_leaves]
    callee, c_consts, out_tree = _trace(
        fun, res_tree, lin_tree, [*res_avals, *(get_aval(x) for x in lin_leaves)], "linear_call"
    )
    out_avals = [a.strip_weak() for a in callee.out_avals]
    transpose, t_consts, t_out_tree = _trace(
        fun_transpose, res_tree, out_tree, [*res_avals, *out_avals], "linear_call transpose"
    )
    if t_out_tree != lin_tree:
        raise TypeError(
            "linear_call: transpose output pytree structure must match that of linear inputs, "
            f"got output structure {t_out_tree} and input structure {lin_tree}."
        )
    outs = linear_call_p.bind(
        *c_consts,
        *t_consts,
        *res_leaves,
        *lin_leaves,
        callee=callee,
        transpose=transpose,
        num_callee_consts=len(c_consts),
        num_transpose_consts=len(t_consts),
        num_res=len(res_leaves),
    )
    return tree_util.tree_unflatten(out_tree, outs)
