"""interpreters.batching: vmap_flat, batch axes, move_axis, against jax.vmap."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
from didax.core import dtypes
from didax.core import lax as core_lax
from didax.core.abstract import ShapedArray
from didax.core.errors import ConcretizationTypeError, ShapeError
from didax.interpreters.batching import (
    BatchTracer,
    Dim,
    bdim_at_front,
    move_axis,
    not_mapped,
    vmap_flat,
)
from didax.interpreters.evaluation import eval_jaxpr

RNG = np.random.default_rng(0)


def _to_front(pairs: list[tuple[Any, Dim]], axis_size: int) -> list[Any]:
    """The results with their batch axis first (under the eval trace: concrete arrays)."""
    return [bdim_at_front(v, d, axis_size) for v, d in pairs]


# --- unbatched outputs and batch axes ---------------------------------------------------------


def test_unbatched_outputs_come_back_with_dim_none() -> None:
    xs = np.arange(3.0)
    pairs = vmap_flat(
        lambda x, y: [core_lax.add(x, y), core_lax.sin(y), y], 3, [xs, np.float64(1.0)], [0, None]
    )
    (sum_, d0), (sin_, d1), (y_, d2) = pairs
    assert (d0, d1, d2) == (0, None, None)
    assert not_mapped is None
    np.testing.assert_array_equal(sum_, xs + 1.0)
    np.testing.assert_allclose(sin_, np.sin(1.0))  # computed once, not broadcast
    assert np.shape(sin_) == ()
    assert y_ == 1.0


def test_an_output_that_is_a_batched_input_keeps_its_axis() -> None:
    x = np.arange(6.0).reshape(2, 3)
    ((out, d),) = vmap_flat(lambda a: [a], 3, [x], [1])
    assert d == 1
    assert out is x


def test_batch_tracer_has_the_unbatched_type() -> None:
    seen: list[Any] = []

    def f(x: Any) -> list[Any]:
        assert isinstance(x, BatchTracer)
        seen.append(x.aval)
        return [x]

    vmap_flat(f, 4, [np.ones((2, 4, 3), np.float32)], [1])
    assert seen == [ShapedArray((2, 3), dtypes.float32)]


@pytest.mark.parametrize("in_dim", [0, 1, 2])
def test_batch_axes_other_than_zero(in_dim: int) -> None:
    x = RNG.normal(size=(2, 3, 4))
    size = x.shape[in_dim]

    def f(a: Any) -> list[Any]:
        return [core_lax.reduce_sum(core_lax.mul(a, a), (0,))]

    pairs = vmap_flat(f, size, [x], [in_dim])
    expected = jax.vmap(lambda a: jnp.sum(a * a, axis=0), in_axes=in_dim)(x)
    np.testing.assert_allclose(_to_front(pairs, size)[0], expected, rtol=1e-12)


def test_elementwise_keeps_a_shared_batch_axis() -> None:
    x, y = RNG.normal(size=(2, 5)), RNG.normal(size=(2, 5))
    ((out, d),) = vmap_flat(lambda a, b: [core_lax.mul(a, b)], 5, [x, y], [1, 1])
    assert d == 1  # no transpose was needed
    np.testing.assert_allclose(out, x * y)


def test_differing_batch_axes_are_aligned() -> None:
    x, y = RNG.normal(size=(2, 5)), RNG.normal(size=(5, 2))
    ((out, d),) = vmap_flat(lambda a, b: [core_lax.sub(a, b)], 5, [x, y], [1, 0])
    expected = jax.vmap(lambda a, b: a - b, in_axes=(1, 0))(x, y)
    np.testing.assert_allclose(np.asarray(bdim_at_front(out, d, 5)), expected)


# --- move_axis / bdim_at_front ------------------------------------------------------------------


def test_move_axis() -> None:
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(move_axis(x, 0, 2, 2), np.moveaxis(x, 0, 2))
    np.testing.assert_array_equal(move_axis(x, 2, 0, 4), np.moveaxis(x, 2, 0))
    np.testing.assert_array_equal(move_axis(x, 1, 2, 3), np.moveaxis(x, 1, 2))
    assert move_axis(x, 1, 1, 3) is x  # no identity transpose


@pytest.mark.parametrize("dst", [0, 1, 2])
def test_move_axis_broadcasts_unbatched_values(dst: int) -> None:
    x = np.arange(6.0).reshape(2, 3)
    out = move_axis(x, None, dst, 5)
    expected = np.broadcast_to(np.expand_dims(x, dst), (*x.shape[:dst], 5, *x.shape[dst:]))
    np.testing.assert_array_equal(out, expected)


def test_bdim_at_front() -> None:
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(bdim_at_front(x, 1, 3), x.T)
    assert bdim_at_front(x, 0, 2) is x
    np.testing.assert_array_equal(bdim_at_front(2.0, None, 3), [2.0, 2.0, 2.0])


def test_move_axis_is_staged_as_one_transpose() -> None:
    closed = dx.make_jaxpr(lambda x: move_axis(x, 2, 0, 4))(np.ones((2, 3, 4)))
    assert [e.primitive.name for e in closed.eqns] == ["transpose"]
    assert closed.eqns[0].params["permutation"] == (2, 0, 1)


# --- against jax.vmap ---------------------------------------------------------------------------

M = RNG.normal(size=(4, 3))
V = RNG.normal(size=3)

CASES: dict[
    str, tuple[Callable[..., Any], Callable[..., Any], tuple[Any, ...], tuple[Dim, ...]]
] = {
    "matvec_batched_matrix": (
        lambda m, v: core_lax.dot(m, v),
        lambda m, v: m @ v,
        (RNG.normal(size=(5, 4, 3)), V),
        (0, None),
    ),
    "matvec_batched_vector": (
        lambda m, v: core_lax.dot(m, v),
        lambda m, v: m @ v,
        (M, RNG.normal(size=(3, 5))),
        (None, 1),
    ),
    "matvec_both_batched": (
        lambda m, v: core_lax.dot(m, v),
        lambda m, v: m @ v,
        (RNG.normal(size=(4, 5, 3)), RNG.normal(size=(5, 3))),
        (1, 0),
    ),
    "broadcast_reduce": (
        lambda x, y: core_lax.reduce_max(
            core_lax.add(core_lax.broadcast_in_dim(x, (2, 3), (1,)), y), (1,)
        ),
        lambda x, y: jnp.max(jnp.broadcast_to(x, (2, 3)) + y, axis=1),
        (RNG.normal(size=(3, 6)), RNG.normal(size=(2, 3))),
        (1, None),
    ),
    "slice_concat_rev": (
        lambda x, y: core_lax.concatenate(
            [core_lax.slice(x, (1,), (3,)), core_lax.rev(y, (0,))], 0
        ),
        lambda x, y: jnp.concatenate([x[1:3], y[::-1]]),
        (RNG.normal(size=(6, 4)), RNG.normal(size=(2, 6))),
        (0, 1),
    ),
    "dynamic_slice_batched_index": (
        lambda x, i: core_lax.dynamic_slice(x, (i,), (2,)),
        lambda x, i: jax.lax.dynamic_slice(x, (i,), (2,)),
        (RNG.normal(size=5), np.array([0, 2, 4, 3])),
        (None, 0),
    ),
    "reshape_transpose": (
        lambda x: core_lax.transpose(core_lax.reshape(x, (2, 3)), (1, 0)),
        lambda x: jnp.transpose(jnp.reshape(x, (2, 3))),
        (RNG.normal(size=(6, 4)),),
        (1,),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_flat_matches_jax(name: str) -> None:
    f, jf, args, in_dims = CASES[name]
    size = next(np.shape(a)[d] for a, d in zip(args, in_dims, strict=True) if d is not None)
    pairs = vmap_flat(lambda *xs: [f(*xs)], size, list(args), list(in_dims))
    expected = jax.vmap(jf, in_axes=in_dims)(*args)
    np.testing.assert_allclose(_to_front(pairs, size)[0], expected, rtol=1e-12)


def test_nested_vmap_flat() -> None:
    x = RNG.normal(size=(2, 3, 4))

    def inner(row: Any) -> list[Any]:
        ((out, d),) = vmap_flat(lambda e: [core_lax.mul(e, e)], 4, [row], [0])
        return [bdim_at_front(out, d, 4)]

    ((out, d),) = vmap_flat(inner, 3, [x], [1])
    expected = jax.vmap(jax.vmap(lambda e: e * e), in_axes=1)(x)
    np.testing.assert_allclose(np.asarray(bdim_at_front(out, d, 3)), expected)


def test_vmap_flat_under_staging() -> None:
    def f(x: Any) -> Any:
        ((out, d),) = vmap_flat(lambda r: [core_lax.reduce_sum(r, 0)], 4, [x], [0])
        return bdim_at_front(out, d, 4)

    closed = dx.make_jaxpr(f)(np.ones((4, 3)))
    assert closed.out_avals == (ShapedArray((4,), dtypes.float64),)
    x = RNG.normal(size=(4, 3))
    np.testing.assert_allclose(eval_jaxpr(closed.jaxpr, [x])[0], x.sum(1))


# --- errors in the user's terms ------------------------------------------------------------------


def test_operands_are_typechecked_without_the_batch_axis() -> None:
    with pytest.raises(ShapeError) as info:
        vmap_flat(lambda x, y: [core_lax.add(x, y)], 3, [np.ones((3, 2)), np.ones(4)], [0, None])
    assert "add applied to operands of types (f64[2], f64[4])" in str(info.value)


def test_batched_value_is_not_concrete() -> None:
    def f(x: Any) -> list[Any]:
        with pytest.raises(ConcretizationTypeError, match="differs across the batch of vmap"):
            bool(x)
        return [x]

    vmap_flat(f, 3, [np.ones(3)], [0])
