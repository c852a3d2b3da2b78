"""The bit primitives and the sort primitive, against ``jax.lax`` and ``jax.numpy``.

Every primitive is checked eagerly (the NumPy impl) and under ``didax.jit``
(the StableHLO lowering) against JAX, values, dtypes and weak types; its
jaxpr typechecks; vmap equals a loop; the jvp is zero for the bit
primitives and JAX's for sort, whose grad, jit of grad and second
derivatives are checked too, along with finite differences.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

import didax as dx
import didax.numpy as dnp
from didax import lax as dlax
from didax.core import lax as core_lax
from didax.errors import DTypeError, ShapeError
from didax.interpreters.sorting import _sort_impl
from didax.ir.typecheck import typecheck_jaxpr

INTS: Final = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _same(got: Any, want: Any) -> None:
    """Equal values (bit for bit, NaNs included), dtypes, shapes and weak types."""
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype, (g.dtype, w.dtype)
    assert g.shape == w.shape, (g.shape, w.shape)
    if g.dtype.kind == "f" or g.dtype == jnp.bfloat16:
        width = f"u{g.dtype.itemsize}"
        np.testing.assert_array_equal(g.view(width), w.view(width))
    else:
        np.testing.assert_array_equal(g, w)
    assert getattr(got, "weak_type", False) == getattr(want, "weak_type", False)


def _ints(dtype: Any, shape: tuple[int, ...], seed: int = 0) -> np.ndarray[Any, Any]:
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def _shift_amounts(dtype: Any, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """Amounts in and out of range: 0, 1, width - 1, width, width + 1, and -1 if signed."""
    width = 8 * np.dtype(dtype).itemsize
    cases = [0, 1, 3, width - 1, width, width + 1, min(100, np.iinfo(dtype).max)]
    if np.dtype(dtype).kind == "i":
        cases.append(-1)
    return np.resize(np.array(cases, dtype), shape)


BINARY: Final[dict[str, tuple[Callable[..., Any], Callable[..., Any]]]] = {
    "xor": (dlax.bitwise_xor, jlax.bitwise_xor),
    "shift_left": (dlax.shift_left, jlax.shift_left),
    "shift_right_logical": (dlax.shift_right_logical, jlax.shift_right_logical),
    "shift_right_arithmetic": (dlax.shift_right_arithmetic, jlax.shift_right_arithmetic),
}
UNARY: Final[dict[str, tuple[Callable[..., Any], Callable[..., Any]]]] = {
    "population_count": (dlax.population_count, jlax.population_count),
    "clz": (dlax.clz, jlax.clz),
}


# --- bit primitives ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_bit_ops_match_jax_eagerly(name: str, dtype: Any) -> None:
    dfn, jfn = BINARY[name]
    x = _ints(dtype, (16,))
    y = _shift_amounts(dtype, (16,)) if name != "xor" else _ints(dtype, (16,), seed=1)
    _same(dfn(x, y), jfn(x, y))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint32, np.uint64], ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_bit_ops_match_jax_under_jit(name: str, dtype: Any) -> None:
    dfn, jfn = BINARY[name]
    x = _ints(dtype, (3, 8))
    y = _shift_amounts(dtype, (3, 8)) if name != "xor" else _ints(dtype, (3, 8), seed=1)
    _same(dx.jit(dfn)(x, y), jax.jit(jfn)(x, y))


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_bit_counts_match_jax(name: str, dtype: Any) -> None:
    dfn, jfn = UNARY[name]
    x = _ints(dtype, (20,))
    x[:4] = [0, 1, np.iinfo(dtype).max, np.iinfo(dtype).min]
    _same(dfn(x), jfn(x))
    if dtype in (np.int16, np.uint64):
        _same(dx.jit(dfn)(x), jax.jit(jfn)(x))


def test_xor_of_booleans_and_weak_scalars() -> None:
    a, b = np.array([True, False, True]), np.array([True, True, False])
    _same(dlax.bitwise_xor(a, b), jlax.bitwise_xor(a, b))
    _same(dx.jit(dlax.bitwise_xor)(a, b), jax.jit(jlax.bitwise_xor)(a, b))
    x = np.arange(5, dtype=np.uint32)
    _same(dlax.shift_left(x, 3), jlax.shift_left(x, np.uint32(3) * np.ones(5, np.uint32)))
    # Python scalars stay weak, as JAX's.
    _same(dlax.bitwise_xor(5, 3), jlax.bitwise_xor(5, 3))
    _same(dx.jit(lambda v: dlax.shift_left(v, 2))(7), jax.jit(lambda v: jlax.shift_left(v, 2))(7))


BITCASTS: Final = [
    (np.float32, np.uint32),
    (np.uint32, np.float32),
    (np.float64, np.uint64),
    (np.int64, np.float64),
    (np.float16, np.uint16),
    (jnp.bfloat16, np.uint16),
    (np.uint16, jnp.bfloat16),
    (np.float32, np.uint16),
    (np.float64, np.uint8),
    (np.uint8, np.float32),
    (np.uint32, np.float64),
]


def _bitcast_input(src: Any, dst: Any) -> np.ndarray[Any, Any]:
    ratio = max(1, np.dtype(dst).itemsize // np.dtype(src).itemsize)
    shape = (3, ratio) if ratio > 1 else (2, 3)
    if np.dtype(src).kind in "iu":
        return _ints(src, shape)
    vals = np.array([1.0, -2.5, 0.0, -0.0, np.inf, np.nan, 3e-3, 1e4, 7.0])
    return np.resize(vals, shape).astype(src)


@pytest.mark.parametrize(("src", "dst"), BITCASTS, ids=lambda d: np.dtype(d).name)
def test_bitcast_convert_type_matches_jax(src: Any, dst: Any) -> None:
    x = _bitcast_input(src, dst)
    want = jlax.bitcast_convert_type(x, dst)
    _same(dlax.bitcast_convert_type(x, dst), want)
    _same(dx.jit(lambda v: dlax.bitcast_convert_type(v, dst))(x), want)
    if x.ndim and np.dtype(src).itemsize == np.dtype(dst).itemsize:
        _same(dlax.bitcast_convert_type(x[0, 0], dst), jlax.bitcast_convert_type(x[0, 0], dst))


def test_bitcast_of_a_python_scalar_and_refusals() -> None:
    _same(dlax.bitcast_convert_type(1.0, np.int64), jlax.bitcast_convert_type(1.0, np.int64))
    with pytest.raises(DTypeError, match="bitcast_convert_type"):
        dlax.bitcast_convert_type(np.array([True]), np.uint8)
    with pytest.raises(ShapeError, match="last axis of size 4"):
        dlax.bitcast_convert_type(np.zeros((3, 2), np.uint8), np.float32)


def test_bit_primitives_refuse_floats_naming_the_primitive() -> None:
    with pytest.raises(DTypeError, match=r"shift_left applied to operands of types \(f32"):
        dlax.shift_left(np.float32(1), np.float32(2))
    with pytest.raises(DTypeError, match="xor"):
        dlax.bitwise_xor(np.float64(1), np.float64(2))
    with pytest.raises(DTypeError, match="population_count"):
        dlax.population_count(np.array([True]))


def test_bit_primitives_stage_and_typecheck() -> None:
    def f(x: Any, y: Any) -> Any:
        z = dlax.shift_right_logical(dlax.bitwise_xor(x, y), dlax.population_count(y))
        return dlax.bitcast_convert_type(dlax.shift_left(z, dlax.clz(x)), np.float32)

    x, y = _ints(np.uint32, (4,)), _ints(np.uint32, (4,), seed=2)
    closed = dx.make_jaxpr(f)(x, y)
    typecheck_jaxpr(closed.jaxpr)
    text = str(closed)
    for name in ("xor", "shift_right_logical", "population_count", "shift_left", "clz"):
        assert f" {name} " in text
    assert "bitcast_convert_type[new_dtype=float32]" in text

    def g(x: Any, y: Any) -> Any:
        z = jlax.shift_right_logical(jlax.bitwise_xor(x, y), jlax.population_count(y))
        return jlax.bitcast_convert_type(jlax.shift_left(z, jlax.clz(x)), np.float32)

    _same(f(x, y), g(x, y))
    assert dx.flops(f)(x, y) == 6 * 4  # one per element each, as XLA counts


@pytest.mark.parametrize("in_axes", [(0, 0), (1, 0), (None, 1), (0, None)])
def test_bit_primitives_vmap(in_axes: tuple[int | None, int | None]) -> None:
    # (An unmapped operand is one batch element.)
    x = _ints(np.int16, (3, 3) if in_axes[0] is not None else (3,), seed=3)
    y = _shift_amounts(np.int16, (3, 3) if in_axes[1] is not None else (3,))

    def f(a: Any, b: Any) -> Any:
        return dlax.shift_right_arithmetic(dlax.bitwise_xor(a, b), b), dlax.population_count(a)

    got = dx.vmap(f, in_axes=in_axes)(x, y)
    want = jax.vmap(
        lambda a, b: (
            jlax.shift_right_arithmetic(jlax.bitwise_xor(a, b), b),
            jlax.population_count(a),
        ),
        in_axes=in_axes,
    )(x, y)
    for g, w in zip(got, want, strict=True):
        _same(g, w)


@pytest.mark.parametrize(("dst", "axis"), [(np.uint16, 0), (np.uint16, 1), (np.float64, 0)])
def test_bitcast_vmap_when_the_cast_changes_the_last_axis(dst: Any, axis: int) -> None:
    x = np.arange(12, dtype=np.uint32).reshape(3, 4) * np.uint32(123457)
    if dst == np.float64:
        x = x.reshape(3, 2, 2)
    got = dx.vmap(lambda v: dlax.bitcast_convert_type(v, dst), in_axes=axis)(x)
    want = jax.vmap(lambda v: jlax.bitcast_convert_type(v, dst), in_axes=axis)(x)
    _same(got, want)


def test_bit_primitives_have_zero_derivatives() -> None:
    x = np.array([1.5, -2.0], np.float32)
    out, tangent = dx.jvp(lambda v: dlax.bitcast_convert_type(v, np.uint32), (x,), (x,))
    _same(out, jlax.bitcast_convert_type(x, np.uint32))
    assert np.asarray(tangent).dtype == jax.dtypes.float0
    # Back to floats: a piecewise-constant function of its input, as in JAX.
    ones = np.ones(2, np.uint32)
    f_d = lambda v: dlax.bitcast_convert_type(  # noqa: E731
        dlax.shift_left(dlax.bitcast_convert_type(v, np.uint32), ones), np.float32
    ).sum()
    f_j = lambda v: jlax.bitcast_convert_type(  # noqa: E731
        jlax.shift_left(jlax.bitcast_convert_type(v, np.uint32), ones), np.float32
    ).sum()
    _same(dx.grad(f_d)(x), jax.grad(f_j)(x))


# --- didax.numpy's bitwise functions ---------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "y"),
    [
        (np.array([12, -100, 7], np.int8), np.array([1, 2, 9], np.int8)),
        (np.array([200, 1, 255], np.uint8), np.int8(3)),
        (np.array([True, False]), np.array([True, True])),
        (np.array([5, 6], np.int32), 2),
        (7, 1),
    ],
)
@pytest.mark.parametrize("name", ["bitwise_xor", "left_shift", "right_shift"])
def test_numpy_bitwise_functions_match_jax(name: str, x: Any, y: Any) -> None:
    _same(getattr(dnp, name)(x, y), getattr(jnp, name)(x, y))


def test_numpy_bitwise_count_and_operators() -> None:
    x = np.array([-3, 255, 0, -128], np.int16)
    _same(dnp.bitwise_count(x), jnp.bitwise_count(x))
    a_np, b = np.array([12, 10], np.int32), np.array([6, 2], np.int32)
    a, ja = dnp.asarray(a_np), jnp.asarray(a_np)
    _same(a ^ b, ja ^ b)
    _same(a << 2, ja << 2)
    _same(a >> 1, ja >> 1)
    _same(3 ^ a, 3 ^ ja)
    _same(dx.jit(lambda u, v: (u ^ v) >> 1)(a, b), jax.jit(lambda u, v: (u ^ v) >> 1)(a_np, b))
    with pytest.raises(TypeError, match="bitwise_xor"):
        dnp.bitwise_xor(1.0, 2.0)


# --- sort ------------------------------------------------------------------------------------

SPECIAL_FLOATS: Final = np.array(
    [3.0, np.nan, -1.0, 0.0, -0.0, np.inf, -np.inf, 2.0, -0.0, 0.0, -np.nan, 3.0]
)


def _sort_inputs(dtype: Any, shape: tuple[int, ...], seed: int = 0) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == np.bool_:
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 5, size=shape).astype(dtype)  # many ties
    base = np.resize(SPECIAL_FLOATS, shape)
    noise = rng.integers(-2, 3, size=shape).astype(np.float64)
    return np.where(rng.random(shape) < 0.5, base, noise).astype(dtype)


SORT_DTYPES: Final = [np.float32, np.float64, jnp.bfloat16, np.int32, np.uint8, np.bool_]


@pytest.mark.parametrize("dtype", SORT_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("dimension", [0, 1, -1])
def test_sort_matches_jax_in_the_total_order(dtype: Any, dimension: int) -> None:
    x: Any = _sort_inputs(dtype, (12, 5))
    want = jlax.sort(x, dimension=dimension)
    _same(dlax.sort(x, dimension=dimension), want)
    _same(dx.jit(lambda v: dlax.sort(v, dimension=dimension))(x), want)


@pytest.mark.parametrize("num_keys", [1, 2])
def test_variadic_sort_permutes_every_operand_by_the_keys(num_keys: int) -> None:
    keys = _sort_inputs(np.float32, (4, 12), seed=1)
    second = _sort_inputs(np.int32, (4, 12), seed=2)
    values = np.arange(48, dtype=np.int64).reshape(4, 12)
    ops: Any = (keys, second, values)
    want = jlax.sort(ops, dimension=1, num_keys=num_keys)
    for g, w in zip(dlax.sort(ops, dimension=1, num_keys=num_keys), want, strict=True):
        _same(g, w)
    jitted = dx.jit(lambda *o: dlax.sort(o, dimension=1, num_keys=num_keys))(*ops)
    for g, w in zip(jitted, want, strict=True):
        _same(g, w)


def test_sort_impl_is_stable_and_keeps_values_unchanged() -> None:
    zeros = np.array([0.0, -0.0, 0.0, -0.0])
    out, idx = _sort_impl(zeros, np.arange(4), dimension=0, is_stable=True, num_keys=1)
    np.testing.assert_array_equal(np.signbit(out), np.signbit(zeros))
    np.testing.assert_array_equal(idx, np.arange(4))


def test_sort_key_val_and_errors() -> None:
    k, v = dlax.sort_key_val(np.array([3, 1, 2]), np.array([10.0, 20.0, 30.0]))
    keys: Any = np.array([3, 1, 2])
    _same(k, jlax.sort_key_val(keys, np.array([10.0, 20.0, 30.0]))[0])
    _same(v, np.array([20.0, 30.0, 10.0]))
    with pytest.raises(ShapeError, match="equal shapes"):
        dlax.sort((np.zeros(3), np.zeros(4)))
    with pytest.raises(ShapeError, match="rank 0"):
        core_lax.sort_p.bind(np.float64(1.0), dimension=0, is_stable=True, num_keys=1)
    with pytest.raises(ValueError, match="num_keys"):
        dlax.sort((np.zeros(3),), num_keys=2)


def _sort_fn(lax_mod: Any) -> Callable[[Any], Any]:
    def f(x: Any) -> Any:
        s = lax_mod.sort(x, dimension=0)
        weights = np.arange(1.0, 1.0 + x.shape[0])[:, None]
        return (s * s * weights).sum() + (
            lax_mod.sort((x[:, 0], x[:, 1]), num_keys=1)[1] ** 3
        ).sum()

    return f


def test_sort_derivatives_match_jax() -> None:
    x = np.random.default_rng(4).normal(size=(5, 2))  # distinct values: differentiable
    fd, fj = _sort_fn(dlax), _sort_fn(jlax)
    np.testing.assert_allclose(dx.grad(fd)(x), jax.grad(fj)(x), rtol=1e-12)
    np.testing.assert_allclose(dx.jit(dx.grad(fd))(x), jax.grad(fj)(x), rtol=1e-12)
    t = np.random.default_rng(5).normal(size=x.shape)
    got_p, got_t = dx.jvp(fd, (x,), (t,))
    want_p, want_t = jax.jvp(fj, (x,), (t,))
    np.testing.assert_allclose(got_p, want_p, rtol=1e-12)
    np.testing.assert_allclose(got_t, want_t, rtol=1e-12)
    eps = 1e-6
    fin = (np.asarray(fd(x + eps * t)) - np.asarray(fd(x - eps * t))) / (2 * eps)
    np.testing.assert_allclose(got_t, fin, rtol=1e-6)
    np.testing.assert_allclose(dx.hessian(fd)(x), jax.hessian(fj)(x), rtol=1e-10, atol=1e-12)


def test_sort_grad_jaxpr_typechecks_and_permutes_by_sorting() -> None:
    x = np.array([3.0, 1.0, 2.0])
    closed = dx.make_jaxpr(dx.grad(lambda v: (dlax.sort(v) * np.arange(3.0)).sum()))(x)
    typecheck_jaxpr(closed.jaxpr)
    assert str(closed).count("sort[") == 3  # the primal, the permutation, its inverse
    np.testing.assert_array_equal(
        dx.grad(lambda v: (dlax.sort(v) * np.arange(3.0)).sum())(x), [2.0, 0.0, 1.0]
    )


@pytest.mark.parametrize("in_axes", [(0, 0), (0, None), (None, 1)])
def test_sort_vmap(in_axes: tuple[int | None, int | None]) -> None:
    shapes = {0: (3, 6), 1: (6, 3), None: (6,)}
    keys = _sort_inputs(np.float64, shapes[in_axes[0]], seed=6)
    vals = np.arange(float(np.prod(shapes[in_axes[1]]))).reshape(shapes[in_axes[1]])

    def f(mod: Any) -> Callable[[Any, Any], Any]:
        return lambda k, v: mod.sort((k, v), dimension=0, num_keys=1)

    got = dx.vmap(f(dlax), in_axes=in_axes)(keys, vals)
    want = jax.vmap(f(jlax), in_axes=in_axes)(keys, vals)
    for g, w in zip(got, want, strict=True):
        _same(g, w)


def test_sort_vmap_of_grad() -> None:
    x = np.random.default_rng(9).normal(size=(3, 6))
    weights = np.arange(6.0)
    grads = dx.vmap(dx.grad(lambda v: (dlax.sort(v) ** 2 * weights).sum()))(x)
    want = jax.vmap(jax.grad(lambda v: (jlax.sort(v) ** 2 * weights).sum()))(x)
    np.testing.assert_allclose(grads, want, rtol=1e-12)


def test_sort_flops_and_lowering() -> None:
    x = np.zeros((3, 4), np.float32)
    # XLA's cost analysis: n * ceil(log2 n) for the n elements.
    assert dx.flops(lambda v: dlax.sort(v, dimension=0))(x) == 12 * 4
    assert dx.flops(lambda v: dlax.sort((v, v), num_keys=1))(np.zeros(8)) == 8 * 3
    text = dx.jit(lambda v: dlax.sort(v)).lower(x).as_text()
    assert "stablehlo.sort" in text
    assert "TOTALORDER" in text


# --- didax.numpy sort, argsort -----------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_], ids=str)
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"axis": 0}, {"axis": None}, {"descending": True}, {"descending": True, "axis": 0}],
    ids=str,
)
def test_numpy_sort_and_argsort_match_jax(dtype: Any, kwargs: dict[str, Any]) -> None:
    x = _sort_inputs(dtype, (6, 4), seed=7)
    _same(dnp.sort(x, **kwargs), jnp.sort(x, **kwargs))
    _same(dnp.argsort(x, **kwargs), jnp.argsort(x, **kwargs))


def test_numpy_argsort_dtype_jit_and_errors() -> None:
    x = _sort_inputs(np.float32, (9,), seed=8)
    _same(dnp.argsort(x, dtype=np.int32), jnp.argsort(x, dtype=np.int32))
    _same(dx.jit(dnp.argsort)(x), jax.jit(jnp.argsort)(x))
    _same(dx.jit(lambda v: dnp.sort(v, descending=True))(x), jnp.sort(x, descending=True))
    with pytest.raises(TypeError, match="kind"):
        dnp.sort(x, kind="quicksort")
    with pytest.raises(ValueError, match="out of bounds"):
        dnp.argsort(x, axis=1)
