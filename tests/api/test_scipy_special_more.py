"""didax.scipy.special's issue-29 functions against jax.scipy.special.

One table row per function: its arguments (with 0, +-inf, NaN, huge and
tiny values where the function takes them), compared with JAX's values
eagerly and under jit in 64 bits, under jit in the 32-bit defaults
(``x64_off``), and, where JAX differentiates the function, its gradients
(``vmap`` of ``grad``) against JAX's and a few finite differences. NaN
positions must be equal. Each row compiles a handful of programs only:
the arguments are stacked into one array per argument.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import jax
import jax.scipy.special as jsp
import numpy as np
import pytest

import didax as dx
import didax.scipy.special as dsp

EDGES: Final = [0.0, -0.0, np.inf, -np.inf, np.nan]
REALS: Final = np.array([*EDGES, 0.5, -1.5, 2.5, 3.0, 7.0, 40.0, -40.0, 1e-30, 1e30, 1e300])
POSITIVE: Final = np.array([0.0, np.inf, np.nan, 1e-300, 0.25, 1.0, 2.5, 10.0, 150.0, 1e300])
UNIT: Final = np.array([0.0, 1.0, 0.5, 0.25, 0.75, -0.5, 2.0, np.nan, np.inf])


def _pairs(a: list[float], b: list[float]) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.meshgrid(np.array(a), np.array(b))
    return x.ravel(), y.ravel()


# name -> (function of the module, arguments in float64)
Fn = Callable[..., Any]
CASES: Final[dict[str, tuple[Fn, tuple[Any, ...]]]] = {
    "gamma": (lambda m, x: m.gamma(x), (np.array([*REALS, -2.0, -0.5, 171.5, 200.0]),)),
    "gammasgn": (lambda m, x: m.gammasgn(x), (np.array([*REALS, -2.0, -0.5, -3.5]),)),
    "loggamma": (lambda m, x: m.loggamma(x), (np.array([*REALS, -2.0, -0.5]),)),
    "loggamma_complex": (
        lambda m, z: m.loggamma(z),
        (np.array([1 + 2j, -2.5 + 0.1j, -3 + 0j, 0.3 - 4j, 10 + 0.5j, np.nan + 0j]),),
    ),
    "gamma_complex": (
        lambda m, z: m.gamma(z),
        (np.array([1 + 2j, -2.5 + 0.1j, -3 + 0j, 0.3 - 4j, 5 + 0.5j]),),
    ),
    "factorial": (lambda m, x: m.factorial(x), (np.array([*REALS, 3.0, 20.0, 170.0]),)),
    "comb": (
        lambda m, n, k: m.comb(n, k),
        _pairs([0, 1, 5, 10.5, -1, 40, np.nan], [0, 2, 3.5, 11, -1]),
    ),
    "comb_repetition": (
        lambda m, n, k: m.comb(n, k, repetition=True),
        _pairs([0, 1, 5, -1, 7.5], [0, 2, 3, -1]),
    ),
    "poch": (
        lambda m, z, k: m.poch(z, k),
        _pairs([0.5, 1, 3.5, -1.5, 10, np.inf], [0, 1, 2.5, -0.5]),
    ),
    "multigammaln": (lambda m, a: m.multigammaln(a, 3), (np.array([1.5, 2.0, 5.0, 40.0, np.inf]),)),
    "entr": (lambda m, x: m.entr(x), (np.array([*REALS, 1.0]),)),
    "rel_entr": (
        lambda m, p, q: m.rel_entr(p, q),
        _pairs([*EDGES, 0.5, 1.0, 3.0, -1.0], [0.0, 0.25, 2.0, -1.0, np.inf]),
    ),
    "kl_div": (
        lambda m, p, q: m.kl_div(p, q),
        _pairs([*EDGES, 0.5, 1.0, -1.0], [0.0, 0.25, 2.0, -1.0]),
    ),
    "boxcox": (
        lambda m, x, lm: m.boxcox(x, lm),
        _pairs([0.0, 0.5, 1.0, 4.0, np.inf, -1.0, np.nan], [0.0, 0.5, -2.0, 3.0]),
    ),
    "boxcox1p": (
        lambda m, x, lm: m.boxcox1p(x, lm),
        _pairs([0.0, -0.5, 1e-20, 4.0, np.inf, -2.0], [0.0, 0.5, -2.0, 3.0]),
    ),
    "zeta": (
        lambda m, x, q: m.zeta(x, q),
        _pairs([1.0, 1.5, 2.0, 4.5, 30.0, np.inf, np.nan], [0.5, 1.0, 3.0, 100.0, -1.5]),
    ),
    "polygamma": (
        lambda m, x: m.polygamma(np.array([0, 1, 2, 3, 1, 2, 0, 1, 4, 2]), x),
        (np.array([0.5, 1.0, 2.5, 10.0, -1.5, 0.0, np.inf, np.nan, 3.0, 1e-10]),),
    ),
    "softmax": (lambda m, x: m.softmax(x, axis=0), (np.array([0.0, 1.0, -np.inf, 3.0, 40.0]),)),
    "log_softmax": (lambda m, x: m.log_softmax(x), (np.array([0.0, 1.0, -np.inf, 3.0, 40.0]),)),
    "erfcx": (lambda m, x: m.erfcx(x), (np.array([*REALS, 9.0, 26.0, 27.0, -26.0]),)),
    "erfcx_complex": (lambda m, z: m.erfcx(z), (np.array([0j, 1 + 1j, -2 + 0.5j, 3 - 4j, 30j]),)),
    "wofz": (
        lambda m, z: m.wofz(z),
        (np.array([0j, 1 + 1j, -2 + 0.5j, 3 - 4j, 30j, 6 + 0.01j, -1 - 1j]),),
    ),
    "dawsn": (lambda m, x: m.dawsn(x), (np.array([*REALS, 3.2, 3.3, 6.2, 6.3]),)),
    "fresnel": (lambda m, x: m.fresnel(x), (np.array([*REALS, 1.6, 36973.0, 36975.0]),)),
    "sici": (lambda m, x: m.sici(x), (np.array([*REALS, 4.0, 4.5, 8.5, 2e9]),)),
    "spence": (
        lambda m, x: m.spence(x),
        (np.array([*EDGES, 0.25, 0.5, 1.0, 1.7, 2.5, 30.0, -1.0, 1e30]),),
    ),
    "owens_t": (
        lambda m, h, a: m.owens_t(h, a),
        _pairs([0.0, 0.5, -1.0, 3.0, 40.0, np.inf, np.nan], [0.0, 0.3, 1.0, -2.0, 10.0, np.inf]),
    ),
    "expi": (
        lambda m, x: m.expi(x),
        (np.array([*EDGES, 0.5, -1.5, 2.5, 3.0, 7.0, 40.0, -40.0, 100.0, 1e30]),),
    ),
    "exp1": (lambda m, x: m.exp1(x), (np.array([*EDGES, 0.5, -1.5, 2.5, 3.0, 7.0, 40.0, 1e30]),)),
    "expn": (
        lambda m, n, x: m.expn(n, x),
        _pairs([0, 1, 2, 5, -1, 6000], [0.0, 0.5, 1.0, 3.0, 50.0, -1.0, np.nan]),
    ),
    "i0": (lambda m, x: m.i0(x), (REALS[REALS != 1e300],)),
    "i0e": (lambda m, x: m.i0e(x), (REALS,)),
    "i1": (lambda m, x: m.i1(x), (REALS[REALS != 1e300],)),
    "i1e": (lambda m, x: m.i1e(x), (REALS,)),
    "bessel_jn": (lambda m, z: m.bessel_jn(z, v=4), (np.array([0.5, 1.0, 5.0, 20.0, -3.0]),)),
    "hyp1f1": (
        lambda m, a, b, x: m.hyp1f1(a, b, x),
        (
            np.array([0.0, 1.0, 0.5, 2.0, -3.0, 1.5, 2.0, 3.0, 1.0]),
            np.array([1.0, 2.0, 1.5, 2.0, 2.0, 0.0, 5.0, 0.7, 3.0]),
            np.array([1.0, 1.0, -2.0, 3.0, 0.5, 1.0, 150.0, -0.3, -120.0]),
        ),
    ),
    "hyp2f1": (
        lambda m, a, b, c, x: m.hyp2f1(a, b, c, x),
        (
            np.array([0.0, 1.0, 0.5, 2.0, -3.0, 1.5, 2.0, 3.0, 1.0, 1.0, -2.0]),
            np.array([1.0, 2.0, 1.5, 2.0, 2.0, 0.0, 5.0, 0.7, 2.0, 2.0, 3.0]),
            np.array([2.0, 3.0, 2.5, 1.0, -2.0, 4.0, 0.0, 3.5, 3.5, 3.0, 1.5]),
            np.array([0.5, -1.0, 0.95, 1.0, 0.3, 0.99, 0.2, -0.5, 0.97, 0.97, 0.7]),
        ),
    ),
    "sph_harm_y": (
        lambda m, n, k, theta, phi: m.sph_harm_y(n, k, theta, phi, n_max=6),
        (
            np.array([0, 1, 2, 3, 4, 5, 3, 2, 6]),
            np.array([0, 1, -1, 2, -3, 0, 7, -2, 6]),
            np.array([0.5, 0.5, 1.0, 2.0, 3.0, 0.1, 0.2, np.pi, 0.0]),
            np.array([0.0, 1.0, 2.0, -1.0, 0.3, 0.0, 1.0, 2.0, np.nan]),
        ),
    ),
}

# Rows whose float64 values differ from JAX's by more than a few ulps: the
# eager path evaluates with NumPy and the series accumulate the difference.
RTOL_64: Final = {"hyp2f1": 1e-10, "hyp1f1": 1e-10, "zeta": 1e-10, "gamma_complex": 1e-12}


def _cast(args: tuple[Any, ...], x64: bool) -> tuple[np.ndarray, ...]:
    if x64:
        return tuple(np.asarray(a) for a in args)
    with np.errstate(over="ignore"):  # 1e300 becomes inf in float32, as intended
        return tuple(_to32(np.asarray(a)) for a in args)


def _to32(a: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "i":
        return a.astype(np.int32)
    return a.astype(np.complex64 if np.iscomplexobj(a) else np.float32)


def _check(got: Any, want: Any, rtol: float) -> None:
    if isinstance(want, (tuple, list)):
        assert isinstance(got, tuple)
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _check(g, w, rtol)
        return
    assert isinstance(got, dx.Array)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    g, w = np.asarray(got), np.asarray(want)
    # Equal NaN positions, equal infinities, close finite values.
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
    finite = np.isfinite(w)
    np.testing.assert_array_equal(g[~finite & ~np.isnan(w)], w[~finite & ~np.isnan(w)])
    tiny = float(np.finfo(g.dtype).tiny)
    np.testing.assert_allclose(g[finite], w[finite], rtol=rtol, atol=tiny * 1e3)


# The series rows compile large programs (each element's loops, every
# branch): one program each and no eager call. In 32 bits only the rows
# whose code depends on the dtype are checked (coefficient tables, series
# lengths, float32 upcasts, epsilon-bounded loops), again to keep the suite
# fast; the other rows are checked together, one program per library.
SERIES: Final = frozenset({"hyp2f1", "hyp1f1", "expn", "expi", "sph_harm_y"})
CHEAP: Final = sorted(set(CASES) - SERIES)
X32: Final = [
    "bessel_jn",
    "dawsn",
    "erfcx",
    "exp1",
    "fresnel",
    "gamma",
    "loggamma_complex",
    "sici",
    "spence",
    "sph_harm_y",
    "wofz",
    "zeta",
]


def _all_rows(module: Any, rows: dict[str, tuple[np.ndarray, ...]]) -> dict[str, Any]:
    return {name: CASES[name][0](module, *args) for name, args in rows.items()}


def _check_rows(rows: list[str], x64: bool, rtol: float) -> None:
    args = {name: _cast(CASES[name][1], x64) for name in rows}
    want = jax.jit(lambda r: _all_rows(jsp, r))(args)
    got = dx.jit(lambda r: _all_rows(dsp, r))(args)
    for name in rows:
        try:
            _check(got[name], want[name], RTOL_64.get(name, rtol) if x64 else rtol)
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from None
        if x64 and name not in SERIES:
            eager = CASES[name][0](dsp, *args[name])
            try:
                _check(eager, want[name], max(RTOL_64.get(name, rtol), 1e-12))
            except AssertionError as e:
                raise AssertionError(f"{name} (eager): {e}") from None


def test_values_match_jax_x64() -> None:
    _check_rows(CHEAP, True, 1e-13)


@pytest.mark.parametrize("name", sorted(SERIES | {"exp1"}))
def test_series_values_match_jax_x64(name: str) -> None:
    _check_rows([name], True, 1e-13)


@pytest.mark.x64_off
def test_values_match_jax_x32() -> None:
    _check_rows(X32, False, 2e-5)


# name -> (function of one scalar argument, points): the derivatives JAX defines.
GRADS: Final[dict[str, tuple[Fn, np.ndarray]]] = {
    "gamma": (
        lambda m, x: m.gamma(x) + m.loggamma(x + 2) + m.factorial(x + 2) + m.polygamma(1, x + 2),
        np.array([0.5, 2.5, -1.5, 7.0]),
    ),
    "comb_poch": (
        lambda m, x: (
            m.comb(x + 3, 2.5) + m.poch(x, 2.5) + m.poch(1.5, x) + m.multigammaln(x + 1, 3)
        ),
        np.array([0.5, 3.0, 1.0]),
    ),
    "entropies": (
        lambda m, x: (
            m.entr(x)
            + m.rel_entr(x, 0.5)
            + m.kl_div(0.5, x)
            + m.boxcox(x, 0.5)
            + m.boxcox1p(0.5, x)
        ),
        np.array([0.25, 1.0, 3.0]),
    ),
    "zeta": (lambda m, x: m.zeta(x, 1.5) + m.zeta(3.0, x), np.array([1.5, 2.0, 4.0])),
    "erfcx_dawsn_wofz": (
        lambda m, x: m.erfcx(x) + m.dawsn(x) + m.wofz(x + 0.5j).real,
        np.array([-1.0, 0.5, 4.0, 30.0]),
    ),
    "fresnel_sici_spence": (
        lambda m, x: (
            m.fresnel(x)[0] + 2 * m.fresnel(x)[1] + m.sici(x)[0] + 2 * m.sici(x)[1] + m.spence(x)
        ),
        np.array([0.5, 1.7, 6.0]),
    ),
    "owens_t": (lambda m, x: m.owens_t(x, 0.7) + m.owens_t(0.5, x), np.array([0.3, 2.0])),
    "expint": (lambda m, x: m.expi(x) + m.exp1(x) + m.expn(3, x), np.array([0.5, 5.0])),
    "i0": (lambda m, x: m.i0(x) + m.i1(x) + m.i0e(x) + m.i1e(x), np.array([-1.0, 0.5, 3.0])),
    "hyp1f1": (
        lambda m, x: m.hyp1f1(x, 1.5, 0.8) + m.hyp1f1(0.5, x, 0.8) + m.hyp1f1(0.5, 1.5, x),
        np.array([0.5, 2.0]),
    ),
}


HEAVY_GRADS: Final = ["expint", "hyp1f1"]


def _grads(module: Any, names: list[str], xs: dict[str, np.ndarray]) -> dict[str, Any]:
    out = {}
    for name in names:
        fn = GRADS[name][0]
        out[name] = dx_or_jax(module).vmap(dx_or_jax(module).grad(lambda v, f=fn: f(module, v)))(
            xs[name]
        )
    return out


def dx_or_jax(module: Any) -> Any:
    return dx if module is dsp else jax


@pytest.mark.parametrize(
    "names", [sorted(set(GRADS) - set(HEAVY_GRADS)), *([n] for n in HEAVY_GRADS)]
)
def test_gradients_match_jax(names: list[str]) -> None:
    xs = {name: GRADS[name][1] for name in names}
    got = dx.jit(lambda r: _grads(dsp, names, r))(xs)
    want = jax.jit(lambda r: _grads(jsp, names, r))(xs)  # (JAX's eager path is slow)
    for name in names:
        np.testing.assert_allclose(
            np.asarray(got[name]), np.asarray(want[name]), rtol=1e-10, err_msg=name
        )


@pytest.mark.parametrize("name", ["gamma", "erfcx_dawsn_wofz", "owens_t"])
def test_gradients_match_finite_differences(name: str) -> None:
    fn, x = GRADS[name]
    f = dx.jit(lambda v: fn(dsp, v))
    got = np.asarray(dx.vmap(dx.grad(lambda v: fn(dsp, v)))(x))
    h = 1e-6
    fd = (np.asarray(f(x + h)) - np.asarray(f(x - h))) / (2 * h)
    np.testing.assert_allclose(got, fd, rtol=1e-6)


def test_bernoulli_matches_jax() -> None:
    for n in (0, 3, 8):
        got, want = dsp.bernoulli(n), jax.jit(jsp.bernoulli, static_argnums=0)(n)
        assert got.dtype == want.dtype
        assert got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)


def test_vmap_matches_the_batched_call() -> None:
    x = np.array([[0.5, 3.0], [-1.5, 40.0]])
    np.testing.assert_array_equal(dx.vmap(dsp.dawsn)(x), dsp.dawsn(x))
    np.testing.assert_array_equal(dx.vmap(dsp.owens_t, (None, 0))(0.5, x), dsp.owens_t(0.5, x))
    got = dx.vmap(lambda v: dsp.bessel_jn(v, v=2))(x)
    np.testing.assert_allclose(got, np.moveaxis(np.asarray(dsp.bessel_jn(x, v=2)), 0, 1))


_NOT_AN_INT: Any = 2.5  # (typed Any: the error is what is tested)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: dsp.gammasgn(1j), ValueError, "gammasgn"),
        (lambda: dsp.dawsn(1j), ValueError, "dawsn"),
        (lambda: dsp.hyp1f1(1.0, 1.0, 1j), ValueError, "hyp1f1"),
        (lambda: dsp.polygamma(1.5, 2.0), ValueError, "polygamma"),
        (lambda: dsp.zeta(2.0), NotImplementedError, "Hurwitz"),
        (lambda: dsp.factorial(3, exact=True), NotImplementedError, "exact"),
        (lambda: dsp.bernoulli(-1), ValueError, "non-negative"),
        (lambda: dsp.bernoulli(_NOT_AN_INT), TypeError, "bernoulli: n"),
        (lambda: dsp.multigammaln(2.0, 1.5), TypeError, "multigammaln: d"),
        (lambda: dsp.spence(np.arange(3)), TypeError, "spence"),
    ],
)
def test_bad_input_errors_name_the_function(call: Fn, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        call()
