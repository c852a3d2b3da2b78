"""didax.random's gamma family against jax.random: the same samples and gradients, bit for bit.

``gamma``, ``loggamma``, ``beta``, ``dirichlet``, ``chisquare``, ``f``,
``t`` and ``random_gamma_p`` are compared with JAX on one table of cases
(raw and typed keys, float32 and float64, alphas from 1e-3 to 1e4): values
under ``jit``, ``vmap`` over keys and over parameters, reparameterisation
gradients (``grad``, ``jvp``) in the parameters, eagerly for one case,
and the gamma gradient against finite differences of the Gamma CDF; in JAX's 32-bit default mode
too (``x64_off``), and bad arguments.

Design rules: Marsaglia and Tsang's loop compiles slowly (in JAX and
didax alike), so the table is one jitted program per library (each case
a result of it), compiled once for the module; the eager and
finite-difference checks share one more compiled program.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Final

import jax
import jax.numpy as jnp
import jax.random as jr
import jax.scipy.special
import numpy as np
import pytest

import didax as dx
import didax.random as dr

# Bit for bit with JAX: XLA's older CPU emitters (the tests session's,
# noxfile.py) round float64 gradients' scalar and vector code tens of ulps apart.
pytestmark = pytest.mark.xla_default_emitters

ALPHAS: Final = np.array([1e-3, 0.3, 1.0, 2.5, 30.0, 1e4])


def _same(got: Any, want: Any, what: str = "") -> None:
    """Equal bits, dtypes and shapes (NaNs equal when their bits are)."""
    g, w = np.asarray(got), np.asarray(want)
    assert (g.dtype, g.shape) == (w.dtype, w.shape), (what, g.dtype, w.dtype, g.shape, w.shape)
    width = f"u{g.dtype.itemsize}"
    np.testing.assert_array_equal(g.view(width), w.view(width), err_msg=what)


Case = Callable[[Any, Any, Any], Any]


def _table(R: Any, T: Any, gamma_p: Any) -> dict[str, Case]:
    """The cases, each a function of a raw key and the alphas in float64 and float32.

    ``R`` is a random module, ``T`` its library. The alphas are arguments of
    the jitted program, not constants: XLA would fold constant alphas into
    ``log(d)`` and ``1 / a`` with the host's libm, whose roundings differ
    from the compiled code's, and by how much depends on the program.
    """
    return {
        # Values and derivatives at once (a jvp or vjp): each case compiles its own loops.
        # (chisquare is f's numerator and denominator; reverse mode is beta's and dirichlet's.)
        "gamma f64, jvp": lambda k, a64, a32: T.jvp(lambda a: R.gamma(k, a), (a64,), (np.ones(6),)),
        "gamma f32, typed key, vmap over a": lambda k, a64, a32: T.vmap(
            lambda a: R.gamma(R.wrap_key_data(k), a, (2,), jnp.float32)
        )(a32),
        "loggamma f64, jvp": lambda k, a64, a32: T.jvp(
            lambda a: R.loggamma(k, a, (2, 6)), (a64,), (a64,)
        ),
        "beta f64, vjp": lambda k, a64, a32: _vjp(
            T, lambda a, b: R.beta(k, a, b), np.ones(6), a64, a64[::-1]
        ),
        "dirichlet f32, vjp": lambda k, a64, a32: _vjp(
            T,
            lambda a: R.dirichlet(k, a, (2,), jnp.float32),
            np.tile(np.arange(3.0, dtype=np.float32), (2, 1)),
            a32[:3],
        ),
        "f f64": lambda k, a64, a32: R.f(k, a64[3], a64[1:5]),
        "t f32": lambda k, a64, a32: R.t(k, a32[3], (3,), jnp.float32),
        "vmap over keys": lambda k, a64, a32: T.vmap(lambda kk: R.gamma(kk, a64[:3]))(
            R.split(k, 3)
        ),
        "random_gamma_p key batch": lambda k, a64, a32: gamma_p.bind(
            R.split(k, 2) if R is dr else R.split(R.wrap_key_data(k), 2),
            a64.reshape(2, 3),
            log_space=False,
        ),
    }


def _vjp(T: Any, f: Callable[..., Any], cotangent: Any, *args: Any) -> Any:
    """``f``'s values and the cotangent pulled back to its arguments."""
    out, pull = T.vjp(f, *args)
    return out, pull(cotangent)


def _run(R: Any, T: Any, gamma_p: Any, seed: int) -> dict[str, Any]:
    table = _table(R, T, gamma_p)
    names = list(table)
    program = T.jit(lambda k, a64, a32: [table[n](k, a64, a32) for n in names])
    outs = program(R.PRNGKey(seed), ALPHAS, ALPHAS.astype(np.float32))
    return dict(zip(names, outs, strict=True))


@pytest.fixture(scope="module")
def results() -> tuple[dict[str, Any], dict[str, Any]]:
    return _run(dr, dx, dr.random_gamma_p, 11), _run(jr, jax, jr.random_gamma_p, 11)


CASES: Final = list(_table(dr, dx, dr.random_gamma_p))
# Cases equal to JAX's within some units of the last place, not to the bit:
# float32 gradients. On CPUs JAX maps random_gamma_grad over the elements one
# at a time (lax.map), didax computes it vectorised, and XLA's scalar and
# vector code round float32 differently by an ulp now and then (JAX's own
# map and vmap of lax.random_gamma_grad differ so); dirichlet's softmax rule
# then subtracts nearly equal terms. Float64 gradients are JAX's to the bit.
# Without LLVM's optimisation (the noxfile's tests session) float64 gradients'
# scalar and vector code round apart by an ulp too: there they get 2 ulps.
_UNOPTIMIZED: Final = "--xla_backend_optimization_level=0" in os.environ.get("XLA_FLAGS", "")
ULPS: Final = {"dirichlet f32, vjp": 64} | {
    c: 2 for c in CASES if _UNOPTIMIZED and " f64, " in c and c.endswith(("jvp", "vjp"))
}


@pytest.mark.parametrize("case", CASES)
def test_table_is_jax_bit_for_bit(results: Any, case: str) -> None:
    got, want = results
    dx.tree_util.tree_map(lambda g, w: _compare(g, w, case), got[case], want[case])


def _compare(got: Any, want: Any, case: str) -> None:
    if case not in ULPS:
        _same(got, want, case)
        return
    eps = float(np.finfo(np.asarray(want).dtype).eps)
    np.testing.assert_allclose(got, want, rtol=ULPS[case] * eps, err_msg=case)


def test_eager_values_and_finite_differences(results: Any) -> None:
    _same(dr.gamma(dr.PRNGKey(11), ALPHAS), results[1]["gamma f64, jvp"][0], "eager gamma")
    # Implicit differentiation: a sample x keeps its quantile q = P(a, x) as a
    # moves, so dx/da = -(dP/da) / (dP/dx), dP/da by central differences.
    x, grad = (np.asarray(v) for v in results[0]["gamma f64, jvp"])
    ok = x > 1e-300  # the smallest samples underflow
    a, x = ALPHAS[ok], x[ok]
    np.testing.assert_allclose(grad[ok], _implicit_gradient(a, x), rtol=1e-5)


@jax.jit
def _implicit_gradient(a: Any, x: Any) -> Any:
    """``-(dP/da) / (dP/dx)`` for JAX's regularized incomplete gamma ``P``, dP/da by differences."""
    h = 1e-6 * a
    p = jax.scipy.special.gammainc
    dp_da = (p(a + h, x) - p(a - h, x)) / (2 * h)
    dp_dx = jnp.exp((a - 1) * jnp.log(x) - x - jax.scipy.special.gammaln(a))
    return -dp_da / dp_dx


@pytest.mark.x64_off
def test_default_mode_is_jax() -> None:
    def program(R: Any) -> Callable[[Any, Any], Any]:
        return lambda k, a: [R.gamma(k, a), R.chisquare(k, 3.0, (2,))]

    alphas = ALPHAS[:3].astype(np.float32)
    got = dx.jit(program(dr))(dr.PRNGKey(2), alphas)
    want = jax.jit(program(jr))(jr.PRNGKey(2), alphas)
    for g, w in zip(got, want, strict=True):
        _same(g, w, "x64 off")


def test_random_gamma_p_is_a_primitive() -> None:
    text = str(dx.make_jaxpr(lambda k, a: dr.gamma(k, a))(dr.PRNGKey(0), ALPHAS))
    assert "random_gamma[log_space=False]" in text
    text = str(dx.make_jaxpr(lambda k, a: dr.loggamma(k, a))(dr.PRNGKey(0), ALPHAS))
    assert "random_gamma[log_space=True]" in text


KEY: Final = np.zeros(2, np.uint32)
SHAPE_ERRORS: Final = (ValueError, TypeError)
Errors = type[Exception] | tuple[type[Exception], ...]
BAD: Final[list[tuple[str, Callable[[], Any], Errors, str]]] = [
    ("int dtype", lambda: dr.gamma(KEY, 1.0, dtype=np.int32), ValueError, "float dtype"),
    ("batched key", lambda: dr.gamma(np.zeros((2, 2), np.uint32), 1.0), ValueError, "single"),
    ("float key", lambda: dr.beta(np.zeros(2), 1.0, 1.0), TypeError, "PRNG key"),
    # Shapes that do not broadcast: JAX raises a ValueError, api.random's
    # _check_shape a ShapeError (a TypeError, as lax's broadcasting errors).
    ("shape", lambda: dr.gamma(KEY, np.ones(3), (2,)), SHAPE_ERRORS, "broadcast"),
    ("beta shape", lambda: dr.beta(KEY, np.ones(3), np.ones(2)), SHAPE_ERRORS, "beta"),
    ("dirichlet rank", lambda: dr.dirichlet(KEY, 1.0), ValueError, "alpha.ndim >= 1"),
    (
        "dirichlet shape",
        lambda: dr.dirichlet(KEY, np.ones((2, 3)), (3,)),
        SHAPE_ERRORS,
        "dirichlet",
    ),
    ("gamma shape", lambda: dr.gamma(KEY, np.ones(3), (2, 1)), ValueError, "must equal"),
    (
        "narrowing",
        lambda: dr.t(KEY, np.ones(2), dtype=np.float32),
        ValueError,
        "cannot safely cast argument of type float64 to float32",
    ),
    ("chisquare int", lambda: dr.chisquare(KEY, 2.0, dtype=int), ValueError, "chisquare"),
    (
        "primitive key",
        lambda: dr.random_gamma_p.bind(np.zeros(2, np.int32), np.ones(2), log_space=False),
        TypeError,
        "uint32",
    ),
    (
        "primitive prefix",
        lambda: dr.random_gamma_p.bind(np.zeros((3, 2), np.uint32), np.ones(2), log_space=False),
        TypeError,
        "prefix",
    ),
]


@pytest.mark.parametrize(("case", "call", "error", "match"), BAD, ids=[b[0] for b in BAD])
def test_bad_arguments(case: str, call: Callable[[], Any], error: Errors, match: str) -> None:
    with pytest.raises(error, match=match):
        call()
