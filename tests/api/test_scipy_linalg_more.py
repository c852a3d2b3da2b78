"""The rest of ``jax.scipy.linalg`` (issue 29) against JAX 0.10.2.

One table of cases, each a didax function and JAX's of the same name on the
same arguments: values eagerly and under ``jit`` (dtypes and shapes too),
then gradients of a weighted sum of the outputs where JAX differentiates,
a ``jvp`` and central differences, then ``vmap`` over a leading axis. The
64-bit mode runs every case, the 32-bit mode those whose dtypes or constants
differ there. Cases share one compiled program per library and check, to
keep CI's time short. didax calls the
same LAPACK kernels as JAX, so decompositions are compared directly (signs
and phases agree). Errors: JAX's refusals are didax's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeAlias

import jax
import jax.scipy.linalg as jsl
import numpy as np
import pytest

import didax as dx
import didax.scipy.linalg as dsl

Arr: TypeAlias = np.ndarray[Any, Any]

RNG: Final = np.random.default_rng(29)
X64: Final = [
    pytest.param(True, id="x64"),
    # The slow session's: test_gradients_match_jax's x32 case keeps 32-bit mode in CI.
    pytest.param(False, id="x32", marks=(pytest.mark.x64_off, pytest.mark.slow)),
]
X64_IN_CI: Final = [
    pytest.param(True, id="x64"),
    pytest.param(False, id="x32", marks=pytest.mark.x64_off),
]


def _mat(*shape: int) -> Arr:
    return RNG.normal(size=shape)


def _spd(n: int, *batch: int) -> Arr:
    a = _mat(*batch, n, n)
    return np.asarray(a @ np.swapaxes(a, -1, -2) + n * np.eye(n))


def _cplx(*shape: int) -> Arr:
    return np.asarray(_mat(*shape) + 1j * _mat(*shape))


def _herm(n: int) -> Arr:
    a = _cplx(n, n)
    return np.asarray(a @ a.conj().T + n * np.eye(n))


A4: Final = _mat(4, 4) + 4 * np.eye(4)
SPD4: Final = _spd(4)
RECT: Final = _mat(5, 3)
V4: Final = _mat(4)
V3: Final = _mat(3)
B42: Final = _mat(4, 2)

# name -> (function name, positional arguments, keyword arguments)
CASES: Final[dict[str, tuple[str, tuple[Any, ...], dict[str, Any]]]] = {
    "cholesky": ("cholesky", (SPD4,), {}),
    "cholesky_lower": ("cholesky", (SPD4,), {"lower": True}),
    "cholesky_complex": ("cholesky", (_herm(3),), {}),
    "cholesky_batch": ("cholesky", (_spd(3, 2),), {"lower": True}),
    "det": ("det", (A4,), {}),
    "det_batch": ("det", (_mat(2, 3, 3),), {}),
    "inv": ("inv", (A4,), {}),
    "solve": ("solve", (A4, V4), {}),
    "solve_sym": ("solve", (A4, B42), {"assume_a": "sym"}),
    "solve_pos": ("solve", (SPD4, V4), {"assume_a": "pos"}),
    "solve_pos_matrix": ("solve", (SPD4, B42), {"assume_a": "pos", "lower": True}),
    "solve_pos_complex": ("solve", (_herm(3), _cplx(3)), {"assume_a": "pos"}),
    "eigh": ("eigh", (SPD4,), {}),
    "eigh_upper_values": ("eigh", (SPD4,), {"lower": False, "eigvals_only": True}),
    "eigh_complex": ("eigh", (_herm(3),), {}),
    "eigh_tridiagonal": ("eigh_tridiagonal", (_mat(6), _mat(5)), {"eigvals_only": True}),
    "eigh_tridiagonal_range": (
        "eigh_tridiagonal",
        (_cplx(5), _cplx(4)),
        {"eigvals_only": True, "select": "i", "select_range": (1, 3)},
    ),
    "svd": ("svd", (RECT,), {}),
    "svd_economic": ("svd", (RECT,), {"full_matrices": False}),
    "svd_values": ("svd", (_cplx(3, 4),), {"compute_uv": False}),
    "qr": ("qr", (RECT,), {}),
    "qr_economic": ("qr", (RECT,), {"mode": "economic"}),
    "qr_r": ("qr", (RECT.T,), {"mode": "r"}),
    "qr_complex": ("qr", (_cplx(3, 3),), {}),
    "qr_multiply_right": ("qr_multiply", (RECT, _mat(5)), {}),
    "qr_multiply_left": ("qr_multiply", (RECT, V3), {"mode": "left"}),
    "qr_multiply_conj": ("qr_multiply", (_cplx(4, 4), _mat(2, 4)), {"conjugate": True}),
    "qr_multiply_wide_left": ("qr_multiply", (RECT.T, _mat(3, 2)), {"mode": "left"}),
    "polar": ("polar", (A4,), {}),
    "polar_wide_left": ("polar", (RECT.T,), {"side": "left"}),
    "polar_svd": ("polar", (RECT,), {"method": "svd"}),
    "polar_svd_left": ("polar", (A4,), {"side": "left", "method": "svd"}),
    "polar_batch_complex": ("polar", (_cplx(2, 3, 3),), {}),
    "block_diag": ("block_diag", (A4, V3, np.float64(2.0)), {}),
    "block_diag_ints": ("block_diag", (np.array([[1, 2]]), np.array([3])), {}),
    "expm_frechet": ("expm_frechet", (0.3 * A4, _mat(4, 4)), {}),
    "expm_frechet_only": (
        "expm_frechet",
        (0.3 * _mat(2, 2, 2), _mat(2, 2, 2)),
        {"compute_expm": False},
    ),
    # the special matrices
    "toeplitz": ("toeplitz", (V4, V3), {}),
    "toeplitz_hermitian": ("toeplitz", (_cplx(3),), {}),
    "toeplitz_batch": ("toeplitz", (_mat(2, 4), V3), {}),
    "toeplitz_ints": ("toeplitz", (np.array([1, 2, 3]),), {}),
    "hankel": ("hankel", (V4, V3), {}),
    "hankel_zeros": ("hankel", (V4,), {}),
    "circulant": ("circulant", (_mat(2, 4),), {}),
    "leslie": ("leslie", (V4, V3), {}),
    "companion": ("companion", (V4,), {}),
    "companion_ints": ("companion", (np.array([2, -3, 1]),), {}),
    "fiedler": ("fiedler", (V4,), {}),
    "fiedler_ints": ("fiedler", (np.array([1, 4, 2]),), {}),
    "fiedler_companion": ("fiedler_companion", (_mat(6),), {}),
    "fiedler_companion_odd": ("fiedler_companion", (_mat(2, 5),), {}),
    "fiedler_companion_2": ("fiedler_companion", (_mat(2),), {}),
    "convolution_matrix": ("convolution_matrix", (V4, 3), {}),
    "convolution_matrix_same": ("convolution_matrix", (V4, 5), {"mode": "same"}),
    "convolution_matrix_valid": ("convolution_matrix", (V3, 5), {"mode": "valid"}),
    "hilbert": ("hilbert", (4,), {}),
    "invhilbert": ("invhilbert", (5,), {}),
    "pascal": ("pascal", (5,), {}),
    "pascal_upper": ("pascal", (4, "upper"), {}),
    "invpascal": ("invpascal", (5,), {}),
    "invpascal_lower": ("invpascal", (4, "lower"), {}),
    "helmert": ("helmert", (4,), {}),
    "helmert_full": ("helmert", (5, True), {}),
    "hadamard": ("hadamard", (8,), {}),
    "hadamard_float": ("hadamard", (4, np.float32), {}),
    "dft": ("dft", (5,), {}),
    "dft_sqrtn": ("dft", (4, "sqrtn"), {}),
    "dft_n": ("dft", (4, "n"), {}),
}

# Arguments that are not arrays (sizes, modes) stay Python values: these build constants.
STATIC: Final = {
    "convolution_matrix",
    "hilbert",
    "invhilbert",
    "pascal",
    "invpascal",
    "helmert",
    "hadamard",
    "dft",
}
# In 32 bits, the cases whose dtypes or algorithm differ there (QDWH's and the
# bisection's float32 constants, promotions of integers); the rest are the
# same code at another dtype, and CI's time is short.
X32_CASES: Final = {
    "polar",
    "polar_wide_left",
    "eigh_tridiagonal",
    "eigh_tridiagonal_range",
    "solve_pos",
    "cholesky_complex",
    "qr_multiply_conj",
    "block_diag_ints",
    "toeplitz_ints",
    "companion_ints",
    "fiedler_ints",
}
# Iterations whose eager run costs as much as their compilation: checked under jit only.
JIT_ONLY: Final = {"polar", "expm_frechet"}


def _tol(x: Arr) -> float:
    return 2e-4 if np.dtype(x.dtype) in (np.float32, np.complex64) else 1e-9


def _assert_like(got: Any, want: Any, what: str) -> None:
    got_leaves, want_leaves = jax.tree.leaves(got), jax.tree.leaves(want)
    assert len(got_leaves) == len(want_leaves), what
    for g, w in zip(got_leaves, want_leaves, strict=True):
        w = np.asarray(w)
        g = np.asarray(g)
        assert (g.dtype, g.shape) == (w.dtype, w.shape), what
        np.testing.assert_allclose(g, w, rtol=_tol(w), atol=_tol(w), err_msg=what)


def _all_cases(lib: Any, cases: list[str]) -> Callable[[list[Any]], list[Any]]:
    """One function computing every case in ``cases`` (so one program per library is compiled)."""

    def run(args: list[Any]) -> list[Any]:
        return [
            getattr(lib, CASES[c][0])(*a, **CASES[c][2]) for c, a in zip(cases, args, strict=True)
        ]

    return run


@pytest.mark.parametrize("x64", X64)
def test_values_match_jax(x64: bool) -> None:
    traced = sorted(c for c in CASES if CASES[c][0] not in STATIC and (x64 or c in X32_CASES))
    args = [list(CASES[c][1]) for c in traced]
    want = jax.jit(_all_cases(jsl, traced))(args)
    got = dx.jit(_all_cases(dsl, traced))(args)
    for case, g, w in zip(traced, got, want, strict=True):
        _assert_like(g, w, f"{case} under jit")
    if not x64:
        return
    for case, w in zip(traced, want, strict=True):
        if CASES[case][0] not in JIT_ONLY:
            _assert_like(_all_cases(dsl, [case])([CASES[case][1]])[0], w, f"{case} eagerly")


@pytest.mark.parametrize("x64", X64)
def test_constant_matrices_match_jax(x64: bool) -> None:
    static = sorted(c for c in CASES if CASES[c][0] in STATIC)

    def build(lib: Any) -> Callable[[], list[Any]]:
        return lambda: [getattr(lib, CASES[c][0])(*CASES[c][1], **CASES[c][2]) for c in static]

    want = jax.jit(build(jsl))()
    for case, g, w in zip(static, build(dsl)(), want, strict=True):
        _assert_like(g, w, case)
    if x64:
        for case, g, w in zip(static, dx.jit(build(dsl))(), want, strict=True):
            _assert_like(g, w, f"{case} under jit")


# name -> (function of one array, the array): gradients of a weighted sum of
# the outputs, where JAX differentiates (not polar's QDWH: a while loop).
def _loss(tree_leaves: Callable[[Any], list[Any]], outs: Any) -> Any:
    return sum((leaf * (1.0 + 0.1 * k)).real.sum() for k, leaf in enumerate(tree_leaves(outs)))


GRADS: Final[dict[str, tuple[Callable[[Any, Any], Any], Arr]]] = {
    "cholesky": (lambda m, x: m.cholesky(x @ x.T + 4 * np.eye(4)), A4),
    "det": (lambda m, x: m.det(x), A4),
    "inv": (lambda m, x: m.inv(x), A4),
    "solve_pos_a": (lambda m, x: m.solve(x @ x.T + 4 * np.eye(4), B42, assume_a="pos"), A4),
    "solve_pos_b": (lambda m, x: m.solve(SPD4, x, assume_a="pos"), B42),
    "eigh_values": (lambda m, x: m.eigh(x + x.T, eigvals_only=True), A4),
    "svd_values": (lambda m, x: m.svd(x, compute_uv=False), RECT),
    "qr": (lambda m, x: m.qr(x, mode="economic"), RECT),
    "polar_svd": (lambda m, x: m.polar(x, method="svd"), A4),
    "expm_frechet": (lambda m, x: m.expm_frechet(0.3 * A4, x), A4),
    "toeplitz": (lambda m, x: m.toeplitz(x, x[:3]), V4),
    "hankel": (lambda m, x: m.hankel(x), V4),
    "companion": (lambda m, x: m.companion(x), V4),
    "fiedler_companion": (lambda m, x: m.fiedler_companion(x), _mat(6)),
    "leslie": (lambda m, x: m.leslie(x, x[1:] * 0.5), V4),
    "block_diag": (lambda m, x: m.block_diag(x, x[:2, :1]), A4),
}


def _grads(
    lib: Any, leaves: Callable[[Any], list[Any]], names: list[str]
) -> Callable[[list[Any]], Any]:

    def total(xs: list[Any]) -> Any:
        return [_loss(leaves, GRADS[n][0](lib, x)) for n, x in zip(names, xs, strict=True)]

    return lambda xs: [sum(total(xs))]


@pytest.mark.parametrize("x64", X64_IN_CI)
def test_gradients_match_jax(x64: bool) -> None:
    names = sorted(n for n in GRADS if x64 or n in ("cholesky", "solve_pos_a", "polar_svd"))
    xs = [GRADS[n][1] if x64 else GRADS[n][1].astype(np.float32) for n in names]
    want = jax.jit(jax.grad(lambda v: _grads(jsl, jax.tree.leaves, names)(v)[0]))(xs)
    got = dx.jit(dx.grad(lambda v: _grads(dsl, dx.tree_util.tree_leaves, names)(v)[0]))(xs)
    for name, g, w in zip(names, got, want, strict=True):
        _assert_like(g, w, f"grad of {name}")


def test_jvp_and_finite_differences() -> None:
    e = _mat(4, 4)
    _, want = jax.jit(lambda x, t: jax.jvp(lambda y: jsl.polar(y)[1], (x,), (t,)))(A4, e)
    _, got = dx.jit(lambda x, t: dx.jvp(lambda y: dsl.polar(y)[1], (x,), (t,)))(A4, e)
    _assert_like(got, want, "jvp of polar")
    # solve's derivative in a (through custom_linear_solve) against central differences
    h = 1e-6
    _, got_t = dx.jvp(lambda x: dsl.solve(x, B42, assume_a="pos"), (SPD4,), (e + e.T,))
    plus = np.asarray(dsl.solve(SPD4 + h * (e + e.T), B42, assume_a="pos"))
    minus = np.asarray(dsl.solve(SPD4 - h * (e + e.T), B42, assume_a="pos"))
    np.testing.assert_allclose(np.asarray(got_t), (plus - minus) / (2 * h), rtol=1e-6, atol=1e-6)


VMAPS: Final[dict[str, tuple[Callable[[Any, Any], Any], Arr]]] = {
    "cholesky": (lambda m, x: m.cholesky(x), _spd(3, 2)),
    "solve_pos": (lambda m, x: m.solve(x, x[0], assume_a="pos"), _spd(3, 2)),
    "polar": (lambda m, x: m.polar(x), _mat(2, 3, 3)),
    "toeplitz": (lambda m, x: m.toeplitz(x), _mat(3, 4)),
    "qr_multiply": (lambda m, x: m.qr_multiply(x, x[0]), _mat(2, 3, 3)),
    "companion": (lambda m, x: m.companion(x), _mat(3, 4)),
}


def test_vmap_matches_jax() -> None:
    names = sorted(VMAPS)
    xs = [VMAPS[n][1] for n in names]

    def mapped(lib: Any, vmap: Any) -> Any:
        return lambda v: [
            vmap(lambda x, n=n: VMAPS[n][0](lib, x))(x) for n, x in zip(names, v, strict=True)
        ]

    want = jax.jit(mapped(jsl, jax.vmap))(xs)
    got = dx.jit(mapped(dsl, dx.vmap))(xs)
    for name, g, w in zip(names, got, want, strict=True):
        _assert_like(g, w, f"vmap of {name}")


BAD: Final[list[tuple[str, tuple[Any, ...], dict[str, Any], type[Exception]]]] = [
    ("solve", (SPD4, V4), {"assume_a": "bad"}, ValueError),
    ("solve", (_spd(3, 2), B42), {"assume_a": "pos"}, ValueError),
    ("eigh", (SPD4, SPD4), {}, NotImplementedError),
    ("eigh", (SPD4,), {"type": 2}, NotImplementedError),
    ("qr", (RECT,), {"mode": "bad"}, ValueError),
    ("qr_multiply", (RECT, V4), {}, ValueError),
    ("qr_multiply", (RECT, V4), {"mode": "up"}, ValueError),
    ("polar", (V4,), {}, ValueError),
    ("polar", (RECT.T,), {}, NotImplementedError),
    ("polar", (A4,), {"method": "bad"}, ValueError),
    ("block_diag", (_mat(2, 2, 2),), {}, ValueError),
    ("expm_frechet", (A4, RECT), {}, ValueError),
    ("leslie", (V4, V4), {}, ValueError),
    ("companion", (np.ones(1),), {}, ValueError),
    ("fiedler_companion", (np.ones(0),), {}, ValueError),
    ("convolution_matrix", (V4, 0), {}, ValueError),
    ("convolution_matrix", (V4, 2, "bad"), {}, ValueError),
    ("hankel", (np.float64(1.0),), {}, ValueError),
    ("pascal", (3, "bad"), {}, ValueError),
    ("helmert", (0,), {}, ValueError),
    ("hadamard", (3,), {}, ValueError),
    ("dft", (3, "bad"), {}, ValueError),
    ("dft", (3,), {"dtype": np.float32}, ValueError),
    ("eigh_tridiagonal", (V4, V3.astype(np.float32)), {"eigvals_only": True}, TypeError),
    ("eigh_tridiagonal", (V4, V3), {"eigvals_only": True, "select": "v"}, NotImplementedError),
]


@pytest.mark.parametrize(("name", "args", "kwargs", "error"), BAD, ids=[b[0] for b in BAD])
def test_refusals_are_jaxs(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any], error: type[Exception]
) -> None:
    with pytest.raises(error):
        getattr(jsl, name)(*args, **kwargs)
    with pytest.raises(error):
        getattr(dsl, name)(*args, **kwargs)


def test_what_didax_lacks_is_refused_clearly() -> None:
    with pytest.raises(NotImplementedError, match="qr: pivoting=True needs"):
        dsl.qr(RECT, pivoting=True)
    with pytest.raises(NotImplementedError, match="qr_multiply: pivoting=True"):
        dsl.qr_multiply(RECT, _mat(5), pivoting=True)
    with pytest.raises(NotImplementedError, match="eigh_tridiagonal: eigenvectors need"):
        dsl.eigh_tridiagonal(V4, V3)
