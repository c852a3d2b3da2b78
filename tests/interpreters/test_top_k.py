"""``top_k``, ``approx_max_k``/``approx_min_k`` and the multi-operand ``sort``, against JAX.

Values (indices bit for bit, NaNs, signed zeros and ties included) eagerly
and under ``jit``; jvp, vjp (grad), vmap and grad of grad, in float32 and
float64; finite differences on a subset. JAX's side of each case is one
jitted function, so that the oracle compiles once.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

import didax as dx
from didax import lax as dlax
from didax.core.lax.sorting import approx_top_k_output_size
from didax.errors import DTypeError, ShapeError


def _same(got: Any, want: Any) -> None:
    """Equal leaves: dtypes, shapes, and values bit for bit (NaNs and signed zeros too)."""
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        assert g.shape == w.shape, (g.shape, w.shape)
        if g.dtype.kind == "f":
            np.testing.assert_array_equal(g.view(f"u{g.itemsize}"), w.view(f"u{w.itemsize}"))
        else:
            np.testing.assert_array_equal(g, w)


def _close(got: Any, want: Any, dtype: Any) -> None:
    rtol = 2e-5 if dtype == np.float32 else 1e-12
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype
        assert g.shape == w.shape
        if g.dtype != jax.dtypes.float0:  # an integer's tangent: nothing to compare
            np.testing.assert_allclose(g, w, rtol, rtol)


def _data(shape: tuple[int, ...], dtype: Any, seed: int = 0) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 9, size=shape).astype(dtype)  # many ties
    return rng.permutation(np.prod(shape)).reshape(shape).astype(dtype) / 7 - 2  # distinct


def _specials(dtype: Any) -> np.ndarray[Any, Any]:
    x = np.array([1.0, np.nan, 3.0, 3.0, -np.inf, np.nan, -0.0, 0.0, np.inf, -2.0], dtype)
    x[5] = -np.abs(x[5])  # a negative NaN: below everything in the total order
    return x


# --- top_k -------------------------------------------------------------------------------------

TOP_K_CASES: Final = [((10,), 3, -1), ((4, 6), 6, 1), ((5, 3, 4), 2, 0), ((3, 7), 0, -1)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.bool_])
@pytest.mark.parametrize(("shape", "k", "axis"), TOP_K_CASES, ids=str)
def test_top_k_values_match_jax(shape: tuple[int, ...], k: int, axis: int, dtype: Any) -> None:
    if dtype == np.bool_ and k > 2:
        k = 2
    x = _data(shape, dtype)
    want = jlax.top_k(x, k, axis=axis)
    _same(dlax.top_k(x, k, axis=axis), want)
    _same(dx.jit(lambda x: dlax.top_k(x, k, axis=axis))(x), want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_top_k_orders_nans_zeros_and_ties_as_xla(dtype: Any) -> None:
    x = _specials(dtype)
    for k in (10, 4):
        want = jlax.top_k(x, k)
        _same(dlax.top_k(x, k), want)
        _same(dx.jit(lambda x, k=k: dlax.top_k(x, k))(x), want)
    stacked = np.stack([x, x[::-1]], axis=1)
    _same(dlax.top_k(stacked, 7, axis=0), jlax.top_k(stacked, 7, axis=0))


def _top_k_fns(k: int, axis: int, lib: Any, ad: Any, top_k: Callable[..., Any]) -> Any:
    def values(x: Any) -> Any:
        return top_k(x, k, axis=axis)[0]

    def scalar(x: Any) -> Any:
        v = values(x)
        return lib.sum(v * v * 0.5 + v * lib.arange(v.size).reshape(v.shape))

    def all_of(x: Any, t: Any, stacked: Any) -> Any:
        return [
            ad.jvp(values, (x,), (t,)),
            ad.grad(scalar)(x),
            ad.jvp(ad.grad(scalar), (x,), (t,))[1],
            ad.vmap(lambda r: top_k(r, k, axis=axis), in_axes=1)(stacked),
        ]

    return all_of


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("shape", "k", "axis"), TOP_K_CASES[:3], ids=str)
def test_top_k_derivatives_and_vmap_match_jax(
    shape: tuple[int, ...], k: int, axis: int, dtype: Any
) -> None:
    x, t = _data(shape, dtype), _data(shape, dtype, 1)
    stacked = np.stack([x, x[::-1] * 2], axis=1)
    want = jax.jit(_top_k_fns(k, axis, jnp, jax, jlax.top_k))(x, t, stacked)
    _close(_top_k_fns(k, axis, dx.numpy, dx, dlax.top_k)(x, t, stacked), want, dtype)
    if axis == 1:
        jitted = dx.jit(_top_k_fns(k, axis, dx.numpy, dx, dlax.top_k))(x, t, stacked)
        _close(jitted, want, dtype)


def test_top_k_grad_matches_finite_differences() -> None:
    x = _data((4, 5), np.float64)

    def f(x: Any) -> Any:
        return dx.numpy.sum(dx.numpy.sin(dlax.top_k(x, 3)[0]))

    g = np.asarray(dx.grad(f)(x))
    for idx in [(0, 0), (1, 3), (3, 4), (2, 2)]:
        e = np.zeros_like(x)
        e[idx] = 1e-6
        fd = (float(f(x + e)) - float(f(x - e))) / 2e-6
        np.testing.assert_allclose(g[idx], fd, rtol=1e-6, atol=1e-9)


def test_top_k_lowers_to_chlo_top_k_and_refuses_as_jax() -> None:
    x = np.ones((3, 4), np.float32)
    text = dx.jit(lambda x: dlax.top_k(x, 2, axis=0)).lower(x).as_text()
    assert "chlo.top_k" in text
    assert "stablehlo.transpose" in text
    assert dlax.top_k_p.name == "top_k"
    with pytest.raises(ValueError, match="nonnegative"):
        dlax.top_k(x, -1)
    with pytest.raises(ShapeError, match="no larger than the size"):
        dlax.top_k(x, 5)
    with pytest.raises(ValueError, match="out of range"):  # as JAX's
        dlax.top_k(np.float32(1), 0)
    with pytest.raises(DTypeError, match="top_k"):
        dlax.top_k(np.ones(3, np.complex64), 1)
    _, indices = dlax.top_k(2.0 * np.ones(3), 1)
    assert indices.dtype == np.int32
    assert dx.jvp(lambda x: dlax.top_k(x, 2)[1], (x,), (x,))[1].dtype == jax.dtypes.float0
    # (A jitted function returning a float0 tangent is refused by didax's jit
    # lowering, whichever primitive made it: the tests return float tangents.)


# --- approx_max_k and approx_min_k ---------------------------------------------------------------

APPROX: Final[list[tuple[Callable[..., Any], Callable[..., Any]]]] = [
    (dlax.approx_max_k, jlax.approx_max_k),
    (dlax.approx_min_k, jlax.approx_min_k),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("which", [0, 1], ids=["max", "min"])
def test_approx_k_matches_jax(which: int, dtype: Any) -> None:
    dfn, jfn = APPROX[which]
    # Ties and signed zeros, no NaNs (whose place XLA's fallback leaves undefined).
    x = np.round(_data((4, 9), dtype) * 2) / 2
    x[0, :3] = [-0.0, 0.0, -0.0]
    for k, dim in [(3, -1), (9, 1), (2, 0)]:
        want = jfn(x, k, dim)
        _same(dfn(x, k, dim), want)
        _same(dx.jit(lambda x, k=k, dim=dim: dfn(x, k, dim))(x), want)

    def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
        return lambda x, k, axis: f(x, k, axis)

    t, stacked = _data((4, 9), dtype, 1), np.stack([x, x * 2], axis=1)
    want_d = jax.jit(_top_k_fns(3, 1, jnp, jax, wrap(jfn)))(x, t, stacked)
    _close(_top_k_fns(3, 1, dx.numpy, dx, wrap(dfn))(x, t, stacked), want_d, dtype)


def test_approx_k_params_and_refusals() -> None:
    x = np.ones((3, 4), np.float32)
    with pytest.raises(DTypeError):
        dlax.approx_min_k(np.ones(4, np.int32), 2)
    with pytest.raises(ShapeError, match="positive"):
        dlax.approx_max_k(x, 0)
    (eqn,) = dx.make_jaxpr(lambda x: dlax.approx_min_k(x, 2, 0, recall_target=0.9))(x).eqns
    assert eqn.primitive is dlax.approx_top_k_p
    assert eqn.params["reduction_dimension"] == 0
    assert eqn.params["recall_target"] == 0.9
    assert eqn.params["is_max_k"] is False


# --- the multi-operand sort ----------------------------------------------------------------------


def _sort_operands(dtype: Any, distinct: bool) -> tuple[Any, Any, Any]:
    """An integer key with ties, a float key, and values; distinct key pairs if asked."""
    rng = np.random.default_rng(0)
    k1 = rng.integers(0, 3, size=(5, 6)).astype(np.int32)
    k2 = rng.permutation(30).reshape(5, 6).astype(dtype) / 4 if distinct else np.ones((5, 6), dtype)
    values = _data((5, 6), dtype, 2)
    return k1, k2, values


# (num_keys, is_stable, dimension); unstable sorts get distinct keys (ties may come in any order).
SORT_CASES: Final = [(1, True, 1), (2, True, 0), (2, False, 1), (1, True, 0), (2, False, 0)]


def _sort_fns(num_keys: int, stable: bool, dim: int, lib: Any, ad: Any, sort: Any) -> Any:
    def run(k1: Any, k2: Any, v: Any) -> Any:
        return sort((k1, k2, v), dimension=dim, is_stable=stable, num_keys=num_keys)

    def scalar(k1: Any, k2: Any, v: Any) -> Any:
        _, s2, sv = run(k1, k2, v)
        weights = lib.arange(30.0).reshape(5, 6)
        return lib.sum(sv * sv * weights + sv * s2)

    def all_of(k1: Any, k2: Any, v: Any, t: Any) -> Any:
        grad = ad.grad(scalar, argnums=(1, 2))
        return [
            run(k1, k2, v),
            ad.jvp(lambda k2, v: run(k1, k2, v)[1:], (k2, v), (t, t)),
            grad(k1, k2, v),
            ad.jvp(lambda k2, v: grad(k1, k2, v), (k2, v), (t, t))[1],
            ad.vmap(run, in_axes=(None, 0, 0))(k1, lib.stack([k2, k2]), lib.stack([v, t])),
        ]

    return all_of


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("num_keys", "stable", "dim"), SORT_CASES, ids=str)
def test_multi_operand_sort_matches_jax(num_keys: int, stable: bool, dim: int, dtype: Any) -> None:
    k1, k2, v = _sort_operands(dtype, distinct=num_keys == 2)
    t = _data((5, 6), dtype, 3)
    want = jax.jit(_sort_fns(num_keys, stable, dim, jnp, jax, jlax.sort))(k1, k2, v, t)
    got = _sort_fns(num_keys, stable, dim, dx.numpy, dx, dlax.sort)(k1, k2, v, t)
    _close(got, want, dtype)
    if dim == 0:
        jitted = dx.jit(_sort_fns(num_keys, stable, dim, dx.numpy, dx, dlax.sort))(k1, k2, v, t)
        _close(jitted, want, dtype)


def test_approx_k_without_aggregation_keeps_xla_s_number_of_candidates() -> None:
    # The oracle: XLA's ApproxTopKReductionOutputSize, as jaxlib binds it.
    xla: Any = importlib.import_module("jaxlib._jax")

    for n in (100, 129, 300, 1025, 5000, 20000):
        for rank, k, recall, override in [
            (1, 10, 0.95, -1),
            (2, 1, 0.9, -1),
            (2, 5, 0.99, 10 * n),
            (2, 10, 0.95, 2 * n),
            (3, 100, 0.9, -1),
            (2, 5, 1.0, -1),
        ]:
            want = xla.approx_top_k_reduction_output_size(n, rank, k, recall, False, override)
            assert approx_top_k_output_size(n, rank, k, recall, override) == want[0]
    with pytest.raises(ShapeError, match="override"):
        dlax.approx_max_k(
            np.ones((2, 5000)), 10, aggregate_to_topk=False, reduction_input_size_override=4000
        )
    x = _data((2, 300), np.float32)
    for dfn, jfn in APPROX:
        want = jfn(x, 5, aggregate_to_topk=False)
        assert want[0].shape == (2, 256)
        _same(dfn(x, 5, aggregate_to_topk=False), want)
        _same(dx.jit(lambda x, f=dfn: f(x, 5, aggregate_to_topk=False))(x), want)
