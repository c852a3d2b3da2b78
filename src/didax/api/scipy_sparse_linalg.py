"""``didax.scipy.sparse.linalg``: the Krylov solvers ``cg``, ``bicgstab``, ``gmres``, as JAX's.

Design rules:
- JAX's algorithms step for step, each one ``while_loop``: conjugate
  gradients (``cg``, symmetric positive definite ``A``), BiCGSTAB, and
  restarted GMRES (``solve_method='batched'``: Arnoldi then one small
  least-squares solve per restart; ``'incremental'``: Givens rotations
  each step). ``A`` and the preconditioner ``M`` are matrices or
  functions; ``b`` and ``x0`` are pytrees of arrays (every vector
  operation maps over the leaves).
- Each solve is wrapped in ``custom_linear_solve``, so it differentiates
  implicitly (the derivative is another solve), as JAX's; ``cg`` declares
  a real ``A`` symmetric, so its transpose solve is itself.
- The second result (``info``) is JAX's: None for ``cg`` and ``bicgstab``,
  0 or -1 (a NaN solution) for ``gmres``.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any, cast

import attrs
import numpy as np
from jax import tree_util

from didax.api.control_flow import fori_loop, while_loop
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.contractions import einsum, vdot
from didax.api.numpy.creation import eye, zeros, zeros_like
from didax.api.numpy.elementwise import abs as _abs
from didax.api.numpy.elementwise import logical_and, logical_not, maximum, minimum, sqrt, where
from didax.api.numpy.linear_algebra import dot
from didax.api.numpy.more_elementwise import isnan
from didax.api.numpy.operands import as_result, asarray, astype, operand
from didax.api.numpy.rearranging import pad
from didax.api.scipy_linalg import cho_factor, cho_solve, solve_triangular
from didax.api.solves import custom_linear_solve
from didax.core import dtypes, lax
from didax.core.lax.precision import Precision

__all__ = ["cg", "bicgstab", "gmres"]

Tree = Any  # a pytree of arrays: b, x0 and every Krylov vector
LinearOperator = Callable[[Tree], Tree]

_dot = functools.partial(dot, precision=Precision.HIGHEST)
_vdot = functools.partial(vdot, precision=Precision.HIGHEST)
_einsum = functools.partial(einsum, precision=Precision.HIGHEST)


def _vdot_real_part(x: Array, y: Array) -> Array:
    result = _vdot(x.real, y.real)
    if dtypes.is_complex(x.dtype) or dtypes.is_complex(y.dtype):
        result = result + _vdot(x.imag, y.imag)
    return result


def _total(terms: list[Array]) -> Array:
    return functools.reduce(operator.add, terms)


def _vdot_real_tree(x: Tree, y: Tree) -> Array:
    return _total(tree_util.tree_leaves(tree_util.tree_map(_vdot_real_part, x, y)))


def _vdot_tree(x: Tree, y: Tree) -> Array:
    return _total(tree_util.tree_leaves(tree_util.tree_map(_vdot, x, y)))


def _norm(x: Tree) -> Array:
    xs = tree_util.tree_leaves(x)
    return sqrt(_total([_vdot_real_part(a, a) for a in xs]))


def _mul(scalar: ArrayLike, tree: Tree) -> Tree:
    return tree_util.tree_map(functools.partial(operator.mul, scalar), tree)


def _add(x: Tree, y: Tree) -> Tree:
    return tree_util.tree_map(operator.add, x, y)


def _sub(x: Tree, y: Tree) -> Tree:
    return tree_util.tree_map(operator.sub, x, y)


def _identity(x: Tree) -> Tree:
    return x


def _normalize_matvec(name: str, f: object) -> LinearOperator:
    """``f`` as a function: a callable as it is, a square matrix as its product."""
    if callable(f):
        return cast(LinearOperator, f)
    shape = getattr(f, "shape", None)
    if shape is not None and hasattr(f, "ndim"):
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(
                f"{name}: linear operator must be a square matrix, but has shape: {tuple(shape)}"
            )
        matrix = as_result(operand(cast(ArrayLike, f)))
        return lambda x: _dot(matrix, x)
    raise TypeError(f"{name}: linear operator must be either a function or ndarray: {f}")


@attrs.frozen
class _Stop:
    """When and how an iterative solver stops, and its preconditioner ``M``.

    It stops when ``|r|^2 <= atol2(b)`` (JAX's ``max(tol^2 |b|^2, atol^2)``)
    or after ``maxiter`` steps.
    """

    maxiter: int
    tol: float
    atol: float
    M: LinearOperator

    def atol2(self, b: Tree) -> Array:
        return maximum(self.tol**2 * _vdot_real_tree(b, b), self.atol**2)


def _cg_solve(A: LinearOperator, b: Tree, x0: Tree, stop: _Stop) -> Tree:
    atol2, maxiter, M = stop.atol2(b), stop.maxiter, stop.M
    r0 = _sub(b, A(x0))
    p0 = z0 = M(r0)
    dtype, _ = dtypes.result_type((v.dtype, v.weak_type) for v in tree_util.tree_leaves(p0))
    gamma0 = astype(_vdot_real_tree(r0, z0), dtype)

    def cond_fun(value: tuple[Tree, Tree, Array, Tree, Array]) -> Array:
        _, r, gamma, _, k = value
        rs = gamma.real if M is _identity else _vdot_real_tree(r, r)
        going: Array = (rs > atol2) & (k < maxiter)
        return going

    def body_fun(
        value: tuple[Tree, Tree, Array, Tree, Array],
    ) -> tuple[Tree, Tree, Array, Tree, Array]:
        x, r, gamma, p, k = value
        ap = A(p)
        alpha = gamma / astype(_vdot_real_tree(p, ap), dtype)
        x_ = _add(x, _mul(alpha, p))
        r_ = _sub(r, _mul(alpha, ap))
        z_ = M(r_)
        gamma_ = astype(_vdot_real_tree(r_, z_), dtype)
        p_ = _add(z_, _mul(gamma_ / gamma, p))
        return x_, r_, gamma_, p_, k + 1

    return while_loop(cond_fun, body_fun, (x0, r0, gamma0, p0, 0))[0]


def _bicgstab_solve(A: LinearOperator, b: Tree, x0: Tree, stop: _Stop) -> Tree:
    atol2, maxiter, M = stop.atol2(b), stop.maxiter, stop.M

    def cond_fun(value: tuple[Any, ...]) -> Array:
        r, k = value[1], value[-1]
        going: Array = (_vdot_real_tree(r, r) > atol2) & (k < maxiter) & (k >= 0)
        return going

    def body_fun(value: tuple[Any, ...]) -> tuple[Any, ...]:
        x, r, rhat, alpha, omega, rho, p, q, k = value
        rho_ = _vdot_tree(rhat, r)
        beta = rho_ / rho * alpha / omega
        p_ = _add(r, _mul(beta, _sub(p, _mul(omega, q))))
        phat = M(p_)
        q_ = A(phat)
        alpha_ = rho_ / _vdot_tree(rhat, q_)
        s = _sub(r, _mul(alpha_, q_))
        exit_early = _vdot_real_tree(s, s) < atol2
        shat = M(s)
        t = A(shat)
        omega_ = _vdot_tree(t, s) / _vdot_tree(t, t)
        pick = functools.partial(where, exit_early)
        x_ = tree_util.tree_map(
            pick, _add(x, _mul(alpha_, phat)), _add(x, _add(_mul(alpha_, phat), _mul(omega_, shat)))
        )
        r_ = tree_util.tree_map(pick, s, _sub(s, _mul(omega_, t)))
        # JAX's breakdown codes: -11 when omega or alpha vanish, -10 when rho does.
        k_ = where((omega_ == 0) | (alpha_ == 0), -11, k + 1)
        k_ = where(rho_ == 0, -10, k_)
        return x_, r_, rhat, alpha_, omega_, rho_, p_, q_, k_

    r0 = _sub(b, A(x0))
    dtype, weak = dtypes.result_type((v.dtype, v.weak_type) for v in tree_util.tree_leaves(b))
    one = astype(1, dtype, weak)
    return while_loop(cond_fun, body_fun, (x0, r0, r0, one, one, one, r0, r0, 0))[0]


def _shapes(tree: Tree) -> list[tuple[int, ...]]:
    return [np.shape(leaf) for leaf in tree_util.tree_leaves(tree)]


def _prepare(
    name: str,
    A: object,
    b: Tree,
    x0: Tree | None,
    maxiter: int | None,
    M: object,
) -> tuple[LinearOperator, Tree, Tree, int, LinearOperator]:
    b = tree_util.tree_map(asarray, b)
    x0 = tree_util.tree_map(zeros_like, b) if x0 is None else tree_util.tree_map(asarray, x0)
    size = sum(leaf.size for leaf in tree_util.tree_leaves(b))
    if maxiter is None:
        maxiter = 10 * size
    if cast(object, tree_util.tree_structure(x0)) != tree_util.tree_structure(b):
        raise ValueError(
            f"{name}: x0 and b must have matching tree structure: "
            f"{tree_util.tree_structure(x0)} vs {tree_util.tree_structure(b)}"
        )
    if _shapes(x0) != _shapes(b):
        raise ValueError(
            f"{name}: arrays in x0 and b must have matching shapes: {_shapes(x0)} vs {_shapes(b)}"
        )
    m = _identity if M is None else _normalize_matvec(name, M)
    return _normalize_matvec(name, A), b, x0, maxiter, m


def _isolve(
    name: str,
    solver: Callable[[LinearOperator, Tree, Tree, _Stop], Tree],
    A: object,
    b: Tree,
    x0: Tree | None,
    tol: float,
    atol: float,
    maxiter: int | None,
    M: object,
    check_symmetric: bool,
) -> tuple[Tree, None]:
    a, b, x0, maxiter, m = _prepare(name, A, b, x0, maxiter, M)
    stop = _Stop(maxiter, tol, atol, m)

    def solve(matvec: LinearOperator, rhs: Tree) -> Tree:
        return solver(matvec, rhs, x0, stop)

    symmetric = check_symmetric and not any(
        dtypes.is_complex(leaf.dtype) for leaf in tree_util.tree_leaves(b)
    )
    x = custom_linear_solve(a, b, solve=solve, transpose_solve=solve, symmetric=symmetric)
    return x, None


def cg(
    A: object,
    b: Tree,
    x0: Tree | None = None,
    *,
    tol: float = 1e-5,
    atol: float = 0.0,
    maxiter: int | None = None,
    M: object = None,
) -> tuple[Tree, None]:
    """Solve ``A x = b`` by conjugate gradients (``A`` Hermitian positive definite).

    ``A`` and the preconditioner ``M`` are square matrices or functions of
    a pytree like ``b``; stops when ``|r| <= max(tol |b|, atol)`` or after
    ``maxiter`` steps (10 times ``b``'s size). Returns ``(x, None)``.

    >>> import numpy as np
    >>> x, _ = cg(np.array([[4.0, 1.0], [1.0, 3.0]]), np.array([1.0, 2.0]))
    >>> x.round(4)
    Array([0.0909, 0.6364], dtype=float32)
    """
    return _isolve("cg", _cg_solve, A, b, x0, tol, atol, maxiter, M, check_symmetric=True)


def bicgstab(
    A: object,
    b: Tree,
    x0: Tree | None = None,
    *,
    tol: float = 1e-5,
    atol: float = 0.0,
    maxiter: int | None = None,
    M: object = None,
) -> tuple[Tree, None]:
    """Solve ``A x = b`` by BiCGSTAB (any nonsingular ``A``); arguments as ``cg``'s."""
    return _isolve("bicgstab", _bicgstab_solve, A, b, x0, tol, atol, maxiter, M, False)


# --- GMRES ----------------------------------------------------------------------------------


def _safe_normalize(x: Tree, thresh: Array | None = None) -> tuple[Tree, Array]:
    """``x / |x|`` and ``|x|``, or zeros and 0 where ``|x|`` is below ``thresh`` (eps)."""
    norm = _norm(x)
    dtype, weak = dtypes.result_type((v.dtype, v.weak_type) for v in tree_util.tree_leaves(x))
    limit = asarray(np.finfo(norm.dtype).eps) if thresh is None else thresh
    limit = astype(limit, dtype).real
    use_norm = norm > limit
    norm_cast = astype(norm, dtype, weak)
    normalized = tree_util.tree_map(lambda y: where(use_norm, y / norm_cast, 0.0), x)
    return normalized, where(use_norm, norm, 0.0)


def _project_on_columns(basis: Tree, v: Tree) -> Array:
    proj = tree_util.tree_map(lambda m, y: _einsum("...n,...->n", m.conj(), y), basis, v)
    out: Array = tree_util.tree_reduce(operator.add, proj)
    return out


def _gram_schmidt(
    basis: Tree, x: Tree, xnorm: Array, max_iterations: int = 2
) -> tuple[Tree, Array]:
    """``x`` orthogonalised against ``basis``'s columns, repeated while it loses norm (JAX's)."""
    first = tree_util.tree_leaves(basis)[0]
    r0 = zeros(first.shape[-1], dtype=first.dtype)

    def body(carry: tuple[Any, Tree, Array, Array]) -> tuple[Any, Tree, Array, Array]:
        k, q, r, qnorm_scaled = carry
        h = _project_on_columns(basis, q)
        q = _sub(q, tree_util.tree_map(lambda m: _dot(m, h), basis))
        r = _add(r, h)

        def renorm(c: tuple[Any, Any, Tree, Array]) -> tuple[Any, Any, Tree, Array]:
            _, qn = _safe_normalize(c[2])
            return c[0], False, c[2], qn / np.sqrt(2.0)

        # JAX runs this loop at most once: it recomputes q's norm while k < max - 1.
        _, _, q, qnorm_scaled = while_loop(
            lambda c: logical_and(c[1], c[0] < max_iterations - 1),
            renorm,
            (k, True, q, qnorm_scaled),
        )
        return k + 1, q, r, qnorm_scaled

    def cond(carry: tuple[Any, Tree, Array, Array]) -> Array:
        k, _, r, qnorm_scaled = carry
        _, rnorm = _safe_normalize(r)
        going: Array = logical_and(k < max_iterations - 1, rnorm < qnorm_scaled)
        return going

    carry = body((0, x, r0, xnorm / sqrt(2.0)))
    _, q, r, _ = while_loop(cond, body, carry)
    return q, r


def _arnoldi_step(
    k: Array,
    A: LinearOperator,
    M: LinearOperator,
    V: Tree,
    H: Array,
) -> tuple[Tree, Array, Array]:
    dtype, _ = dtypes.result_type((v.dtype, v.weak_type) for v in tree_util.tree_leaves(V))
    eps = np.finfo(cast(Any, dtype)).eps
    v = M(A(tree_util.tree_map(lambda m: m[..., k], V)))
    _, v_norm_0 = _safe_normalize(v)
    v, h = _gram_schmidt(V, v, v_norm_0, max_iterations=2)
    unit_v, v_norm_1 = _safe_normalize(v, thresh=eps * v_norm_0)
    V = tree_util.tree_map(lambda m, y: m.at[..., k + 1].set(y), V, unit_v)
    h = h.at[k + 1].set(astype(v_norm_1, dtype))
    return V, H.at[k, :].set(h), v_norm_1 == 0.0


def _rotate(H: Array, i: Any, cs: Array, sn: Array) -> Array:
    x1, y1 = H[i], H[i + 1]
    H = H.at[i].set(cs.conj() * x1 - sn.conj() * y1)
    out: Array = H.at[i + 1].set(sn * x1 + cs * y1)
    return out


def _givens(a: Array, b: Array) -> tuple[Array, Array]:
    b_zero = _abs(b) == 0
    a_lt_b = _abs(a) < _abs(b)
    t = -where(a_lt_b, a, b) / where(a_lt_b, b, a)
    r = astype(lax.rsqrt(1 + _abs(t) ** 2), t.dtype)
    cs = where(b_zero, 1, where(a_lt_b, r * t, r))
    sn = where(b_zero, 0, where(a_lt_b, r, r * t))
    return cs, sn


def _krylov_basis(unit_residual: Tree, restart: int) -> Tree:
    return tree_util.tree_map(
        lambda x: pad(x[..., None], ((0, 0),) * x.ndim + ((0, restart),)), unit_residual
    )


_Restart = Callable[..., tuple[Tree, Tree, Array]]


def _finish(A: LinearOperator, M: LinearOperator, b: Tree, x0: Tree, V: Tree, y: Array) -> Any:
    x = _add(x0, tree_util.tree_map(lambda m: _dot(m[..., :-1], y), V))
    unit_residual, residual_norm = _safe_normalize(M(_sub(b, A(x))))
    return x, unit_residual, residual_norm


def _gmres_incremental(
    A: LinearOperator,
    b: Tree,
    x0: Tree,
    unit_residual: Tree,
    residual_norm: Array,
    ptol: Array,
    restart: int,
    M: LinearOperator,
) -> tuple[Tree, Tree, Array]:
    V = _krylov_basis(unit_residual, restart)
    dtype, _ = dtypes.result_type((v.dtype, v.weak_type) for v in tree_util.tree_leaves(b))
    R = eye(restart, restart + 1, dtype=dtype)
    givens = zeros((restart, 2), dtype=dtype)
    beta_vec = zeros(restart + 1, dtype=dtype).at[0].set(astype(residual_norm, dtype))

    def step(carry: tuple[Any, ...]) -> tuple[Any, ...]:
        k, _, V, R, beta_vec, givens = carry
        V, H, _ = _arnoldi_step(k, A, M, V, R)
        row = fori_loop(0, k, lambda i, h: _rotate(h, i, givens[i, 0], givens[i, 1]), H[k, :])
        cs, sn = _givens(row[k], row[k + 1])
        givens = givens.at[k, :].set(asarray([cs, sn]))
        R = R.at[k, :].set(_rotate(row, k, cs, sn))
        beta_vec = _rotate(beta_vec, k, cs, sn)
        return k + 1, _abs(beta_vec[k + 1]), V, R, beta_vec, givens

    carry = while_loop(
        lambda c: logical_and(c[0] < restart, c[1] > ptol),
        step,
        (0, residual_norm, V, R, beta_vec, givens),
    )
    _, _, V, R, beta_vec, _ = carry
    y = solve_triangular(R[:, :-1].T, beta_vec[:-1])
    out: tuple[Tree, Tree, Array] = _finish(A, M, b, x0, V, y)
    return out


def _gmres_batched(
    A: LinearOperator,
    b: Tree,
    x0: Tree,
    unit_residual: Tree,
    residual_norm: Array,
    ptol: Array,
    restart: int,
    M: LinearOperator,
) -> tuple[Tree, Tree, Array]:
    del ptol  # the batched form always runs the whole restart
    V = _krylov_basis(unit_residual, restart)
    dtype, weak = dtypes.result_type((v.dtype, v.weak_type) for v in tree_util.tree_leaves(b))
    H = astype(eye(restart, restart + 1, dtype=dtype), dtype, weak)

    def step(carry: tuple[Any, ...]) -> tuple[Any, ...]:
        V, H, _, k = carry
        V, H, breakdown = _arnoldi_step(k, A, M, V, H)
        return V, H, breakdown, k + 1

    V, H, _, _ = while_loop(
        lambda c: logical_and(c[3] < restart, logical_not(c[2])), step, (V, H, False, 0)
    )
    beta_vec = zeros_like(H, shape=(restart + 1,)).at[0].set(astype(residual_norm, dtype))
    # JAX's least squares: the normal equations, solved by Cholesky.
    a = H.T
    y = cho_solve(cho_factor(_dot(a.T.conj(), a)), _dot(a.T.conj(), beta_vec))
    out: tuple[Tree, Tree, Array] = _finish(A, M, b, x0, V, y)
    return out


def gmres(
    A: object,
    b: Tree,
    x0: Tree | None = None,
    *,
    tol: float = 1e-5,
    atol: float = 0.0,
    restart: int = 20,
    maxiter: int | None = None,
    M: object = None,
    solve_method: str = "batched",
) -> tuple[Tree, Array]:
    """Solve ``A x = b`` by restarted GMRES (any nonsingular ``A``).

    ``restart`` is the Krylov dimension per restart, ``maxiter`` the number
    of restarts; ``solve_method`` is ``'batched'`` or ``'incremental'``.
    Returns ``(x, info)``, ``info`` -1 if ``x`` has NaNs, else 0.
    """
    if solve_method == "incremental":
        method: _Restart = _gmres_incremental
    elif solve_method == "batched":
        method = _gmres_batched
    else:
        raise ValueError(
            f"gmres: invalid solve_method {solve_method}, must be either 'incremental' or 'batched'"
        )
    a, b, x0, maxiter, m = _prepare("gmres", A, b, x0, maxiter, M)
    size = sum(leaf.size for leaf in tree_util.tree_leaves(b))
    restart = min(restart, size)
    b_norm = _norm(b)
    atol_ = maximum(tol * b_norm, atol)
    ptol = _norm(m(b)) * minimum(1.0, atol_ / b_norm)

    def solve(op: LinearOperator, rhs: Tree) -> Tree:
        unit_residual, residual_norm = _safe_normalize(m(_sub(rhs, op(x0))))

        def body(value: tuple[Any, ...]) -> tuple[Any, ...]:
            x, k, unit, norm = value
            x, unit, norm = method(op, rhs, x, unit, norm, ptol, restart, m)
            return x, k + 1, unit, norm

        return while_loop(
            lambda v: logical_and(v[1] < maxiter, v[3] > atol_),
            body,
            (x0, 0, unit_residual, residual_norm),
        )[0]

    x = custom_linear_solve(a, b, solve=solve, transpose_solve=solve)
    return x, where(isnan(_norm(x)), -1, 0)
