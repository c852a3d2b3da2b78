"""Issue 29's ``didax.nn`` against ``jax.nn``: the further activations, attention, initializers.

Tables against JAX 0.10.2: values, dtypes and weak types eagerly and under
jit over grids with edge values (0, ±inf, NaN, large), gradients (vmap of
grad, kinks included) and vjps, in float64 (the suite's mode) and in the
32-bit defaults (``x64_off``); ``dot_product_attention`` with each of its
options, values and derivatives; the initializers bit for bit for the same
(raw or typed) key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import jax
import jax.nn as jnn
import jax.nn.initializers as jinit
import jax.numpy as jnp
import numpy as np
import pytest
from tests.slicing import PARTS, in_part, slice_params

import didax as dx
import didax.nn.initializers as dinit
import didax.random as drandom
from didax import nn as dnn

_FINITE_AND_ZEROS: Final = np.array(
    [-np.inf, -1e30, -6.0, -3.0, -1.0, -0.5, -0.0, 0.0, 0.25, 0.7, 1.0, 3.0, 6.0, 40.0, 1e30]
)
GRID: Final = np.concatenate([_FINITE_AND_ZEROS, [np.inf, np.nan]])

ACTIVATIONS: Final[dict[str, Callable[..., Any]]] = {
    "celu": lambda m, x: m.celu(x),
    "celu_alpha": lambda m, x: m.celu(x, alpha=0.5),
    "hard_sigmoid": lambda m, x: m.hard_sigmoid(x),
    "hard_silu": lambda m, x: m.hard_silu(x),
    "hard_swish": lambda m, x: m.hard_swish(x),
    "hard_tanh": lambda m, x: m.hard_tanh(x),
    "identity": lambda m, x: m.identity(x),
    "log1mexp": lambda m, x: m.log1mexp(x),
    "mish": lambda m, x: m.mish(x),
    "selu": lambda m, x: m.selu(x),
    "soft_sign": lambda m, x: m.soft_sign(x),
    "sparse_plus": lambda m, x: m.sparse_plus(x),
    "sparse_sigmoid": lambda m, x: m.sparse_sigmoid(x),
    "squareplus": lambda m, x: m.squareplus(x),
    "squareplus_b": lambda m, x: m.squareplus(x, 0.5),
}
# Outside CI's slices of the activation tables: other constants of a formula
# (celu_alpha, squareplus_b), an alias (hard_swish), and hard_sigmoid, all of
# whose operations (and kinks) hard_silu reaches.
ACTIVATION_VARIANTS: Final = {"celu_alpha", "squareplus_b", "hard_swish", "hard_sigmoid"}


def _in_activation_slice(name: str) -> bool:
    return name not in ACTIVATION_VARIANTS


def _compare(got: Any, want: Any, ulps: float = 8, tol: float | None = None) -> None:
    """Equal shapes, dtypes and weak types; values within a few ulps (NaNs where JAX's)."""
    assert isinstance(got, dx.Array), type(got)
    assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type)
    g, w = np.asarray(got), np.asarray(want)
    if g.dtype.kind not in "fc":
        np.testing.assert_array_equal(g, w)
        return
    bound = ulps * float(np.finfo(g.dtype).eps) if tol is None else tol
    np.testing.assert_allclose(g, w, rtol=bound, atol=bound)


def _check_activation(name: str, dtypes_: tuple[type[Any], ...]) -> None:
    f = ACTIVATIONS[name]
    for dtype in dtypes_:
        with np.errstate(over="ignore"):  # (1e30 is inf in float16)
            x = GRID.astype(dtype)
        want = f(jnn, x)
        _compare(f(dnn, x), want)
        _compare(dx.jit(lambda v: f(dnn, v))(x), want)
    _compare(f(dnn, 0.75), f(jnn, 0.75))  # a weak scalar stays weak
    ints = np.array([-3, 0, 2, 9], np.int32)
    if name in ("identity", "hard_tanh"):  # integers stay integers
        _compare(f(dnn, ints), f(jnn, ints))


@pytest.mark.parametrize("name", slice_params(ACTIVATIONS, _in_activation_slice, str))
def test_activations_match_jax(name: str) -> None:
    _check_activation(name, (np.float32, np.float64))


# CI's slice: as above, less identity (no operation to run in float16).
@pytest.mark.x64_off
@pytest.mark.parametrize("part", PARTS)
def test_activations_match_jax_in_32_bits(part: bool) -> None:
    for name in in_part(ACTIVATIONS, lambda n: _in_activation_slice(n) and n != "identity", part):
        _check_activation(name, (np.float32, np.float16))


# CI's slice: as above, less identity (no operation to differentiate).
@pytest.mark.parametrize(
    "name",
    slice_params(ACTIVATIONS, lambda n: _in_activation_slice(n) and n != "identity", str),
)
def test_activation_gradients_match_jax(name: str) -> None:
    # Kinks included: hard_sigmoid at -3 and 3 (relu6's 0 there), sparse_plus at ±1,
    # hard_tanh at ±1, celu at 0: the derivatives JAX's formulas give.
    f = ACTIVATIONS[name]
    x = np.array([-np.inf, -40.0, -3.0, -1.0, -0.3, 0.0, 0.3, 1.0, 3.0, 40.0, np.inf])
    want = jax.vmap(jax.grad(lambda v: f(jnn, v)))(x)
    got = dx.jit(dx.vmap(dx.grad(lambda v: f(dnn, v))))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-13, atol=1e-15)


def test_log1mexp_gradient_is_jaxs_custom_rule() -> None:
    x = np.array([1e-8, 0.1, np.log(2.0), 1.0, 30.0])
    got = dx.vmap(dx.grad(dnn.log1mexp))(x)
    np.testing.assert_allclose(np.asarray(got), 1 / np.expm1(x), rtol=1e-14)
    np.testing.assert_allclose(
        np.asarray(got), np.asarray(jax.vmap(jax.grad(jnn.log1mexp))(x)), rtol=1e-14
    )


# CI's slice: a negative axis and a non-negative one.
@pytest.mark.parametrize("axis", slice_params([-1, 0, 1], lambda a: a != 1, str))
def test_glu(axis: int) -> None:
    x = np.linspace(-3.0, 3.0, 24).reshape(4, 6)
    _compare(dnn.glu(x, axis), jnn.glu(x, axis))
    _compare(dx.jit(lambda v: dnn.glu(v, axis))(x), jnn.glu(x, axis))
    w = np.cos(np.arange(12.0)).reshape(jnn.glu(x, axis).shape)
    got = dx.grad(lambda v: (dnn.glu(v, axis) * w).sum())(x)
    want = jax.grad(lambda v: (jnn.glu(v, axis) * w).sum())(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-14)


def test_glu_refuses_an_odd_axis() -> None:
    with pytest.raises(ValueError, match="glu: the size of axis 0 must be divisible by 2"):
        dnn.glu(np.ones((3, 2)), axis=0)


LOGITS: Final = np.array(
    [[0.5, -1.0, 3.0, 2.0], [-np.inf, 0.0, 1.0, -np.inf], [1000.0, 1001.0, -1000.0, 0.0]]
)
MASK: Final = np.array([[True, False, True, True], [True, True, False, True], [True] * 4])


# CI's slice: no axis, an int axis (with keepdims), a tuple of axes, and where.
@pytest.mark.parametrize(
    "kwargs",
    slice_params(
        [
            {},
            {"axis": 1},
            {"axis": 0, "keepdims": True},
            {"axis": (0, 1)},
            {"axis": 1, "where": MASK},
        ],
        lambda kw: kw != {"axis": 1},
        [f"kwargs{i}" for i in range(5)],
    ),
)
def test_logmeanexp(kwargs: dict[str, Any]) -> None:
    want = jnn.logmeanexp(LOGITS, **kwargs)
    _compare(dnn.logmeanexp(LOGITS, **kwargs), want)
    _compare(dx.jit(lambda v: dnn.logmeanexp(v, **kwargs))(LOGITS), want)
    safe = np.where(np.isfinite(LOGITS), LOGITS, -5.0)
    got = dx.grad(lambda v: dnn.logmeanexp(v, **kwargs).sum())(safe)
    np.testing.assert_allclose(
        np.asarray(got), np.asarray(jax.grad(lambda v: jnn.logmeanexp(v, **kwargs).sum())(safe))
    )


# --- dot_product_attention --------------------------------------------------------------

B, T, S, N, K, H = 2, 5, 6, 4, 2, 8
_RNG: Final = np.random.default_rng(29)
QUERY: Final = _RNG.standard_normal((B, T, N, H))
KEY: Final = _RNG.standard_normal((B, S, K, H))
VALUE: Final = _RNG.standard_normal((B, S, K, H))
BIAS: Final = _RNG.standard_normal((1, N, T, S))
ATT_MASK: Final = _RNG.random((B, 1, T, S)) > 0.3
LENGTHS: Final[dict[str, Any]] = {
    "query_seq_lengths": np.array([3, 5], np.int32),
    "key_value_seq_lengths": np.array([6, 2], np.int32),
}

# JAX's attention takes its softmax in float32 whatever the operands' dtype: float64
# logits summed in another order can round to a neighbouring float32.
_SOFTMAX_TOL: Final = 2e-6

ATTENTION_CASES: Final[dict[str, dict[str, Any]]] = {
    "plain": {},
    "bias": {"bias": BIAS},
    "bias_per_batch_and_head": {"bias": np.broadcast_to(BIAS, (B, N, T, S))},
    "mask": {"mask": ATT_MASK},
    "causal": {"is_causal": True},
    "scale": {"scale": 0.3},
    "seq_lengths": LENGTHS,
    "window": {"local_window_size": (1, 2)},
    "everything": {"bias": BIAS, "mask": ATT_MASK, "is_causal": True, "local_window_size": 2},
    "xla": {"implementation": "xla", "is_causal": True},
}


def _attention(m: Any, kwargs: dict[str, Any]) -> Callable[..., Any]:
    return lambda q, k, v: m.dot_product_attention(q, k, v, **kwargs)


# CI's slice: all but bias, mask and causal, which "everything" combines
# (with an int window; "window"'s is a pair).
@pytest.mark.parametrize(
    "case", slice_params(ATTENTION_CASES, lambda c: c not in {"bias", "mask", "causal"}, str)
)
def test_dot_product_attention_matches_jax(case: str) -> None:
    # One compilation per library: the jitted function's vjp gives its value too.
    kwargs = ATTENTION_CASES[case]
    args = (QUERY, KEY, VALUE)
    d_out, d_vjp = dx.vjp(dx.jit(_attention(dnn, kwargs)), *args)
    j_out, j_vjp = jax.vjp(jax.jit(_attention(jnn, kwargs)), *args)
    _compare(d_out, j_out, tol=_SOFTMAX_TOL)
    cotangent = np.sin(np.arange(QUERY.size)).reshape(QUERY.shape)
    for got, expected in zip(d_vjp(cotangent), j_vjp(cotangent), strict=True):
        np.testing.assert_allclose(
            np.asarray(got), np.asarray(expected), rtol=_SOFTMAX_TOL, atol=_SOFTMAX_TOL
        )


@pytest.mark.parametrize("case", ["plain", "everything"])
def test_dot_product_attention_eagerly(case: str) -> None:
    kwargs = ATTENTION_CASES[case]
    want = _attention(jnn, kwargs)(QUERY, KEY, VALUE)
    _compare(_attention(dnn, kwargs)(QUERY, KEY, VALUE), want, tol=_SOFTMAX_TOL)


def test_dot_product_attention_bias_gradient_jvp_and_residual() -> None:
    def d_loss(bias: Any) -> Any:
        return (dnn.dot_product_attention(QUERY, KEY, VALUE, bias, is_causal=True) ** 2).sum()

    def j_loss(bias: Any) -> Any:
        return (jnn.dot_product_attention(QUERY, KEY, VALUE, bias, is_causal=True) ** 2).sum()

    np.testing.assert_allclose(
        np.asarray(dx.grad(d_loss)(BIAS)),
        np.asarray(jax.grad(j_loss)(BIAS)),
        rtol=_SOFTMAX_TOL,
        atol=_SOFTMAX_TOL,
    )
    tangents = (QUERY * 0.5, KEY[::-1], VALUE * -1.0)
    d_out, d_tan = dx.jvp(_attention(dnn, {"scale": 0.5}), (QUERY, KEY, VALUE), tangents)
    j_out, j_tan = jax.jvp(_attention(jnn, {"scale": 0.5}), (QUERY, KEY, VALUE), tangents)
    _compare(d_out, j_out, tol=_SOFTMAX_TOL)
    np.testing.assert_allclose(
        np.asarray(d_tan), np.asarray(j_tan), rtol=_SOFTMAX_TOL, atol=_SOFTMAX_TOL
    )
    d_res = dnn.dot_product_attention(QUERY, KEY, VALUE, return_residual=True, **LENGTHS)
    j_res = jnn.dot_product_attention(QUERY, KEY, VALUE, return_residual=True, **LENGTHS)
    assert isinstance(d_res, tuple)
    for got, want in zip(d_res, j_res, strict=True):
        _compare(got, want, tol=_SOFTMAX_TOL)


def test_dot_product_attention_without_batch_axis_and_under_vmap() -> None:
    # (T, N, H) operands; and vmap over a leading axis of 3-D operands.
    q, k, v = QUERY[0], KEY[0], VALUE[0]
    _compare(
        dnn.dot_product_attention(q, k, v), jnn.dot_product_attention(q, k, v), tol=_SOFTMAX_TOL
    )
    got = dx.vmap(_attention(dnn, {"is_causal": True}))(QUERY, KEY, VALUE)
    want = jax.vmap(_attention(jnn, {"is_causal": True}))(QUERY, KEY, VALUE)
    _compare(got, want, tol=_SOFTMAX_TOL)


@pytest.mark.x64_off
def test_dot_product_attention_in_32_bits() -> None:
    args = tuple(a.astype(np.float32) for a in (QUERY, KEY, VALUE))
    kwargs = {"bias": BIAS.astype(np.float32), "mask": ATT_MASK, "is_causal": True}
    want = _attention(jnn, kwargs)(*args)
    _compare(dx.jit(_attention(dnn, kwargs))(*args), want, ulps=16)
    d_grads = dx.grad(lambda *a: _attention(dnn, kwargs)(*a).sum(), argnums=(0, 1, 2))(*args)
    j_grads = jax.grad(lambda *a: _attention(jnn, kwargs)(*a).sum(), argnums=(0, 1, 2))(*args)
    for got, expected in zip(d_grads, j_grads, strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=2e-5, atol=2e-5)
    bf16 = tuple(jnp.asarray(a, jnp.bfloat16) for a in args)
    _compare(
        dnn.dot_product_attention(*(np.asarray(a) for a in bf16)),
        jnn.dot_product_attention(*bf16),
        ulps=2,
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"implementation": "cudnn"}, RuntimeError, "cudnn.* needs an NVIDIA GPU"),
        ({"implementation": "flash"}, ValueError, "unsupported implementation option"),
        ({"mask": ATT_MASK.astype(np.float64)}, ValueError, "mask dtype should be bool"),
        ({"query_seq_lengths": np.array([1, 2])}, ValueError, "query_seq_lengths dtype"),
    ],
)
def test_dot_product_attention_refuses(kwargs: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        dnn.dot_product_attention(QUERY, KEY, VALUE, **kwargs)


def test_dot_product_attention_refuses_heads_not_a_multiple() -> None:
    with pytest.raises(ValueError, match="must be a multiple of key/value heads, but got 3 vs 2"):
        dnn.dot_product_attention(QUERY[:, :, :3], KEY, VALUE)


# --- scaled products -----------------------------------------------------------------------


def test_scaled_matmul_is_its_definition() -> None:
    # JAX has no CPU lowering of scaled_matmul: the reference is its docstring's formula.
    a, b = _RNG.standard_normal((2, 3, 64)), _RNG.standard_normal((2, 4, 64))
    sa, sb = _RNG.random((2, 3, 2)), _RNG.random((2, 4, 2))
    want = np.einsum("bmk,bnk->bmn", a * np.repeat(sa, 32, -1), b * np.repeat(sb, 32, -1))
    got = dnn.scaled_matmul(a, b, sa, sb)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
    assert dnn.scaled_matmul(a, b, sa, sb, preferred_element_type=np.float16).dtype == np.float16
    with pytest.raises(ValueError, match="3-dimensional"):
        dnn.scaled_matmul(a[0], b, sa, sb)


def test_scaled_dot_general_and_its_configs() -> None:
    x, y = _RNG.standard_normal((3, 4)), _RNG.standard_normal((5, 4))
    dims = (((1,), (1,)), ((), ()))
    _compare(dnn.scaled_dot_general(x, y, dims), jnn.scaled_dot_general(x, y, dims), ulps=16)
    for mode in ("mxfp8", "nvfp4"):
        got, want = dnn.get_scaled_dot_general_config(mode), jnn.get_scaled_dot_general_config(mode)
        for field in ("mode", "block_size", "data_type", "scale_type", "infer_only"):
            assert getattr(got, field) == getattr(want, field)
    with pytest.raises(NotImplementedError, match="cuDNN only"):
        dnn.scaled_dot_general(x, y, dims, configs=[dnn.get_scaled_dot_general_config("mxfp8")])


# --- initializers ---------------------------------------------------------------------------

INITIALIZERS: Final[dict[str, tuple[Callable[[Any], Any], tuple[int, ...]]]] = {
    "zeros": (lambda m: m.zeros, (3, 4)),
    "ones": (lambda m: m.ones, (3, 4)),
    "constant": (lambda m: m.constant(-7), (2, 3)),
    "uniform": (lambda m: m.uniform(10.0), (3, 4)),
    "normal": (lambda m: m.normal(5.0), (3, 4)),
    "truncated_normal": (lambda m: m.truncated_normal(5.0, lower=-1.0, upper=3.0), (3, 4)),
    "glorot_normal": (lambda m: m.glorot_normal(), (3, 4)),
    "glorot_uniform": (lambda m: m.glorot_uniform(), (3, 4)),
    "he_normal": (lambda m: m.he_normal(), (3, 3, 2, 5)),
    "he_uniform": (lambda m: m.he_uniform(), (3, 3, 2, 5)),
    "lecun_normal": (lambda m: m.lecun_normal(in_axis=0, out_axis=(1, 2)), (3, 2, 4)),
    "lecun_uniform": (lambda m: m.lecun_uniform(batch_axis=0), (2, 3, 4)),
    "variance_scaling_geo": (lambda m: m.variance_scaling(0.5, "fan_geo_avg", "normal"), (6, 2)),
    "variance_scaling_out": (lambda m: m.variance_scaling(3.0, "fan_out", "uniform"), (2, 6)),
    "orthogonal": (lambda m: m.orthogonal(), (3, 5)),
    "orthogonal_tall": (lambda m: m.orthogonal(2.0, column_axis=0), (4, 2, 3)),
    "delta_orthogonal": (lambda m: m.delta_orthogonal(), (3, 3, 2, 4)),
    "delta_orthogonal_3d": (lambda m: m.delta_orthogonal(), (3, 2, 2)),
}

_COMPLEX_OK: Final = ("normal", "orthogonal", "glorot_uniform")


# Under jit: the initializers not drawn eagerly below (the aliases are the same functions).
JITTED: Final = (
    "ones",
    "glorot_uniform",
    "he_normal",
    "he_uniform",
    "lecun_normal",
    "variance_scaling_out",
    "orthogonal",
    "delta_orthogonal_3d",
)
ALIASES: Final = {
    "xavier_normal": "glorot_normal",
    "xavier_uniform": "glorot_uniform",
    "kaiming_normal": "he_normal",
    "kaiming_uniform": "he_uniform",
}


def _bundle(m: Any, dtype: Any) -> Callable[[Any], tuple[Any, ...]]:
    """The ``JITTED`` initializers' draws from one key, as one program (one compilation)."""

    def draw(key: Any) -> tuple[Any, ...]:
        return tuple(INITIALIZERS[n][0](m)(key, INITIALIZERS[n][1], dtype) for n in JITTED)

    return draw


def _check_bundle(dtype: Any) -> None:
    """Under jit, bit for bit with JAX's jitted initializers (XLA fuses both the same way)."""
    got = dx.jit(_bundle(dinit, dtype))(drandom.PRNGKey(5))
    want = jax.jit(_bundle(jinit, dtype))(jax.random.PRNGKey(5))
    for alias, name in ALIASES.items():
        assert getattr(dinit, alias) is getattr(dinit, name)
    for name, g, w in zip(JITTED, got, want, strict=True):
        assert g.dtype == w.dtype, name
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w), err_msg=name)


def test_initializers_match_jax_under_jit() -> None:
    _check_bundle(None)


@pytest.mark.x64_off
def test_initializers_match_jax_in_32_bits() -> None:
    _check_bundle(None)


# One of each code path (the others are these with other constants: the jitted bundle).
EAGER: Final = (
    "zeros",
    "constant",
    "uniform",
    "normal",
    "truncated_normal",
    "glorot_normal",
    "lecun_uniform",
    "variance_scaling_geo",
    "orthogonal_tall",
    "delta_orthogonal",
)


@pytest.mark.parametrize("name", EAGER)
def test_initializers_match_jax_eagerly(name: str) -> None:
    factory, shape = INITIALIZERS[name]
    d_init, j_init = factory(dinit), factory(jinit)
    assert isinstance(d_init, dinit.Initializer)
    got = d_init(drandom.PRNGKey(3), shape)
    want = j_init(jax.random.PRNGKey(3), shape)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))  # bit for bit


def test_initializers_with_typed_keys_and_complex_dtypes() -> None:
    for name in _COMPLEX_OK:
        factory, shape = INITIALIZERS[name]
        got = factory(dinit)(drandom.key(7), shape, np.complex64)
        want = factory(jinit)(jax.random.key(7), shape, np.complex64)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=name)


def test_complex_truncated_normal_initializers_match_jax() -> None:
    # The complex log/sqrt of the truncation can differ from JAX's in the last bit.
    for dtype in (np.complex128,):
        got = dinit.he_normal()(drandom.PRNGKey(1), (4, 5), dtype)
        want = jinit.he_normal()(jax.random.PRNGKey(1), (4, 5), dtype)
        assert got.dtype == want.dtype
        eps = np.finfo(dtype).eps
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=64 * eps, atol=64 * eps)


def test_initializers_default_dtype_and_errors() -> None:
    assert dinit.normal(dtype=np.float32)(drandom.PRNGKey(0), (2,)).dtype == np.float32
    with pytest.raises(ValueError, match="at least 2D or specify in_axis"):
        dinit.glorot_normal()(drandom.PRNGKey(0), (3,))
    bad_mode: Any = "fan_sideways"
    with pytest.raises(ValueError, match="invalid mode"):
        dinit.variance_scaling(1.0, bad_mode, "normal")(drandom.PRNGKey(0), (2, 2))
    with pytest.raises(ValueError, match="requires at least a 2D shape"):
        dinit.orthogonal()(drandom.PRNGKey(0), (3,))
    with pytest.raises(ValueError, match="3D, 4D or 5D"):
        dinit.delta_orthogonal()(drandom.PRNGKey(0), (3, 3))
    with pytest.raises(NotImplementedError, match="out_sharding"):
        dinit.zeros(drandom.PRNGKey(0), (2,), out_sharding="x")
    np.testing.assert_array_equal(np.asarray(dinit.orthogonal()(drandom.PRNGKey(0), (0, 3))), 0)
