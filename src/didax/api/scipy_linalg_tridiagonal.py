"""``didax.scipy.linalg.eigh_tridiagonal``: eigenvalues of a symmetric tridiagonal matrix.

Design rules:
- JAX's algorithm: bisection on Sturm sequence counts, all eigenvalues at
  once (one interval per wanted eigenvalue), from Gershgorin bounds widened
  by JAX's slack, until the widest interval is below ``eps * |T|`` (or
  ``tol``) or the mantissa's bits are spent. The Sturm recurrence runs as a
  ``fori_loop`` (JAX unrolls it by 16 in a ``while_loop``: the same steps).
- ``select='a'`` (all) and ``select='i'`` (an index range) are JAX's;
  ``'v'`` JAX refuses too.
- Eigenvectors (``eigvals_only=False``) JAX computes by inverse iteration
  from random starts through ``lax.linalg.tridiagonal_solve``, a primitive
  didax does not have: didax refuses them with ``NotImplementedError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from didax.api.control_flow import fori_loop, while_loop
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import abs as _abs
from didax.api.numpy.elementwise import maximum, minimum, sqrt, where
from didax.api.numpy.manipulation import broadcast_to, concatenate
from didax.api.numpy.more_elementwise import conj, real, square
from didax.api.numpy.operands import asarray
from didax.api.numpy.reductions import max as _max
from didax.api.numpy.reductions import min as _min
from didax.core import dtypes
from didax.core.values import get_aval

__all__ = ["eigh_tridiagonal"]


def _sturm(alpha: Array, beta_sq: Array, pivmin: Array, perturbation: Array, x: Array) -> Array:
    """For each ``x``, the number of eigenvalues below it (the Sturm sequence's sign changes)."""
    n = get_aval(alpha).shape[0]
    q = alpha[0] - x
    count = where(q < 0, np.int32(1), np.int32(0))
    q = where(alpha[0] == x, perturbation, q)

    def step(i: Any, carry: tuple[Array, Array]) -> tuple[Array, Array]:
        q, count = carry
        q = alpha[i] - beta_sq[i - 1] / q - x
        small = q <= pivmin
        return where(small, minimum(q, -pivmin), q), where(small, count + 1, count)

    counted: Array = fori_loop(1, n, step, (q, count))[1]
    return counted


def eigh_tridiagonal(
    d: ArrayLike,
    e: ArrayLike,
    *,
    eigvals_only: bool = False,
    select: str = "a",
    select_range: tuple[float, float] | None = None,
    tol: float | None = None,
    key: ArrayLike | None = None,
) -> Array:
    """The ascending eigenvalues of the Hermitian tridiagonal matrix with diagonal ``d`` and
    off-diagonal ``e`` (``eigvals_only=True``; didax has no eigenvectors).

    >>> import numpy as np
    >>> w = eigh_tridiagonal(np.array([2.0, 2.0]), np.array([1.0]), eigvals_only=True)
    >>> np.asarray(w).round(4)
    array([1., 3.], dtype=float32)
    """
    del key
    if not eigvals_only:
        raise NotImplementedError(
            "eigh_tridiagonal: eigenvectors need JAX's inverse iteration through "
            "lax.linalg.tridiagonal_solve, which didax does not have; pass eigvals_only=True"
        )
    alpha, beta = asarray(d), asarray(e)
    a_dtype, b_dtype = get_aval(alpha).dtype, get_aval(beta).dtype
    if a_dtype != b_dtype:
        raise TypeError(
            f"diagonal and off-diagonal values must have same dtype, got {a_dtype} and {b_dtype}"
        )
    if a_dtype not in (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128):
        raise TypeError(
            "Only float32 and float64 inputs are supported as inputs to "
            f"didax.scipy.linalg.eigh_tridiagonal, got {a_dtype} and {b_dtype}"
        )
    n = get_aval(alpha).shape[0]
    if n <= 1:
        out: Array = real(alpha)
        return out
    if dtypes.is_complex(a_dtype):
        alpha = real(alpha)
        beta_sq = real(beta * conj(beta))
        beta_abs = sqrt(beta_sq)
    else:
        beta_abs, beta_sq = _abs(beta), square(beta)
    row_sum = concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]], axis=0)
    est_max, est_min = _max(alpha + row_sum), _min(alpha - row_sum)
    t_norm = maximum(_abs(est_min), _abs(est_max))
    finfo = np.finfo(np.float64 if get_aval(alpha).dtype == dtypes.float64 else np.float32)
    one = finfo.dtype.type(1)
    safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
    pivmin = safemin * maximum(1, _max(beta_sq))
    perturbation = square(finfo.eps * beta_abs[0])
    abs_tol = finfo.eps * t_norm
    if tol is not None:
        abs_tol = maximum(tol, abs_tol)
    max_it = finfo.nmant + 1
    if select == "a":
        targets = np.arange(n, dtype=np.int32)
    elif select == "i":
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ValueError("Got empty index range in select_range.")
        targets = np.arange(select_range[0], select_range[1] + 1, dtype=np.int32)
    elif select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    else:
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    fudge = 2.1
    norm_slack = finfo.dtype.type(n) * fudge * finfo.eps * t_norm
    shape = targets.shape
    lower = broadcast_to(est_min - norm_slack - 2 * fudge * pivmin, shape)
    upper = broadcast_to(est_max + norm_slack + fudge * pivmin, shape)
    mid = 0.5 * (upper + lower)
    pivmin_b = broadcast_to(pivmin, shape)
    perturbation_b = broadcast_to(perturbation, shape)

    def cond(state: Any) -> Any:
        i, lo, _, hi = state
        return (i < max_it) & (abs_tol < _max(hi - lo))

    def body(state: Any) -> Any:
        i, lo, mid, hi = state
        counts = _sturm(alpha, beta_sq, pivmin_b, perturbation_b, mid)
        lo = where(counts <= targets, mid, lo)
        hi = where(counts > targets, mid, hi)
        return i + 1, lo, 0.5 * (lo + hi), hi

    eigenvalues: Array = while_loop(cond, body, (np.int32(0), lower, mid, upper))[2]
    return eigenvalues
