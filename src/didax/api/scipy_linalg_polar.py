"""``didax.scipy.linalg.polar``: the polar decomposition, by JAX's QDWH or through the SVD.

Design rules:
- ``method='qdwh'`` (the default) is JAX's QR-based dynamically weighted
  Halley iteration (Nakatsukasa, Bai and Gygi 2010): the weights of the
  first iterations depend only on the dtype's epsilon, so they are computed
  in Python and baked in; iterations whose weight ``c`` exceeds 100 go
  through a QR factorization, the others through a Cholesky factorization
  (cheaper, stable once ``c`` is small), then fixed Halley steps run until
  the update's norm is below ``eps^(1/3)`` or 10 iterations are done, and a
  Newton-Schulz step polishes ``u``, as JAX's ``qdwh``.
- ``method='svd'`` is ``u @ vh`` and ``v^H diag(s) v`` (or ``u diag(s) u^H``).
- Leading axes are a batch, mapped with ``vmap`` as JAX's ``vectorize``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from didax.api.control_flow import fori_loop, while_loop
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.decompositions import conj_transpose, inexact
from didax.api.numpy.elementwise import where
from didax.api.numpy.linalg import norm
from didax.api.numpy.manipulation import concatenate
from didax.api.numpy.operands import astype
from didax.api.transformations import vmap
from didax.core import dtypes, lax
from didax.core.lax import linalg as lax_linalg
from didax.core.values import get_aval

__all__ = ["polar"]

_CHOLESKY_CUTOFF = 100  # JAX's: a QR step while the weight c exceeds it
_MAX_ITERATIONS = 10


def _use_qr(u: Array, params: Array) -> Array:
    """One weighted Halley step through the QR factorization of ``[sqrt(c) u; I]``."""
    a_minus_e_by_sqrt_c, sqrt_c, e = params[0], params[1], params[2]
    m, n = get_aval(u).shape
    y = concatenate([sqrt_c * u, np.eye(n, dtype=get_aval(u).dtype)], axis=0)
    q, _ = lax_linalg.qr(y, full_matrices=False)
    q1, q2 = q[:m], conj_transpose(q[m:])
    out: Array = e * u + a_minus_e_by_sqrt_c * (q1 @ q2)
    return out


def _use_cholesky(u: Array, params: Array) -> Array:
    """One weighted Halley step through the Cholesky factor of ``c u^H u + I``."""
    a_minus_e, c, e = params[0], params[1], params[2]
    n = get_aval(u).shape[1]
    x = c * (conj_transpose(u) @ u) + np.eye(n, dtype=get_aval(u).dtype)
    y = lax_linalg.cholesky(x, symmetrize_input=False)
    z = lax_linalg.triangular_solve(y, u.T, left_side=True, lower=True, conjugate_a=True).conj()
    z = conj_transpose(
        lax_linalg.triangular_solve(
            y, z, left_side=True, lower=True, transpose_a=True, conjugate_a=True
        )
    )
    out: Array = e * u + a_minus_e * z
    return out


def _weights(eps: float) -> tuple[list[tuple[float, ...]], list[tuple[float, ...]]]:
    """The dynamic weights ``(a, b, c)`` of the iterations, as QR and Cholesky parameters."""
    qr_coefs: list[tuple[float, ...]] = []
    chol_coefs: list[tuple[float, ...]] = []
    lo, tol_l = eps, 10.0 * eps / 2.0
    while lo + tol_l < 1 and len(qr_coefs) + len(chol_coefs) < _MAX_ITERATIONS:
        l2 = lo * lo
        dd = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        sqd = (1.0 + dd) ** (1 / 2)
        a = sqd + (2 - dd + 2 * (2 - l2) / (l2 * sqd)) ** (1 / 2)
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        lo = lo * (a + b * l2) / (1 + c * l2)
        e = b / c
        if c > _CHOLESKY_CUTOFF:
            qr_coefs.append(((a - e) / c ** (1 / 2), c ** (1 / 2), e))
        else:
            chol_coefs.append((a - e, c, e))
    return qr_coefs, chol_coefs


def _finfo_eps(dtype: np.dtype[Any]) -> float:
    wide = dtypes.real_dtype(dtype) == dtypes.float64
    return float(np.finfo(np.float64).eps if wide else np.finfo(np.float32).eps)


def _qdwh(x: Array, eps: float | None) -> tuple[Array, Array]:
    """``(u, h)``, the polar factors of ``x`` (``m >= n``), by JAX's QDWH iteration."""
    dtype = get_aval(x).dtype
    if eps is None:
        eps = _finfo_eps(dtype)
    one_norm, inf_norm = norm(x, ord=1), norm(x, ord=np.inf)
    alpha_inverse = where(one_norm == 0, 1, lax.rsqrt(one_norm) * lax.rsqrt(inf_norm))
    u = x * astype(alpha_inverse, dtype)
    tol_norm = lax.cbrt(10.0 * eps / 2.0)
    qr_coefs, chol_coefs = _weights(eps)

    def steps(u: Array, coefs: list[tuple[float, ...]], update: Any, test: bool) -> Any:
        table = np.array(coefs, dtype=dtype)

        def body(k: Any, state: Any) -> Any:
            u_prev, _ = state
            u_new = update(u_prev, lax.dynamic_index_in_dim(table, k, 0, False))
            return u_new, (norm(u_new - u_prev) > tol_norm) if test else True

        return fori_loop(0, len(coefs), body, (u, np.bool_(True)))

    if qr_coefs:
        u, _ = steps(u, qr_coefs, _use_qr, False)
    not_converged: Any = np.bool_(True)
    if chol_coefs:
        u, not_converged = steps(u, chol_coefs, _use_cholesky, True)
    fixed: Array = astype(np.array([3 - 1 / 3, 3, 1 / 3]), dtype)  # the weights a=3, b=1, c=3

    def cond_fun(state: Any) -> Any:
        k, _, not_converged = state
        return not_converged & (k < _MAX_ITERATIONS)

    def body_fun(state: Any) -> Any:
        k, u_prev, _ = state
        u_new = _use_cholesky(u_prev, fixed)
        return k + 1, u_new, norm(u_new - u_prev) > tol_norm

    start = np.int32(len(qr_coefs) + len(chol_coefs))
    _, u, _ = while_loop(cond_fun, body_fun, (start, u, not_converged))
    u = 1.5 * u - 0.5 * u @ (conj_transpose(u) @ u)
    h = conj_transpose(u) @ x
    h = (h + conj_transpose(h)) / 2
    return u, h


def _polar_2d(a: Array, side: str, method: str, eps: float | None) -> tuple[Array, Array]:
    m, n = get_aval(a).shape
    if method == "qdwh":
        if m >= n and side == "right":
            return _qdwh(a, eps)
        if m < n and side == "left":
            unitary, posdef = _qdwh(conj_transpose(a), eps)
            return conj_transpose(unitary), conj_transpose(posdef)
        raise NotImplementedError(
            "method='qdwh' only supports mxn matrices where m < n where side='right' and "
            f"m >= n side='left', got {(m, n)} with side={side!r}"
        )
    if method == "svd":
        u, s, vh = lax_linalg.svd(a, full_matrices=False)
        s = astype(s, get_aval(u).dtype)
        if side == "right":
            return u @ vh, (conj_transpose(vh) * s[None, :]) @ vh
        return u @ vh, (u * s[None, :]) @ conj_transpose(u)
    raise ValueError(f"Unknown polar decomposition method {method}.")


def polar(
    a: ArrayLike,
    side: str = "right",
    *,
    method: str = "qdwh",
    eps: float | None = None,
    max_iterations: int | None = None,
) -> tuple[Array, Array]:
    """``(u, p)``: unitary ``u`` and positive semidefinite ``p`` with ``a = u p``
    (``side='right'``) or ``a = p u`` (``'left'``).

    >>> import numpy as np
    >>> u, p = polar(np.array([[2.0, 0.0], [0.0, -3.0]]), method="svd")
    >>> p
    Array([[2., 0.],
           [0., 3.]], dtype=float32)
    """
    del max_iterations  # as JAX's: its qdwh runs at most 10 iterations
    arr = inexact(a)
    shape = get_aval(arr).shape
    if len(shape) < 2:
        raise ValueError("The input `a` must be at least a 2-D array.")
    if side not in ("right", "left"):
        raise ValueError("The argument `side` must be either 'right' or 'left'.")

    def fn(x: Array) -> tuple[Array, Array]:
        return _polar_2d(x, side, method, eps)

    mapped: Any = fn
    for _ in shape[:-2]:
        mapped = vmap(mapped)
    out: tuple[Array, Array] = mapped(arr)
    return out
