"""``custom_linear_solve`` and ``custom_root``: solves differentiated implicitly, as JAX's.

Design rules:
- ``custom_linear_solve`` traces ``matvec``, ``solve`` (given ``matvec``)
  and, for reverse mode, ``vecmat`` (``matvec``'s transpose, or
  ``matvec`` itself when ``symmetric``) and ``transpose_solve`` (given
  ``vecmat``) into constant-free programs and binds ``linear_solve_p``
  (``core.lax.solves``) on their constants and ``b``'s leaves: what the
  callables closed over (a matrix being differentiated) becomes explicit
  operands, whose tangents the primitive's jvp rule uses.
- ``custom_root`` is a ``custom_jvp`` function of the constants of ``f``,
  ``solve`` and the tangent solve, and of the initial guess, as JAX's: its
  value is ``solve(f, initial_guess)``; its jvp is the implicit function
  theorem's, ``du = -(∂_u f)^{-1} ∂_θ f [dθ]``, with ``tangent_solve``
  inverting ``f`` linearized at the root.
- Pytrees are this module's; the checks of what the callables return are
  JAX's, with its messages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from jax import tree_util

from didax.api.autodiff import linearize
from didax.api.control_flow import _flatten, _stage
from didax.api.custom_derivatives import SymbolicZero, custom_jvp
from didax.api.transformations import PyTreeDef
from didax.core import lax
from didax.core.lax.solves import SolveParams, linear_solve_p
from didax.core.values import get_aval
from didax.interpreters.jaxpr_transforms import close_over_nothing, jaxpr_as_fun, transpose_jaxpr
from didax.interpreters.jvp import Zero, instantiate_zeros, jvp_flat
from didax.ir.jaxpr import ClosedJaxpr, Jaxpr

__all__ = ["custom_linear_solve", "custom_root", "linear_solve_p"]


def _check_tree(
    func_name: str, expected_name: str, actual: PyTreeDef, expected: PyTreeDef, has_aux: bool
) -> PyTreeDef | None:
    """JAX's check that a callable returned ``expected``'s structure; the aux tree if any."""
    aux = None
    if has_aux:
        children = actual.children()
        if len(children) != 2:
            raise ValueError(
                f"{func_name}() produced a pytree with structure {actual}, but a pytree tuple "
                "with auxiliary output was expected because has_aux was set to True."
            )
        actual, aux = children
    if actual != expected:
        raise TypeError(
            f"{func_name}() output pytree structure must match {expected_name}, "
            f"got {actual} and {expected}."
        )
    return aux


def _check_shapes(name: str, closed: ClosedJaxpr, b_avals: Sequence[Any]) -> None:
    got = [tuple(a.shape) for a in closed.out_avals[: len(b_avals)]]
    expected = [tuple(a.shape) for a in b_avals]
    if got != expected:
        raise ValueError(f"{name}() output shapes must match b, got {got} and {expected}")


def custom_linear_solve(
    matvec: Callable[[Any], Any],
    b: Any,
    solve: Callable[[Callable[[Any], Any], Any], Any],
    transpose_solve: Callable[[Callable[[Any], Any], Any], Any] | None = None,
    symmetric: bool = False,
    has_aux: bool = False,
) -> Any:
    """``solve(matvec, b)``, differentiated as ``x = A^{-1} b`` with ``A = matvec`` (JAX's).

    ``solve(matvec, b)`` returns ``x`` with ``matvec(x) == b`` (and, with
    ``has_aux``, ``(x, aux)``); ``transpose_solve(vecmat, b)`` does the same
    for the transpose, and is needed for reverse mode unless ``symmetric``
    (then ``solve`` is used). ``solve`` itself need not be differentiable.

    >>> import numpy as np
    >>> import didax as dx
    >>> a = np.array([[2.0, 1.0], [1.0, 3.0]], np.float32)
    >>> def f(b):
    ...     return dx.lax.custom_linear_solve(
    ...         lambda x: a @ x, b, lambda mv, y: dx.numpy.linalg.solve(a, y), symmetric=True)
    >>> dx.grad(lambda b: f(b).sum())(np.ones(2, np.float32))
    Array([0.4, 0.2], dtype=float32)
    """
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    leaves, tree = _flatten(b, "custom_linear_solve b")
    b_avals = [get_aval(x) for x in leaves]
    _, in_tree = tree_util.tree_flatten((b,))

    aux_trees: list[PyTreeDef | None] = []

    def staged(fun: Callable[[Any], Any], name: str, aux: bool) -> tuple[Jaxpr, tuple[Any, ...]]:
        closed, out_tree = _stage(fun, in_tree, b_avals, name)
        aux_trees.append(_check_tree(name, "b", out_tree, tree, aux))
        _check_shapes(name, closed, b_avals)
        return close_over_nothing(closed)

    mv = staged(matvec, "matvec", False)
    sv = staged(partial(solve, matvec), "solve", has_aux)
    aux_tree = aux_trees[-1]
    vm: tuple[Jaxpr | None, tuple[Any, ...]] = (None, ())
    ts: tuple[Jaxpr | None, tuple[Any, ...]] = (None, ())
    if transpose_solve is not None:
        vecmat: Callable[[Any], Any] = matvec if symmetric else _transposed(mv, tree)
        vm = mv if symmetric else staged(vecmat, "vecmat", False)
        ts = staged(partial(transpose_solve, vecmat), "transpose_solve", has_aux)
    parts = (mv, vm, sv, ts)
    lengths = (len(mv[1]), len(vm[1]), len(sv[1]), len(ts[1]))
    params = SolveParams(mv[0], vm[0], sv[0], ts[0], lengths)
    outs = params.bind(*(c for _, consts in parts for c in consts), *leaves)
    x = tree_util.tree_unflatten(tree, outs[: len(leaves)])
    if aux_tree is None:
        return x
    return x, tree_util.tree_unflatten(aux_tree, outs[len(leaves) :])


def _transposed(mv: tuple[Jaxpr, tuple[Any, ...]], tree: PyTreeDef) -> Callable[[Any], Any]:
    """``matvec``'s transpose as a function of pytrees, from its program."""
    jaxpr, consts = mv
    nb = len(jaxpr.outs)
    linear = [False] * len(consts) + [True] * nb
    closed, _ = transpose_jaxpr(jaxpr, linear, [True] * nb, instantiate=True)

    def vecmat(y: object) -> object:
        cts = tree_util.tree_leaves(y)
        return tree_util.tree_unflatten(
            tree, jaxpr_as_fun(closed.jaxpr)(*closed.consts, *consts, *cts)
        )

    return vecmat


def custom_root(
    f: Callable[[Any], Any],
    initial_guess: Any,
    solve: Callable[[Callable[[Any], Any], Any], Any],
    tangent_solve: Callable[[Callable[[Any], Any], Any], Any],
    has_aux: bool = False,
) -> Any:
    """``solve(f, initial_guess)``, differentiated implicitly as a root of ``f`` (JAX's).

    Derivatives are with respect to what ``f`` closes over, by the implicit
    function theorem; ``tangent_solve(g, y)`` solves ``g(x) = y`` for ``g``
    the linearization of ``f`` at the root (``lambda g, y: y / g(1.0)``
    for a scalar).

    >>> import didax as dx
    >>> def sqrt(a):
    ...     newton = lambda f, x: dx.lax.fori_loop(0, 20, lambda i, x: x - f(x) / (2 * x), x)
    ...     return dx.lax.custom_root(lambda x: x * x - a, 1.0, newton, lambda g, y: y / g(1.0))
    >>> dx.grad(sqrt)(4.0)
    Array(0.25, dtype=float32, weak_type=True)
    """
    leaves, tree = _flatten(initial_guess, "custom_root initial_guess")
    avals = [get_aval(x) for x in leaves]
    _, in_tree = tree_util.tree_flatten((initial_guess,))
    f_closed, f_tree = _stage(f, in_tree, avals, "custom_root f")
    _check_tree("f", "initial_guess", f_tree, tree, False)
    s_closed, s_tree = _stage(partial(solve, f), in_tree, avals, "custom_root solve")
    aux_tree = _check_tree("solve", "initial_guess", s_tree, tree, has_aux)

    def linearize_and_solve(x: object, y: object) -> object:
        _, f_jvp = linearize(f, x)
        return tangent_solve(f_jvp, y)

    _, pair_tree = tree_util.tree_flatten((initial_guess, initial_guess))
    ls_closed, ls_tree = _stage(
        linearize_and_solve, pair_tree, [*avals, *avals], "custom_root tangent_solve"
    )
    _check_tree("tangent_solve", "x", ls_tree, tree, False)
    f_jaxpr, f_consts = close_over_nothing(f_closed)
    s_jaxpr, s_consts = close_over_nothing(s_closed)
    ls_jaxpr, ls_consts = close_over_nothing(ls_closed)
    n = len(leaves)

    def run_solve(fc: list[Any], sc: list[Any], lc: list[Any], guess: list[Any]) -> list[Any]:
        return jaxpr_as_fun(s_jaxpr)(*sc, *guess)

    root = custom_jvp(run_solve)

    def root_jvp(
        primals: Sequence[list[Any]], tangents: Sequence[list[Any]]
    ) -> tuple[list[Any], list[Any]]:
        fc, sc, lc, guess = primals
        solution = root(fc, sc, lc, guess)
        sol, aux = solution[:n], solution[n:]
        fc_dot = [
            Zero.like(get_aval(p)) if isinstance(t, SymbolicZero) else t
            for p, t in zip(fc, tangents[0], strict=True)
        ]
        # ∂_θ f at the root, in the direction of the constants' tangents.
        _, rhs = jvp_flat(
            jaxpr_as_fun(f_jaxpr), [*fc, *sol], [*fc_dot, *(Zero.like(get_aval(s)) for s in sol)]
        )
        rhs = [instantiate_zeros(r) for r in rhs]
        sol_dot = [lax.neg(t) for t in jaxpr_as_fun(ls_jaxpr)(*lc, *sol, *rhs)]
        aux_dot = [SymbolicZero(get_aval(a).strip_weak()) for a in aux]
        return solution, [*sol_dot, *aux_dot]

    root.defjvp(root_jvp, symbolic_zeros=True)
    outs = root(list(f_consts), list(s_consts), list(ls_consts), leaves)
    x = tree_util.tree_unflatten(tree, outs[:n])
    if aux_tree is None:
        return x
    return x, tree_util.tree_unflatten(aux_tree, outs[n:])
