"""The rest of ``jax.numpy.linalg`` and ``jax.numpy.fft`` (issue 29) against JAX 0.10.2.

One table of cases, each a didax function and JAX's of the same name on the
same arguments: values under ``jit`` in both x64 modes (dtypes and shapes
too) and, for one case per family, eagerly in 64 bits; then gradients of a weighted sum of the
outputs where JAX differentiates, a ``jvp`` against central differences,
``vmap`` over a leading axis, and the refusals. Cases share one compiled
program per library and check, to keep CI's time short.
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

Arr: TypeAlias = np.ndarray[Any, Any]

RNG: Final = np.random.default_rng(29)
X64: Final = [
    pytest.param(True, id="x64"),
    pytest.param(False, id="x32", marks=pytest.mark.x64_off),
]


def _mat(*shape: int) -> Arr:
    return RNG.normal(size=shape)


def _cplx(*shape: int) -> Arr:
    return np.asarray(_mat(*shape) + 1j * _mat(*shape))


A3: Final = _mat(3, 3) + 3 * np.eye(3)
A4: Final = _mat(2, 4, 4)
V3: Final = _mat(3)
INTS: Final = np.array([[1, -2, 0], [3, 4, -5]])
SINGULAR: Final = np.array([[1.0, 2.0], [2.0, 4.0]])
WITH_NAN: Final = np.array([[1.0, np.nan], [0.0, 1.0]])
T4: Final = _mat(4, 2, 2) + np.eye(4).reshape(4, 2, 2)

# name -> (module, function name, positional arguments, keyword arguments)
CASES: Final[dict[str, tuple[str, str, tuple[Any, ...], dict[str, Any]]]] = {
    "cond": ("linalg", "cond", (A4,), {}),
    "cond_rect": ("linalg", "cond", (_mat(3, 5),), {}),
    "cond_m2": ("linalg", "cond", (A3,), {"p": -2}),
    "cond_1": ("linalg", "cond", (A4,), {"p": 1}),
    "cond_inf": ("linalg", "cond", (A3,), {"p": np.inf}),
    "cond_fro": ("linalg", "cond", (A3,), {"p": "fro"}),
    "cond_nuc_complex": ("linalg", "cond", (_cplx(3, 3),), {"p": "nuc"}),
    "cond_singular": ("linalg", "cond", (SINGULAR,), {"p": 1}),
    "cond_nan": ("linalg", "cond", (WITH_NAN,), {"p": 1}),
    "vector_norm": ("linalg", "vector_norm", (A4,), {}),
    "vector_norm_axis": ("linalg", "vector_norm", (A4,), {"axis": (0, 2), "keepdims": True}),
    "vector_norm_1": ("linalg", "vector_norm", (A4,), {"axis": -1, "ord": 1}),
    "vector_norm_inf": ("linalg", "vector_norm", (A4,), {"ord": np.inf}),
    "vector_norm_minf": ("linalg", "vector_norm", (A4,), {"axis": 1, "ord": -np.inf}),
    "vector_norm_edge": ("linalg", "vector_norm", (np.array([0.0, -np.inf, 1e300]),), {"ord": 1}),
    "vector_norm_nan": (
        "linalg",
        "vector_norm",
        (np.array([[0.0, np.nan], [0.0, 0.0]]),),
        {"axis": 1},
    ),
    "vector_norm_0": ("linalg", "vector_norm", (INTS.astype(float),), {"ord": 0}),
    "vector_norm_3": ("linalg", "vector_norm", (_cplx(2, 3),), {"axis": 1, "ord": 3}),
    "vector_norm_ints_1": ("linalg", "vector_norm", (INTS,), {"ord": 1}),
    "vector_norm_ints_inf": ("linalg", "vector_norm", (INTS,), {"axis": 0, "ord": np.inf}),
    "vector_norm_ints_2": ("linalg", "vector_norm", (INTS,), {}),
    "matrix_norm": ("linalg", "matrix_norm", (A4,), {}),
    "matrix_norm_2": ("linalg", "matrix_norm", (A4,), {"ord": 2, "keepdims": True}),
    "matrix_norm_nuc": ("linalg", "matrix_norm", (_cplx(3, 2),), {"ord": "nuc"}),
    "matrix_norm_minf": ("linalg", "matrix_norm", (A4,), {"ord": -np.inf}),
    "svdvals": ("linalg", "svdvals", (A4,), {}),
    "svdvals_complex": ("linalg", "svdvals", (_cplx(2, 3),), {}),
    "tensorinv": ("linalg", "tensorinv", (T4,), {"ind": 1}),
    "tensorinv_2": ("linalg", "tensorinv", (T4.reshape(2, 2, 2, 2),), {}),
    "tensorsolve": ("linalg", "tensorsolve", (T4.reshape(2, 2, 4), _mat(2, 2)), {}),
    "tensorsolve_axes": ("linalg", "tensorsolve", (T4, _mat(2, 2)), {"axes": (0,)}),
    "cross": ("linalg", "cross", (_mat(2, 3), V3), {}),
    "cross_axis": ("linalg", "cross", (_mat(3, 2), _mat(3, 1)), {"axis": 0}),
    "cross_ints": ("linalg", "cross", (np.array([1, 2, 3]), np.array([4, 5, 6])), {}),
    "outer": ("linalg", "outer", (V3, _mat(4)), {}),
    "outer_complex": ("linalg", "outer", (_cplx(2), np.array([1, 2])), {}),
    "matrix_transpose": ("linalg", "matrix_transpose", (_mat(2, 3, 4),), {}),
    "tensordot": ("linalg", "tensordot", (_mat(2, 3, 4), _mat(3, 4, 2)), {}),
    "tensordot_axes": ("linalg", "tensordot", (_mat(2, 3), _mat(3, 2)), {"axes": ([0], [1])}),
    "vecdot": ("linalg", "vecdot", (_cplx(2, 3), _cplx(3)), {}),
    "vecdot_axis": ("linalg", "vecdot", (_mat(3, 2), _mat(3, 2)), {"axis": 0}),
    "hfft": ("fft", "hfft", (_cplx(5),), {}),
    "hfft_n_ortho": ("fft", "hfft", (_cplx(2, 4),), {"n": 5, "norm": "ortho"}),
    "hfft_axis_forward": ("fft", "hfft", (_cplx(4, 3),), {"axis": 0, "norm": "forward"}),
    "hfft_real": ("fft", "hfft", (V3,), {"n": 3}),
    "hfft_edge": ("fft", "hfft", (np.array([0.0, np.inf, 1e-300, 1e300]),), {}),
    "ihfft": ("fft", "ihfft", (_mat(6),), {}),
    "ihfft_n_ortho": ("fft", "ihfft", (_mat(2, 5),), {"n": 4, "norm": "ortho"}),
    "ihfft_axis_forward": ("fft", "ihfft", (_mat(5, 2),), {"axis": 0, "norm": "forward"}),
    "ihfft_ints": ("fft", "ihfft", (np.array([1, 2, 3, 4]),), {"n": 6}),
}
# In 32 bits, the cases whose dtypes differ there (integer promotions, the
# complex types, cond's NaN handling); the rest are the same code at another dtype.
X32_CASES: Final = {
    "cond",
    "cond_nuc_complex",
    "cond_singular",
    "vector_norm_0",
    "vector_norm_3",
    "vector_norm_ints_1",
    "vector_norm_ints_2",
    "cross_ints",
    "outer_complex",
    "tensorsolve",
    "vecdot",
    "hfft_n_ortho",
    "ihfft_ints",
}
# Eagerly, one case per function family (each eager operation compiles on its own).
EAGER_CASES: Final = {
    "cond_singular",
    "cond_nuc_complex",
    "vector_norm_ints_1",
    "matrix_norm_2",
    "tensorsolve_axes",
    "tensorinv_2",
    "cross_ints",
    "outer_complex",
    "vecdot_axis",
    "hfft_n_ortho",
    "ihfft_ints",
}

LIBS: Final = {"didax": {"linalg": dnp.linalg, "fft": dnp.fft}}
LIBS["jax"] = {"linalg": jnp.linalg, "fft": jnp.fft}


def _tol(x: Arr) -> float:
    return 2e-4 if np.dtype(x.dtype) in (np.float32, np.complex64) else 1e-9


def _assert_like(got: Any, want: Any, what: str) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert (g.dtype, g.shape) == (w.dtype, w.shape), what
    np.testing.assert_allclose(g, w, rtol=_tol(w), atol=_tol(w), err_msg=what)


def _all_cases(lib: str, cases: list[str]) -> Callable[[list[Any]], list[Any]]:
    """One function computing every case in ``cases`` (so one program per library is compiled)."""

    def run(args: list[Any]) -> list[Any]:
        out = []
        for case, a in zip(cases, args, strict=True):
            module, name, _, kwargs = CASES[case]
            out.append(getattr(LIBS[lib][module], name)(*a, **kwargs))
        return out

    return run


@pytest.mark.parametrize("x64", X64)
def test_values_match_jax(x64: bool) -> None:
    cases = sorted(c for c in CASES if x64 or c in X32_CASES)
    args = [list(CASES[c][2]) for c in cases]
    want = jax.jit(_all_cases("jax", cases))(args)
    got = dx.jit(_all_cases("didax", cases))(args)
    for case, g, w in zip(cases, got, want, strict=True):
        _assert_like(g, w, f"{case} under jit")
    if x64:
        eager = [c for c in cases if c in EAGER_CASES]
        got = _all_cases("didax", eager)([list(CASES[c][2]) for c in eager])
        for case, g in zip(eager, got, strict=True):
            _assert_like(g, want[cases.index(case)], f"{case} eagerly")


# name -> (function of one array, the array): gradients of a weighted sum.
GRADS: Final[dict[str, tuple[Callable[[Any, Any], Any], Arr]]] = {
    "cond": (lambda m, x: m.linalg.cond(x), A3),
    "cond_1": (lambda m, x: m.linalg.cond(x, 1), A3),
    "cond_fro": (lambda m, x: m.linalg.cond(x, "fro"), A3),
    "vector_norm": (lambda m, x: m.linalg.vector_norm(x, axis=0), A3),
    "vector_norm_3": (lambda m, x: m.linalg.vector_norm(x, ord=3), A3),
    "matrix_norm_nuc": (lambda m, x: m.linalg.matrix_norm(x, ord="nuc"), A3),
    "svdvals": (lambda m, x: m.linalg.svdvals(x), A3),
    "tensorinv": (lambda m, x: m.linalg.tensorinv(x.reshape(3, 3, 1), ind=1), A3),
    "tensorsolve": (lambda m, x: m.linalg.tensorsolve(x.reshape(3, 1, 3), x[:, :1]), A3),
    "cross": (lambda m, x: m.linalg.cross(x, x[::-1] ** 2), A3),
    "vecdot": (lambda m, x: m.linalg.vecdot(x, x.T), A3),
    "hfft": (lambda m, x: m.fft.hfft(x * (1 + 0.5j), n=4), A3),
    "ihfft": (lambda m, x: m.fft.ihfft(x, norm="ortho"), A3),
}


def _weighted(outs: Any) -> Any:
    return (outs * (1.0 + 0.1 * np.arange(outs.size).reshape(outs.shape))).real.sum()


@pytest.mark.parametrize("x64", X64)
def test_gradients_match_jax(x64: bool) -> None:
    names = sorted(n for n in GRADS if x64 or n in ("cond", "tensorsolve", "hfft"))
    xs = [GRADS[n][1] if x64 else GRADS[n][1].astype(np.float32) for n in names]

    def total(m: Any) -> Callable[[list[Any]], Any]:
        return lambda v: sum(_weighted(GRADS[n][0](m, x)) for n, x in zip(names, v, strict=True))

    want = jax.jit(jax.grad(total(jnp)))(xs)
    got = dx.jit(dx.grad(total(dnp)))(xs)
    for name, g, w in zip(names, got, want, strict=True):
        _assert_like(g, w, f"grad of {name}")


def test_jvp_against_finite_differences() -> None:
    e, h = _mat(3, 3), 1e-6
    for f in (dnp.linalg.cond, lambda x: dnp.linalg.tensorsolve(x, V3)):
        _, tangent = dx.jvp(f, (A3,), (e,))
        diff = (np.asarray(f(A3 + h * e)) - np.asarray(f(A3 - h * e))) / (2 * h)
        np.testing.assert_allclose(np.asarray(tangent), diff, rtol=1e-6, atol=1e-6)


def test_vmap_matches_jax() -> None:
    def mapped(m: Any, vmap: Any) -> Any:
        return lambda x: (
            vmap(lambda y: m.linalg.cond(y, 1))(x),
            vmap(lambda y: m.linalg.tensorsolve(y, y[0]))(x),
            vmap(lambda y: m.fft.hfft(y[0]))(x),
        )

    want = jax.jit(mapped(jnp, jax.vmap))(A4)
    got = dx.jit(mapped(dnp, dx.vmap))(A4)
    for g, w in zip(got, want, strict=True):
        _assert_like(g, w, "vmap")


# JAX's refusals here are ValueErrors, and so are didax's (naming the function).
REFUSAL: Final[type[Exception]] = ValueError
BAD: Final[list[tuple[str, str, tuple[Any, ...], dict[str, Any]]]] = [
    ("linalg", "cond", (V3,), {}),
    ("linalg", "cond", (np.ones((0, 2)),), {}),
    ("linalg", "cond", (_mat(2, 3),), {"p": 1}),
    ("linalg", "vector_norm", (V3,), {"ord": "inf"}),
    ("linalg", "vector_norm", (V3,), {"ord": "fro"}),
    ("linalg", "matrix_norm", (A3,), {"ord": 3}),
    ("linalg", "tensorinv", (T4,), {"ind": 0}),
    ("linalg", "tensorinv", (_mat(2, 3),), {"ind": 1}),
    ("linalg", "tensorsolve", (T4.reshape(2, 2, 4), V3), {}),
    ("linalg", "tensorsolve", (_mat(2, 3), np.ones(2)), {}),
    ("linalg", "cross", (np.ones(2), np.ones(2)), {}),
    ("linalg", "cross", (np.ones((3, 2)), np.ones((3, 2))), {}),
    ("linalg", "outer", (A3, V3), {}),
    ("linalg", "matrix_transpose", (V3,), {}),
]


def test_complex_input_to_ihfft_is_refused() -> None:
    with pytest.raises(TypeError, match="ihfft takes real input"):
        dnp.fft.ihfft(_cplx(4))


@pytest.mark.parametrize(("module", "name", "args", "kwargs"), BAD, ids=[b[1] for b in BAD])
def test_refusals_are_jaxs(
    module: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    with pytest.raises(REFUSAL):
        getattr(LIBS["jax"][module], name)(*args, **kwargs)
    with pytest.raises(REFUSAL, match=name):
        getattr(LIBS["didax"][module], name)(*args, **kwargs)
