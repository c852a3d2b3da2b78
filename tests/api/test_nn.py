"""didax.nn and didax.scipy.special against jax.nn and jax.scipy.special.

Values, dtypes and weak types over grids with edge values (0, +-inf, NaN,
large), eager and under jit; gradients against JAX, including where JAX
defines them specially (relu at 0, softplus and logsumexp at infinities,
masked softmax, xlogy at 0); vmap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import jax
import jax.nn as jnn
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
import pytest
from tests.slicing import slice_params

import didax as dx
import didax.numpy as dnp
import didax.scipy.special as dsp
from didax import nn as dnn

GRID: Final = np.array([-np.inf, -40.0, -6.0, -1.0, -0.0, 0.0, 0.5, 6.0, 7.5, 40.0, np.inf, np.nan])


def _compare(got: Any, want: Any, ulps: float = 8) -> None:
    """Equal types; values within a few ulps (eager didax computes exp, tanh, ... with NumPy)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple)
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _compare(g, w, ulps)
        return
    assert isinstance(got, dx.Array)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    assert got.weak_type == want.weak_type
    g, w = np.asarray(got), np.asarray(want)
    if g.dtype.kind != "f":
        np.testing.assert_array_equal(g, w)
        return
    eps = float(np.finfo(g.dtype).eps)
    np.testing.assert_allclose(g, w, rtol=ulps * eps, atol=ulps * eps)


ACTIVATIONS: Final[dict[str, Callable[..., Any]]] = {
    "relu": lambda m, x: m.relu(x),
    "relu6": lambda m, x: m.relu6(x),
    "sigmoid": lambda m, x: m.sigmoid(x),
    "softplus": lambda m, x: m.softplus(x),
    "silu": lambda m, x: m.silu(x),
    "swish": lambda m, x: m.swish(x),
    "gelu": lambda m, x: m.gelu(x),
    "gelu_exact": lambda m, x: m.gelu(x, approximate=False),
    "elu": lambda m, x: m.elu(x),
    "elu_alpha": lambda m, x: m.elu(x, alpha=0.3),
    "leaky_relu": lambda m, x: m.leaky_relu(x),
    "leaky_relu_slope": lambda m, x: m.leaky_relu(x, negative_slope=0.2),
    "tanh": lambda m, x: m.tanh(x),
    "log_sigmoid": lambda m, x: m.log_sigmoid(x),
}
# Outside CI's slices of the activation tables: other constants of a formula, and
# an alias (swish is silu).
ACTIVATION_VARIANTS: Final = {"elu_alpha", "leaky_relu_slope", "swish"}


def _in_activation_slice(name: str) -> bool:
    return name not in ACTIVATION_VARIANTS


# CI's slice: every activation in float64, and gelu's two forms (their constants and
# erf) in float32 too; the next table runs all of them on float32 scalars.
@pytest.mark.parametrize(
    ("name", "dtype"),
    slice_params(
        [(n, d) for n in ACTIVATIONS for d in (np.float32, np.float64)],
        lambda row: (
            _in_activation_slice(row[0]) and (row[1] is np.float64 or row[0].startswith("gelu"))
        ),
        lambda row: f"{row[0]}-{row[1].__name__}",
    ),
)
def test_activations_match_jax(name: str, dtype: Any) -> None:
    f = ACTIVATIONS[name]
    x = GRID.astype(dtype)
    _compare(f(dnn, x), f(jnn, x))
    _compare(dx.jit(lambda v: f(dnn, v))(x), jax.jit(lambda v: f(jnn, v))(x))


@pytest.mark.parametrize("name", slice_params(ACTIVATIONS, _in_activation_slice, str))
def test_activations_on_scalars_and_integers(name: str) -> None:
    f = ACTIVATIONS[name]
    _compare(f(dnn, 0.75), f(jnn, 0.75))
    _compare(f(dnn, np.float32(-0.75)), f(jnn, np.float32(-0.75)))
    if name not in ("sigmoid", "tanh", "log_sigmoid", "silu", "swish", "softplus"):
        ints = np.array([-3, 0, 2, 9])
        _compare(f(dnn, ints), f(jnn, ints))


@pytest.mark.parametrize("name", slice_params(ACTIVATIONS, _in_activation_slice, str))
def test_activation_gradients_match_jax(name: str) -> None:
    # Kinks included: relu'(0) = 0, relu6'(6) = 0, leaky_relu'(0) = 1, as JAX's rules.
    f = ACTIVATIONS[name]
    x = np.array([-np.inf, -40.0, -2.0, -0.0, 0.0, 0.3, 6.0, 40.0, np.inf])
    got = dx.vmap(dx.grad(lambda v: f(dnn, v)))(x)
    want = jax.vmap(jax.grad(lambda v: f(jnn, v)))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-13, atol=1e-15)
    jitted = dx.jit(dx.vmap(dx.grad(lambda v: f(dnn, v))))(x)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(want), rtol=1e-13, atol=1e-15)


def test_relu_derivative_at_zero_is_zero_as_jax() -> None:
    assert float(dx.grad(dnn.relu)(0.0)) == float(jax.grad(jnn.relu)(0.0)) == 0.0
    assert float(dx.grad(dnn.relu)(1e-300)) == 1.0
    assert float(dx.grad(dnn.relu6)(6.0)) == float(jax.grad(jnn.relu6)(6.0)) == 0.0


# --- softmax, log_softmax, logsumexp ---------------------------------------------------

LOGITS: Final = np.array(
    [[0.5, -1.0, 3.0, 2.0], [-np.inf, 0.0, 1.0, -np.inf], [1000.0, 1001.0, -1000.0, 0.0]]
)
MASK: Final = np.array([[True, False, True, True], [True, True, False, True], [False] * 4])


# CI's slice: each function on an int axis, and each kind of axis (negative,
# non-negative, a tuple) once.
@pytest.mark.parametrize(
    ("axis", "name"),
    slice_params(
        [(a, n) for a in (-1, 0, (0, 1)) for n in ("softmax", "log_softmax")],
        lambda row: row in {(-1, "softmax"), (0, "log_softmax"), ((0, 1), "softmax")},
        lambda row: f"{row[0]}-{row[1]}",
    ),
)
def test_softmax_values_and_gradients(name: str, axis: Any) -> None:
    d, j = getattr(dnn, name), getattr(jnn, name)
    _compare(d(LOGITS, axis=axis), j(LOGITS, axis=axis))
    _compare(dx.jit(lambda x: d(x, axis=axis))(LOGITS), j(LOGITS, axis=axis))
    w = np.arange(12.0).reshape(3, 4) / 7
    safe = np.where(np.isfinite(LOGITS), LOGITS, -50.0)  # the -inf rows' sums are NaN
    for x in (LOGITS, safe):

        def loss(m: Any, np_: Any, v: Any, fn: Any) -> Any:
            out = fn(v, axis=axis)
            return np_.sum(np_.where(np_.isfinite(out), out, 0.0) * w)

        got = dx.grad(lambda v: loss(dnn, dnp, v, d))(x)
        want = jax.grad(lambda v: loss(jnn, jnp, v, j))(x)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_where(name: str) -> None:
    d, j = getattr(dnn, name), getattr(jnn, name)
    x = np.where(np.isfinite(LOGITS), LOGITS, 0.0)
    _compare(d(x, where=MASK), j(x, where=MASK))
    _compare(d(x, axis=0, where=MASK[0]), j(x, axis=0, where=MASK[0]))
    w = np.linspace(-1.0, 1.0, 12).reshape(3, 4)

    def loss(np_: Any, fn: Any, v: Any) -> Any:
        out = fn(v, where=MASK)
        return np_.sum(np_.where(MASK, out, 0.0) * w)

    got = dx.grad(lambda v: loss(dnp, d, v))(x)
    want = jax.grad(lambda v: loss(jnp, j, v))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-14)


def test_softmax_masking_with_minus_inf_has_finite_gradients() -> None:
    x = np.array([1.0, -np.inf, 2.0, -np.inf])
    got = dx.grad(lambda v: dnn.softmax(v)[0])(x)
    want = jax.grad(lambda v: jnn.softmax(v)[0])(x)
    np.testing.assert_array_equal(np.isfinite(np.asarray(got)), [True] * 4)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-14)


LOGSUMEXP_KWARGS: Final[list[dict[str, Any]]] = [
    {},
    {"axis": 1},
    {"axis": 0, "keepdims": True},
    {"axis": (0, 1)},
    {"axis": 1, "b": np.array([1.0, 2.0, 0.0, 0.5])},
    {"axis": 1, "b": np.array([1.0, -2.0, 0.5, 0.5]), "return_sign": True},
    {"axis": 1, "b": np.array([1.0, -2.0, 0.5, 0.5])},
    {"axis": 1, "where": MASK},
    {"axis": 1, "keepdims": True, "where": MASK, "b": np.array([1.0, 1.0, 3.0, 1.0])},
]


# CI's slice: all but an int axis, keepdims and where alone, which the last row
# combines (the b rows have an int axis too).
@pytest.mark.parametrize(
    "kwargs",
    slice_params(
        LOGSUMEXP_KWARGS,
        lambda kw: not any(kw is LOGSUMEXP_KWARGS[i] for i in (1, 2, 7)),
        [f"kwargs{i}" for i in range(len(LOGSUMEXP_KWARGS))],
    ),
)
def test_logsumexp_matches_jax(kwargs: dict[str, Any]) -> None:
    # One function in both modules, as in JAX.
    assert dnn.logsumexp is dsp.logsumexp
    d, j = dnn.logsumexp, jsp.logsumexp
    _compare(d(LOGITS, **kwargs), j(LOGITS, **kwargs))
    _compare(dx.jit(lambda x: d(x, **kwargs))(LOGITS), j(LOGITS, **kwargs))
    if kwargs.get("return_sign"):
        return

    def loss(np_: Any, fn: Any, x: Any) -> Any:
        out = fn(x, **kwargs)
        return np_.sum(np_.where(np_.isfinite(out), out, 0.0))

    got = dx.grad(lambda x: loss(dnp, dnn.logsumexp, x))(LOGITS)
    want = jax.grad(lambda x: loss(jnp, jnn.logsumexp, x))(LOGITS)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-14)


def test_logsumexp_gradients_with_minus_inf_entries() -> None:
    x = np.array([-np.inf, 0.0, 1.0, -np.inf])
    got = dx.grad(dnn.logsumexp)(x)
    want = jax.grad(jnn.logsumexp)(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-14)
    assert np.asarray(got)[0] == 0.0
    # All -inf: the value is -inf, and JAX's gradient is NaN.
    allinf = np.full(3, -np.inf)
    _compare(dnn.logsumexp(allinf), jnn.logsumexp(allinf))
    np.testing.assert_array_equal(
        np.isnan(np.asarray(dx.grad(dnn.logsumexp)(allinf))),
        np.isnan(np.asarray(jax.grad(jnn.logsumexp)(allinf))),
    )
    # +inf entries: the value is inf without a NaN.
    _compare(dnn.logsumexp(np.array([np.inf, 1.0])), jnn.logsumexp(np.array([np.inf, 1.0])))


def test_logsumexp_scalars_ints_and_float32() -> None:
    for x in (2.0, 3, np.arange(4), np.linspace(-2, 2, 5, dtype=np.float32)):
        _compare(dnn.logsumexp(x), jnn.logsumexp(x))


def test_softmax_and_logsumexp_vmap() -> None:
    x = LOGITS[:2]
    _compare(dx.vmap(dnn.softmax)(x), jax.vmap(jnn.softmax)(x))
    _compare(dx.vmap(dnn.logsumexp, in_axes=1)(x), jax.vmap(jnn.logsumexp, in_axes=1)(x))
    got = dx.vmap(dx.grad(dnn.logsumexp))(x)
    want = jax.vmap(jax.grad(jnn.logsumexp))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-14)


# --- one_hot, standardize ----------------------------------------------------------------


# CI's slice: the default (a float dtype, the last axis), and an int dtype on
# another axis.
@pytest.mark.parametrize(
    "kwargs",
    slice_params(
        [{}, {"axis": 0}, {"dtype": np.float32}, {"dtype": np.int32, "axis": -2}],
        lambda kw: kw not in ({"axis": 0}, {"dtype": np.float32}),
        [f"kwargs{i}" for i in range(4)],
    ),
)
def test_one_hot(kwargs: dict[str, Any]) -> None:
    labels = np.array([[0, 3, -1], [2, 4, 1]])
    _compare(dnn.one_hot(labels, 4, **kwargs), jnn.one_hot(labels, 4, **kwargs))
    _compare(
        dx.jit(lambda x: dnn.one_hot(x, 4, **kwargs))(labels),
        jax.jit(lambda x: jnn.one_hot(x, 4, **kwargs))(labels),
    )
    _compare(dnn.one_hot(2, 3), jnn.one_hot(2, 3))
    _compare(
        dx.vmap(lambda x: dnn.one_hot(x, 5))(labels), jax.vmap(lambda x: jnn.one_hot(x, 5))(labels)
    )


# CI's slice: all but axis 0, an int axis as the default's.
@pytest.mark.parametrize(
    "kwargs",
    slice_params(
        [
            {},
            {"axis": 0},
            {"axis": (0, 1), "epsilon": 0.1},
            {"algorithm": "stable"},
            {"where": MASK[:2]},
            {"mean": 0.5, "variance": 2.0},
        ],
        lambda kw: kw != {"axis": 0},
        [f"kwargs{i}" for i in range(6)],
    ),
)
def test_standardize(kwargs: dict[str, Any]) -> None:
    x = np.array([[0.5, -1.0, 3.0, 2.0], [4.0, 0.0, 1.0, -2.0]])
    _compare(dnn.standardize(x, **kwargs), jnn.standardize(x, **kwargs), ulps=64)
    _compare(dx.jit(lambda v: dnn.standardize(v, **kwargs))(x), jnn.standardize(x, **kwargs), 64)
    w = np.linspace(-1.0, 2.0, 8).reshape(2, 4)
    got = dx.grad(lambda v: dnp.sum(dnn.standardize(v, **kwargs) * w))(x)
    want = jax.grad(lambda v: jnp.sum(jnn.standardize(v, **kwargs) * w))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-11, atol=1e-12)


def test_standardize_refuses_unknown_algorithms() -> None:
    with pytest.raises(ValueError, match="Unknown algorithm"):
        dnn.standardize(np.ones(3), algorithm="slow")


# --- didax.scipy.special ---------------------------------------------------------------

SPECIAL_UNARY: Final = ["erf", "erfc", "erfinv", "gammaln", "digamma", "expit", "logit"]


@pytest.mark.parametrize("name", SPECIAL_UNARY)
def test_scipy_special_unary(name: str) -> None:
    d, j = getattr(dsp, name), getattr(jsp, name)
    x64 = np.array([-np.inf, -2.5, -1.0, -0.0, 0.0, 0.25, 0.5, 1.0, 7.0, np.inf, np.nan])
    x32 = np.array([-0.5, 0.0, 0.5, 0.99], np.float32)
    for x in (x64, x32, np.array([-1, 0, 1, 3]), 0.5):
        _compare(d(x), j(x))
    _compare(dx.jit(d)(x64), jax.jit(j)(x64))
    _compare(dx.jit(d)(x32), jax.jit(j)(x32))


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_scipy_special_xlogy(name: str) -> None:
    d, j = getattr(dsp, name), getattr(jsp, name)
    v = np.array([0.0, -0.0, 1.0, -1.0, 2.5, np.inf, np.nan])
    a, b = np.meshgrid(v, v)
    _compare(d(a, b), j(a, b))
    _compare(dx.jit(d)(a, b), jax.jit(j)(a, b))
    _compare(d(0, 3), j(0, 3))
    _compare(d(np.float32(2.0), 3.0), j(np.float32(2.0), 3.0))


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_xlogy_gradients_are_jax_s_custom_rule(name: str) -> None:
    # At x == 0 the value is 0, but the derivative in x is log(y) (or log1p(y)).
    d, j = getattr(dsp, name), getattr(jsp, name)
    xs = np.array([0.0, 0.0, 1.5, 0.0])
    ys = np.array([0.0, 2.0, 0.5, -1.0])
    for argnum in (0, 1):
        got = dx.vmap(dx.grad(d, argnums=argnum))(xs, ys)
        want = jax.vmap(jax.grad(j, argnums=argnum))(xs, ys)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-14)


@pytest.mark.parametrize("name", ["erf", "erfc", "erfinv", "gammaln", "digamma", "expit", "logit"])
def test_scipy_special_gradients(name: str) -> None:
    d, j = getattr(dsp, name), getattr(jsp, name)
    x = np.array([0.1, 0.35, 0.5, 0.8])
    got = dx.vmap(dx.grad(d))(x)
    want = jax.vmap(jax.grad(j))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-13)
    got2 = dx.vmap(dx.grad(dx.grad(d)))(x)
    want2 = jax.vmap(jax.grad(jax.grad(j)))(x)
    np.testing.assert_allclose(np.asarray(got2), np.asarray(want2), rtol=1e-12)


@pytest.mark.parametrize(
    "f",
    [
        lambda m, np_, x: np_.sum(m.gelu(x) + m.gelu(x, approximate=False)),
        lambda m, np_, x: np_.sum(m.softplus(x) * m.silu(x) + m.elu(x) * m.log_sigmoid(x)),
        lambda m, np_, x: np_.sum(m.softmax(x) * np_.arange(4.0)),
        lambda m, np_, x: np_.sum(m.log_softmax(x) ** 2) + m.logsumexp(x),
        lambda m, np_, x: np_.sum(m.standardize(x) * np_.arange(4.0)),
    ],
    ids=["gelu", "activations", "softmax", "log_softmax", "standardize"],
)
def test_gradients_match_finite_differences(f: Callable[..., Any]) -> None:
    x = np.array([-1.3, 0.4, 2.2, 0.9])
    got = np.asarray(dx.grad(lambda v: f(dnn, dnp, v))(x))
    eps = 1e-6
    fd = np.array(
        [
            (float(f(dnn, dnp, x + eps * e)) - float(f(dnn, dnp, x - eps * e))) / (2 * eps)
            for e in np.eye(4)
        ]
    )
    np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-7)
