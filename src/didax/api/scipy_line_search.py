"""The line search of ``didax.scipy.optimize``'s BFGS: JAX's strong-Wolfe search.

Design rules:
- JAX's algorithm step for step (Nocedal and Wright's algorithms 3.5 and
  3.6): steps double from a start value until one satisfies the strong
  Wolfe conditions or brackets one, which ``_zoom`` then narrows by cubic,
  quadratic or bisection interpolation. Both are ``while_loop``s over
  NamedTuple states, so the whole search stages into one program, and the
  counts (``nfev``, ``ngev``), failure flags and status codes are JAX's.
- Branches are selects (``_selected``): every candidate is computed
  and one is kept, as JAX's ``_binary_replace``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from didax.api.autodiff import value_and_grad
from didax.api.control_flow import while_loop
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.creation import array
from didax.api.numpy.elementwise import abs as _abs
from didax.api.numpy.elementwise import maximum, minimum, sign, sqrt, where
from didax.api.numpy.linear_algebra import dot
from didax.api.numpy.more_elementwise import real
from didax.api.numpy.operands import as_result, asarray, astype, operand
from didax.api.scipy_signal import promote_inexact
from didax.core import dtypes
from didax.core.lax.precision import Precision

__all__ = ["line_search", "LineSearchResults"]

_dot = functools.partial(dot, precision=Precision.HIGHEST)


def _selected(state: object, bit: Array, **new: ArrayLike) -> dict[str, Array]:
    """The fields ``new`` of ``state``, each taken from ``new`` where ``bit`` holds."""
    return {k: where(bit, v, getattr(state, k)) for k, v in new.items()}


def _cubicmin(a: Array, fa: Array, fpa: Array, b: Array, fb: Array, c: Array, fc: Array) -> Array:
    """The minimiser of the cubic through ``(a, fa)`` (slope ``fpa``), ``(b, fb)``, ``(c, fc)``."""
    vals = [as_result(operand(v)) for v in (a, fa, fpa, b, fb, c, fc)]
    dtype, _ = dtypes.result_type((v.dtype, v.weak_type) for v in vals)
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    d1 = array([[dc**2, -(db**2)], [-(dc**3), db**3]], dtype=dtype)
    d2 = array([fb - fa - fpa * db, fc - fa - fpa * dc], dtype=dtype)
    coef = _dot(d1, d2) / denom
    big_a, big_b = coef[0], coef[1]
    radical = big_b * big_b - 3.0 * big_a * fpa
    return a + (-big_b + sqrt(radical)) / (3.0 * big_a)


def _quadmin(a: Array, fa: Array, fpa: Array, b: Array, fb: Array) -> Array:
    """The minimiser of the quadratic through ``(a, fa)`` with slope ``fpa`` and ``(b, fb)``."""
    db = b - a
    big_b = (fb - fa - fpa * db) / db**2
    return a - fpa / (2.0 * big_b)


class _ZoomState(NamedTuple):
    done: Any
    failed: Any
    j: Any
    a_lo: Any
    phi_lo: Any
    dphi_lo: Any
    a_hi: Any
    phi_hi: Any
    dphi_hi: Any
    a_rec: Any
    phi_rec: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any
    nfev: Any
    ngev: Any


_FuncAndGrad = Callable[[ArrayLike], tuple[Array, Array, Array]]


def _zoom_step(
    state: _ZoomState,
    func_and_grad: _FuncAndGrad,
    wolfe_one: Callable[[Array, Array], Array],
    wolfe_two: Callable[[Array], Array],
) -> _ZoomState:
    dalpha = state.a_hi - state.a_lo
    lo, hi = minimum(state.a_hi, state.a_lo), maximum(state.a_hi, state.a_lo)
    cchk, qchk = 0.2 * dalpha, 0.1 * dalpha
    threshold = 1e-5 if np.finfo(dalpha.dtype).bits < 64 else 1e-10
    state = state._replace(failed=state.failed | (dalpha <= threshold))
    a_cubic = _cubicmin(
        state.a_lo,
        state.phi_lo,
        state.dphi_lo,
        state.a_hi,
        state.phi_hi,
        state.a_rec,
        state.phi_rec,
    )
    use_cubic = (state.j > 0) & (a_cubic > lo + cchk) & (a_cubic < hi - cchk)
    a_quad = _quadmin(state.a_lo, state.phi_lo, state.dphi_lo, state.a_hi, state.phi_hi)
    use_quad = ~use_cubic & (a_quad > lo + qchk) & (a_quad < hi - qchk)
    use_bisection = ~use_cubic & ~use_quad
    a_j = where(use_cubic, a_cubic, state.a_rec)
    a_j = where(use_quad, a_quad, a_j)
    a_j = where(use_bisection, (state.a_lo + state.a_hi) / 2.0, a_j)
    phi_j, dphi_j, g_j = func_and_grad(a_j)
    phi_j = astype(phi_j, state.phi_lo.dtype)
    dphi_j = astype(dphi_j, state.dphi_lo.dtype)
    g_j = astype(g_j, state.g_star.dtype)
    state = state._replace(nfev=state.nfev + 1, ngev=state.ngev + 1)
    hi_to_j = wolfe_one(a_j, phi_j) | (phi_j >= state.phi_lo)
    star_to_j = wolfe_two(dphi_j) & ~hi_to_j
    hi_to_lo = (dphi_j * (state.a_hi - state.a_lo) >= 0.0) & ~hi_to_j & ~star_to_j
    lo_to_j = ~hi_to_j & ~star_to_j
    new_hi = _selected(
        state,
        hi_to_j,
        a_hi=a_j,
        phi_hi=phi_j,
        dphi_hi=dphi_j,
        a_rec=state.a_hi,
        phi_rec=state.phi_hi,
    )
    state = state._replace(**new_hi)
    new_star = _selected(state, star_to_j, a_star=a_j, phi_star=phi_j, dphi_star=dphi_j, g_star=g_j)
    state = state._replace(done=star_to_j | state.done, **new_star)
    swapped = _selected(
        state,
        hi_to_lo,
        a_hi=state.a_lo,
        phi_hi=state.phi_lo,
        dphi_hi=state.dphi_lo,
        a_rec=state.a_hi,
        phi_rec=state.phi_hi,
    )
    state = state._replace(**swapped)
    recalled = _selected(state, lo_to_j & ~hi_to_lo, a_rec=state.a_lo, phi_rec=state.phi_lo)
    state = state._replace(**recalled)
    state = state._replace(**_selected(state, lo_to_j, a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j))
    state = state._replace(j=state.j + 1)
    return state._replace(failed=state.failed | (state.j >= 30))


def _zoom(
    func_and_grad: _FuncAndGrad,
    wolfe_one: Callable[[Array, Array], Array],
    wolfe_two: Callable[[Array], Array],
    lo: tuple[Array, Array, Array],
    hi: tuple[Array, Array, Array],
    g_0: Array,
    pass_through: Array,
) -> _ZoomState:
    """Narrow the bracket ``[lo, hi]`` (each ``(a, phi, dphi)``) to a strong-Wolfe step."""
    state = _ZoomState(
        done=False,
        failed=False,
        j=0,
        a_lo=lo[0],
        phi_lo=lo[1],
        dphi_lo=lo[2],
        a_hi=hi[0],
        phi_hi=hi[1],
        dphi_hi=hi[2],
        a_rec=(lo[0] + hi[0]) / 2.0,
        phi_rec=(lo[1] + hi[1]) / 2.0,
        a_star=1.0,
        phi_star=lo[1],
        dphi_star=lo[2],
        g_star=g_0,
        nfev=0,
        ngev=0,
    )
    step = functools.partial(
        _zoom_step, func_and_grad=func_and_grad, wolfe_one=wolfe_one, wolfe_two=wolfe_two
    )
    out: _ZoomState = while_loop(lambda s: ~s.done & ~pass_through & ~s.failed, step, state)
    return out


class _LineSearchState(NamedTuple):
    done: Any
    failed: Any
    i: Any
    a_i1: Any
    phi_i1: Any
    dphi_i1: Any
    nfev: Any
    ngev: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any


class LineSearchResults(NamedTuple):
    """The line search's outcome (JAX's ``_LineSearchResults``)."""

    failed: Array
    nit: Array
    nfev: Array
    ngev: Array
    k: Array
    a_k: Array
    f_k: Array
    g_k: Array
    status: Array


_STAR = ("a_star", "phi_star", "dphi_star", "g_star")


def line_search(
    f: Callable[[Array], ArrayLike],
    xk: ArrayLike,
    pk: ArrayLike,
    old_fval: ArrayLike | None = None,
    old_old_fval: ArrayLike | None = None,
    gfk: ArrayLike | None = None,
    c1: float = 1e-4,
    c2: float = 0.9,
    maxiter: int = 20,
) -> LineSearchResults:
    """A step along ``pk`` from ``xk`` satisfying the strong Wolfe conditions (JAX's search)."""
    x, p = promote_inexact(xk, pk)

    def func_and_grad(t: ArrayLike) -> tuple[Array, Array, Array]:
        phi, g = value_and_grad(f)(x + asarray(t, p.dtype) * p)
        return phi, real(_dot(g, p)), g

    fresh = old_fval is None or gfk is None
    if old_fval is None or gfk is None:
        phi_0, dphi_0, g_0 = func_and_grad(0)
    else:
        phi_0, g_0 = as_result(operand(old_fval)), as_result(operand(gfk))
        dphi_0 = real(_dot(g_0, p))
    start: ArrayLike = 1
    if old_old_fval is not None:
        candidate = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        start = where(candidate > 1, 1.0, candidate)

    def wolfe_one(a_i: Array, phi_i: Array) -> Array:
        return phi_i > phi_0 + c1 * a_i * dphi_0

    def wolfe_two(dphi_i: Array) -> Array:
        return _abs(dphi_i) <= -c2 * dphi_0

    def body(s: _LineSearchState) -> _LineSearchState:
        a_i = where(s.i == 1, start, s.a_i1 * 2.0)
        phi_i, dphi_i, g_i = func_and_grad(a_i)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
        to_zoom1 = wolfe_one(a_i, phi_i) | ((phi_i >= s.phi_i1) & (s.i > 1))
        to_i = wolfe_two(dphi_i) & ~to_zoom1
        to_zoom2 = (dphi_i >= 0.0) & ~to_zoom1 & ~to_i
        prev, cur = (s.a_i1, s.phi_i1, s.dphi_i1), (a_i, phi_i, dphi_i)
        zoom1 = _zoom(func_and_grad, wolfe_one, wolfe_two, prev, cur, g_0, ~to_zoom1)
        s = s._replace(nfev=s.nfev + zoom1.nfev, ngev=s.ngev + zoom1.ngev)
        zoom2 = _zoom(func_and_grad, wolfe_one, wolfe_two, cur, prev, g_0, ~to_zoom2)
        s = s._replace(nfev=s.nfev + zoom2.nfev, ngev=s.ngev + zoom2.ngev)
        s = s._replace(done=to_zoom1 | s.done, failed=(to_zoom1 & zoom1.failed) | s.failed)
        s = s._replace(**_selected(s, to_zoom1, **{k: getattr(zoom1, k) for k in _STAR}))
        s = s._replace(done=to_i | s.done)
        at_i = _selected(s, to_i, a_star=a_i, phi_star=phi_i, dphi_star=dphi_i, g_star=g_i)
        s = s._replace(**at_i)
        s = s._replace(done=to_zoom2 | s.done, failed=(to_zoom2 & zoom2.failed) | s.failed)
        s = s._replace(**_selected(s, to_zoom2, **{k: getattr(zoom2, k) for k in _STAR}))
        return s._replace(i=s.i + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i)

    init = _LineSearchState(
        done=asarray(False),
        failed=asarray(False),
        i=1,
        a_i1=0.0,
        phi_i1=phi_0,
        dphi_i1=dphi_0,
        nfev=1 if fresh else 0,
        ngev=1 if fresh else 0,
        a_star=0.0,
        phi_star=phi_0,
        dphi_star=dphi_0,
        g_star=g_0,
    )
    state: _LineSearchState = while_loop(
        lambda s: ~s.done & (s.i <= maxiter) & ~s.failed, body, init
    )
    status = where(state.failed, asarray(1), where(state.i > maxiter, asarray(3), asarray(0)))
    alpha = asarray(state.a_star)
    if np.finfo(alpha.dtype).bits != 64:
        # JAX keeps a 32-bit step away from zero, where the update would vanish.
        alpha = where(_abs(alpha) < 1e-8, sign(alpha) * 1e-8, alpha)
    return LineSearchResults(
        failed=state.failed | ~state.done,
        nit=state.i - 1,
        nfev=state.nfev,
        ngev=state.ngev,
        k=state.i,
        a_k=alpha,
        f_k=state.phi_star,
        g_k=state.g_star,
        status=status,
    )
