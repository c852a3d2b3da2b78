"""``custom_linear_solve`` and ``custom_root`` (``linear_solve_p``) against ``jax.lax``.

Each case is written once against a ``lax``/``numpy`` pair and run on
didax's and on JAX's: values eagerly and under ``jit``, ``jvp``, ``grad``
in the matrix and the right-hand side (reverse mode goes through
``transpose_solve``), ``vmap`` over either operand and both, and grad of
grad; finite differences check a few derivatives on their own. The
solvers are a dense solve, a Cholesky solve, conjugate gradients in a
``while_loop`` (not differentiable itself: only the implicit rules make
its derivatives exist) and Newton's method for ``custom_root``.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax import lax as dlax
from didax.ir.typecheck import typecheck_jaxpr

Fn = Callable[..., Any]
LIBS: Final = ((dlax, dnp, dx), (jax.lax, jnp, jax))


def _close(got: Any, want: Any, dtype: Any) -> None:
    tol = 2e-4 if np.dtype(dtype) == np.float32 else 1e-10
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), strict=True):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=tol, atol=tol)


def _spd(n: int, dtype: Any, seed: int = 0) -> np.ndarray[Any, Any]:
    a = np.random.default_rng(seed).normal(size=(n, n))
    return (a @ a.T + n * np.eye(n)).astype(dtype)


def _vec(n: int, dtype: Any, seed: int = 1) -> np.ndarray[Any, Any]:
    return np.random.default_rng(seed).normal(size=n).astype(dtype)


# --- the solvers, written once for either library ---------------------------------------


def dense(lax: ModuleType, np_: ModuleType, _: ModuleType) -> Fn:
    """A general matrix: ``solve`` and ``transpose_solve`` by ``linalg.solve``."""

    def f(a: Any, b: Any) -> Any:
        return lax.custom_linear_solve(
            lambda x: a @ x,
            b,
            lambda mv, y: np_.linalg.solve(a, y),
            lambda vm, y: np_.linalg.solve(a.T, y),
        )

    return f


def cholesky(lax: ModuleType, np_: ModuleType, _: ModuleType) -> Fn:
    """A symmetric positive definite matrix, solved by its Cholesky factor."""

    def solve(a: Any, y: Any) -> Any:
        low = lax.linalg.cholesky(a)
        z = lax.linalg.triangular_solve(low, y[:, None], left_side=True, lower=True)
        x = lax.linalg.triangular_solve(low, z, left_side=True, lower=True, transpose_a=True)
        return x[:, 0]

    def f(a: Any, b: Any) -> Any:
        return lax.custom_linear_solve(
            lambda x: a @ x, b, lambda mv, y: solve(a, y), symmetric=True
        )

    return f


def conjugate_gradients(lax: ModuleType, np_: ModuleType, _: ModuleType) -> Fn:
    """CG in a ``while_loop``, given only ``matvec``; symmetric, so it is its own transpose."""

    def cg(mv: Fn, b: Any) -> Any:
        def body(s: Any) -> Any:
            x, r, p, i = s
            ap = mv(p)
            alpha = (r @ r) / (p @ ap)
            x2, r2 = x + alpha * p, r - alpha * ap
            return x2, r2, r2 + (r2 @ r2) / (r @ r) * p, i + 1

        x, _, _, _ = lax.while_loop(
            lambda s: (s[3] < b.shape[0]) & (s[1] @ s[1] > 1e-30), body, (b * 0, b, b, 0)
        )
        return x

    def f(a: Any, b: Any) -> Any:
        return lax.custom_linear_solve(lambda x: a @ x, b, cg, symmetric=True)

    return f


def pytree_with_aux(lax: ModuleType, np_: ModuleType, _: ModuleType) -> Fn:
    """``b`` a dict of two blocks (a block-diagonal map), and ``solve`` with an aux result."""

    def f(a: Any, b: Any) -> Any:
        def mv(x: Any) -> Any:
            return {"u": a @ x["u"], "v": 2.0 * x["v"]}

        def solve(m: Fn, y: Any) -> Any:
            x = {"u": np_.linalg.solve(a, y["u"]), "v": y["v"] / 2.0}
            return x, np_.sum(y["v"])

        def tsolve(m: Fn, y: Any) -> Any:
            return {"u": np_.linalg.solve(a.T, y["u"]), "v": y["v"] / 2.0}, np_.sum(y["v"])

        x, aux = lax.custom_linear_solve(mv, {"u": b, "v": b[:2]}, solve, tsolve, has_aux=True)
        return x["u"] + np_.sum(x["v"]) + 0.0 * aux

    return f


SOLVERS: Final = {
    "dense": dense,
    "cholesky": cholesky,
    "cg": conjugate_gradients,
    "pytree_aux": pytree_with_aux,
}
DTYPES: Final = (np.float32, np.float64)
# Every solver in float64; the two whose programs differ most in float32 too (time).
CASES: Final = [(s, np.float64) for s in SOLVERS] + [(s, np.float32) for s in ("dense", "cg")]
IDS: Final = [f"{s}-{np.dtype(d).name}" for s, d in CASES]


def _pair(name: str) -> tuple[Fn, Fn]:
    make = SOLVERS[name]
    return make(*LIBS[0]), make(*LIBS[1])


def _operands(dtype: Any) -> tuple[Any, Any]:
    return _spd(4, dtype), _vec(4, dtype)


def _derivatives(lib: tuple[ModuleType, ModuleType, ModuleType], name: str) -> Fn:
    """One jitted function of everything checked per case: jvp, grad and three vmaps."""
    f = SOLVERS[name](*lib)
    jx = lib[2]

    def loss(a: Any, b: Any) -> Any:
        return (f(a, b) ** 2).sum()

    def run(a: Any, b: Any, da: Any, db: Any, aa: Any, bb: Any) -> Any:
        return (
            jx.jvp(f, (a, b), (da, db)),
            jx.grad(loss, argnums=(0, 1))(a, b),
            jx.vmap(f, (0, None))(aa, b),
            jx.vmap(f, (None, 0))(a, bb),
            jx.vmap(f, (0, 0))(aa, bb),
        )

    jitted: Fn = jx.jit(run)
    return jitted


@pytest.mark.parametrize(("name", "dtype"), CASES, ids=IDS)
def test_values_jvp_grad_vmap(name: str, dtype: Any) -> None:
    ours, theirs = _pair(name)
    a, b = _operands(dtype)
    want = jax.jit(theirs)(a, b)
    _close(ours(a, b), want, dtype)  # eagerly: the primitive's compiled program
    _close(dx.jit(ours)(a, b), want, dtype)
    typecheck_jaxpr(dx.make_jaxpr(ours)(a, b).jaxpr)
    da, db = _spd(4, dtype, seed=5), _vec(4, dtype, seed=6)
    aa, bb = np.stack([a, _spd(4, dtype, seed=3)]), np.stack([b, _vec(4, dtype, seed=4)])
    args = (a, b, da, db, aa, bb)
    _close(_derivatives(LIBS[0], name)(*args), _derivatives(LIBS[1], name)(*args), dtype)


def _second_order(lib: tuple[ModuleType, ModuleType, ModuleType], name: str) -> Fn:
    f = SOLVERS[name](*lib)
    jx = lib[2]

    def loss(a: Any, b: Any) -> Any:
        return (f(a, b) ** 3).sum()

    def run(a: Any, b: Any, aa: Any) -> Any:
        return jx.hessian(loss, argnums=1)(a, b), jx.vmap(jx.grad(loss), (0, None))(aa, b)

    jitted: Fn = jx.jit(run)
    return jitted


# JAX's own batching of the aux case's grad fails (out_axes None for a batched aux).
@pytest.mark.parametrize("name", ["dense", "cg"])
def test_grad_of_grad_and_vmap_of_grad(name: str) -> None:
    a, b = _operands(np.float64)
    args = (a, b, np.stack([a, 2 * a]))
    _close(_second_order(LIBS[0], name)(*args), _second_order(LIBS[1], name)(*args), np.float64)


@pytest.mark.parametrize("name", ["dense", "cg"])
def test_finite_differences(name: str) -> None:
    ours, _ = _pair(name)
    a, b = _operands(np.float64)
    da, db = _spd(4, np.float64, seed=7), _vec(4, np.float64, seed=8)
    eps = 1e-6
    fd = np.asarray(ours(a + eps * da, b + eps * db)) - np.asarray(ours(a - eps * da, b - eps * db))
    _, tangent = dx.jvp(ours, (a, b), (da, db))
    np.testing.assert_allclose(np.asarray(tangent), fd / (2 * eps), rtol=1e-6, atol=1e-8)


def test_reverse_mode_needs_transpose_solve() -> None:
    a, b = _operands(np.float32)

    def f(b: Any) -> Any:
        return dlax.custom_linear_solve(lambda x: a @ x, b, lambda mv, y: dnp.linalg.solve(a, y))

    _close(dx.jvp(f, (b,), (b,)), jax.jvp(lambda b: jnp.linalg.solve(a, b), (b,), (b,)), np.float32)
    with pytest.raises(TypeError, match="transpose_solve required"):
        dx.grad(lambda b: f(b).sum())(b)


def test_callables_must_return_bs_structure() -> None:
    a, b = _operands(np.float32)
    with pytest.raises(TypeError, match=r"solve\(\) output pytree structure must match b"):
        dlax.custom_linear_solve(lambda x: a @ x, b, lambda mv, y: (y, y))
    with pytest.raises(ValueError, match=r"matvec\(\) output shapes must match b"):
        dlax.custom_linear_solve(lambda x: x[:2], b, lambda mv, y: y)
    with pytest.raises(ValueError, match="auxiliary output was expected"):
        dlax.custom_linear_solve(lambda x: a @ x, b, lambda mv, y: y, has_aux=True)


def test_linear_solve_p_is_public() -> None:
    assert dlax.linear_solve_p.name == jax.lax.linear_solve_p.name == "custom_linear_solve"


# --- custom_root ---------------------------------------------------------------------------


def newton_sqrt(lax: ModuleType, np_: ModuleType, _: ModuleType) -> Fn:
    """The square root of each element of ``a`` by Newton's method on ``x * x - a``."""

    def newton(f: Fn, x0: Any) -> Any:
        return lax.fori_loop(0, 30, lambda i, x: x - f(x) / (2 * x), x0)

    def f(a: Any) -> Any:
        return lax.custom_root(
            lambda x: x * x - a, np_.ones_like(a), newton, lambda g, y: y / g(np_.ones_like(y))
        )

    return f


def newton_cubic_aux(lax: ModuleType, np_: ModuleType, jx: ModuleType) -> Fn:
    """A vector root of ``A x + x^3 = c`` (Newton with the Jacobian), with an aux count."""

    def f(a: Any, c: Any) -> Any:
        def fun(x: Any) -> Any:
            return a @ x + x**3 - c

        def solve(g: Fn, x0: Any) -> Any:
            def step(i: Any, x: Any) -> Any:
                return x - np_.linalg.solve(jx.jacfwd(g)(x), g(x))

            return lax.fori_loop(0, 20, step, x0), np_.float64(20)

        def tangent_solve(g: Fn, y: Any) -> Any:
            return np_.linalg.solve(jx.jacfwd(g)(y), y)

        x, n = lax.custom_root(fun, c * 0.0, solve, tangent_solve, has_aux=True)
        return x * (n > 0)

    return f


def _root_checks(lib: tuple[ModuleType, ModuleType, ModuleType]) -> Fn:
    f = newton_sqrt(*lib)
    jx = lib[2]

    def loss(a: Any) -> Any:
        return (f(a) ** 3).sum()

    def run(a: Any, aa: Any) -> Any:
        return (
            jx.jvp(f, (a,), (a,)),
            jx.grad(loss)(a),
            jx.hessian(loss)(a),
            jx.vmap(f)(aa),
            jx.vmap(jx.grad(loss))(aa),
        )

    jitted: Fn = jx.jit(run)
    return jitted


def test_custom_root_scalar_newton() -> None:
    ours, theirs = newton_sqrt(*LIBS[0]), newton_sqrt(*LIBS[1])
    for dtype in DTYPES:
        a = np.array([2.0, 3.0, 9.0], dtype)
        _close(ours(a), jax.jit(theirs)(a), dtype)
        _close(dx.jit(dx.grad(lambda a: ours(a).sum()))(a), 0.5 / np.sqrt(a), dtype)
    args = (a, np.stack([a, 2 * a]))  # the derivatives against JAX's, in float64
    _close(_root_checks(LIBS[0])(*args), _root_checks(LIBS[1])(*args), np.float64)


def test_custom_root_vector_newton_with_aux() -> None:
    ours, theirs = newton_cubic_aux(*LIBS[0]), newton_cubic_aux(*LIBS[1])
    a, c = _spd(3, np.float64), _vec(3, np.float64)
    _close(dx.jit(ours)(a, c), jax.jit(theirs)(a, c), np.float64)

    def loss(f: Fn) -> Fn:
        return lambda a, c: (f(a, c) ** 2).sum()

    _close(
        dx.jit(dx.grad(loss(ours), argnums=(0, 1)))(a, c),
        jax.jit(jax.grad(loss(theirs), argnums=(0, 1)))(a, c),
        np.float64,
    )
    dc = _vec(3, np.float64, seed=9)
    eps = 1e-6
    fd = (np.asarray(ours(a, c + eps * dc)) - np.asarray(ours(a, c - eps * dc))) / (2 * eps)
    np.testing.assert_allclose(
        np.asarray(dx.jvp(lambda c: ours(a, c), (c,), (dc,))[1]), fd, rtol=1e-6
    )


def test_custom_root_checks_structures() -> None:
    with pytest.raises(TypeError, match=r"f\(\) output pytree structure must match initial_guess"):
        dlax.custom_root(lambda x: (x, x), 1.0, lambda f, x: x, lambda g, y: y)
    with pytest.raises(ValueError, match="auxiliary output was expected"):
        dlax.custom_root(lambda x: x, 1.0, lambda f, x: x, lambda g, y: y, has_aux=True)


def test_a_solve_costs_its_solve_program() -> None:
    from didax.api.flops import flops

    a, b = _operands(np.float32)

    def solve(mv: Fn, y: Any) -> Any:
        return dnp.linalg.solve(a, y)

    def f(b: Any) -> Any:
        return dlax.custom_linear_solve(lambda x: a @ x, b, solve, symmetric=True)

    assert flops(f)(b) == flops(lambda y: solve(lambda x: x, y))(b) > 0
