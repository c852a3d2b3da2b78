"""The element-wise names of ``jax.lax`` added with issue 28, against ``jax.lax``.

``cbrt``, ``square``, ``reciprocal``, ``RoundingMethod``, ``clamp``,
``select_n``, ``mulhi``, and the special functions ``igamma``, ``igammac``,
``igamma_grad_a``, ``random_gamma_grad``, ``betainc``, ``zeta``,
``bessel_i0e``, ``bessel_i1e``: values over grids with edge inputs (eager
and jitted, float32 and float64, and against ``scipy.special``), jvp, vjp
and grad of grad against JAX's where JAX defines them (and its errors
where it does not), finite differences, vmap, flops against XLA's cost
analysis, and what is staged.

The functions lowered to loops compile slowly: each value table is one
jitted program per dtype, and eager calls share one operand type.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Final

import jax
import numpy as np
import pytest
from jax import lax as jlax

import didax as dx
from didax import lax as dlax
from didax.api.flops import cost
from didax.lowering import xla

# scipy (a dependency of JAX's) has no type stubs: an extra oracle, typed Any.
sp: Any = importlib.import_module("scipy.special")

F32: Final = np.dtype(np.float32)
F64: Final = np.dtype(np.float64)
FLOATS: Final = (F32, F64)
Arr = np.ndarray[Any, Any]
INF, NAN = np.inf, np.nan


def _grid(*axes: list[float]) -> tuple[Arr, ...]:
    return tuple(g.ravel() for g in np.meshgrid(*(np.asarray(a) for a in axes), indexing="ij"))


def _with_edges(grid: tuple[Arr, ...], edges: list[tuple[float, ...]]) -> tuple[Arr, ...]:
    cols = list(zip(*edges, strict=True))
    return tuple(np.concatenate([g, np.asarray(c)]) for g, c in zip(grid, cols, strict=True))


_GAMMA_ARGS: Final = _with_edges(
    _grid([0.1, 0.5, 1.0, 2.5, 7.0, 20.0], [0.01, 0.3, 1.0, 2.0, 5.0, 30.0]),
    [(0.0, 0.0), (-1.0, 1.0), (1.0, -1.0), (NAN, 1.0), (1.0, INF), (0.0, 1.0), (2.0, 0.0)],
)
_BETA_ARGS: Final = _with_edges(
    _grid([0.5, 2.0, 5.0], [0.7, 3.0, 8.0], [0.05, 0.3, 0.5, 0.9]),
    [
        *((0.0, 1.0, 0.5), (1.0, 0.0, 0.5), (2.0, 3.0, 0.0), (2.0, 3.0, 1.0)),
        *((2.0, 3.0, -0.1), (2.0, 3.0, 1.2), (NAN, 1.0, 0.5), (INF, 1.0, 0.5)),
    ],
)
_ZETA_ARGS: Final = _with_edges(
    _grid([1.5, 2.0, 3.5, 10.0], [0.5, 1.0, 2.0, 7.5]), [(1.0, 1.0), (2.0, -1.5), (NAN, 1.0)]
)
_BESSEL_ARG: Final = np.array(
    [-30.0, -8.5, -8.0, -1.0, -1e-8, 0.0, 1e-8, 0.5, 3.0, 8.0, 8.5, 50.0, INF, -INF, NAN]
)
_CBRT_ARG: Final = np.array(
    [-27.0, -8.0, -1e-30, 0.0, -0.0, 1e-30, 0.5, 27.0, 1e30, INF, -INF, NAN]
)
_PLAIN_ARG: Final = np.array([-3.0, -0.5, 0.0, -0.0, 0.25, 2.0, 1e20, INF, -INF, NAN])

# name -> (arguments, scipy's function or None)
TABLE: Final[dict[str, tuple[tuple[Arr, ...], Callable[..., Any] | None]]] = {
    "igamma": (_GAMMA_ARGS, sp.gammainc),
    "igammac": (_GAMMA_ARGS, sp.gammaincc),
    "igamma_grad_a": (_GAMMA_ARGS, None),
    "random_gamma_grad": (_GAMMA_ARGS, None),
    "betainc": (_BETA_ARGS, sp.betainc),
    "zeta": (_ZETA_ARGS, sp.zeta),
    "bessel_i0e": ((_BESSEL_ARG,), sp.i0e),
    "bessel_i1e": ((_BESSEL_ARG,), sp.i1e),
    "cbrt": ((_CBRT_ARG,), np.cbrt),
    "square": ((_PLAIN_ARG,), np.square),
    "reciprocal": ((_PLAIN_ARG,), None),
}
NAMES: Final = list(TABLE)


def _args(name: str, dtype: np.dtype[Any]) -> tuple[Arr, ...]:
    return tuple(a.astype(dtype) for a in TABLE[name][0])


def _all(lax: Any, dtype: np.dtype[Any]) -> Callable[..., list[Any]]:
    def f(*flat: Any) -> list[Any]:
        outs, i = [], 0
        for name in NAMES:
            n = len(TABLE[name][0])
            outs.append(getattr(lax, name)(*flat[i : i + n]))
            i += n
        return outs

    return f


def _flat_args(dtype: np.dtype[Any]) -> list[Arr]:
    return [a for name in NAMES for a in _args(name, dtype)]


def _rtol(dtype: np.dtype[Any], ulps: float = 4) -> float:
    return ulps * float(np.finfo(dtype).eps)


def _close(got: Any, want: Any, rtol: float, atol: float = 0.0) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert (g.dtype, g.shape) == (w.dtype, w.shape)
    np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)


# --- values -------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_values_eager_and_jit_match_jax_and_scipy(dtype: np.dtype[Any]) -> None:
    flat = _flat_args(dtype)
    want = jax.jit(_all(jlax, dtype))(*flat)
    jitted = dx.jit(_all(dlax, dtype))(*flat)
    # Eagerly, the functions XLA computes compile one program each (the values
    # are the jitted ones): float32 checks that route, float64 the jitted one.
    eager = _all(dlax, dtype)(*flat) if dtype == F32 else jitted
    for name, w, j, e in zip(NAMES, want, jitted, eager, strict=True):
        # One XLA program on both sides: the same numbers, to the last ulp or so.
        _close(j, w, _rtol(dtype), atol=float(np.finfo(dtype).tiny))
        _close(e, w, _rtol(dtype), atol=float(np.finfo(dtype).tiny))
        oracle = TABLE[name][1]
        if oracle is not None:
            args64 = [a.astype(np.float64) for a in _args(name, dtype)]
            with np.errstate(all="ignore"):
                ref = np.asarray(oracle(*args64))
            got = np.asarray(j).astype(np.float64)
            finite = np.isfinite(ref) & (np.abs(ref) < 1e30)
            rtol = 2e-4 if dtype == F32 else 1e-9
            np.testing.assert_allclose(got[finite], ref[finite], rtol=rtol, atol=rtol, err_msg=name)


def test_reciprocal_is_integer_pow_minus_one_as_jax() -> None:
    x = np.array([2.0, 4.0], np.float32)
    assert "integer_pow[y=-1]" in str(dx.make_jaxpr(dlax.reciprocal)(x))
    assert "integer_pow[y=-1]" in str(jax.make_jaxpr(jlax.reciprocal)(x))


def test_square_of_integers_and_complex_numbers() -> None:
    for x in (np.array([-3, 0, 7], np.int32), np.array([1 + 2j, -0.5j], np.complex64)):
        _close(dlax.square(x), jlax.square(x), 1e-6)
        _close(dx.jit(dlax.square)(x), jax.jit(jlax.square)(x), 1e-6)


def test_typing_follows_jax() -> None:
    with pytest.raises(TypeError, match="cbrt"):
        dlax.cbrt(np.array([8], np.int32))
    with pytest.raises(TypeError, match="igamma"):
        dlax.igamma(np.array([1], np.int32), np.array([1], np.int32))
    with pytest.raises(TypeError, match="mulhi"):
        dlax.mulhi(np.float32(1), np.float32(2))
    # Python scalars take their partner's dtype; weak with weak stays weak.
    assert dlax.igamma(1.0, np.float64(2.0)).dtype == F64
    out = dlax.zeta(2.0, 1.0)
    want = jlax.zeta(2.0, 1.0)
    assert (out.dtype, out.weak_type) == (want.dtype, want.weak_type)


# --- RoundingMethod -----------------------------------------------------------------------


def test_rounding_method_is_jaxs_enum_and_stages_an_integer() -> None:
    assert {m.name: int(m) for m in dlax.RoundingMethod} == {
        m.name: int(m) for m in jlax.RoundingMethod
    }
    x = np.array([0.5, 1.5, 2.5, -2.5], np.float32)
    for method in dlax.RoundingMethod:
        want = jlax.round(x, jlax.RoundingMethod(int(method)))
        _close(dlax.round(x, method), want, 0.0)
        _close(dx.jit(lambda v, m=method: dlax.round(v, m))(x), want, 0.0)
    text = str(dx.make_jaxpr(lambda v: dlax.round(v, dlax.RoundingMethod.TO_NEAREST_EVEN))(x))
    assert "rounding_method=1" in text
    assert text == str(dx.make_jaxpr(lambda v: dlax.round(v, 1))(x))


# --- derivatives --------------------------------------------------------------------------

# name -> (points where it is smooth, argnums JAX differentiates)
SMOOTH: Final[dict[str, tuple[tuple[Arr, ...], tuple[int, ...]]]] = {
    "cbrt": ((np.array([-8.0, -0.3, 0.7, 27.0]),), (0,)),
    "square": ((np.array([-2.0, -0.3, 0.7, 3.0]),), (0,)),
    "reciprocal": ((np.array([-2.0, -0.3, 0.7, 3.0]),), (0,)),
    "bessel_i0e": ((np.array([-9.0, -1.0, 0.3, 2.0, 12.0]),), (0,)),
    "bessel_i1e": ((np.array([-9.0, -1.0, 1e-9, 0.3, 2.0, 12.0]),), (0,)),
    "igamma": ((np.array([0.5, 1.5, 3.0, 6.0]), np.array([0.3, 2.0, 1.0, 9.0])), (0, 1)),
    "igammac": ((np.array([0.5, 1.5, 3.0, 6.0]), np.array([0.3, 2.0, 1.0, 9.0])), (0, 1)),
    "betainc": (
        (np.array([0.5, 2.0, 5.0]), np.array([3.0, 0.7, 2.0]), np.array([0.2, 0.6, 0.9])),
        (2,),
    ),
}


PAIRS: Final = [(name, i) for name, (_, argnums) in SMOOTH.items() for i in argnums]
# The second derivative of igamma in a needs igamma_grad_a's derivative, which JAX has not.
SECOND: Final = [p for p in PAIRS if p not in (("igamma", 0), ("igammac", 0))]


def _at(lib: Any, name: str, args: tuple[Any, ...], i: int) -> Callable[[Any], Any]:
    return lambda v: getattr(lib, name)(*args[:i], v, *args[i + 1 :])


def _scalar(lib: Any, name: str, args: tuple[Arr, ...], i: int) -> Callable[[Any], Any]:
    """``name`` as a function of one scalar (the first element of operand ``i``)."""
    return lambda v: getattr(lib, name)(
        *(a[0] for a in args[:i]), v, *(a[0] for a in args[i + 1 :])
    )


def _derivatives(lib: Any, jvp: Any, vjp: Any, grad: Any, dtype: np.dtype[Any]) -> Any:
    """Every jvp, vjp and second derivative of ``PAIRS``, in one function (one program)."""

    def f(t: Any) -> list[Any]:
        outs = []
        for name, i in PAIRS:
            args = tuple(a.astype(dtype) for a in SMOOTH[name][0])
            g = _at(lib, name, args, i)
            tt = t[: args[i].size]
            outs += [*jvp(g, (args[i],), (tt,)), vjp(g, args[i])[1](tt)[0]]
            if (name, i) in SECOND:
                outs.append(grad(grad(_scalar(lib, name, args, i)))(args[i][0]))
        return outs

    return f


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_jvp_vjp_and_second_derivatives_match_jax(dtype: np.dtype[Any]) -> None:
    t = np.linspace(0.5, 1.5, 6).astype(dtype)
    got = dx.jit(_derivatives(dlax, dx.jvp, dx.vjp, dx.grad, dtype))(t)
    want = jax.jit(_derivatives(jlax, jax.jvp, jax.vjp, jax.grad, dtype))(t)
    tol = 5e-5 if dtype == F32 else 1e-11
    for g, w in zip(got, want, strict=True):
        _close(g, w, tol, atol=tol)
    if dtype == F64:  # eagerly too (the functions without loops, which compile fast)
        for name, i in PAIRS[:5]:
            args = tuple(a.astype(dtype) for a in SMOOTH[name][0])
            tt = t[: args[i].size]
            d_t = dx.jvp(_at(dlax, name, args, i), (args[i],), (tt,))[1]
            _close(d_t, jax.jvp(_at(jlax, name, args, i), (args[i],), (tt,))[1], tol, atol=tol)


def test_jvp_matches_finite_differences() -> None:
    h = 1e-6
    for name, i in PAIRS:
        args = tuple(a.astype(F64) for a in SMOOTH[name][0])
        t = np.linspace(0.5, 1.5, args[i].size)
        f = _at(dlax, name, args, i)
        fd = (np.asarray(f(args[i] + h * t)) - np.asarray(f(args[i] - h * t))) / (2 * h)
        _, d_t = dx.jvp(f, (args[i],), (t,))
        np.testing.assert_allclose(np.asarray(d_t), fd, rtol=1e-6, atol=1e-8, err_msg=name)


def test_random_gamma_grad_is_forward_mode_differentiable_only_as_jax() -> None:
    a, x = np.array([0.5, 2.0, 4.0]), np.array([0.3, 3.5, 2.0])
    t = np.array([1.0, -0.5, 2.0])

    def both(lib: Any, jvp: Any) -> Callable[..., list[Any]]:
        def f(p: Any, q: Any) -> list[Any]:
            in_a = jvp(lambda v: lib.random_gamma_grad(v, q), (p,), (t,))
            return [*in_a, jvp(lambda v: lib.random_gamma_grad(p, v), (q,), (t,))[1]]

        return f

    for g, w in zip(
        dx.jit(both(dlax, dx.jvp))(a, x), jax.jit(both(jlax, jax.jvp))(a, x), strict=True
    ):
        _close(g, w, 1e-9)
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
        jax.jit(jax.grad(lambda v: jlax.random_gamma_grad(v, x).sum()))(a)
    with pytest.raises(ValueError, match="Reverse-mode differentiation"):
        dx.jit(dx.grad(lambda v: dlax.random_gamma_grad(v, x).sum()))(a)


def test_undefined_derivatives_raise_as_jax() -> None:
    a, b, x = np.float64(2.0), np.float64(3.0), np.float64(0.5)
    # Under jit: the errors come at trace time, before anything is computed.
    for lib, grad in ((jlax, lambda f: jax.jit(jax.grad(f))), (dlax, lambda f: dx.jit(dx.grad(f)))):
        with pytest.raises(ValueError, match="Betainc gradient with respect to a and b"):
            grad(lambda v, lib=lib: lib.betainc(v, b, x))(a)
        with pytest.raises(ValueError, match="Betainc gradient with respect to a and b"):
            grad(lambda v, lib=lib: lib.betainc(a, v, x))(b)
        for name in ("zeta", "igamma_grad_a"):
            with pytest.raises(NotImplementedError, match=name):
                grad(lambda v, lib=lib, name=name: getattr(lib, name)(v, x))(a)
    # igamma's derivative in a is igamma_grad_a, whose own derivative is undefined.
    with pytest.raises(NotImplementedError, match="igamma_grad_a"):
        dx.jit(dx.grad(dx.grad(dlax.igamma)))(a, x)


# --- clamp --------------------------------------------------------------------------------

_X: Final = np.array([-2.0, -0.5, 0.0, 0.3, 1.0, 1.7, NAN], np.float32)
_LO: Final = np.array([-1.0, -0.5, 0.5, 0.0, -3.0, 2.0, 0.0], np.float32)
_HI: Final = np.array([1.0, 0.5, 0.4, 0.3, 3.0, 2.5, 1.0], np.float32)

CLAMP_CASES: Final[dict[str, tuple[Any, ...]]] = {
    "arrays": (_LO, _X, _HI),
    "scalar_bounds": (np.float32(-1.0), _X, np.float32(1.0)),
    "python_bounds": (-1.0, _X, 0.25),
    "scalar_min": (np.float32(0.0), _X, _HI),
    "integers": (np.int32(-2), np.arange(-4, 4, dtype=np.int32), np.int32(1)),
    "all_scalars": (np.float32(0.0), np.float32(3.0), np.float32(1.0)),
}


@pytest.mark.parametrize("case", list(CLAMP_CASES))
def test_clamp_values_match_jax(case: str) -> None:
    args = CLAMP_CASES[case]
    # JAX refuses Python scalar bounds beside float32 with x64 on; didax's take x's dtype.
    want = jlax.clamp(*(np.asarray(v, np.asarray(args[1]).dtype) for v in args))
    _close(dlax.clamp(*args), want, 0.0)
    _close(dx.jit(dlax.clamp)(*args), want, 0.0)


def test_clamp_keeps_scalar_bounds_rank_0_and_checks_shapes() -> None:
    text = str(dx.make_jaxpr(lambda v: dlax.clamp(0.0, v, 1.0))(_X))
    assert "clamp 0.0" in text
    assert "broadcast_in_dim" not in text
    for bad in ((_LO[:3], _X, _HI), (_LO, _X, _HI[:2]), (_LO, np.float32(0.0), _HI)):
        with pytest.raises(TypeError, match="clamp requires"):
            dlax.clamp(*bad)
        with pytest.raises(TypeError, match="clamp requires"):
            jlax.clamp(*bad)
    with pytest.raises(TypeError, match="clamp"):
        dlax.clamp(np.float64(0.0), _X, np.float32(1.0))


def test_clamp_derivatives_match_jax() -> None:
    x = np.array([-2.0, -0.5, 0.3, 1.0, 1.7, 0.9])
    lo = np.array([-1.0, -0.5, 0.5, 0.0, 2.0, -1.0])
    hi = np.array([1.0, 0.5, 0.4, 0.3, 2.5, 1.0])
    t = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    args = [lo, x, hi]
    for i in range(3):

        def f(v: Any, lib: Any, i: int = i) -> Any:
            return lib.clamp(*(v if k == i else args[k] for k in range(3)))

        _close(
            dx.jvp(lambda v: f(v, dlax), (args[i],), (t,))[1],
            jax.jvp(lambda v: f(v, jlax), (args[i],), (t,))[1],
            0.0,
        )
        d_ct = dx.vjp(lambda v: f(v, dlax), args[i])[1](t)[0]
        _close(d_ct, jax.vjp(lambda v: f(v, jlax), args[i])[1](t)[0], 0.0)
    # Scalar bounds: only x varies (JAX's rule cannot take a varying scalar bound).
    g = dx.grad(lambda v: dlax.clamp(0.0, v, 1.0).sum())(x)
    _close(g, jax.grad(lambda v: jlax.clamp(0.0, v, 1.0).sum())(x), 0.0)
    # A varying scalar bound: its tangent is broadcast where it is the result.
    _, t_lo = dx.jvp(lambda m: dlax.clamp(m, x, 1.0), (0.0,), (1.0,))
    np.testing.assert_array_equal(np.asarray(t_lo), (x < 0).astype(np.float64))


CLAMP_VMAPS: Final = [
    ((0, None, None), (np.array([-1.0, 0.2], np.float32), _X, np.float32(1.0))),
    ((None, 0, None), (np.float32(0.0), np.stack([_X, -_X]), np.float32(1.0))),
    ((0, 0, 0), (np.stack([_LO, _HI - 3]), np.stack([_X, _X]), np.stack([_HI, _HI]))),
    ((0, None, None), (np.array([-1.0, 0.2], np.float32), np.float32(0.1), np.float32(1.0))),
    ((None, 1, 0), (np.float32(-0.5), np.stack([_X, -_X], 1), np.array([1.0, 0.2], np.float32))),
    ((1, 0, None), (np.stack([_LO, _LO - 1], 1), np.stack([_X, _X]), _HI)),
]


@pytest.mark.parametrize(("in_axes", "args"), CLAMP_VMAPS, ids=[str(a) for a, _ in CLAMP_VMAPS])
def test_clamp_vmap_matches_jax(in_axes: tuple[int | None, ...], args: tuple[Any, ...]) -> None:
    want = jax.vmap(jlax.clamp, in_axes)(*args)
    _close(dx.vmap(dlax.clamp, in_axes)(*args), want, 0.0)
    _close(dx.jit(dx.vmap(dlax.clamp, in_axes))(*args), want, 0.0)


# --- select_n -----------------------------------------------------------------------------

_CASES3: Final = tuple(np.arange(6, dtype=np.float32) + 10 * k for k in range(3))
SELECT_CASES: Final[dict[str, tuple[Any, ...]]] = {
    "bool": (np.array([True, False, True, False, True, True]), *_CASES3[:2]),
    "bool_scalar": (np.bool_(True), *_CASES3[:2]),
    "int": (np.array([0, 2, 1, 1, 0, 2], np.int32), *_CASES3),
    "uint_scalar": (np.uint8(1), *_CASES3),
    "one_case": (np.array([0, 0, 0, 0, 0, 0], np.int32), _CASES3[0]),
    "five_cases": (
        np.array([4, 3, 2, 1, 0, 4], np.int32),
        *_CASES3,
        _CASES3[0] - 1,
        _CASES3[1] - 1,
    ),
    "out_of_range": (np.array([-1, 3, 7, 0, 1, 2], np.int32), *_CASES3),
}


@pytest.mark.parametrize("case", list(SELECT_CASES))
def test_select_n_values_match_jax(case: str) -> None:
    args = SELECT_CASES[case]
    want = jax.jit(jlax.select_n)(*args)
    _close(dlax.select_n(*args), want, 0.0)
    _close(dx.jit(dlax.select_n)(*args), want, 0.0)


def test_select_n_is_its_own_primitive_and_select_is_unchanged() -> None:
    p, x, y = SELECT_CASES["bool"]
    assert "select_n" in str(dx.make_jaxpr(dlax.select_n)(p, x, y))
    text = str(dx.make_jaxpr(dlax.select)(p, x, y))
    assert "select " in text
    assert "select_n" not in text
    assert dlax.select_n_p is not dlax.select_p


def test_select_n_typing_errors_follow_jax() -> None:
    x = _CASES3[0]
    bad = [
        ((np.array([True] * 6), x, x, x), "cannot have > 2 cases"),
        ((np.array([0.0] * 6, np.float32), x, x), "boolean or integer"),
        ((np.array([0, 1], np.int32), x, x), "must be scalar or have the same shape"),
        ((np.int32(0), x, x[:3]), "same shapes"),
        ((np.int32(0), x, x.astype(np.float64)), "same dtypes"),
    ]
    for args, message in bad:
        with pytest.raises(TypeError, match=message):
            dlax.select_n(*args)
        with pytest.raises(TypeError):
            jlax.select_n(*args)
    with pytest.raises(ValueError, match="at least one case"):
        dlax.select_n(np.int32(0))


@pytest.mark.parametrize("case", ["bool", "bool_scalar", "int", "uint_scalar", "five_cases"])
def test_select_n_jvp_and_vjp_match_jax(case: str) -> None:
    which, *cases = SELECT_CASES[case]
    cases64 = [c.astype(np.float64) for c in cases]
    tangents = [np.full(6, k + 1.0) for k in range(len(cases))]
    d = dx.jvp(lambda *c: dlax.select_n(which, *c), cases64, tangents)
    j = jax.jvp(lambda *c: jlax.select_n(which, *c), cases64, tangents)
    _close(d[1], j[1], 0.0)
    ct = np.linspace(1.0, 2.0, 6)
    d_cts = dx.vjp(lambda *c: dlax.select_n(which, *c), *cases64)[1](ct)
    j_cts = jax.vjp(lambda *c: jlax.select_n(which, *c), *cases64)[1](ct)
    for got, want in zip(d_cts, j_cts, strict=True):
        _close(got, want, 0.0)
    # Only some cases linear: the transpose leaves the others alone.
    g = dx.grad(lambda c: (dlax.select_n(which, cases64[0], c, *cases64[2:]) * ct).sum())(
        cases64[1]
    )
    _close(
        g,
        jax.grad(lambda c: (jlax.select_n(which, cases64[0], c, *cases64[2:]) * ct).sum())(
            cases64[1]
        ),
        0.0,
    )


_W: Final = np.array([[0, 1, 2], [2, 1, 0]], np.int32)
_C: Final = np.arange(6, dtype=np.float32).reshape(2, 3)
SELECT_VMAPS: Final = [
    ((0, None, None, None), (np.array([0, 2], np.int32), _C, _C + 10, _C + 20)),
    ((0, 0, 0, 0), (_W, _C, _C + 10, _C + 20)),
    ((None, 0, 1, 0), (np.int32(1), _C, _C.T + 10, _C + 20)),
    ((1, None, None, None), (_W.T.copy(), _C[0], _C[1], _C[0] + 5)),
    (
        (0, None, None, None),
        (np.array([0, 1], np.int32), np.float32(1), np.float32(2), np.float32(3)),
    ),
    ((None, 0, None, None), (np.int32(2), _C, _C[0], _C[1])),
]


@pytest.mark.parametrize(("in_axes", "args"), SELECT_VMAPS, ids=[str(a) for a, _ in SELECT_VMAPS])
def test_select_n_vmap_matches_jax(in_axes: tuple[int | None, ...], args: tuple[Any, ...]) -> None:
    want = jax.vmap(jlax.select_n, in_axes)(*args)
    _close(dx.vmap(dlax.select_n, in_axes)(*args), want, 0.0)
    _close(dx.jit(dx.vmap(dlax.select_n, in_axes))(*args), want, 0.0)


# --- mulhi --------------------------------------------------------------------------------

INTS: Final = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
def test_mulhi_matches_jax(dtype: type[np.integer[Any]]) -> None:
    info = np.iinfo(dtype)
    rng = np.random.default_rng(np.dtype(dtype).itemsize)
    x = rng.integers(info.min, info.max, 40, dtype=dtype, endpoint=True)
    y = rng.integers(info.min, info.max, 40, dtype=dtype, endpoint=True)
    edges = np.array([info.min, info.max, 0, 1, info.max // 2 + 1], dtype)
    x[:25] = np.repeat(edges, 5)
    y[:25] = np.tile(edges, 5)
    want = jax.jit(jlax.mulhi)(x, y)
    _close(dlax.mulhi(x, y), want, 0.0)
    _close(dx.jit(dlax.mulhi)(x, y), want, 0.0)
    _close(dlax.mulhi(x, dtype(3)), jlax.mulhi(x, dtype(3)), 0.0)
    _close(
        dx.vmap(dlax.mulhi, (0, None))(x.reshape(4, 10), y[:10]),
        jax.vmap(jlax.mulhi, (0, None))(x.reshape(4, 10), y[:10]),
        0.0,
    )
    d_t = dx.jvp(lambda v: dlax.mulhi(v, y), (x,), (np.zeros(40, jax.dtypes.float0),))[1]
    assert np.asarray(d_t).dtype == jax.dtypes.float0


# --- vmap of the special functions ----------------------------------------------------------


def _special_vmaps(lib: Any, vmap: Any) -> Callable[..., list[Any]]:
    def f(a: Any, x: Any, b: Any) -> list[Any]:
        outs = []
        for name in ("igamma", "igammac", "igamma_grad_a", "random_gamma_grad", "zeta"):
            outs.append(vmap(getattr(lib, name), (0, None))(a + 1.0, x))
            outs.append(vmap(getattr(lib, name), (1, None))(a + 1.0, np.float64(2.0)))
        outs.append(vmap(lib.betainc, (0, None, 1))(a, 2.0, b))
        outs += [vmap(getattr(lib, n), 1)(a) for n in ("bessel_i0e", "bessel_i1e")]
        return outs

    return f


def test_special_vmap_matches_jax() -> None:
    a = np.array([[0.5, 1.0, 3.0], [2.0, 4.0, 0.2]])
    x, b = np.array([0.4, 2.0, 5.0]), np.array([[0.3, 0.8], [0.5, 0.5], [0.8, 0.3]])
    got = dx.jit(_special_vmaps(dlax, dx.vmap))(a, x, b)
    want = jax.jit(_special_vmaps(jlax, jax.vmap))(a, x, b)
    for g, w in zip(got, want, strict=True):
        _close(g, w, 1e-12)
    _close(dx.vmap(dlax.igamma, (0, None))(a + 1.0, x), want[0], 1e-12)  # eagerly


# --- flops and lowering -------------------------------------------------------------------

FLOP_CASES: Final[dict[str, tuple[Callable[..., Any], tuple[Any, ...]]]] = {
    "cbrt": (dlax.cbrt, (_X,)),
    "square": (dlax.square, (_X,)),
    "square_complex": (dlax.square, (_X.astype(np.complex64),)),
    "square_int": (dlax.square, (np.arange(7, dtype=np.int32),)),
    "clamp": (dlax.clamp, CLAMP_CASES["arrays"]),
    "clamp_scalars": (dlax.clamp, CLAMP_CASES["scalar_bounds"]),
    "mulhi": (dlax.mulhi, (np.arange(7, dtype=np.uint32), np.uint32(9))),
    **{f"select_n_{k}": (dlax.select_n, v) for k, v in SELECT_CASES.items()},
}


@pytest.mark.skipif(xla.platform() != "cpu", reason="the counts are XLA's CPU compiler's")
def test_flops_match_xla_cost_analysis() -> None:
    for name, (fn, args) in FLOP_CASES.items():
        analysis = dx.jit(fn).lower(*args).compile().cost_analysis()
        c = cost(fn)(*args)
        assert (c.flops, c.transcendentals) == (
            int(analysis.get("flops", 0)),
            int(analysis.get("transcendentals", 0)),
        ), name


def test_lowerings_name_jaxs_ops() -> None:
    x = _X.astype(np.float64)
    assert "stablehlo.cbrt" in dx.jit(dlax.cbrt).lower(x).as_text()
    assert "chlo.square" in dx.jit(dlax.square).lower(x).as_text()
    assert "stablehlo.clamp" in dx.jit(dlax.clamp).lower(0.0, x, 1.0).as_text()
    assert "chlo.mulhi" in dx.jit(dlax.mulhi).lower(np.int32(3), np.int32(4)).as_text()
    assert "chlo.zeta" in dx.jit(dlax.zeta).lower(x, x).as_text()
    assert "chlo.bessel_i1e" in dx.jit(dlax.bessel_i1e).lower(x).as_text()
    assert "stablehlo.while" in dx.jit(dlax.igamma).lower(x, x).as_text()
    text = dx.jit(dlax.select_n).lower(*SELECT_CASES["five_cases"]).as_text()
    assert text.count("stablehlo.select") == 4
    assert text.count("stablehlo.compare") == 4


def test_rank_0_operands_are_staged_without_a_broadcast_as_jax() -> None:
    x = np.array([0.5, 2.0, 3.0])
    cases: list[tuple[Callable[..., Any], Callable[..., Any], tuple[Any, ...]]] = [
        (dlax.igamma, jlax.igamma, (x, np.float64(2.0))),
        (dlax.zeta, jlax.zeta, (np.float64(2.0), x)),
        (dlax.betainc, jlax.betainc, (np.float64(2.0), np.float64(3.0), x / 4)),
        (dlax.mulhi, jlax.mulhi, (np.arange(3, dtype=np.uint16) * 9000, np.uint16(40000))),
    ]
    for fn, jfn, args in cases:
        text = str(dx.make_jaxpr(fn)(*args))
        assert "broadcast_in_dim" not in text, text
        _close(dx.jit(fn)(*args), jax.jit(jfn)(*args), 1e-12)
