"""The special element-wise primitives (``core.lax.special``) against ``jax.lax``.

Values over grids of ordinary and edge inputs (0, -0, +-1, +-inf, NaN,
large), eager and under jit, at 16, 32 and 64 bits; types and weak types;
typing errors; jvp and grad against JAX and finite differences, at second
order too; vmap; flops against XLA's cost analysis; the lowering's ops.

Eager values of the functions run through XLA (``erf``, ``lgamma``,
``sinh``, ...) equal JAX's bit for bit; those run with NumPy (``atan2``,
``exp2``) are within an ulp; jitted values are always JAX's exactly.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Final

import jax
import ml_dtypes
import numpy as np
import pytest
from jax import lax as jlax
from tests.slicing import PARTS, diagonal, in_part

import didax as dx
from didax import lax as dlax
from didax.api.flops import cost
from didax.core import lax as core_lax
from didax.interpreters import evaluation
from didax.lowering import xla

F16: Final = np.dtype(np.float16)
BF16: Final = np.dtype(ml_dtypes.bfloat16)
F32: Final = np.dtype(np.float32)
F64: Final = np.dtype(np.float64)

EDGES: Final = np.array(
    [
        *(0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 0.999, -0.999, 1.5, 2.0, -2.5, 3.0, 10.0, -10.0),
        *(30.0, 100.0, 1e-8, 1e10, -1e10, np.inf, -np.inf, np.nan),
    ]
)

# name -> (points where the function is smooth, for derivatives)
UNARY: Final[dict[str, np.ndarray[Any, Any]]] = {
    "erf": np.array([-2.0, -0.3, 0.0, 0.4, 1.7]),
    "erfc": np.array([-2.0, -0.3, 0.0, 0.4, 1.7]),
    "erf_inv": np.array([-0.9, -0.3, 0.0, 0.4, 0.7]),
    "lgamma": np.array([-2.5, -0.5, 0.3, 1.5, 7.0]),
    "digamma": np.array([-2.5, -0.5, 0.3, 1.5, 7.0]),
    "sinh": np.array([-2.0, -0.3, 0.0, 0.4, 1.7]),
    "cosh": np.array([-2.0, -0.3, 0.0, 0.4, 1.7]),
    "asin": np.array([-0.9, -0.3, 0.0, 0.4, 0.7]),
    "acos": np.array([-0.9, -0.3, 0.0, 0.4, 0.7]),
    "atan": np.array([-2.0, -0.3, 0.0, 0.4, 1.7]),
    "asinh": np.array([-2.0, -0.3, 0.0, 0.4, 1.7]),
    "acosh": np.array([1.2, 1.5, 2.0, 4.0, 9.0]),
    "atanh": np.array([-0.9, -0.3, 0.0, 0.4, 0.7]),
    "exp2": np.array([-2.0, -0.3, 0.0, 0.4, 1.7]),
}
# Evaluated eagerly by NumPy (within an ulp of XLA); the others by XLA itself.
NUMPY_IMPLS: Final = {"exp2", "atan2"}
BINARY: Final = ("atan2", "nextafter", "polygamma")
# The tables below take each function at one of their two dtypes in the
# default run, alternating down the names (``diagonal``): every function and
# both dtypes are still reached; the slow session runs the rest.


def _pair(name: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    return getattr(dlax, name), getattr(jlax, name)


def _check_type(got: Any, want: Any) -> None:
    assert isinstance(got, dx.Array)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    assert got.weak_type == want.weak_type


def _as_f64(x: Any) -> np.ndarray[Any, Any]:
    return np.asarray(x).astype(np.float64)


# The noxfile's tests session compiles without LLVM's optimisation, where two
# programs that XLA's optimisation makes bit-identical (didax's vmap and
# JAX's, built in a different order) can differ in their last bits: a
# series like polygamma's by up to 8 ulps. The exact checks allow that there.
_UNOPTIMIZED: Final = "--xla_backend_optimization_level=0" in os.environ.get("XLA_FLAGS", "")


def _check_exact(got: Any, want: Any) -> None:
    _check_type(got, want)
    if want.dtype == np.bool_:
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        return
    if _UNOPTIMIZED and np.issubdtype(want.dtype, np.floating):
        _check_ulp(got, want, ulps=8)
        return
    np.testing.assert_array_equal(_as_f64(got), _as_f64(want))


def _check_ulp(got: Any, want: Any, ulps: int = 1) -> None:
    _check_type(got, want)
    g, w = np.asarray(got), np.asarray(want)
    if g.dtype.itemsize == 2:  # NumPy's ulp check knows no bfloat16
        eps = float(ml_dtypes.finfo(g.dtype).eps)
        np.testing.assert_allclose(_as_f64(g), _as_f64(w), rtol=ulps * eps, atol=0)
        return
    same = (g == w) | (np.isnan(g) & np.isnan(w))
    np.testing.assert_array_max_ulp(g[~same], w[~same], maxulp=ulps)


def _binary_grid(name: str, dtype: np.dtype[Any]) -> tuple[np.ndarray[Any, Any], ...]:
    if name == "polygamma":
        m = np.array([0.0, 1.0, 2.0, 3.0, 0.5, -1.0])[:, None]
        x = np.array([-2.5, -1.0, 0.0, 0.3, 1.0, 4.5, 20.0, np.inf, np.nan])[None, :]
        m, x = np.broadcast_arrays(m, x)
    else:
        grid = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.0, 1e10, np.inf, -np.inf, np.nan])
        m, x = np.meshgrid(grid, grid)
    return m.astype(dtype), x.astype(dtype)


# --- values ---------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "dtype"), diagonal(2, [*UNARY, "is_finite"], [F32, F64]))
def test_unary_values_eager_and_jit(name: str, dtype: np.dtype[Any]) -> None:
    x = EDGES.astype(dtype)
    d, j = _pair(name)
    want = j(x)
    check = _check_ulp if name in NUMPY_IMPLS else _check_exact
    check(d(x), want)
    _check_exact(dx.jit(d)(x), jax.jit(j)(x))


@pytest.mark.parametrize(("name", "dtype"), diagonal(2, BINARY, [F32, F64]))
def test_binary_values_eager_and_jit(name: str, dtype: np.dtype[Any]) -> None:
    a, b = _binary_grid(name, dtype)
    d, j = _pair(name)
    check = _check_ulp if name in NUMPY_IMPLS else _check_exact
    check(d(a, b), j(a, b))
    _check_exact(dx.jit(d)(a, b), jax.jit(j)(a, b))


@pytest.mark.parametrize(
    ("name", "dtype"),
    diagonal(2, ["erf", "erf_inv", "lgamma", "sinh", "atanh", "exp2"], [F16, BF16]),
)
def test_16_bit_floats(name: str, dtype: np.dtype[Any]) -> None:
    x = np.array([-0.75, -0.1, 0.0, 0.3, 0.99, 2.0]).astype(dtype)
    d, j = _pair(name)
    check = _check_ulp if name in NUMPY_IMPLS else _check_exact
    check(d(x), j(x))
    _check_exact(dx.jit(d)(x), jax.jit(j)(x))


@pytest.mark.parametrize("name", ["erf", "erf_inv", "sinh", "exp2", "is_finite"])
def test_weak_types_follow_jax(name: str) -> None:
    d, j = _pair(name)
    for x in (0.5, np.float32(0.5), np.array([0.25, 0.5], np.float32)):
        want = j(x)
        check = _check_ulp if name in NUMPY_IMPLS else _check_exact
        check(d(x), want)
    # didax.lax's rule: a weak operand takes its strong partner's dtype (JAX's
    # atan2 refuses the pair instead).
    out = dlax.atan2(np.float32(1.0), 2.0)
    assert (out.dtype, out.weak_type) == (F32, False)
    _check_ulp(out, jlax.atan2(np.float32(1.0), np.float32(2.0)))
    out = dlax.nextafter(1.0, np.float32(2.0))
    _check_exact(out, jlax.nextafter(np.float32(1.0), np.float32(2.0)))


def test_eager_empty_and_scalar_shapes() -> None:
    for x in (np.zeros((0, 3)), np.float64(0.25), np.full((2, 1, 3), 0.5, np.float32)):
        _check_exact(dlax.erf_inv(x), jlax.erf_inv(x))
        _check_exact(dlax.is_finite(x), jlax.is_finite(x))


def test_jaxpr_and_lowering_name_the_ops() -> None:
    x = np.linspace(-0.5, 0.5, 4)
    ops = {
        "erf": "chlo.erf",
        "erfc": "chlo.erfc",
        "erf_inv": "chlo.erf_inv",
        "lgamma": "chlo.lgamma",
        "digamma": "chlo.digamma",
        "sinh": "chlo.sinh",
        "cosh": "chlo.cosh",
        "asin": "chlo.asin",
        "acos": "chlo.acos",
        "atan": "chlo.atan",
        "asinh": "chlo.asinh",
        "acosh": "chlo.acosh",
        "atanh": "chlo.atanh",
        "exp2": "stablehlo.exponential",
        "is_finite": "stablehlo.is_finite",
    }
    for name, op in ops.items():
        fn = getattr(dlax, name)
        assert f"= {name} " in str(dx.make_jaxpr(fn)(x))
        assert op in dx.jit(fn).lower(x).as_text()
    for name, op in {
        "atan2": "stablehlo.atan2",
        "nextafter": "chlo.next_after",
        "polygamma": "chlo.polygamma",
    }.items():
        assert op in dx.jit(getattr(dlax, name)).lower(x, x).as_text()


# --- typing ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", [*UNARY, "is_finite"])
def test_integer_operands_are_refused(name: str) -> None:
    fn = getattr(dlax, name)
    with pytest.raises(TypeError, match=name):
        fn(np.array([1, 2]))
    with pytest.raises(TypeError, match=name):
        dx.jit(fn)(np.array([1, 2], np.int32))
    with pytest.raises(TypeError):
        getattr(jlax, name)(np.array([1, 2]))  # JAX refuses them too


@pytest.mark.parametrize("name", BINARY)
def test_binary_operands_must_agree(name: str) -> None:
    fn = getattr(dlax, name)
    with pytest.raises(TypeError, match=name):
        fn(np.ones(2, np.float32), np.ones(2, np.float64))
    with pytest.raises(TypeError, match=name):
        fn(np.ones(2), np.ones(3))
    with pytest.raises(TypeError, match=name):
        fn(np.ones(2, np.int64), np.ones(2, np.int64))


def test_is_finite_result_is_boolean_weak_as_its_operand() -> None:
    out = dlax.is_finite(np.array([1.0, np.inf, -np.inf, np.nan]))
    _check_exact(out, jlax.is_finite(np.array([1.0, np.inf, -np.inf, np.nan])))
    np.testing.assert_array_equal(np.asarray(out), [True, False, False, False])
    assert dlax.is_finite(1.0).weak_type  # as JAX's
    assert dx.jit(dlax.is_finite)(1.0).weak_type
    assert not dlax.is_finite(np.float64(1.0)).weak_type


# --- derivatives ----------------------------------------------------------------------


def _close(got: Any, want: Any, dtype: np.dtype[Any]) -> None:
    assert np.asarray(got).dtype == np.asarray(want).dtype
    tol = 2e-6 if dtype == F32 else 1e-13
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


@pytest.mark.parametrize(("name", "dtype"), diagonal(2, list(UNARY), [F32, F64]))
def test_unary_jvp_matches_jax(name: str, dtype: np.dtype[Any]) -> None:
    x = UNARY[name].astype(dtype)
    t = np.linspace(0.5, 1.5, x.size).astype(dtype)
    d, j = _pair(name)
    got_p, got_t = dx.jvp(d, (x,), (t,))
    want_p, want_t = jax.jvp(j, (x,), (t,))
    _close(got_p, want_p, dtype)
    _close(got_t, want_t, dtype)
    # Under jit the tangent's program is XLA's too.
    _close(dx.jit(lambda a, b: dx.jvp(d, (a,), (b,))[1])(x, t), want_t, dtype)


@pytest.mark.parametrize("name", UNARY)
def test_unary_grad_matches_finite_differences(name: str) -> None:
    x = UNARY[name]
    d = getattr(dlax, name)
    g = dx.vmap(dx.grad(d))(x)
    eps = 1e-6
    fd = (np.asarray(d(x + eps)) - np.asarray(d(x - eps))) / (2 * eps)
    np.testing.assert_allclose(np.asarray(g), fd, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["atan2", "polygamma"])
def test_binary_jvp_matches_jax(name: str) -> None:
    if name == "polygamma":
        a, b = np.array([0.0, 1.0, 2.0, 1.0]), np.array([0.5, 1.5, 3.0, -0.5])
        argnums: tuple[int, ...] = (1,)
    else:
        a, b = np.array([1.0, -1.0, 0.3, -2.0]), np.array([0.5, -1.5, -3.0, 2.0])
        argnums = (0, 1)
    d, j = _pair(name)
    for argnum in argnums:
        got = dx.grad(lambda u, v: dx.numpy.sum(d(u, v)), argnums=argnum)(a, b)
        want = jax.grad(lambda u, v: jax.numpy.sum(j(u, v)), argnums=argnum)(a, b)
        _close(got, want, F64)


def test_polygamma_in_m_and_nextafter_are_not_differentiable() -> None:
    with pytest.raises(ValueError, match="polygamma gradient with respect to m"):
        dx.grad(lambda m: dlax.polygamma(m, 2.0))(1.0)
    with pytest.raises(NotImplementedError, match="nextafter"):
        dx.grad(lambda x: dlax.nextafter(x, 2.0))(1.0)


@pytest.mark.parametrize("name", ["lgamma", "digamma", "erf_inv", "erf", "atanh", "sinh"])
def test_second_derivatives_match_jax(name: str) -> None:
    x = UNARY[name]
    d, j = _pair(name)
    got = dx.vmap(dx.grad(dx.grad(d)))(x)
    want = jax.vmap(jax.grad(jax.grad(j)))(x)
    _close(got, want, F64)


def test_is_finite_tangent_is_a_float0_zero() -> None:
    x = np.array([1.0, np.inf])
    _, got = dx.jvp(dlax.is_finite, (x,), (np.ones(2),))
    _, want = jax.jvp(jlax.is_finite, (x,), (np.ones(2),))
    assert np.asarray(got).dtype == np.asarray(want).dtype == jax.dtypes.float0
    # Through a select, the derivative flows only through the chosen branch.
    f = lambda v, np_, lx: np_.sum(np_.where(lx.is_finite(v), v * v, 0.0))  # noqa: E731
    v = np.array([1.5, np.inf, -2.0])
    got_g = dx.grad(lambda v: f(v, dx.numpy, dlax))(v)
    want_g = jax.grad(lambda v: f(v, jax.numpy, jlax))(v)
    np.testing.assert_array_equal(np.asarray(got_g), np.asarray(want_g))


def test_erf_inv_weak_tangent_types_follow_jax() -> None:
    for x in (0.5, np.float32(0.5)):
        got = dx.jvp(dlax.erf_inv, (x,), (x,))
        want = jax.jvp(jlax.erf_inv, (x,), (x,))
        for g, w in zip(got, want, strict=True):
            _check_type(g, w)
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


# --- vmap -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["erf", "lgamma", "asinh", "exp2", "is_finite"])
def test_unary_vmap(name: str) -> None:
    x = np.array([[0.1, -0.4, 0.9], [0.3, 0.2, -0.7]])
    d, j = _pair(name)
    check = _check_ulp if name in NUMPY_IMPLS else _check_exact
    for axis in (0, 1):
        check(dx.vmap(d, in_axes=axis)(x), jax.vmap(j, in_axes=axis)(x))
    _check_exact(dx.jit(dx.vmap(d, in_axes=1))(x), jax.jit(jax.vmap(j, in_axes=1))(x))


@pytest.mark.parametrize("name", BINARY)
def test_binary_vmap(name: str) -> None:
    a = np.array([[0.0, 1.0, 2.0], [1.0, 3.0, 0.0]])
    b = np.array([[0.5, 1.5, 2.5], [-0.5, 4.0, 7.0]])
    d, j = _pair(name)
    check = _check_ulp if name in NUMPY_IMPLS else _check_exact
    cases: list[tuple[tuple[int | None, int | None], Any, Any]] = [
        ((0, 0), a, b),
        ((0, None), a, b[0]),
        ((None, 1), a[0], b.T.copy()),
        ((1, 0), a.T.copy(), b),
    ]
    for in_axes, x, y in cases:
        check(dx.vmap(d, in_axes=in_axes)(x, y), jax.vmap(j, in_axes=in_axes)(x, y))
    _check_exact(dx.jit(dx.vmap(d, in_axes=(1, 0)))(a.T.copy(), b), j(a, b))


# --- flops, and the eager executor ----------------------------------------------------


# Primitives whose didax.lax function has another name (JAX's).
WRAPPERS: Final = {"regularized_incomplete_beta": "betainc"}


@pytest.mark.skipif(xla.platform() != "cpu", reason="the counts are XLA's CPU compiler's")
@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("dtype", [F32, F64], ids=str)
def test_flops_match_xla_cost_analysis(dtype: np.dtype[Any], part: bool) -> None:
    x = np.full((2, 5), 0.5, dtype)
    # The slice: each primitive at one dtype, alternating (both dtypes' counts are read).
    prims = list(core_lax.SPECIAL_PRIMITIVES)
    for prim in in_part(prims, lambda p: prims.index(p) % 2 == (dtype == F64), part):
        fn = getattr(dlax, WRAPPERS.get(prim.name, prim.name))
        arity = (
            3 if prim in core_lax.SPECIAL_TERNARY else 2 if prim in core_lax.SPECIAL_BINARY else 1
        )
        args = (x,) * arity
        analysis = dx.jit(fn).lower(*args).compile().cost_analysis()
        c = cost(fn)(*args)
        assert (c.flops, c.transcendentals) == (
            int(analysis.get("flops", 0)),
            int(analysis.get("transcendentals", 0)),
        ), prim.name


def test_eager_special_functions_need_the_compiled_route(monkeypatch: pytest.MonkeyPatch) -> None:
    # XLA defines them: with no compiled route installed they cannot run eagerly.
    monkeypatch.setattr(evaluation, "_evaluator", [])
    monkeypatch.setattr(evaluation, "_on_host", True)
    with pytest.raises(NotImplementedError, match=r"'erf_inv' has no impl .* rule, and no"):
        dlax.erf_inv(np.array([0.5, 0.25, 0.125]))
    # The NumPy-defined ones do not.
    _check_exact(dlax.is_finite(np.array([1.0, np.nan])), jlax.is_finite(np.array([1.0, np.nan])))


def test_random_can_find_erf_and_erf_inv_in_core_lax() -> None:
    # didax.random's samplers look them up there (normal, truncated_normal).
    for name in ("erf", "erfc", "erf_inv"):
        assert getattr(core_lax, name) is getattr(dlax, name)
