"""gather and the scatter family directly: every rule against ``jax.lax``'s primitives.

For a set of dimension numbers (plain takes, windows, batch axes in the
middle, a permuted index map, XLA batching dimensions) and every
out-of-bounds mode: the impl (eager) and the lowering (under ``jit``) equal
``jax.lax.gather``/``scatter*`` in values, dtype and weak type; jvp, grad
(the transpose rules) and vmap (over the operand, the indices, or both)
equal JAX's; the typing rules refuse ill-formed dimension numbers with
the primitive's name; the flops rules agree with XLA's cost analysis; and
``dynamic_slice``/``dynamic_update_slice`` with batched start indices are
batched into a gather/scatter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax
from tests.slicing import diagonal

import didax as dx
from didax import lax
from didax.api.flops import cost
from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.errors import DTypeError, ShapeError
from didax.interpreters.transpose import linear_transpose_flat
from didax.ir.typecheck import typecheck_jaxpr

RNG = np.random.default_rng(0)


def _jnp(x: Any) -> Any:
    return jnp.asarray(x) if isinstance(x, np.ndarray) else x


def _check(d: Any, j: Any, rtol: float = 1e-12) -> None:
    d_arr, j_arr = np.asarray(d), np.asarray(j)
    assert d_arr.shape == j_arr.shape
    assert d_arr.dtype == j_arr.dtype
    np.testing.assert_allclose(d_arr, j_arr, rtol=rtol, atol=1e-12, equal_nan=True)


# --- the cases: (operand shape, indices, gather dnums (as keyword dicts), slice sizes) ---------

G = dict[str, tuple[int, ...]]
GATHERS: dict[str, tuple[tuple[int, ...], np.ndarray[Any, Any], G, tuple[int, ...]]] = {
    "take": (
        (5,),
        np.array([[3], [0], [3], [7], [-2]]),
        dict(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,)),
        (1,),
    ),
    "rows": (
        (4, 3),
        np.array([[2], [0], [5]]),
        dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)),
        (1, 3),
    ),
    "windows": (
        (5, 6),
        np.array([[1, 2], [4, 5], [-1, 0]]),
        dict(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1)),
        (2, 3),
    ),
    "batch_axes_around_offsets": (
        (4, 5),
        np.array([[[1], [3], [0]], [[2], [2], [9]]]),
        dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)),
        (1, 5),
    ),
    "permuted_index_map": (
        (3, 4, 5),
        np.array([[4, 1], [0, 2], [2, 0]]),
        dict(offset_dims=(1,), collapsed_slice_dims=(0, 2), start_index_map=(2, 0)),
        (1, 4, 1),
    ),
    "batching_dims": (
        (3, 4, 5),
        np.array([[[1], [3]], [[0], [0]], [[2], [6]]]),
        dict(
            offset_dims=(2,),
            collapsed_slice_dims=(1,),
            start_index_map=(1,),
            operand_batching_dims=(0,),
            start_indices_batching_dims=(0,),
        ),
        (1, 1, 5),
    ),
}
MODES = ["clip", "fill", "promise_in_bounds"]


def _dnums(kw: G, jax_side: bool) -> Any:
    return (jlax.GatherDimensionNumbers if jax_side else lax.GatherDimensionNumbers)(**kw)


def _sdnums(kw: G, jax_side: bool) -> Any:
    fields = dict(
        update_window_dims=kw["offset_dims"],
        inserted_window_dims=kw["collapsed_slice_dims"],
        scatter_dims_to_operand_dims=kw["start_index_map"],
        operand_batching_dims=kw.get("operand_batching_dims", ()),
        scatter_indices_batching_dims=kw.get("start_indices_batching_dims", ()),
    )
    return (jlax.ScatterDimensionNumbers if jax_side else lax.ScatterDimensionNumbers)(**fields)


def _gather_fns(name: str, mode: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    _, _, kw, sizes = GATHERS[name]

    def d(x: Any, i: Any) -> Any:
        return lax.gather(x, i, _dnums(kw, False), sizes, mode=mode)

    def j(x: Any, i: Any) -> Any:
        return jlax.gather(x, i, _dnums(kw, True), sizes, mode=mode)

    return d, j


def _updates_shape(name: str) -> tuple[int, ...]:
    shape, idx, kw, sizes = GATHERS[name]
    out = jax.eval_shape(
        lambda x, i: jlax.gather(x, i, _dnums(kw, True), sizes),
        jax.ShapeDtypeStruct(shape, np.float64),
        jax.ShapeDtypeStruct(idx.shape, idx.dtype),
    )
    return tuple(out.shape)


SCATTERS: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "scatter": (lax.scatter, jlax.scatter),
    "scatter_add": (lax.scatter_add, jlax.scatter_add),
    "scatter_mul": (lax.scatter_mul, jlax.scatter_mul),
    "scatter_min": (lax.scatter_min, jlax.scatter_min),
    "scatter_max": (lax.scatter_max, jlax.scatter_max),
}


def _scatter_fns(op: str, name: str, mode: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    dop, jop = SCATTERS[op]
    kw = GATHERS[name][2]

    def d(x: Any, i: Any, u: Any) -> Any:
        return dop(x, i, u, _sdnums(kw, False), mode=mode)

    def j(x: Any, i: Any, u: Any) -> Any:
        return jop(x, i, u, _sdnums(kw, True), mode=mode)

    return d, j


# --- values: impl (eager) and lowering (jit) -------------------------------------------------


# Each case in one mode, each mode with two cases.
@pytest.mark.parametrize(("name", "mode"), diagonal(3, sorted(GATHERS), MODES))
def test_gather_matches_jax(name: str, mode: str) -> None:
    shape, idx, _, _ = GATHERS[name]
    x = RNG.normal(size=shape)
    d, j = _gather_fns(name, mode)
    expected = j(jnp.asarray(x), jnp.asarray(idx))
    for impl in (d, dx.jit(d)):
        out = impl(x, idx)
        _check(out, expected)
        assert out.weak_type is False


# Each case with each op in one mode, both modes with each case and each op.
@pytest.mark.parametrize(
    ("name", "op", "mode"), diagonal(2, sorted(GATHERS), sorted(SCATTERS), ["clip", "fill"])
)
def test_scatter_matches_jax(name: str, op: str, mode: str) -> None:
    shape, idx, _, _ = GATHERS[name]
    x = RNG.normal(size=shape)
    u = RNG.normal(size=_updates_shape(name))
    d, j = _scatter_fns(op, name, mode)
    expected = j(jnp.asarray(x), jnp.asarray(idx), jnp.asarray(u))
    _check(d(x, idx, u), expected)
    _check(dx.jit(d)(x, idx, u), expected)


# Each op at two dtypes (scatter_mul at one: it takes no bool), each dtype with two ops.
@pytest.mark.parametrize(
    ("op", "dtype"), diagonal(2, sorted(SCATTERS), [np.int32, np.uint8, np.bool_, np.float32])
)
def test_scatter_dtypes(op: str, dtype: Any) -> None:
    if dtype == np.bool_ and op in ("scatter_add", "scatter_mul"):
        pytest.skip("add and mul take numbers")
    x = (RNG.integers(0, 5, size=6) > (2 if dtype == np.bool_ else -1)).astype(dtype)
    idx = np.array([[1], [1], [4], [9]])
    u = (RNG.integers(0, 5, size=4) > (2 if dtype == np.bool_ else -1)).astype(dtype)
    d, j = _scatter_fns(op, "take", "fill")
    expected = j(jnp.asarray(x), jnp.asarray(idx), jnp.asarray(u))
    _check(d(x, idx, u), expected)
    _check(dx.jit(d)(x, idx, u), expected)


# XLA's older CPU emitters (the tests session's, noxfile.py) scatter at int8
# indices wrongly, JAX's program too: this one compares with NumPy.
@pytest.mark.xla_default_emitters
@pytest.mark.parametrize("idx_dtype", [np.int8, np.uint8, np.uint32, np.uint64, np.int64])
def test_index_dtypes_and_huge_unsigned_indices(idx_dtype: Any) -> None:
    top = np.iinfo(idx_dtype).max
    idx = np.array([[0], [2], [top]], idx_dtype)
    x = np.arange(300.0)
    for mode in MODES:
        d, j = _gather_fns("take", mode)
        expected = j(jnp.asarray(x), jnp.asarray(idx))
        _check(d(x, idx), expected)
        _check(dx.jit(d)(x, idx), expected)
    for mode in ("clip", "fill"):
        ds, js = _scatter_fns("scatter_add", "take", mode)
        u = np.ones(3)
        _check(ds(x, idx, u), js(jnp.asarray(x), jnp.asarray(idx), jnp.asarray(u)))
        _check(dx.jit(ds)(x, idx, u), js(jnp.asarray(x), jnp.asarray(idx), jnp.asarray(u)))


def test_fill_value_and_weak_type() -> None:
    dnums = lax.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,)
    )
    jdnums = jlax.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,)
    )
    idx = np.array([[1], [5]])
    for x in (np.arange(3.0), np.arange(3, dtype=np.int16), np.arange(3, dtype=np.uint16)):
        for fill in (None, -7, 2.5):
            if fill == 2.5 and x.dtype.kind != "f":
                continue
            out = lax.gather(x, idx, dnums, (1,), mode="fill", fill_value=fill)
            expected = jlax.gather(jnp.asarray(x), idx, jdnums, (1,), mode="fill", fill_value=fill)
            _check(out, expected)
            _check(
                dx.jit(
                    lambda x, f=fill: lax.gather(x, idx, dnums, (1,), mode="fill", fill_value=f)
                )(x),
                expected,
            )
    # A weakly typed operand gives a weakly typed result, as JAX's.
    weak = dx.jit(lambda s: lax.gather(lax.broadcast_in_dim(s, (3,), ()), idx, dnums, (1,)))(2.0)
    assert weak.weak_type is True
    # NaN never sits in params: the default and an explicit NaN are one param.
    a = dx.make_jaxpr(lambda x: lax.gather(x, idx, dnums, (1,), mode="fill"))(np.ones(3))
    b = dx.make_jaxpr(lambda x: lax.gather(x, idx, dnums, (1,), mode="fill", fill_value=np.nan))(
        np.ones(3)
    )
    assert a.eqns[0].params == b.eqns[0].params
    assert a.eqns[0].params["fill_value"] is None


def test_repeated_indices() -> None:
    dnums = lax.ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
    idx = np.array([[1], [1], [1], [0]])
    u = np.array([1.0, 2.0, 4.0, 8.0])
    np.testing.assert_array_equal(lax.scatter_add(np.zeros(3), idx, u, dnums), [8, 7, 0])
    np.testing.assert_array_equal(lax.scatter_mul(np.ones(3), idx, u, dnums), [8, 8, 1])
    # set: the last update stays, as XLA's on CPUs (and JAX's there)
    jd = jlax.ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
    expected = jlax.scatter(jnp.zeros(3), idx, jnp.asarray(u), jd)
    _check(lax.scatter(np.zeros(3), idx, u, dnums), expected)
    _check(dx.jit(lambda x: lax.scatter(x, idx, u, dnums))(np.zeros(3)), expected)


def test_empty_indices_and_scalar_operand() -> None:
    dnums = lax.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,)
    )
    empty = np.zeros((0, 1), np.int32)
    for impl in (lax.gather, dx.jit(lax.gather, static_argnums=(2, 3))):
        out = impl(np.arange(3.0), empty, dnums, (1,))
        assert out.shape == (0,)
    sd = lax.ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(), scatter_dims_to_operand_dims=()
    )
    idx = np.zeros((3, 0), np.int32)
    u = np.array([1.0, 2.0, 3.0])
    # (JAX's own compile of this fails XLA's verifier: didax lowers it on a 1-element operand.)
    _check(lax.scatter_add(np.float64(1.0), idx, u, sd), np.float64(7.0))
    _check(dx.jit(lambda x: lax.scatter_add(x, idx, u, sd))(np.float64(1.0)), np.float64(7.0))
    _check(lax.scatter(np.float64(1.0), idx, u, sd), np.float64(3.0))


# --- typing rules ---------------------------------------------------------------------------


def test_typing_errors_name_the_primitive() -> None:
    x = np.ones((4, 3))
    idx = np.array([[1]])
    good = dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
    with pytest.raises(DTypeError, match=r"gather applied to operands of types \(f64\[4,3\], f64"):
        lax.gather(x, idx.astype(np.float64), lax.GatherDimensionNumbers(**good), (1, 3))
    with pytest.raises(ShapeError, match=r"gather.*collapsed axis 0 must have slice size 1"):
        lax.gather(x, idx, lax.GatherDimensionNumbers(**good), (2, 3))
    with pytest.raises(ShapeError, match=r"gather.*start_index_map"):
        lax.gather(
            x,
            idx,
            lax.GatherDimensionNumbers(
                offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0, 1)
            ),
            (1, 3),
        )
    with pytest.raises(ShapeError, match=r"gather.*offset_dims must be sorted"):
        lax.gather(
            x,
            np.array([[0, 0]]),
            lax.GatherDimensionNumbers(
                offset_dims=(2, 1), collapsed_slice_dims=(), start_index_map=(0, 1)
            ),
            (2, 2),
        )
    with pytest.raises(ShapeError, match=r"gather.*slice size 5 of axis 0 is out of range"):
        lax.gather(
            x,
            np.array([[0, 0]]),
            lax.GatherDimensionNumbers(
                offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1)
            ),
            (5, 2),
        )
    sd = lax.ScatterDimensionNumbers(
        update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
    with pytest.raises(DTypeError, match=r"scatter-add.*updates dtype float32 differs"):
        lax.scatter_add(x, idx, np.ones((1, 3), np.float32), sd)
    with pytest.raises(ShapeError, match=r"scatter-add.*window axis 1 of updates"):
        lax.scatter_add(x, idx, np.ones((1, 5)), sd)
    with pytest.raises(ShapeError, match=r"scatter.*scatter axes of updates"):
        lax.scatter(x, idx, np.ones((2, 3)), sd)
    with pytest.raises(DTypeError, match=r"scatter-add.*numbers, got bool"):
        lax.scatter_add(x > 0, idx, np.ones((1, 3), bool), sd)
    with pytest.raises(ValueError, match="Unknown gather mode"):
        lax.gather(x, idx, lax.GatherDimensionNumbers(**good), (1, 3), mode="wrap")


def test_weak_updates_take_the_operand_dtype() -> None:
    sd = lax.ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
    out = lax.scatter_add(np.zeros(3, np.float32), np.array([1]), 2.0, sd)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [0, 2, 0])


def test_dimension_numbers_are_hashable_values() -> None:
    a = lax.GatherDimensionNumbers(offset_dims=[1], collapsed_slice_dims=[0], start_index_map=[0])
    b = lax.GatherDimensionNumbers(
        offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)
    )
    assert a == b
    assert hash(a) == hash(b)
    assert a.operand_batching_dims == ()
    assert lax.GatherScatterMode.from_any(None) is lax.GatherScatterMode.FILL_OR_DROP
    assert lax.GatherScatterMode.from_any("clip") is lax.GatherScatterMode.CLIP
    # JAX's dimension numbers are accepted too.
    x = np.arange(4.0)
    jd = jlax.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,)
    )
    np.testing.assert_array_equal(lax.gather(x, np.array([[2]]), jd, (1,)), [2.0])  # type: ignore[arg-type]


# --- differentiation -------------------------------------------------------------------------


# Each case in one mode, each mode (and its transpose) with two cases.
@pytest.mark.parametrize(("name", "mode"), diagonal(3, sorted(GATHERS), MODES))
def test_gather_jvp_and_grad(name: str, mode: str) -> None:
    shape, idx, _, _ = GATHERS[name]
    x = RNG.normal(size=shape)
    t = RNG.normal(size=shape)
    d, j = _gather_fns(name, mode)
    _, dt = dx.jvp(lambda x: d(x, idx), (x,), (t,))
    _, jt = jax.jvp(lambda x: j(x, idx), (jnp.asarray(x),), (jnp.asarray(t),))
    _check(dt, jt)
    w = RNG.normal(size=np.shape(jt))

    def dloss(x: Any) -> Any:
        return lax.reduce_sum(lax.mul(d(x, idx), w), tuple(range(len(w.shape))))

    def jloss(x: Any) -> Any:
        return jnp.sum(j(x, idx) * w)

    _check(dx.grad(dloss)(x), jax.grad(jloss)(jnp.asarray(x)))
    _check(dx.jit(dx.grad(dloss))(x), jax.grad(jloss)(jnp.asarray(x)))


def test_gather_transposes_to_scatter_add() -> None:
    _, _, kw, sizes = GATHERS["rows"]
    idx = np.array([[2], [0], [2]])  # in bounds: a clamped gather's transpose drops instead
    dnums = lax.GatherDimensionNumbers(**kw)

    def g(v: Any) -> Any:
        return lax.gather(v, idx, dnums, sizes)

    closed = dx.make_jaxpr(dx.grad(lambda x: lax.reduce_sum(g(x), (0, 1))))(np.ones((4, 3)))
    typecheck_jaxpr(closed)
    assert "scatter-add" in [e.primitive.name for e in closed.eqns]
    # <u, G v> == <G^T u, v>, and G^T u is JAX's.
    u, v = RNG.normal(size=(3, 3)), RNG.normal(size=(4, 3))
    transposed = linear_transpose_flat(lambda v: [g(v)], [ShapedArray((4, 3), dtypes.float64)])
    (gtu,) = transposed(u)
    np.testing.assert_allclose(np.sum(u * np.asarray(g(v))), np.sum(np.asarray(gtu) * v))
    jdn = jlax.GatherDimensionNumbers(**kw)
    (expected,) = jax.linear_transpose(lambda v: jlax.gather(v, idx, jdn, sizes), jnp.ones((4, 3)))(
        jnp.asarray(u)
    )
    _check(gtu, expected)


# Each op (and its derivative rules) with one case, each case with one op or two.
@pytest.mark.parametrize(
    ("name", "op"),
    diagonal(
        3,
        ["take", "windows", "batching_dims"],
        ["scatter_add", "scatter_mul", "scatter_min", "scatter_max", "scatter"],
    ),
)
def test_scatter_jvp_and_grad(name: str, op: str) -> None:
    shape, idx, _, _ = GATHERS[name]
    x = RNG.normal(size=shape)
    u = RNG.normal(size=_updates_shape(name))
    tx, tu = RNG.normal(size=x.shape), RNG.normal(size=u.shape)
    if op == "scatter_mul":
        pytest.skip("scatter_mul derivatives need unique indices (as in JAX): tested below")
    mode = "fill"
    d, j = _scatter_fns(op, name, mode)
    _, dt = dx.jvp(lambda x, u: d(x, idx, u), (x, u), (tx, tu))
    _, jt = jax.jvp(lambda x, u: j(x, idx, u), (jnp.asarray(x), jnp.asarray(u)), (tx, tu))
    _check(dt, jt, rtol=1e-10)
    w = RNG.normal(size=shape)
    for argnums in (0, 1):
        dgrad = dx.grad(
            lambda x, u: lax.reduce_sum(lax.mul(d(x, idx, u), w), tuple(range(len(shape)))), argnums
        )
        jgrad = jax.grad(lambda x, u: jnp.sum(j(x, idx, u) * w), argnums)
        expected = jgrad(jnp.asarray(x), jnp.asarray(u))
        _check(dgrad(x, u), expected, rtol=1e-10)
        _check(dx.jit(dgrad)(x, u), expected, rtol=1e-10)


def test_scatter_mul_with_repeated_indices_refuses_update_gradients() -> None:
    d, _ = _scatter_fns("scatter_mul", "take", "fill")
    idx = GATHERS["take"][1]
    with pytest.raises(NotImplementedError, match="unique_indices"):
        dx.grad(lambda u: lax.reduce_sum(d(np.ones(5), idx, u), 0))(np.ones(5))
    # ... but the operand's gradient is fine.
    g = dx.grad(lambda x: lax.reduce_sum(d(x, idx, np.full(5, 2.0)), 0))(np.ones(5))
    _check(
        g,
        jax.grad(
            lambda x: jnp.sum(
                _scatter_fns("scatter_mul", "take", "fill")[1](x, idx, jnp.full(5, 2.0))
            )
        )(jnp.ones(5)),
    )


def test_scatter_mul_with_unique_indices() -> None:
    sd = lax.ScatterDimensionNumbers((), (0,), (0,))
    jsd = jlax.ScatterDimensionNumbers((), (0,), (0,))
    idx = np.array([[3], [0]])
    w = np.arange(1.0, 6.0)

    def d(x: Any, u: Any) -> Any:
        return lax.reduce_sum(lax.mul(lax.scatter_mul(x, idx, u, sd, unique_indices=True), w), 0)

    def j(x: Any, u: Any) -> Any:
        return jnp.sum(jlax.scatter_mul(x, idx, u, jsd, unique_indices=True) * w)

    x, u = RNG.normal(size=5), RNG.normal(size=2)
    for argnums in (0, 1):
        expected = jax.grad(j, argnums)(jnp.asarray(x), jnp.asarray(u))
        _check(dx.grad(d, argnums)(x, u), expected)
        _check(dx.jit(dx.grad(d, argnums))(x, u), expected)
    _, dt = dx.jvp(d, (x, u), (np.ones(5), np.ones(2)))
    _, jt = jax.jvp(j, (jnp.asarray(x), jnp.asarray(u)), (jnp.ones(5), jnp.ones(2)))
    _check(dt, jt)


def test_scatter_with_unique_indices_transposes() -> None:
    sd = lax.ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
    jsd = jlax.ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
    idx = np.array([[3], [0]])
    w = np.arange(1.0, 6.0)

    def d(x: Any, u: Any) -> Any:
        out = lax.scatter(x, idx, u, sd, unique_indices=True)
        return lax.reduce_sum(lax.mul(out, w), 0)

    def j(x: Any, u: Any) -> Any:
        return jnp.sum(jlax.scatter(x, idx, u, jsd, unique_indices=True) * w)

    x, u = RNG.normal(size=5), RNG.normal(size=2)
    for argnums in (0, 1):
        _check(dx.grad(d, argnums)(x, u), jax.grad(j, argnums)(jnp.asarray(x), jnp.asarray(u)))
    closed = dx.make_jaxpr(dx.grad(d, (0, 1)))(x, u)
    typecheck_jaxpr(closed)


def test_gradients_against_finite_differences() -> None:
    x = RNG.normal(size=6)
    u = RNG.normal(size=3)
    sd = lax.ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
    idx = np.array([[4], [1], [4]])
    w = RNG.normal(size=6)

    def f(x: Any, u: Any) -> Any:
        return lax.reduce_sum(lax.mul(lax.scatter_max(x, idx, u, sd), w), 0)

    gx, gu = dx.grad(f, (0, 1))(x, u)
    eps = 1e-6
    for k in range(6):
        e = np.zeros(6)
        e[k] = eps
        fd = (float(f(x + e, u)) - float(f(x - e, u))) / (2 * eps)
        np.testing.assert_allclose(np.asarray(gx)[k], fd, atol=1e-6)
    for k in range(3):
        e = np.zeros(3)
        e[k] = eps
        fd = (float(f(x, u + e)) - float(f(x, u - e))) / (2 * eps)
        np.testing.assert_allclose(np.asarray(gu)[k], fd, atol=1e-6)


# --- batching -------------------------------------------------------------------------------


# Each case with two batching patterns, each pattern with three cases.
@pytest.mark.parametrize(
    ("name", "in_axes"), diagonal(2, sorted(GATHERS), [(0, None), (None, 0), (0, 0), (1, 0)])
)
def test_gather_vmap(name: str, in_axes: tuple[int | None, int | None]) -> None:
    shape, idx, _, _ = GATHERS[name]
    d, j = _gather_fns(name, "fill")
    b = 3
    xs = RNG.normal(size=(b, *shape))
    if in_axes[0] == 1:
        xs = np.moveaxis(xs, 0, 1)
    x = xs if in_axes[0] is not None else RNG.normal(size=shape)
    top = max(shape)
    i = RNG.integers(-1, top + 1, size=(b, *idx.shape)) if in_axes[1] is not None else idx
    expected = jax.vmap(j, in_axes)(jnp.asarray(x), jnp.asarray(i))
    _check(dx.vmap(d, in_axes)(x, i), expected)
    _check(dx.jit(dx.vmap(d, in_axes))(x, i), expected)


# Each batching pattern with each case (and with each op) once; each case with each op.
@pytest.mark.parametrize(
    ("name", "op", "in_axes"),
    diagonal(
        3,
        ["take", "windows", "batching_dims"],
        ["scatter", "scatter_add", "scatter_max"],
        [(0, None, None), (None, 0, None), (None, None, 0), (0, 0, 0)],
    ),
)
def test_scatter_vmap(name: str, op: str, in_axes: tuple[int | None, ...]) -> None:
    shape, idx, _, _ = GATHERS[name]
    ushape = _updates_shape(name)
    d, j = _scatter_fns(op, name, "fill")
    b = 2
    x = RNG.normal(size=(b, *shape) if in_axes[0] is not None else shape)
    i = RNG.integers(-1, max(shape) + 1, size=(b, *idx.shape)) if in_axes[1] is not None else idx
    u = RNG.normal(size=(b, *ushape) if in_axes[2] is not None else ushape)
    if name == "batching_dims" and in_axes[1] is not None:
        i = np.clip(i, 0, 3)  # keep several updates in bounds
    expected = jax.vmap(j, in_axes)(jnp.asarray(x), jnp.asarray(i), jnp.asarray(u))
    _check(dx.vmap(d, in_axes)(x, i, u), expected)
    _check(dx.jit(dx.vmap(d, in_axes))(x, i, u), expected)


def test_vmap_of_grad_of_gather() -> None:
    _, idx, kw, sizes = GATHERS["rows"]
    dn, jdn = lax.GatherDimensionNumbers(**kw), jlax.GatherDimensionNumbers(**kw)
    xs = RNG.normal(size=(3, 4, 3))
    d = dx.vmap(dx.grad(lambda x: lax.reduce_sum(lax.gather(x, idx, dn, sizes), (0, 1))))
    j = jax.vmap(jax.grad(lambda x: jnp.sum(jlax.gather(x, idx, jdn, sizes))))
    _check(d(xs), j(jnp.asarray(xs)))


# --- dynamic slices with batched start indices --------------------------------------------------


def test_batched_dynamic_slice_is_a_gather() -> None:
    x = RNG.normal(size=(5, 7))
    starts = np.array([0, 3, 6, -2])

    def d(x: Any, i: Any) -> Any:
        return lax.dynamic_slice(x, (i, np.int64(2)), (2, 3))

    def j(x: Any, i: Any) -> Any:
        return jlax.dynamic_slice(x, (i, 2), (2, 3), allow_negative_indices=False)

    for in_axes in [(None, 0), (0, 0)]:
        xs = x if in_axes[0] is None else np.stack([x, -x, 2 * x, x + 1])
        expected = jax.vmap(j, in_axes)(jnp.asarray(xs), jnp.asarray(starts))
        _check(dx.vmap(d, in_axes)(xs, starts), expected)
        closed = dx.make_jaxpr(dx.vmap(d, in_axes))(xs, starts)
        typecheck_jaxpr(closed)
        names = [e.primitive.name for e in closed.eqns]
        assert "gather" in names
        # No intermediate is larger than the operand or the result (no one-hot selection).
        biggest = max(v.aval.size for e in closed.eqns for v in e.out_binders)
        assert biggest <= max(np.size(xs), 4 * 2 * 3)


def test_batched_dynamic_update_slice_is_a_scatter() -> None:
    x = RNG.normal(size=(5, 7))
    upd = RNG.normal(size=(4, 2, 3))
    starts = np.array([0, 3, 6, -2], np.int32)

    def d(x: Any, u: Any, i: Any) -> Any:
        return lax.dynamic_update_slice(x, u, (i, np.int32(1)))

    def j(x: Any, u: Any, i: Any) -> Any:
        return jlax.dynamic_update_slice(x, u, (i, np.int32(1)), allow_negative_indices=False)

    for in_axes in [(None, 0, 0), (0, 0, 0), (None, None, 0)]:
        xs = x if in_axes[0] is None else np.stack([x, -x, 2 * x, x + 1])
        u = upd if in_axes[1] is not None else upd[0]
        expected = jax.vmap(j, in_axes)(jnp.asarray(xs), jnp.asarray(u), jnp.asarray(starts))
        _check(dx.vmap(d, in_axes)(xs, u, starts), expected)
        _check(dx.jit(dx.vmap(d, in_axes))(xs, u, starts), expected)
        closed = dx.make_jaxpr(dx.vmap(d, in_axes))(xs, u, starts)
        assert "scatter" in [e.primitive.name for e in closed.eqns]
    # Differentiable through the scatter (unique indices): vmap of grad and grad of vmap.
    w = RNG.normal(size=(4, 5, 7))

    def loss(u: Any) -> Any:
        return lax.reduce_sum(lax.mul(dx.vmap(d, (None, 0, 0))(x, u, starts), w), (0, 1, 2))

    def jloss(u: Any) -> Any:
        return jnp.sum(jax.vmap(j, (None, 0, 0))(jnp.asarray(x), u, jnp.asarray(starts)) * w)

    _check(dx.grad(loss)(upd), jax.grad(jloss)(jnp.asarray(upd)))


def test_batched_unsigned_starts_clamp_like_unbatched() -> None:
    x = np.arange(10.0)
    starts = np.array([0, 250, 255], np.uint8)
    out = dx.vmap(lambda i: lax.dynamic_slice(x, (i,), (3,)))(starts)
    np.testing.assert_array_equal(out, [[0, 1, 2], [7, 8, 9], [7, 8, 9]])


# --- lowering and flops ------------------------------------------------------------------------


def test_lowering_text() -> None:
    x, idx = np.ones(10), np.array([[1], [3]])
    gd = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
    sd = lax.ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
    text = dx.jit(lambda x, i: lax.gather(x, i, gd, (1,))).lower(x, idx).as_text()
    assert "stablehlo.gather" in text
    assert "stablehlo.select" not in text
    text = dx.jit(lambda x, i: lax.gather(x, i, gd, (1,), mode="fill")).lower(x, idx).as_text()
    assert "stablehlo.gather" in text
    assert "stablehlo.select" in text
    for fn, op in [
        (lax.scatter_add, "stablehlo.add"),
        (lax.scatter_mul, "stablehlo.multiply"),
        (lax.scatter_min, "stablehlo.minimum"),
        (lax.scatter_max, "stablehlo.maximum"),
    ]:
        text = dx.jit(lambda x, i, fn=fn: fn(x, i, np.ones(2), sd)).lower(x, idx).as_text()
        assert "stablehlo.scatter" in text
        assert op in text
    text = (
        dx.jit(lambda x, i: lax.scatter(x, i, np.ones(2), sd, mode="clip")).lower(x, idx).as_text()
    )
    assert "stablehlo.scatter" in text
    assert "stablehlo.clamp" in text


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, i: lax.gather(x, i, lax.GatherDimensionNumbers((1,), (0,), (0,)), (1, 3)),
        lambda x, i: lax.gather(
            x, i, lax.GatherDimensionNumbers((1,), (0,), (0,)), (1, 3), mode="fill"
        ),
        lambda x, i: lax.scatter_add(
            x,
            i,
            np.ones((i.shape[0], 3), np.float32),
            lax.ScatterDimensionNumbers((1,), (0,), (0,)),
        ),
        lambda x, i: lax.scatter_max(
            x,
            i,
            np.ones((i.shape[0], 3), np.float32),
            lax.ScatterDimensionNumbers((1,), (0,), (0,)),
            mode="clip",
        ),
        lambda x, i: lax.scatter(
            x,
            i,
            np.ones((i.shape[0], 3), np.float32),
            lax.ScatterDimensionNumbers((1,), (0,), (0,)),
        ),
    ],
)
def test_flops_match_xla(fn: Callable[..., Any]) -> None:
    x = np.ones((20, 3), np.float32)
    idx = np.array([[1], [3], [7], [30], [2]], np.int32)
    counted = cost(fn)(x, idx)
    xla = dx.jit(fn).lower(x, idx).cost_analysis()
    assert counted.flops == int(xla.get("flops", 0.0))


def test_flops_of_fill_gather_with_index_vectors() -> None:
    # Three comparisons/ands per index, an "and" across each 2-vector, a select per element.
    dn = lax.GatherDimensionNumbers((1, 2), (), (0, 1))
    x, idx = np.ones((5, 6), np.float32), np.zeros((4, 2), np.int32)
    counted = cost(lambda x, i: lax.gather(x, i, dn, (2, 3), mode="fill"))(x, idx)
    assert counted.flops == 3 * 8 + 4 + 4 * 2 * 3
