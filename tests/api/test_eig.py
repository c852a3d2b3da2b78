"""The general eigendecomposition: ``lax.linalg.eig``, ``numpy.linalg.eig``/``eigvals``, ``roots``.

didax calls JAX's LAPACK kernel (``geev``), so values are compared with
JAX's directly, and also by what holds whatever the order and phases
(sorted eigenvalues; ``A vr = vr diag(w)``, ``vl^H A = diag(w) vl^H`` and
unit-norm eigenvectors): real and complex operands in both precisions,
batched, eagerly, under ``jit`` and ``vmap``; empty, NaN and inf operands. Then
derivatives (the eigenvalues' jvp and grad against JAX's and finite
differences, the eigenvectors' under ``enable_eigvec_derivs``, JAX's error
without), ``roots`` (leading zeros stripped or NaN, under ``jit``) and
``poly`` of a matrix, the 32-bit dtypes, and the errors. Each case is one
compiled program of small matrices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeAlias

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax import lax
from didax.errors import DTypeError, ShapeError

Array: TypeAlias = np.ndarray[Any, Any]
Fn: TypeAlias = Callable[..., Any]

RNG: Final = np.random.default_rng(29)
F32, F64, C64, C128 = (np.dtype(t) for t in ("float32", "float64", "complex64", "complex128"))
# Tolerance per operand precision.
TOL: Final = {F32: 2e-4, F64: 1e-10, C64: 2e-4, C128: 1e-10}


def _matrix(dtype: np.dtype[Any], *shape: int) -> Array:
    a = RNG.normal(size=shape)
    if dtype.kind == "c":
        a = a + 1j * RNG.normal(size=shape)
    return np.asarray(a, dtype)


def _sorted(w: Any) -> Array:
    w = np.asarray(w)
    return np.take_along_axis(w, np.lexsort((w.imag.round(3), w.real.round(3))), -1)


def _check_decomposition(a: Array, w: Any, vl: Any, vr: Any, tol: float) -> None:
    w, vl, vr = np.asarray(w), np.asarray(vl), np.asarray(vr)
    scale = tol * max(1.0, float(np.abs(a).max()))
    np.testing.assert_allclose(a @ vr, vr * w[..., None, :], atol=scale)
    vl_h = np.conj(np.swapaxes(vl, -1, -2))
    np.testing.assert_allclose(vl_h @ a, w[..., :, None] * vl_h, atol=scale)
    for v in (vl, vr):
        np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1.0, atol=tol)


# --- values -----------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3)], ids=["single", "batched"])
@pytest.mark.parametrize("dtype", [F32, F64, C64, C128], ids=str)
def test_eig_against_jax(dtype: np.dtype[Any], shape: tuple[int, ...]) -> None:
    a = _matrix(dtype, *shape)
    tol = TOL[dtype]
    w, vl, vr = dx.jit(lax.linalg.eig)(a)
    jw, jvl, jvr = jax.lax.linalg.eig(a)
    assert np.asarray(w).dtype == jw.dtype == np.asarray(vr).dtype == jvr.dtype
    np.testing.assert_allclose(_sorted(w), _sorted(jw), atol=tol)
    _check_decomposition(a, w, vl, vr, tol)
    # The same kernel: the same order and phases as JAX's, eagerly too.
    np.testing.assert_allclose(np.asarray(vr), np.asarray(jvr), atol=tol)
    np.testing.assert_allclose(np.asarray(vl), np.asarray(jvl), atol=tol)
    eager = lax.linalg.eig(a, compute_left_eigenvectors=False)
    assert len(eager) == 2
    np.testing.assert_allclose(np.asarray(eager[1]), np.asarray(vr), atol=tol)


def test_numpy_eig_and_eigvals() -> None:
    a = np.array([[2, 1, 0], [0, 3, 1], [1, 0, 4]])  # integers become floats
    (w, v), (jw, jv) = dnp.linalg.eig(a), jnp.linalg.eig(a)
    assert type(dnp.linalg.eig(a)).__name__ == "EigResult"
    np.testing.assert_allclose(np.asarray(w), np.asarray(jw), atol=1e-12)
    np.testing.assert_allclose(np.asarray(v), np.asarray(jv), atol=1e-12)
    assert np.asarray(w).dtype == jw.dtype == np.complex128
    vals = dx.jit(dnp.linalg.eigvals)(a)
    np.testing.assert_allclose(np.asarray(vals), np.asarray(jnp.linalg.eigvals(a)), atol=1e-12)


@pytest.mark.x64_off
def test_dtypes_in_32_bits() -> None:
    a = np.array([[1, 2], [3, 4]])
    for fn, jfn in ((dnp.linalg.eigvals, jnp.linalg.eigvals), (dnp.roots, jnp.roots)):
        arg = a if fn is dnp.linalg.eigvals else a[0]
        assert np.asarray(fn(arg)).dtype == jfn(arg).dtype == np.complex64
    assert dnp.linalg.eig(a.astype(np.float64)).eigenvectors.dtype == np.complex64


def test_vmap_over_a_middle_axis() -> None:
    a = _matrix(F64, 3, 2, 3)  # the batch axis is 1
    w, vr = dx.vmap(lambda m: lax.linalg.eig(m, compute_left_eigenvectors=False), 1)(a)
    jw, jvr = jax.vmap(lambda m: jax.lax.linalg.eig(m, compute_left_eigenvectors=False), 1)(a)
    np.testing.assert_allclose(np.asarray(w), np.asarray(jw), atol=1e-12)
    np.testing.assert_allclose(np.asarray(vr), np.asarray(jvr), atol=1e-12)


def test_empty_and_nan_operands() -> None:
    for shape in ((0, 0), (0, 3, 3), (2, 0, 0)):
        outs = lax.linalg.eig(np.zeros(shape))
        want = jax.lax.linalg.eig(np.zeros(shape))
        assert [np.shape(o) for o in outs] == [o.shape for o in want]
    a = np.stack([np.full((3, 3), np.nan), np.eye(3), np.eye(3)])
    a[2, 0, 1] = np.inf
    w, vr = dx.jit(lambda x: lax.linalg.eig(x, compute_left_eigenvectors=False))(a)
    jw, jvr = jax.lax.linalg.eig(a, compute_left_eigenvectors=False)
    np.testing.assert_array_equal(np.isnan(np.asarray(w)), np.isnan(np.asarray(jw)))
    np.testing.assert_array_equal(np.isnan(np.asarray(vr)), np.isnan(np.asarray(jvr)))
    np.testing.assert_allclose(np.asarray(w)[1], 1.0)
    assert np.isnan(np.asarray(w)[[0, 2]]).all()


# --- derivatives ------------------------------------------------------------------------------


def _eigvals_sum(np_: Any, weights: Array) -> Fn:
    # A real function of the eigenvalues that does not depend on their order.
    def f(a: Any) -> Any:
        w = np_.linalg.eigvals(a)
        return np_.sum(np_.real(w) ** 2 + np_.imag(w) ** 2 * weights[0] + np_.real(w) * weights[1])

    return f


def _values(lib: Any) -> Fn:
    return lambda x: lib.linalg.eig(
        x, compute_left_eigenvectors=False, compute_right_eigenvectors=False
    )[0]


def _eigvals_derivatives(lib: Any, np_: Any, weights: Array) -> Fn:
    # The eigenvalues' jvp, and the grad and jvp of a real function of them.
    f = _eigvals_sum(np_, weights)

    def run(a: Any, t: Any) -> tuple[Any, Any, Any]:
        _, dw = lib.jvp(_values(lib.lax), (a,), (t,))
        return dw, lib.grad(f)(a), lib.jvp(f, (a,), (t,))[1]

    return run


@pytest.mark.parametrize("dtype", [F64, C128], ids=str)
def test_eigvals_derivatives(dtype: np.dtype[Any]) -> None:
    a = _matrix(dtype, 2, 4, 4)
    t = _matrix(dtype, 2, 4, 4)
    weights = np.array([0.5, -1.5])
    got = dx.jit(_eigvals_derivatives(dx, dnp, weights))(a, t)
    want = jax.jit(_eigvals_derivatives(jax, jnp, weights))(a, t)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), atol=1e-10)
    # Central finite differences of the (order-free) function along t.
    f, eps = _eigvals_sum(np, weights), 1e-6
    fd = (f(a + eps * t) - f(a - eps * t)) / (2 * eps)
    np.testing.assert_allclose(float(got[2]), fd, rtol=1e-6)


@pytest.mark.parametrize(("left", "right"), [(True, True), (False, True), (True, False)])
def test_eigenvector_derivatives(left: bool, right: bool) -> None:
    a, t = _matrix(F64, 3, 3), _matrix(F64, 3, 3)
    kw = {"compute_left_eigenvectors": left, "compute_right_eigenvectors": right}
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        dx.jvp(lambda x: lax.linalg.eig(x, **kw), (a,), (t,))

    def tangents(lib: Any) -> Fn:
        eig = lib.lax.linalg.eig
        return lambda x, dx_: lib.jvp(
            lambda y: eig(y, enable_eigvec_derivs=True, **kw), (x,), (dx_,)
        )[1]

    got, want = dx.jit(tangents(dx))(a, t), jax.jit(tangents(jax))(a, t)
    assert len(got) == len(want) == 1 + left + right
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), atol=1e-10)


# --- roots and poly -----------------------------------------------------------------------------

ROOTS_CASES: Final = {
    "complex-pair": [1.0, 0.0, 1.0],
    "leading-zeros": [0.0, 0.0, 1.0, -3.0, 2.0],
    "zero-roots": [0.0, 1.0, 0.0, 0.0],
    "all-zero": [0.0, 0.0, 0.0],
    "constant": [3.0],
    "complex-coefficients": [1.0, 1j, 2.0 - 1j, 0.5],
    "integers": [1, 2, 0, 4],
}


@pytest.mark.parametrize("p", list(ROOTS_CASES.values()), ids=list(ROOTS_CASES))
def test_roots_against_jax(p: list[Any]) -> None:
    coeffs = np.asarray(p)
    got, want = dnp.roots(coeffs), jnp.roots(coeffs)
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_allclose(_sorted(got), _sorted(want), atol=1e-10)
    jitted = dx.jit(lambda c: dnp.roots(c, strip_zeros=False))(coeffs)
    want_nan = jnp.roots(coeffs, strip_zeros=False)
    np.testing.assert_array_equal(np.isnan(np.asarray(jitted)), np.isnan(np.asarray(want_nan)))
    np.testing.assert_allclose(_sorted(jitted), _sorted(want_nan), atol=1e-10)


def test_roots_errors_and_poly_of_a_matrix() -> None:
    with pytest.raises(dx.errors.ConcretizationTypeError, match="strip_zeros=False"):
        dx.jit(dnp.roots)(np.array([0.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match="rank-1"):
        dnp.roots(np.ones((2, 2)))
    m = np.array([[2.0, 1.0, 5.0], [3.0, 4.0, 7.0], [1.0, 3.0, 5.0]])
    np.testing.assert_allclose(np.asarray(dnp.poly(m)), np.asarray(jnp.poly(m)), atol=1e-10)


# --- errors and flops ---------------------------------------------------------------------------


def test_errors() -> None:
    with pytest.raises(ShapeError, match=r"eig.*square"):
        lax.linalg.eig(np.ones((2, 3)))
    with pytest.raises(ShapeError, match=r"eig.*square"):
        lax.linalg.eig(np.ones(3))
    with pytest.raises(DTypeError, match=r"eig.*int32"):
        lax.linalg.eig(np.ones((2, 2), np.int32))
    # LAPACK has no 16-bit kernel (JAX 0.10.2 fails only at lowering).
    with pytest.raises(DTypeError, match=r"eig.*f16"):
        lax.linalg.eig(np.ones((2, 2), np.float16))
    with pytest.raises(NotImplementedError, match=r"eig.*LAPACK"):
        lax.linalg.eig(np.eye(2), implementation="magma")
    with pytest.raises(NotImplementedError, match=r"eig.*cuda"):
        dx.jit(dnp.linalg.eigvals).lower(np.eye(2)).as_text(platform="cuda")


def test_flops() -> None:
    from didax.api.flops import cost

    n = 5
    assert cost(dnp.linalg.eigvals)(np.ones((2, n, n))).flops == 2 * 10 * n**3
    assert cost(dnp.linalg.eig)(np.ones((n, n))).flops == 25 * n**3
