"""``didax.scipy.optimize``: ``minimize`` by BFGS, as ``jax.scipy.optimize`` defines it.

Design rules:
- JAX's BFGS: the inverse Hessian starts as the identity and takes the
  BFGS update after each step of JAX's strong-Wolfe line search
  (``api.scipy_line_search``); an update whose curvature ``1 / (y . s)``
  is not finite is skipped. One ``while_loop`` holds the iteration, so
  ``minimize`` runs under ``jit`` and ``vmap`` and differentiates forward
  (``jvp``), as JAX's.
- ``OptimizeResults`` is JAX's NamedTuple: ``status`` 0 converged, 1 the
  iteration limit, 2 plus the line search's status when it failed, -1
  otherwise.
- Only ``method='BFGS'`` (any case) is offered; JAX's experimental L-BFGS
  is not part of its promise and is refused with the other names.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from didax.api.autodiff import value_and_grad
from didax.api.control_flow import while_loop
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.contractions import einsum
from didax.api.numpy.creation import eye
from didax.api.numpy.elementwise import logical_not, where
from didax.api.numpy.linalg import norm as _norm
from didax.api.numpy.linear_algebra import dot
from didax.api.numpy.more_elementwise import isfinite, reciprocal
from didax.api.numpy.operands import as_result, operand
from didax.api.scipy_line_search import line_search
from didax.core.lax.precision import Precision

__all__ = ["minimize", "OptimizeResults"]

_dot = functools.partial(dot, precision=Precision.HIGHEST)
_einsum = functools.partial(einsum, precision=Precision.HIGHEST)


class OptimizeResults(NamedTuple):
    """The result of ``minimize``, as ``jax.scipy.optimize.OptimizeResults``.

    ``x`` the solution, ``success`` whether it converged without a failed
    line search, ``status`` the code (0 converged, 1 out of iterations,
    2 + the line search's status when it failed), ``fun``/``jac`` the
    function and gradient at ``x``, ``hess_inv`` the inverse Hessian
    estimate, ``nfev``/``njev`` the evaluations, ``nit`` the iterations.
    """

    x: Array
    success: bool | Array
    status: int | Array
    fun: Array
    jac: Array
    hess_inv: Array | None
    nfev: int | Array
    njev: int | Array
    nit: int | Array


class _BFGSState(NamedTuple):
    converged: Any
    failed: Any
    k: Any
    nfev: Any
    ngev: Any
    nhev: Any
    x_k: Any
    f_k: Any
    g_k: Any
    H_k: Any
    old_old_fval: Any
    status: Any
    line_search_status: Any


def _minimize_bfgs(
    fun: Callable[[Array], ArrayLike],
    x0: Array,
    maxiter: int | None = None,
    norm: float = np.inf,
    gtol: float = 1e-5,
    line_search_maxiter: int = 10,
) -> _BFGSState:
    if maxiter is None:
        maxiter = int(np.size(x0)) * 200
    d = x0.shape[0]
    f_0, g_0 = value_and_grad(fun)(x0)
    state = _BFGSState(
        converged=_norm(g_0, ord=norm) < gtol,
        failed=False,
        k=0,
        nfev=1,
        ngev=1,
        nhev=0,
        x_k=x0,
        f_k=f_0,
        g_k=g_0,
        H_k=eye(d, dtype=x0.dtype),
        old_old_fval=f_0 + _norm(g_0) / 2,
        status=0,
        line_search_status=0,
    )

    def cond_fun(s: _BFGSState) -> Array:
        going: Array = logical_not(s.converged) & logical_not(s.failed) & (s.k < maxiter)
        return going

    def body_fun(s: _BFGSState) -> _BFGSState:
        p_k = -_dot(s.H_k, s.g_k)
        ls = line_search(
            fun,
            s.x_k,
            p_k,
            old_fval=s.f_k,
            old_old_fval=s.old_old_fval,
            gfk=s.g_k,
            maxiter=line_search_maxiter,
        )
        s = s._replace(
            nfev=s.nfev + ls.nfev,
            ngev=s.ngev + ls.ngev,
            failed=ls.failed,
            line_search_status=ls.status,
        )
        s_k = ls.a_k * p_k
        y_k = ls.g_k - s.g_k
        rho_k = reciprocal(_dot(y_k, s_k))
        w = eye(d, dtype=rho_k.dtype) - rho_k * (s_k[:, None] * y_k[None, :])
        h_next = _einsum("ij,jk,lk", w, s.H_k, w) + rho_k * s_k[:, None] * s_k[None, :]
        h_next = where(isfinite(rho_k), h_next, s.H_k)
        return s._replace(
            converged=_norm(ls.g_k, ord=norm) < gtol,
            k=s.k + 1,
            x_k=s.x_k + s_k,
            f_k=ls.f_k,
            g_k=ls.g_k,
            H_k=h_next,
            old_old_fval=s.f_k,
        )

    state = while_loop(cond_fun, body_fun, state)
    status = where(
        state.converged,
        0,
        where(state.k == maxiter, 1, where(state.failed, 2 + state.line_search_status, -1)),
    )
    out: _BFGSState = state._replace(status=status)
    return out


def minimize(
    fun: Callable[..., ArrayLike],
    x0: ArrayLike,
    args: tuple[Any, ...] = (),
    *,
    method: str,
    tol: float | None = None,
    options: Mapping[str, Any] | None = None,
) -> OptimizeResults:
    """Minimise ``fun(x, *args)`` from ``x0`` (one-dimensional) by ``method='BFGS'``.

    ``options`` are BFGS's: ``maxiter``, ``norm``, ``gtol``,
    ``line_search_maxiter``; ``tol`` is accepted and ignored, as in JAX.

    >>> import numpy as np
    >>> res = minimize(lambda x: ((x - 3.0) ** 2).sum(), np.zeros(2), method="BFGS")
    >>> res.x.round(4), bool(res.success)
    (Array([3., 3.], dtype=float32), True)
    """
    if not isinstance(args, tuple):
        raise TypeError(f"args argument to minimize must be a tuple, got {args}")
    del tol  # accepted for SciPy's signature; JAX ignores it too
    if method.lower() != "bfgs":
        raise ValueError(f"minimize: method {method} not recognized (didax has 'BFGS')")
    x = as_result(operand(x0))
    results = _minimize_bfgs(lambda v: fun(v, *args), x, **(options or {}))
    return OptimizeResults(
        x=results.x_k,
        success=results.converged & logical_not(results.failed),
        status=results.status,
        fun=results.f_k,
        jac=results.g_k,
        hess_inv=results.H_k,
        nfev=results.nfev,
        njev=results.ngev,
        nit=results.k,
    )
