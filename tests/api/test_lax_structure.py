"""issue 28's structural and miscellaneous ``lax`` names, against ``jax.lax``.

A table of cases, each a function of one array written once against a
``lax`` module (``didax.lax`` or ``jax.lax``): values eagerly and under
``jit``, ``vmap``, ``grad`` (eagerly and jitted) and ``jvp`` against finite
differences, in float64 (the suite's mode) and float32 (``x64_off``).
Then the primitives' own checks: ``split``, ``tile``, ``stack``,
``unstack`` and ``optimization_barrier`` (typing errors, lowering),
``scatter_sub`` and ``scatter_apply``, ``rng_bit_generator`` (bit for bit
JAX's for every algorithm, dtype and key type; its batching),
``rng_uniform``, ``platform_dependent`` and the shape helpers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeAlias

import jax
import jax.lax as jlax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
from didax import lax
from didax.errors import ShapeError

Fn: TypeAlias = Callable[..., Any]
Case: TypeAlias = Callable[[Any], Fn]

IDX: Final = np.array([[2], [0], [2], [5]])
FOUR: Final = np.array([0.5, -1.0, 2.0, 3.0])


def _dnums(L: Any) -> Any:
    return L.ScatterDimensionNumbers(
        update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )


# Functions of x: f[3, 4] written once against a lax module L.
CASES: Final[dict[str, Case]] = {
    "split": lambda L: lambda x: L.split(x, (1, 3), axis=1),
    "split_neg_axis": lambda L: lambda x: L.split(x, (0, 2, 1), axis=-2),
    "tile": lambda L: lambda x: L.tile(x, (2, 3)),
    "tile_ones": lambda L: lambda x: L.tile(x, (1, 1)),
    "stack": lambda L: lambda x: L.stack([x, L.mul(x, x)], axis=1),
    "stack_last": lambda L: lambda x: L.stack([x, x, L.neg(x)], axis=-1),
    "unstack": lambda L: lambda x: L.unstack(x, axis=1),
    "unstack_0": lambda L: lambda x: L.unstack(x),
    "barrier": lambda L: lambda x: L.optimization_barrier((x, L.sin(x))),
    "copy": lambda L: lambda x: L.copy_p.bind(L.mul(x, x)),
    "broadcasted_iota": lambda L: lambda x: L.add(x, L.broadcasted_iota(x.dtype, (3, 4), 1)),
    "broadcast_like": lambda L: (
        lambda x: L.broadcast_like(L.index_in_dim(x, 1, keepdims=False), L.broadcast(x, (2,)))
    ),
    "broadcast_to_rank": lambda L: lambda x: L.broadcast_to_rank(x, 4),
    "collapse": lambda L: lambda x: L.collapse(x, 0, 2),
    "collapse_rest": lambda L: lambda x: L.collapse(L.broadcast(x, (2,)), 1),
    "slice_in_dim": lambda L: lambda x: L.slice_in_dim(x, 1, None, axis=1),
    "slice_in_dim_neg": lambda L: lambda x: L.slice_in_dim(x, -3, -1, 2, axis=1),
    "index_in_dim": lambda L: lambda x: L.index_in_dim(x, -1, axis=1, keepdims=False),
    "dynamic_slice_in_dim": lambda L: lambda x: L.dynamic_slice_in_dim(x, -3, 2, axis=1),
    "dynamic_slice_in_dim_clamped": lambda L: lambda x: L.dynamic_slice_in_dim(x, 2, 2),
    "dynamic_index_in_dim": lambda L: lambda x: L.dynamic_index_in_dim(x, np.int32(-1), 1, False),
    "dynamic_update_slice_in_dim": lambda L: (
        lambda x: L.dynamic_update_slice_in_dim(
            x, L.mul(L.slice_in_dim(x, 0, 2, axis=1), 3.0), np.int32(-3), 1
        )
    ),
    "dynamic_update_index_in_dim": lambda L: (
        lambda x: L.dynamic_update_index_in_dim(
            x, L.sin(L.index_in_dim(x, 0, keepdims=False)), -1, 0
        )
    ),
    "index_take": lambda L: (
        lambda x: L.index_take(x, [np.array([1, -1, 5]), np.array([0, 3, -2])], (0, 1))
    ),
    "scatter_sub": lambda L: (
        lambda x: L.scatter_sub(
            x, IDX, L.mul(L.broadcast(L.index_in_dim(x, 1, keepdims=False), (4,)), 2.0), _dnums(L)
        )
    ),
    "batch_matmul": lambda L: (
        lambda x: L.batch_matmul(L.broadcast(x, (2,)), L.broadcast(L.transpose(x, (1, 0)), (2,)))
    ),
}


def _leaves(tree: Any) -> list[np.ndarray[Any, Any]]:
    return [np.asarray(a) for a in jax.tree_util.tree_leaves(tree)]


def _assert_same(got: Any, want: Any, rtol: float = 1e-12) -> None:
    g, w = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(g) == len(w)
    for a, b in zip(g, w, strict=True):
        assert a.shape == b.shape
        assert np.dtype(a.dtype) == np.dtype(b.dtype)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=rtol)


def _loss(L: Any, f: Fn) -> Fn:
    def loss(x: Any) -> Any:
        total = 0.0
        for i, y in enumerate(jax.tree_util.tree_leaves(f(x))):
            total = L.add(
                total, L.reduce_sum(L.mul(L.mul(y, y), float(i + 1)), tuple(range(y.ndim)))
            )
        return total

    return loss


X64: Final = np.random.RandomState(0).randn(3, 4)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_vmap_and_grad(name: str) -> None:
    f, g = CASES[name](lax), CASES[name](jlax)
    x = X64
    want = g(jnp.asarray(x))
    _assert_same(f(x), want)
    _assert_same(dx.jit(f)(x), want)
    xs = np.stack([x, 2 * x + 1])
    _assert_same(dx.vmap(f)(xs), jax.vmap(g)(jnp.asarray(xs)))
    want_grad = jax.grad(_loss(jlax, g))(jnp.asarray(x))
    _assert_same(dx.grad(_loss(lax, f))(x), want_grad, 1e-10)
    _assert_same(dx.jit(dx.grad(_loss(lax, f)))(x), want_grad, 1e-10)
    # jvp against central differences of the loss.
    t = np.random.RandomState(1).randn(3, 4)
    _, tangent = dx.jvp(_loss(lax, f), (x,), (t,))
    eps = 1e-6
    fd = (float(_loss(lax, f)(x + eps * t)) - float(_loss(lax, f)(x - eps * t))) / (2 * eps)
    np.testing.assert_allclose(float(tangent), fd, rtol=1e-6, atol=1e-6)


@pytest.mark.x64_off
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_float32(name: str) -> None:
    f, g = CASES[name](lax), CASES[name](jlax)
    x = X64.astype(np.float32)
    want = g(jnp.asarray(x))
    _assert_same(f(x), want, 1e-6)
    _assert_same(dx.jit(f)(x), want, 1e-6)


# --- the primitives ----------------------------------------------------------------------


def test_structural_typing_errors() -> None:
    x = np.zeros((3, 4))
    with pytest.raises(ShapeError, match="sum of sizes"):
        lax.split(x, (1, 1), axis=1)
    with pytest.raises(ShapeError, match="non-negative"):
        lax.split(x, (5, -1), axis=1)
    with pytest.raises(ShapeError, match="reps length"):
        lax.tile(x, (2,))
    with pytest.raises(ShapeError, match="same shape"):
        lax.stack([x, np.zeros((4, 3))])
    with pytest.raises(ValueError, match="rank > 0"):
        lax.unstack(np.float64(1.0))
    with pytest.raises(ValueError, match="at least one"):
        lax.stack([])
    with pytest.raises(IndexError, match="out of bounds"):
        lax.index_in_dim(x, 4, axis=1)
    with pytest.raises(ValueError, match="Invalid dimension range"):
        lax.collapse(x, 1, 0)
    with pytest.raises(ValueError, match="same ndim"):
        lax.batch_matmul(np.zeros((2, 3, 4)), np.zeros((4, 5)))


def test_lowerings_are_jax_ops() -> None:
    x = np.ones((2, 3), np.float32)
    text = dx.jit(lambda x: lax.optimization_barrier((x, x))).lower(x).as_text()
    assert "stablehlo.optimization_barrier" in text
    text = dx.jit(lambda x: lax.split(x, (1, 2), axis=1)).lower(x).as_text()
    assert text.count("stablehlo.slice") == 2
    text = dx.jit(lambda x: lax.scatter_sub(x, IDX[:1], x[:1], _dnums(lax))).lower(x).as_text()
    assert "stablehlo.subtract" in text


def test_structural_flops_are_zero() -> None:
    x = np.ones((3, 4))
    for name in ("split", "tile", "stack", "unstack", "barrier"):
        assert dx.flops(CASES[name](lax))(x) == (12 if name == "stack" else 0)


# Its last check is XLA's cost analysis, which counts differently at XLA's
# older CPU emitters (the tests session's, noxfile.py).
@pytest.mark.xla_default_emitters
def test_scatter_sub_matches_jax_in_every_operand() -> None:
    x, u = X64, np.random.RandomState(2).randn(4, 4)

    def make(L: Any) -> Fn:
        return lambda x, u: L.scatter_sub(x, IDX, u, _dnums(L), mode="clip")

    f, g = make(lax), make(jlax)
    _assert_same(f(x, u), g(x, u))
    _assert_same(dx.jit(f)(x, u), g(x, u))
    for argnums in (0, 1):
        got = dx.grad(lambda x, u: lax.reduce_sum(f(x, u) ** 2, (0, 1)), argnums)(x, u)
        want = jax.grad(lambda x, u: jnp.sum(g(x, u) ** 2), argnums)(x, u)
        _assert_same(got, want, 1e-10)
    xs, us = np.stack([x, x + 1]), np.stack([u, -u])
    for axes in ((0, 0), (None, 0), (0, None)):
        bx, bu = (xs if axes[0] == 0 else x), (us if axes[1] == 0 else u)
        _assert_same(dx.vmap(f, axes)(bx, bu), jax.vmap(g, axes)(bx, bu))
    # (mode "clip": XLA's cost counts no clamps, the scatters' shared rule one per index.)
    h, k = (
        (lambda x, u: lax.scatter_sub(x, IDX, u, _dnums(lax))),
        jax.jit(lambda x, u: jlax.scatter_sub(x, IDX, u, _dnums(jlax))),
    )
    analysis = k.lower(x, u).compile().cost_analysis()
    assert analysis is not None
    assert dx.flops(h)(x, u) == analysis["flops"]


@pytest.mark.parametrize("mode", [None, "clip", "drop"])
def test_scatter_apply_applies_once_per_hit(mode: str | None) -> None:
    x = np.arange(5.0)
    idx = np.array([[1], [1], [3], [7]])

    def make(L: Any, fn: Fn) -> Fn:
        dn = L.ScatterDimensionNumbers(
            update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
        )
        return lambda x: L.scatter_apply(x, idx, fn, dn, update_shape=(4,), mode=mode)

    want = make(jlax, jnp.sin)(x)
    _assert_same(make(lax, lax.sin)(x), want)
    _assert_same(dx.jit(make(lax, lax.sin))(x), want)
    _assert_same(make(lax, lambda v: v * 2 + 1)(x), make(jlax, lambda v: v * 2 + 1)(x))


# --- random bits ---------------------------------------------------------------------------

KEY: Final = np.array([1, 2, 3, 0xDEADBEEF], np.uint32)


KEY64: Final = np.array([7, 2**63 + 5], np.uint64)
BIT_DTYPES: Final = (np.uint8, np.uint16, np.uint32, np.uint64)
BIT_SHAPES: Final = ((), (2, 3))


def _all_bits(L: Any) -> Fn:
    """Every algorithm, dtype and shape, from one key of each type, as one program."""

    def draw(key: Any, key64: Any) -> list[Any]:
        outs = []
        for a in range(3):
            alg = L.RandomAlgorithm(a)
            outs += [L.rng_bit_generator(key, s, d, alg) for d in BIT_DTYPES for s in BIT_SHAPES]
            outs.append(L.rng_bit_generator(key64, (3,), algorithm=alg))
        return outs

    return draw


def test_rng_bit_generator_is_jax_bit_for_bit() -> None:
    want = jax.jit(_all_bits(jlax))(KEY, KEY64)
    _assert_same(dx.jit(_all_bits(lax))(KEY, KEY64), want, 0)
    # Eagerly (its compiled program): uint16 of shape (2, 3) by Threefry.
    per_algorithm = len(BIT_DTYPES) * len(BIT_SHAPES) + 1
    got = lax.rng_bit_generator(KEY, (2, 3), np.uint16, lax.RandomAlgorithm.RNG_THREE_FRY)
    _assert_same(got, want[per_algorithm + len(BIT_SHAPES) + 1], 0)


def test_rng_bit_generator_lowering_batching_and_errors() -> None:
    text = dx.jit(
        lambda k: lax.rng_bit_generator(k, (4,), algorithm=lax.RandomAlgorithm.RNG_PHILOX)
    )
    assert "stablehlo.rng_bit_generator" in text.lower(KEY).as_text()
    assert "PHILOX" in text.lower(KEY).as_text()
    keys = np.stack([KEY, KEY + 1, KEY * 3])
    _assert_same(
        dx.vmap(lambda k: lax.rng_bit_generator(k, (5,)))(keys),
        jax.vmap(lambda k: jlax.rng_bit_generator(k, (5,)))(keys),
        0,
    )
    with pytest.raises(TypeError, match="unsupported dtype"):
        lax.rng_bit_generator(KEY, (2,), np.int32)
    with pytest.raises(TypeError, match="uint32\\[4\\]"):
        lax.rng_bit_generator(KEY[:3], (2,))
    # Integer results: a float0 tangent.
    zero = np.zeros(4, jax.dtypes.float0)
    _, tangent = dx.jvp(lambda k: lax.rng_bit_generator(k, (2,))[1], (KEY,), (zero,))
    assert tangent.dtype == jax.dtypes.float0
    assert str(lax.RandomAlgorithm.RNG_THREE_FRY) == str(jlax.RandomAlgorithm.RNG_THREE_FRY)


def test_rng_uniform() -> None:
    u = lax.rng_uniform(np.float32(-1), np.float32(2), (3, 4))
    assert u.shape == (3, 4)
    assert u.dtype == np.float32
    assert bool(((np.asarray(u) >= -1) & (np.asarray(u) < 2)).all())
    text = dx.jit(lambda: lax.rng_uniform(0.0, 1.0, (5,))).lower().as_text()
    assert "stablehlo.rng" in text
    assert "UNIFORM" in text
    with pytest.raises(TypeError, match="identical dtypes"):
        lax.rng_uniform(np.float32(0), np.float64(1), (2,))
    # XLA aborts on 8-bit integers: refused at trace time.
    with pytest.raises(TypeError, match="32/64-bit integers"):
        lax.rng_uniform(np.int8(0), np.int8(1), (2,))
    assert lax.rng_uniform(jnp.bfloat16(0), jnp.bfloat16(1), (2,)).dtype == jnp.bfloat16


# --- helpers ------------------------------------------------------------------------------


def test_platform_dependent_picks_the_cpu_branch() -> None:
    def run(L: Any) -> Any:
        return L.platform_dependent(2.0, cpu=lambda x: x * 3, default=lambda x: x)

    assert float(run(lax)) == float(run(jlax)) == 6.0
    assert (
        float(
            dx.jit(lambda x: lax.platform_dependent(x, cuda=jnp.sin, default=lambda v: v + 1))(1.0)
        )
        == 2.0
    )
    with pytest.raises(NotImplementedError, match="no branch"):
        lax.platform_dependent(1.0, tpu=lambda x: x)
    with pytest.raises(ValueError, match="cuda"):
        lax.platform_dependent(1.0, gpu=lambda x: x)


def test_shape_and_dtype_helpers() -> None:
    for shapes in [((3, 1), (1, 4), (5, 1, 1)), ((1,), (4,)), ((),), ((2, 0), (1,))]:
        assert lax.broadcast_shapes(*shapes) == jlax.broadcast_shapes(*shapes)
    with pytest.raises(ValueError, match="Incompatible shapes"):
        lax.broadcast_shapes((3, 1), (4, 1))
    for shape in [(2, 3), ()]:
        got, want = lax.shape_as_value(shape), jlax.shape_as_value(shape)
        assert got.dtype == want.dtype
        assert np.array_equal(got, want)
    for x in (1.0, 1, True, np.arange(3), np.float32(2), "float16", np.int8):
        assert lax.dtype(x) == jlax.dtype(x)
    e = lax.empty((2, 3), np.float32)
    assert (e.shape, e.dtype) == ((2, 3), np.dtype(np.float32))
    assert lax.empty(4, np.int32).shape == jlax.empty(4, np.int32).shape
    bi = lax.broadcasted_iota(np.int8, (2, 3, 4), -1)
    _assert_same(bi, jlax.broadcasted_iota(np.int8, (2, 3, 4), 2), 0)


def test_accuracy_hints() -> None:
    assert [m.name for m in lax.AccuracyMode] == [m.name for m in jlax.AccuracyMode]
    assert [m.value for m in lax.AccuracyMode] == [m.value for m in jlax.AccuracyMode]
    t = lax.Tolerance(atol=1e-3, ulps=2)
    assert (t.atol, t.rtol, t.ulps) == (1e-3, 0.0, 2)
    with pytest.raises(ValueError, match="At least one"):
        lax.Tolerance()
    with pytest.raises(ValueError, match="non-negative"):
        lax.Tolerance(atol=-1.0)


# --- dot algorithms ------------------------------------------------------------------------


def _algorithm_dots(L: Any, name: str) -> Fn:
    """The dot of every operand dtype (and an f32 result), by one preset, as one program."""

    def dots(a: Any, b: Any) -> list[Any]:
        preset = L.DotAlgorithmPreset[name]
        outs = []
        for dtype in (np.float32, jnp.bfloat16, np.float16):
            x, y = L.convert_element_type(a, dtype), L.convert_element_type(b, dtype)
            outs.append(L.dot(x, y, precision=preset))
            outs.append(L.dot(x, y, precision=preset, preferred_element_type=np.float32))
        return outs

    return dots


@pytest.mark.x64_off
@pytest.mark.parametrize(
    "name", ["DEFAULT", "F16_F16_F16", "F32_F32_F32", "BF16_BF16_F32", "BF16_BF16_F32_X6"]
)
def test_dot_algorithm_presets_are_jax_bit_for_bit(name: str) -> None:
    rs = np.random.RandomState(3)
    a, b = rs.randn(3, 5).astype(np.float32), rs.randn(5, 4).astype(np.float32)
    want = jax.jit(_algorithm_dots(jlax, name))(a, b)
    _assert_same(dx.jit(_algorithm_dots(lax, name))(a, b), want, 0)
    # Eagerly a product on the CPU is BLAS's (evaluation._HOST_AT_ANY_SIZE),
    # whose order of summation is the CPU's own: the same as XLA's on some
    # machines, a float32 rounding apart on others (an AMD EPYC's).
    _assert_same(lax.dot(a, b, precision=name), want[0], 1e-6)  # eagerly, by name
    got = dx.grad(lambda a: lax.reduce_sum(lax.dot(a, b, precision=name), (0, 1)))(a)
    _assert_same(got, jax.grad(lambda a: jlax.dot(a, b, precision=name).sum())(a), 1e-6)


def test_dot_algorithms_cpus_do_not_run_raise_as_jax() -> None:
    a = np.ones((2, 2), np.float32)
    # JAX's own preset objects too (recognised by name).
    bads: tuple[Any, ...] = (
        jlax.DotAlgorithmPreset.TF32_TF32_F32,
        "BF16_BF16_F32_X9",
        lax.DotAlgorithm(np.float32, np.float32, np.float32),
    )
    for bad in bads:
        with pytest.raises(ValueError, match="not supported by dot_general on CPU"):
            lax.dot(a, a, precision=bad)
    assert [p.name for p in lax.DotAlgorithmPreset] == [p.name for p in jlax.DotAlgorithmPreset]
    assert str(lax.DotAlgorithmPreset.F16_F16_F32) == "F16_F16_F32"


# --- comparisons in XLA's total order --------------------------------------------------------

EDGES: Final = np.array([-0.0, 0.0, np.nan, -np.nan, 1.0, -np.inf, 3.0, -2.0, np.inf])


def _total_order(L: Any) -> Fn:
    def compare(x: Any, y: Any) -> list[Any]:
        prims = (L.eq_to_p, L.le_to_p, L.lt_to_p)
        return [p.bind(x, y) for p in prims] + [p.bind(x[0], y) for p in prims]

    return compare


@pytest.mark.parametrize("dtype", [np.float64, np.float16, jnp.bfloat16, np.int32])
def test_total_order_comparisons(dtype: Any) -> None:
    x = EDGES.astype(dtype) if np.dtype(dtype).kind == "f" else np.arange(-4, 5).astype(dtype)
    y = x[::-1].copy()
    want = jax.jit(_total_order(jlax))(x, y)
    _assert_same(_total_order(lax)(x, y), want, 0)
    _assert_same(dx.jit(_total_order(lax))(x, y), want, 0)
    xs, ys = np.stack([x, y]), np.stack([y, x])
    _assert_same(dx.vmap(_total_order(lax))(xs, ys), jax.vmap(_total_order(jlax))(xs, ys), 0)
    cost = jax.jit(lambda a, b: jlax.lt_to_p.bind(a, b)).lower(x, y).compile().cost_analysis()
    assert cost is not None
    assert dx.flops(lambda a, b: lax.lt_to_p.bind(a, b))(x, y) == cost["flops"]
