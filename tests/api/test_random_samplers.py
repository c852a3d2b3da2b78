"""didax.random's further samplers against jax.random: the same samples, bit for bit.

One table row per call: each is compared with JAX's (values to the bit,
dtypes, shapes) eagerly with a raw key, under ``jit`` with a typed key, and
under ``vmap`` over three keys; the rows run in both x64 modes. The edge
rows give the samplers their special parameters: Poisson's two regimes and
``lam`` 0, NaN and huge; binomial's inversion and BTRS, ``p > 1/2``, NaN,
negative and infinite counts. Derivatives with respect to the parameters
equal JAX's, and bad arguments are refused with JAX's errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import jax
import jax.numpy as jnp
import jax.random as jr
import numpy as np
import pytest

import didax as dx
import didax.random as dr

F32, F64 = np.float32, np.float64
_B3: Final = np.array([1.5, 2.0, 3.0])
_COV: Final = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 0.7]])
_MEAN: Final = np.array([1.0, -1.0, 0.5])
_LAM: Final = np.array([0.0, 0.5, 3.0, 9.99, 10.0, 55.5, 1e4, np.nan], F32)
_N: Final = np.array([0.0, 5.0, 20.0, 100.0, 1000.0, np.inf, np.nan, -1.0, 30.0, 7.5])
_P: Final = np.array([0.3, 0.7, 0.5, 0.05, 0.9, 0.4, 0.2, 0.3, np.nan, 0.6])
_PROBS: Final = np.array([[0.2, 0.3, 0.5], [0.1, 0.0, 0.9]])

# (name, positional arguments after the key, keyword arguments)
Case = tuple[str, tuple[Any, ...], dict[str, Any]]
CASES: Final[list[Case]] = [
    ("exponential", ((2, 3), F32), {}),
    ("exponential", ((4,), F64), {}),
    ("cauchy", ((2, 3), F32), {}),
    ("cauchy", ((4,), F64), {}),
    ("laplace", ((2, 3), F32), {}),
    ("laplace", ((4,), F64), {}),
    ("logistic", ((2, 3), F32), {}),
    ("logistic", ((4,), F64), {}),
    ("maxwell", ((2, 3), F32), {}),
    ("maxwell", ((), F64), {}),
    ("rademacher", ((5,),), {}),
    ("rademacher", ((2, 2), F32), {}),
    ("pareto", (_B3,), {}),
    ("pareto", (2.0, (2, 3), F32), {}),
    ("pareto", (np.array([np.inf, 0.5, 1e-3]),), {}),
    ("rayleigh", (_B3.astype(F32),), {"dtype": F32}),
    ("rayleigh", (2.0, (4,)), {}),
    ("wald", (_B3, (2, 3)), {}),
    ("wald", (0.5, (), F32), {}),
    ("lognormal", (), {"shape": (3,)}),
    ("lognormal", (_B3.astype(F32), (2, 3), F32), {}),
    ("triangular", (_B3 - 1, _B3, _B3 + 1), {}),
    ("triangular", (0.0, 0.0, 1.0, (4,), F32), {}),
    ("geometric", (_B3 / 4,), {}),
    ("geometric", (np.float32(0.3), (5,)), {}),
    ("geometric", (np.array([1.0, 1e-6, 0.5]),), {"dtype": np.int32}),
    ("weibull_min", (2.0, _B3, (3,)), {}),
    ("weibull_min", (np.float32(1.0), 0.5, (2, 2), F32), {}),
    ("double_sided_maxwell", (1.0, _B3, (2,)), {}),
    ("double_sided_maxwell", (0.0, 2.0, (), F32), {}),
    ("orthogonal", (3, (2,)), {}),
    ("orthogonal", (2, (), F32), {"m": 4}),
    ("orthogonal", (4,), {"m": 2}),
    ("multivariate_normal", (_MEAN, _COV, (2,)), {"method": "svd"}),
    ("multivariate_normal", (_MEAN, _COV), {"method": "eigh"}),
    ("multivariate_normal", (_MEAN.astype(F32), _COV.astype(F32), (4,)), {"method": "eigh"}),
]
# The samplers with rejection loops (their programs are the slowest to compile).
LOOPS: Final[list[Case]] = [
    ("poisson", (_LAM, (2, 8)), {}),
    ("poisson", (3.0, (5,)), {"dtype": np.int16}),
    ("binomial", (_N, _P), {}),
    ("binomial", (_N, _P.astype(F32)), {"dtype": F32}),
    ("binomial", (50, 0.5, (4,)), {}),
    ("multinomial", (10.0, _PROBS), {}),
    ("multinomial", (np.array([5, 300]), _PROBS.astype(F32)), {"dtype": F32}),
]


def _same(got: Any, want: Any, what: str = "") -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert (g.dtype, g.shape) == (w.dtype, w.shape), what
    if g.dtype.kind == "f":
        width = f"u{g.dtype.itemsize}"
        np.testing.assert_array_equal(g.view(width), w.view(width), err_msg=what)
    else:
        np.testing.assert_array_equal(g, w, err_msg=what)


def _all_cases(mod: Any, cases: list[Case]) -> Callable[[Any], tuple[Any, ...]]:
    """Every row's sample, each from its own key: one program for the whole table."""

    def sample(keys: Any) -> tuple[Any, ...]:
        return tuple(
            getattr(mod, name)(keys[i], *args, **kwargs)
            for i, (name, args, kwargs) in enumerate(cases)
        )

    return sample


def _check_jit(cases: list[Case], seed: int) -> None:
    """The table under jit with typed keys: one program for all its rows."""
    keys = dr.split(dr.key(seed), len(cases)), jr.split(jr.key(seed), len(cases))
    got = dx.jit(_all_cases(dr, cases))(keys[0])
    want = jax.jit(_all_cases(jr, cases))(keys[1])
    for (name, _, _), g, w in zip(cases, got, want, strict=True):
        _same(g, w, name)


def _check_vmap(cases: list[Case], seed: int) -> None:
    """The table under vmap over two sets of raw keys (and jit): one program."""
    shape = (2, len(cases))
    got = dx.jit(dx.vmap(_all_cases(dr, cases)))(dr.split(dr.PRNGKey(seed), shape))
    want = jax.jit(jax.vmap(_all_cases(jr, cases)))(jr.split(jr.PRNGKey(seed), shape))
    for (name, _, _), g, w in zip(cases, got, want, strict=True):
        _same(g, w, name)


def test_samplers_equal_jax_under_jit() -> None:
    _check_jit(CASES, 7)


def test_samplers_equal_jax_under_vmap() -> None:
    _check_vmap([CASES[i] for i in (0, 11, 17, 22, 30, 33)], 8)
    # Pareto's exp(e / b) under vmap: XLA's CPU exp is one ulp off JAX's on
    # some elements here (a different vectorization of the batched program).
    got = dx.vmap(lambda k: dr.pareto(k, _B3))(dr.split(dr.PRNGKey(8), 2))
    want = jax.vmap(lambda k: jr.pareto(k, _B3))(jr.split(jr.PRNGKey(8), 2))
    np.testing.assert_allclose(got, want, rtol=4e-16, atol=0)


@pytest.mark.slow  # the 32-bit test below runs these loops under jit in CI
def test_rejection_samplers_equal_jax_under_vmap() -> None:
    _check_vmap([LOOPS[0], LOOPS[2], LOOPS[5]], 9)


def _no_float64(case: Case) -> bool:
    _, args, kwargs = case
    return not any(a is F64 for a in args) and kwargs.get("dtype") is not F64


@pytest.mark.x64_off
def test_samplers_equal_jax_in_32_bits() -> None:
    # The rows whose dtypes default differently in 32 bits.
    _check_jit([c for c in CASES if _no_float64(c) and not any(a is F32 for a in c[1])][:10], 11)


@pytest.mark.x64_off
def test_rejection_samplers_equal_jax_in_32_bits() -> None:
    _check_jit([LOOPS[1], LOOPS[3]], 12)


@pytest.mark.slow  # compositions of gamma, which CI checks (test_random_gamma.py)
def test_samplers_on_gamma_equal_jax() -> None:
    cases: list[Case] = [
        ("generalized_normal", (1.5, (4,)), {}),
        ("generalized_normal", (0.7, (2, 2), F32), {}),
        ("ball", (3, 2, (2,)), {}),
        ("ball", (2, 1.0), {}),
    ]
    _check_jit(cases, 13)
    _check_vmap(cases[2:3], 14)


# Eager calls with raw keys (each sampler compiles its own program, as JAX's).
EAGER: Final = [CASES[i] for i in (0, 17, 30)]


@pytest.mark.parametrize(("name", "args", "kwargs"), EAGER, ids=[c[0] for c in EAGER])
def test_eager_sampler_equals_jax(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    got = getattr(dr, name)(dr.PRNGKey(3), *args, **kwargs)
    _same(got, getattr(jr, name)(jr.PRNGKey(3), *args, **kwargs), name)


def test_multivariate_normal_cholesky() -> None:
    # didax's Cholesky factor is XLA's (StableHLO's op) where JAX's CPU one is
    # LAPACK's potrf: they differ in the last bits, and so do the samples.
    got = dr.multivariate_normal(dr.PRNGKey(3), _MEAN, _COV, (5,))
    want = jr.multivariate_normal(jr.PRNGKey(3), _MEAN, _COV, (5,))
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-14)
    # An identity covariance: the factor is exact in both, and so the samples.
    _same(
        dr.multivariate_normal(dr.PRNGKey(3), _MEAN, np.eye(3)),
        jr.multivariate_normal(jr.PRNGKey(3), _MEAN, np.eye(3)),
    )


# (name, parameters to differentiate, the rest of the call)
GRAD_CASES: Final[list[tuple[str, tuple[Any, ...], tuple[Any, ...]]]] = [
    ("pareto", (_B3,), ()),
    ("wald", (_B3,), ()),
    ("triangular", (_B3 - 1, _B3, _B3 + 1.5), ()),
    ("double_sided_maxwell", (np.float64(1.0), _B3), ((2,),)),
    ("multivariate_normal", (_MEAN, _COV), ((2,), None, "eigh")),
]


def test_gradients_equal_jax() -> None:
    """Gradients of every row's squared samples, w.r.t. its parameters: one program."""

    def loss(mod: Any, key: Any) -> Callable[[Any], Any]:
        def total(params: list[tuple[Any, ...]]) -> Any:
            keys = mod.split(key, len(GRAD_CASES))
            return sum(
                (getattr(mod, name)(keys[i], *p, *rest) ** 2).sum()
                for i, ((name, _, rest), p) in enumerate(zip(GRAD_CASES, params, strict=True))
            )

        return total

    params = [case[1] for case in GRAD_CASES]
    got = dx.jit(dx.grad(loss(dr, dr.PRNGKey(5))))(params)
    want = jax.jit(jax.grad(loss(jr, jr.PRNGKey(5))))(params)
    for (name, _, _), gs, ws in zip(GRAD_CASES, got, want, strict=True):
        for g, w in zip(gs, ws, strict=True):
            assert np.asarray(g).dtype == w.dtype, name
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=name)


def test_gradient_by_finite_differences() -> None:
    # d/db of a Pareto sample: exp(e / b) * (-e / b**2), checked numerically too.
    f = dx.jit(lambda b: dr.pareto(dr.PRNGKey(2), b, (4,)).sum())
    g = float(dx.grad(f)(2.0))
    eps = 1e-6
    assert abs(g - (float(f(2.0 + eps)) - float(f(2.0 - eps))) / (2 * eps)) < 1e-6 * abs(g)


def test_keys_queries_and_clone() -> None:
    assert dr.key_impl(dr.key(0)) == jr.key_impl(jr.key(0)) == "threefry2x32"
    assert dr.key_impl(dr.PRNGKey(0)) == str(jr.key_impl(jr.PRNGKey(0)))
    assert dr.key_impl(dr.split(dr.key(0), 3)) == "threefry2x32"
    assert repr(dr.key_dtype()) == str(jr.key_dtype()) == "key<fry>"
    assert dr.key_dtype("threefry2x32") == dr.key(0).dtype
    k = dr.key(4)
    assert dr.clone(k) is k
    _same(dr.key_data(dx.jit(dr.clone)(k)), jr.key_data(jr.clone(jr.key(4))))
    _same(dr.clone(dr.PRNGKey(4)), jr.clone(jr.PRNGKey(4)))
    with pytest.raises(NotImplementedError, match="only the 'threefry2x32'"):
        dr.key_dtype("rbg")
    with pytest.raises(ValueError, match="unrecognized"):
        dr.key_dtype("nonsense")
    with pytest.raises(TypeError, match="PRNG key"):
        dr.key_impl(np.zeros(3, np.float32))


# A list argument, which jax.numpy refuses (typed Any: the refusal is the point).
_A_LIST: Final[Any] = [5, 6]

# (call, exception, message fragment)
REFUSALS: Final[list[tuple[Callable[[Any], Any], type[Exception], str]]] = [
    (lambda k: dr.cauchy(k, (2,), np.int32), ValueError, "`cauchy` must be a float"),
    (lambda k: dr.exponential(k, (2,), np.int32), ValueError, "`exponential` must be a float"),
    (lambda k: dr.pareto(k, np.ones((3, 1)), (2,)), ValueError, "broadcast-compatible"),
    (lambda k: dr.pareto(k, np.float64(2.0), (2,), F32), ValueError, "cannot safely cast"),
    (lambda k: dr.geometric(k, 0.5, (2,), F32), ValueError, "`geometric` must be an int"),
    (lambda k: dr.poisson(k, 2.0, (2,), F32), ValueError, "`poisson` must be an int"),
    (lambda k: dr.binomial(k, 5, 0.5, (2,), np.int32), ValueError, "`binomial` must be a float"),
    (
        lambda k: dr.multivariate_normal(k, _MEAN, np.eye(2)),
        ValueError,
        r"cov.shape == \(\.\.\., n, n\)",
    ),
    (lambda k: dr.multivariate_normal(k, 1.0, np.eye(2)), ValueError, "mean.ndim >= 1"),
    (lambda k: dr.multivariate_normal(k, _MEAN, _COV, method="lu"), ValueError, "method must be"),
    (lambda k: dr.laplace(dr.split(k, 2), (2,)), ValueError, "accepts a single key"),
    (lambda k: dr.logistic(np.zeros(2, np.int32)), TypeError, "PRNG key"),
    (lambda k: dr.binomial(k, _A_LIST, 0.5), TypeError, "requires ndarray or scalar"),
]


@pytest.mark.parametrize(("call", "exc", "match"), REFUSALS, ids=[r[2] for r in REFUSALS])
def test_refusals(call: Callable[[Any], Any], exc: type[Exception], match: str) -> None:
    with pytest.raises(exc, match=match):
        call(dr.PRNGKey(0))


def test_jax_refuses_alike() -> None:
    # The refusals above are JAX's too (its messages, or its error types).
    with pytest.raises(ValueError, match="`cauchy` must be a float"):
        jr.cauchy(jr.PRNGKey(0), (2,), jnp.int32)
    with pytest.raises(ValueError, match="cannot safely cast"):
        jr.pareto(jr.PRNGKey(0), np.float64(2.0), (2,), F32)
