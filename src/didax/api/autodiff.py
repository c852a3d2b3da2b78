"""Reverse mode and friends: linearize, vjp, grad, value_and_grad, jacrev, hessian.

Design rules:
- ``linearize`` is jvp + partial evaluation (``interpreters.partial_eval``);
  ``vjp`` is linearize + transposition of the linear jaxpr
  (``interpreters.transpose.vjp_flat``); ``grad`` is vjp with a unit
  cotangent; ``jacrev`` is vmap of vjp; ``hessian`` is jacfwd of jacrev.
  No interpreter is written twice.
- The backward pass binds under whatever trace is current when ``f_vjp`` is
  called, so reverse mode composes with jit, vmap and jvp (hessians,
  per-example gradients).
- Only floating-point inputs are differentiable: ``grad`` rejects others with
  a TypeError; ``vjp`` gives their cotangents dtype float0, as JAX does.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
from jax import tree_util

from didax.api.located import locate_errors
from didax.api.transformations import (
    _argnums_tuple,
    _FlatFun,
    _input_value,
    check_input_dtype,
    check_output_dtype,
    jacfwd,
    partial_at,
    split_basis,
    vmap,
)
from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.values import get_aval, to_array
from didax.interpreters.evaluation import eval_jaxpr
from didax.interpreters.jvp import Zero, instantiate_zeros
from didax.interpreters.partial_eval import linearize_flat
from didax.interpreters.transpose import vjp_flat

__all__ = [
    "linearize",
    "vjp",
    "value_and_grad",
    "grad",
    "jacrev",
    "jacobian",
    "hessian",
]


def _flat_inputs(primals: Sequence[Any], what: str) -> tuple[list[Any], Any]:
    leaves, tree = tree_util.tree_flatten(tuple(primals))
    return [_input_value(x, what) for x in leaves], tree


# --- linearize --------------------------------------------------------------------------


@locate_errors
def linearize(fun: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """``(fun(*primals), f_jvp)`` where ``f_jvp(*tangents)`` is the linear map ``J @ tangents``.

    The primal computation runs once, now; ``f_jvp`` evaluates only the
    staged linear jaxpr.

    >>> import didax as dx
    >>> y, f_jvp = dx.linearize(dx.numpy.sin, 0.0)
    >>> f_jvp(2.0)
    Array(2., dtype=float32, weak_type=True)
    """
    leaves, in_tree = _flat_inputs(primals, "linearize primal")
    flat = _FlatFun(fun, in_tree)
    outs, linear, residuals, differentiable, nonzero = linearize_flat(flat, leaves)
    out_avals = [get_aval(o) for o in outs]

    def f_jvp(*tangents: Any) -> Any:
        t_leaves, t_tree = tree_util.tree_flatten(tuple(tangents))
        if t_tree != in_tree:
            raise TypeError(
                f"linearize: f_jvp takes tangents structured as the primals ({in_tree}), "
                f"got {t_tree}"
            )
        for t, x in zip(t_leaves, leaves, strict=True):
            # The linear program's primitives could broadcast a rank-0 tangent.
            if get_aval(t).shape != get_aval(x).shape:
                raise ValueError(
                    f"linearize: f_jvp got a tangent of shape {get_aval(t).shape} for a primal "
                    f"of shape {get_aval(x).shape}"
                )
        ts = [t for t, d in zip(t_leaves, differentiable, strict=True) if d]
        results = iter(eval_jaxpr(linear, [*residuals, *ts]))
        t_outs = [
            next(results) if nz else instantiate_zeros(Zero.like(a))
            for a, nz in zip(out_avals, nonzero, strict=True)
        ]
        return flat.unflatten(list(map(to_array, t_outs)))

    return flat.unflatten(list(map(to_array, outs))), locate_errors(f_jvp)


# --- vjp --------------------------------------------------------------------------------


@locate_errors
def vjp(fun: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """``(fun(*primals), f_vjp)``, or ``(out, f_vjp, aux)`` with ``has_aux``.

    ``f_vjp(cotangent)`` returns a tuple with one cotangent per primal (the
    transposed linear map, ``cotangent @ J``).

    >>> import didax as dx
    >>> y, f_vjp = dx.vjp(lambda x, y: x * y, 2.0, 3.0)
    >>> f_vjp(1.0)
    (Array(3., dtype=float32, weak_type=True), Array(2., dtype=float32, weak_type=True))
    """
    leaves, in_tree = _flat_inputs(primals, "vjp primal")

    def main(*args: Any) -> Any:
        out = fun(*args)
        if has_aux and not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError("vjp with has_aux=True needs fun to return a pair (out, aux)")
        return out

    # With has_aux, aux is an output too: linearize hands back its primal value
    # (never a tracer of its own trace), and its cotangent is always zero.
    flat = _FlatFun(main, in_tree)
    outs, pullback = vjp_flat(flat, leaves)
    assert flat.out_tree is not None
    # jaxlib's PyTreeDef is untyped for mypy: Any.
    out_tree: Any
    aux_tree: Any
    if has_aux:
        out_tree, aux_tree = tree_util.treedef_children(flat.out_tree)
    else:
        out_tree, aux_tree = flat.out_tree, None
    num_out: int = out_tree.num_leaves
    out_avals = [get_aval(o) for o in outs[:num_out]]

    def f_vjp(cotangent: Any) -> tuple[Any, ...]:
        ct_leaves, ct_tree = tree_util.tree_flatten(cotangent)
        if ct_tree != out_tree:
            raise TypeError(
                f"vjp: the cotangent must be structured as the output ({out_tree}), got {ct_tree}"
            )
        for ct, a in zip(ct_leaves, out_avals, strict=True):
            if get_aval(ct).shape != a.shape:
                raise ValueError(
                    f"vjp: cotangent of shape {get_aval(ct).shape} for an output of shape {a.shape}"
                )
        # aux outputs get zero cotangents.
        cts = [*ct_leaves, *(Zero.like(get_aval(o)) for o in outs[num_out:])]
        in_cts = [to_array(instantiate_zeros(ct)) for ct in pullback(cts)]
        return tuple(tree_util.tree_unflatten(in_tree, in_cts))

    outs = list(map(to_array, outs))
    out = tree_util.tree_unflatten(out_tree, outs[:num_out])
    if aux_tree is not None:
        return out, locate_errors(f_vjp), tree_util.tree_unflatten(aux_tree, outs[num_out:])
    return out, locate_errors(f_vjp)


# --- grad -------------------------------------------------------------------------------


def value_and_grad(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
) -> Callable[..., Any]:
    """``fun``'s value and its gradient with respect to ``argnums``.

    Returns ``(value, grad)``, or ``((value, aux), grad)`` with ``has_aux``;
    ``grad`` is a tuple when ``argnums`` is a tuple. With ``allow_int``,
    integer and boolean arguments are allowed and get float0 gradients (as
    JAX's). The output must be real, and the gradient of a real function of
    complex inputs is JAX's: the pullback of 1, which for ``|z|**2`` is
    ``2 * conj(z)``. With ``holomorphic`` the inputs and the output are
    complex and the gradient is the complex derivative.

    >>> import didax as dx
    >>> dx.value_and_grad(lambda x: x * x)(3.0)
    (Array(9., dtype=float32, weak_type=True), Array(6., dtype=float32, weak_type=True))
    """

    @functools.wraps(fun)
    def value_and_grad_fun(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums_tuple(argnums, len(args), "grad")
        for i in nums:
            for leaf in tree_util.tree_leaves(args[i]):
                dtype = get_aval(_input_value(leaf, "grad argument")).dtype
                if not dtypes.is_inexact(dtype) and not allow_int and not holomorphic:
                    raise TypeError(
                        f"grad requires floating-point inputs, but argument {i} has an "
                        f"input of dtype {dtype}; differentiate with respect to float "
                        "arguments only (see argnums), or pass allow_int=True"
                    )
                check_input_dtype("grad", dtype, holomorphic, allow_int=True)

        result = vjp(
            partial_at(fun, args, nums, **kwargs), *(args[i] for i in nums), has_aux=has_aux
        )
        out, f_vjp = result[0], result[1]
        aval = get_aval(out) if not isinstance(out, (tuple, list, dict)) else None
        if aval is None or aval.shape != ():
            shape = aval.shape if aval is not None else type(out).__name__
            raise TypeError(
                f"grad requires a scalar output, but the function returned shape {shape}; "
                "use vjp or jacrev for non-scalar outputs"
            )
        check_output_dtype("grad", aval.dtype, holomorphic)
        grads = f_vjp(lax.full_like(out, 1.0))
        g = grads[0] if isinstance(argnums, int) else grads
        return ((out, result[2]), g) if has_aux else (out, g)

    return locate_errors(value_and_grad_fun)


def grad(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
) -> Callable[..., Any]:
    """The gradient of a scalar-valued ``fun`` with respect to ``argnums``.

    >>> import didax as dx
    >>> dx.grad(dx.numpy.sin)(0.0)
    Array(1., dtype=float32, weak_type=True)
    """
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    @functools.wraps(fun)
    def grad_fun(*args: Any, **kwargs: Any) -> Any:
        (value_or_pair, g) = vg(*args, **kwargs)
        return (g, value_or_pair[1]) if has_aux else g

    return locate_errors(grad_fun)


# --- jacrev, hessian -------------------------------------------------------------------


def jacrev(
    fun: Callable[..., Any], argnums: int | Sequence[int] = 0, holomorphic: bool = False
) -> Callable[..., Any]:
    """The Jacobian of ``fun`` by reverse mode: one vjp per output element, vmapped.

    Shapes and structure as ``jacfwd``: output shape + input shape. Outputs
    must be real, or complex with ``holomorphic`` (then inputs are complex too).

    >>> import didax as dx
    >>> import numpy as np
    >>> dx.jacrev(lambda x: x * x)(np.array([1.0, 2.0]))
    Array([[2., 0.],
           [0., 4.]], dtype=float32)
    """

    @functools.wraps(fun)
    def jacobian(*args: Any) -> Any:
        nums = _argnums_tuple(argnums, len(args), "jacrev")

        dyn = tuple(args[i] for i in nums)
        for leaf in tree_util.tree_leaves(dyn):
            check_input_dtype(
                "jacrev", get_aval(_input_value(leaf, "jacrev argument")).dtype, holomorphic
            )
        out, f_vjp = vjp(partial_at(fun, args, nums), *dyn)
        out_leaves, out_tree = tree_util.tree_flatten(out)
        out_avals = [get_aval(o) for o in out_leaves]
        for a in out_avals:
            check_output_dtype("jacrev", a.dtype, holomorphic)
        sizes = [a.size for a in out_avals]
        offsets = np.cumsum([0, *sizes])
        total = int(offsets[-1])

        def pullback(basis: Any) -> Any:
            return f_vjp(tree_util.tree_unflatten(out_tree, split_basis(basis, out_avals)))

        # per dynamic argument: a pytree of leaves of shape (total, *in_shape)
        rows = vmap(pullback)(np.eye(total))

        def per_output(k: int, a: ShapedArray) -> Any:
            def take(leaf: Any) -> Any:
                in_shape = get_aval(leaf).shape[1:]
                part = lax.slice(
                    leaf,
                    (int(offsets[k]),) + (0,) * len(in_shape),
                    (int(offsets[k + 1]), *in_shape),
                )
                return lax.reshape(part, a.shape + in_shape)

            per_arg = tuple(tree_util.tree_map(take, r) for r in rows)
            return per_arg[0] if isinstance(argnums, int) else per_arg

        return tree_util.tree_unflatten(
            out_tree, [per_output(k, a) for k, a in enumerate(out_avals)]
        )

    return locate_errors(jacobian)


# JAX's alias: ``jax.jacobian`` is ``jax.jacrev``.
jacobian: Final = jacrev


def hessian(
    fun: Callable[..., Any], argnums: int | Sequence[int] = 0, holomorphic: bool = False
) -> Callable[..., Any]:
    """The Hessian of a scalar ``fun``: ``jacfwd(jacrev(fun))``.

    >>> import didax as dx
    >>> import numpy as np
    >>> dx.hessian(lambda x: (x * x * x).sum())(np.array([1.0, 2.0]))
    Array([[ 6.,  0.],
           [ 0., 12.]], dtype=float32)
    """
    return jacfwd(jacrev(fun, argnums, holomorphic), argnums, holomorphic)
