"""``check_grads``, ``check_jvp`` and ``check_vjp``: derivatives against finite differences.

Design rules (JAX's ``jax.test_util``, same signatures and tolerances):
- One random direction per check (NumPy's ``RandomState(0)``, so a failing
  check fails the same way every run): ``check_jvp`` compares the jvp's
  tangent with the central difference ``(f(x + eps t) - f(x - eps t)) /
  2 eps``; ``check_vjp`` compares ``<t, vjp(c)>`` with ``<jvp(t), c>`` for
  a random cotangent ``c``.
- Tolerances default per dtype to JAX's gradient tolerances and scale with
  the compared arrays' sizes as JAX's ``check_close`` does; a dict maps
  dtypes to tolerances, a number applies to all.
- ``check_grads`` recurses to ``order``: forward mode checks the jvp of the
  jvp, reverse mode the vjp of ``x -> vjp(f, x)(f(x))``; ``"lin"`` checks
  ``linearize``. Failures raise ``AssertionError`` naming what failed.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
from jax import tree_util

from didax.api.autodiff import linearize, vjp
from didax.api.transformations import jvp
from didax.core import dtypes

__all__ = ["check_grads", "check_jvp", "check_vjp"]

EPS: Final = 1e-4

Tolerance = float | dict[Any, float] | None

# JAX's default_gradient_tolerance (exact dtypes compare exactly).
_GRADIENT_TOL: Final[dict[np.dtype[Any], float]] = {
    np.dtype(dtypes.bfloat16): 1e-1,
    np.dtype(np.float16): 1e-2,
    np.dtype(np.float32): 2e-3,
    np.dtype(np.float64): 1e-5,
    np.dtype(np.complex64): 1e-3,
    np.dtype(np.complex128): 1e-5,
}


def _is_python_scalar(x: object) -> bool:
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def _dtype(x: Any) -> np.dtype[Any]:
    # A Python scalar's NumPy dtype (float64 for a float), as JAX's helper.
    return np.dtype(x.dtype) if hasattr(x, "dtype") else np.dtype(type(x))


def _tol(dtype: np.dtype[Any], tol: Tolerance) -> float:
    if tol is not None and not isinstance(tol, dict):
        return float(tol)
    table = {**_GRADIENT_TOL, **{np.dtype(k): v for k, v in (tol or {}).items()}}
    # With x64 off a 64-bit value stands for a 32-bit one: its tolerance too.
    return table.get(dtypes.canonical(dtype), 0.0)


def _assert_close(a: Any, b: Any, atol: Tolerance, rtol: Tolerance, err_msg: str) -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, f"{err_msg}: shapes {a.shape} and {b.shape} differ"
    if a.dtype == b.dtype == dtypes.float0:
        np.testing.assert_array_equal(a, b, err_msg=err_msg)
        return
    at = max(_tol(a.dtype, atol), _tol(b.dtype, atol)) * a.size
    rt = max(_tol(a.dtype, rtol), _tol(b.dtype, rtol)) * b.size
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(a, b, atol=at, rtol=rt, err_msg=err_msg)


def _check_close(xs: Any, ys: Any, atol: Tolerance, rtol: Tolerance, err_msg: str) -> None:
    tree_util.tree_map(lambda x, y: _assert_close(x, y, atol, rtol, err_msg), xs, ys)


def _preserving(op: Callable[..., Any]) -> Callable[..., Any]:
    """``op`` on leaves, in the first leaf's dtype; Python scalars stay Python scalars."""

    def leaf(*xs: Any) -> Any:
        out = np.array(op(*xs), dtype=_dtype(xs[0]))
        return out.item() if all(_is_python_scalar(x) for x in xs) else out

    return functools.partial(tree_util.tree_map, leaf)


_add: Final = _preserving(operator.add)
_sub: Final = _preserving(operator.sub)
_conj: Final = _preserving(np.conj)


def _scale(xs: Any, a: float) -> Any:
    def leaf(x: Any) -> Any:
        dt = _dtype(x)
        out = np.multiply(x, np.array(a, dtype=dt), dtype=dt)
        return out.item() if _is_python_scalar(x) else out

    return tree_util.tree_map(leaf, xs)


def _safe_sub(xs: Any, ys: Any) -> Any:
    """``x - y`` with ``inf - inf == 0``, as JAX's."""

    def leaf(x: Any, y: Any) -> Any:
        dt = _dtype(x)
        with np.errstate(invalid="ignore"):
            return np.where(np.equal(x, y), np.array(0, dt), np.subtract(x, y, dtype=dt))

    return tree_util.tree_map(leaf, xs, ys)


def _rand_like(rng: np.random.RandomState, x: Any) -> Any:
    dt = _dtype(x)
    out = np.asarray(rng.randn(*np.shape(x)), dtype=dt)
    if dtypes.is_complex(dt):
        out = out + dt.type(1.0j) * np.asarray(rng.randn(*np.shape(x)), dtype=dt)
    return out.item() if _is_python_scalar(x) else out


def _inner(xs: Any, ys: Any) -> Any:
    def contract(x: Any, y: Any) -> Any:
        return np.real(np.dot(np.conj(x).reshape(-1), np.asarray(y).reshape(-1)))

    return tree_util.tree_reduce(np.add, tree_util.tree_map(contract, xs, ys))


def numerical_jvp(f: Callable[..., Any], primals: Any, tangents: Any, eps: float = EPS) -> Any:
    """The central finite difference of ``f`` at ``primals`` along ``tangents``."""
    delta = _scale(tangents, eps)
    f_pos = f(*_add(primals, delta))
    f_neg = f(*_sub(primals, delta))
    return _scale(_safe_sub(f_pos, f_neg), 0.5 / eps)


def _msg(err_msg: str, what: str) -> str:
    return f"{err_msg} {what}" if err_msg else what


def check_jvp(
    f: Callable[..., Any],
    f_jvp: Callable[..., Any],
    args: Sequence[Any],
    atol: Tolerance = None,
    rtol: Tolerance = None,
    eps: float = EPS,
    err_msg: str = "",
) -> None:
    """Checks ``f_jvp`` (e.g. ``partial(jvp, f)``) against finite differences of ``f``.

    >>> import functools, didax as dx
    >>> f = dx.numpy.sin
    >>> check_jvp(f, functools.partial(dx.jvp, f), (0.5,))
    """
    args = tuple(args)
    tangent = tree_util.tree_map(functools.partial(_rand_like, np.random.RandomState(0)), args)
    v_out, t_out = f_jvp(args, tangent)
    _check_close(v_out, f(*args), atol, rtol, _msg(err_msg, "primal"))
    expected = numerical_jvp(f, args, tangent, eps=eps)
    _check_close(t_out, expected, atol, rtol, _msg(err_msg, "tangent"))


def check_vjp(
    f: Callable[..., Any],
    f_vjp: Callable[..., Any],
    args: Sequence[Any],
    atol: Tolerance = None,
    rtol: Tolerance = None,
    eps: float = EPS,
    err_msg: str = "",
) -> None:
    """Checks ``f_vjp`` (e.g. ``partial(vjp, f)``) against finite differences of ``f``.

    >>> import functools, didax as dx
    >>> f = dx.numpy.sin
    >>> check_vjp(f, functools.partial(dx.vjp, f), (0.5,))
    """
    args = tuple(args)
    rand = functools.partial(_rand_like, np.random.RandomState(0))
    v_out, vjp_fun = f_vjp(*args)
    _check_close(v_out, f(*args), atol, rtol, _msg(err_msg, "primal"))
    tangent = tree_util.tree_map(rand, args)
    tangent_out = numerical_jvp(f, args, tangent, eps=eps)
    cotangent = tree_util.tree_map(rand, v_out)
    cotangent_out = _conj(vjp_fun(_conj(cotangent)))
    ip = _inner(tangent, cotangent_out)
    ip_expected = _inner(tangent_out, cotangent)
    _check_close(ip, ip_expected, atol, rtol, _msg(err_msg, "cotangent projection"))


def _jvp_from_lin(f: Callable[..., Any], primals: Any, tangents: Any) -> tuple[Any, Any]:
    out, f_lin = linearize(f, *primals)
    return out, f_lin(*tangents)


def check_grads(
    f: Callable[..., Any],
    args: Sequence[Any],
    order: int,
    modes: Sequence[str] = ("fwd", "rev"),
    atol: Tolerance = None,
    rtol: Tolerance = None,
    eps: float | None = None,
) -> None:
    """Checks ``f``'s derivatives up to ``order`` against finite differences.

    >>> import didax as dx
    >>> check_grads(dx.numpy.sin, (0.5,), order=2)
    """
    step = eps or EPS

    def recurse(f: Callable[..., Any], args: tuple[Any, ...], order: int, err_msg: str) -> None:
        if "fwd" in modes:
            msg = f"JVP of {err_msg}" if err_msg else "JVP"
            check_jvp(f, functools.partial(jvp, f), args, atol, rtol, step, msg)
            if order > 1:
                recurse(functools.partial(jvp, f), (args, args), order - 1, msg)
        if "rev" in modes:
            msg = f"VJP of {err_msg}" if err_msg else "VJP"
            check_vjp(f, functools.partial(vjp, f), args, atol, rtol, step, msg)
            if order > 1:

                def f_vjp(*xs: Any) -> Any:
                    out, pullback = vjp(f, *xs)
                    return pullback(out)

                recurse(f_vjp, args, order - 1, msg)
        if "lin" in modes:
            msg = f"LIN of {err_msg}" if err_msg else "LIN"
            check_jvp(f, functools.partial(_jvp_from_lin, f), args, atol, rtol, step, msg)
            if order > 1:
                recurse(functools.partial(_jvp_from_lin, f), (args, args), order - 1, msg)

    recurse(f, tuple(args), order, "")
