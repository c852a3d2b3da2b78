"""Arrays of JAX's narrow dtypes (ml_dtypes' float8/float4 and sub-byte integers) against JAX's.

One compiled program per dtype checks several operations at once, bit for
bit against ``jax.jit`` of the same function (the same XLA computes both),
and the same function evaluated eagerly. float6 and the 1-bit integers are
dtypes of didax's arrays as of JAX's, but JAX's CPU backend computes
nothing in them (it cannot even hold a float6 array), so only their host
round trip is checked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeAlias

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax.core import dtypes

Fn: TypeAlias = Callable[..., Any]

# Normal, fractional, out-of-range and non-finite values: each narrow float
# rounds, saturates or turns them into NaN as its format says.
_EDGES: Final = np.array(
    [0.0, -0.0, 0.3, -1.5, 3.0, 1e-40, 1e4, -1e4, np.inf, -np.inf, np.nan], np.float32
)
# CI keeps a slice of the floats (each kind of format: with infinities, with NaN
# only, with neither, exponent only); the others run with ``nox -s slow``.
_CI_FLOATS: Final = ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float4_e2m1fn")
_FLOATS: Final = [
    pytest.param(d, marks=() if d.name in _CI_FLOATS else pytest.mark.slow, id=d.name)
    for d in (*dtypes.FLOAT8S, *dtypes.FLOAT4S)
]
_INTS: Final = tuple(d for d in (*dtypes.INTNS, *dtypes.UINTNS) if dtypes.bit_width(d) > 1)


def _float_ops(m: Any, v: Any, w: Any) -> tuple[Any, ...]:
    # ``v + 1`` and ``v * 2.5``: weak scalars keep the narrow dtype. (No 0 / 0: the
    # sign of its NaN, or of what a float without NaN makes of it, is XLA's own.)
    return (
        *(
            v + v,
            v * v,
            v - v,
            v / (v * v + 1),
            v < v,
            v == v,
            -v,
            m.abs(v),
            m.sign(v),
            v + 1,
            v * 2.5,
        ),
        *(m.maximum(v, v), m.sum(v), m.max(v), m.cumsum(v), m.dot(v, v), m.exp(v), m.sort(v)),
        *(
            m.where(v < 1, v, v),
            v.astype(np.float32),
            w.astype(v.dtype),
            m.arange(5, dtype=v.dtype),
        ),
    )


def _int_ops(m: Any, v: Any, w: Any) -> tuple[Any, ...]:
    return (
        *(v + v, v * v, v - v, v < v, v == v, -v, v + 1, m.maximum(v, v), m.max(v), m.min(v)),
        *(m.where(v < 1, v, v), v.astype(np.int32), v.astype(np.float32), w.astype(v.dtype)),
        *(m.sign(v), v // (v * v + 1), v / (v * v + 1), v * 2, m.dot(v, v), m.cumsum(v) > 0),
    )


def _bits(x: Any) -> np.ndarray[Any, Any]:
    """The array's bits (NaNs compare by payload, and ml_dtypes' floats as integers)."""
    arr = np.asarray(x)
    return arr.view(f"u{arr.itemsize}") if dtypes.is_inexact(arr.dtype) else arr


def _assert_as_jax(ops: Fn, x: np.ndarray[Any, Any], w: np.ndarray[Any, Any]) -> None:
    expected = jax.jit(lambda v, u: ops(jnp, v, u))(x, w)
    jitted = dx.jit(lambda v, u: ops(dnp, v, u))(x, w)
    eager = ops(dnp, dnp.asarray(x), dnp.asarray(w))
    for i, want in enumerate(expected):
        for how, got in (("jit", jitted[i]), ("eager", eager[i])):
            assert got.dtype == want.dtype, (how, i)
            np.testing.assert_array_equal(_bits(got), _bits(want), err_msg=f"{how} op {i}")


@pytest.mark.parametrize("dtype", _FLOATS)
def test_float_ops_match_jax(dtype: np.dtype[Any]) -> None:
    x = np.array([-3.0, -1.5, -0.5, 0.0, 0.25, 1.0, 2.0, 4.0], np.float32).astype(dtype)
    _assert_as_jax(_float_ops, x, _EDGES)


@pytest.mark.parametrize("dtype", _INTS, ids=str)
def test_int_ops_match_jax(dtype: np.dtype[Any]) -> None:
    x = np.arange(-3, 5).astype(dtype)
    _assert_as_jax(_int_ops, x, np.array([-9, -2, -1, 0, 1, 3, 7, 20], np.int32))


@pytest.mark.x64_off
def test_float8_ops_match_jax_in_32_bit_mode() -> None:
    test_float_ops_match_jax(np.dtype(jnp.float8_e4m3fn))


@pytest.mark.parametrize("dtype", dtypes.NARROW, ids=str)
def test_creation_printing_and_host_round_trip(dtype: np.dtype[Any]) -> None:
    host = np.arange(3).astype(dtype)
    a = dnp.asarray(host)
    assert a.dtype == dtype
    assert np.asarray(a).dtype == dtype
    np.testing.assert_array_equal(_bits(a), _bits(host))
    assert str(dtype) in repr(a)
    for made in (dnp.zeros(2, dtype), dnp.ones(2, dtype), dnp.full(2, 1, dtype), a.astype(dtype)):
        assert made.dtype == dtype
    np.testing.assert_array_equal(_bits(dnp.ones(2, dtype)), _bits(np.ones(2, dtype)))


def test_vmap_and_grad_through_float8() -> None:
    f8 = np.dtype(jnp.float8_e4m3fn)
    x = np.array([-1.5, 0.5, 2.0, 3.0], np.float32).astype(f8)

    def loss(v: Any) -> Any:
        return (v * v).astype(np.float32).sum()

    for got, want in (
        (dx.grad(loss)(x), jax.grad(loss)(x)),
        (dx.vmap(lambda v: v * v + 1)(x), jax.vmap(lambda v: v * v + 1)(x)),
    ):
        assert got.dtype == want.dtype == f8
        np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("dtype", dtypes.HOST_ONLY, ids=str)
def test_host_only_dtypes_are_refused_by_jit(dtype: np.dtype[Any]) -> None:
    with pytest.raises(TypeError, match=f"cannot compile programs on {dtype} values"):
        dx.jit(lambda v: v + v)(np.zeros(2, dtype))


def test_abs_of_narrow_ints_is_refused_as_by_jax() -> None:
    with pytest.raises(TypeError, match="abs does not accept dtype int4"):
        dnp.abs(dnp.ones(2, dnp.int4))
    with pytest.raises(TypeError, match="abs does not accept dtype int4"):
        jnp.abs(jnp.ones(2, jnp.int4))


@pytest.mark.parametrize(
    ("a", "b", "what"),
    [
        (jnp.float8_e4m3fn, jnp.float8_e5m2, "float8_e4m3fn"),
        (jnp.float8_e4m3fn, np.float32, "float8_e4m3fn"),
        (jnp.int4, np.int8, "int4"),
    ],
)
def test_no_implicit_promotion(a: Any, b: Any, what: str) -> None:
    x, y = dnp.zeros(2, a), dnp.zeros(2, b)
    with pytest.raises(dtypes.TypePromotionError, match=what):
        dnp.add(x, y)
    assert dnp.add(x.astype(np.float32), y.astype(np.float32)).dtype == np.float32


def test_dtype_queries_as_jax() -> None:
    queries: list[Callable[[Any], object]] = [
        lambda m: m.iinfo(m.int4).min,
        lambda m: m.iinfo(m.uint2).max,
        lambda m: float(m.finfo(m.float8_e4m3fn).max),
        lambda m: m.issubdtype(m.int4, m.signedinteger),
        lambda m: m.issubdtype(m.uint4, m.signedinteger),
        lambda m: m.issubdtype(m.float8_e5m2, m.floating),
        lambda m: m.issubdtype(m.float8_e5m2, m.integer),
        lambda m: m.issubdtype(m.int4, m.int8),
        lambda m: m.promote_types(m.int4, m.int4),
    ]
    assert [q(dnp) for q in queries] == [q(jnp) for q in queries]
