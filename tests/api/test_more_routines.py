"""The rest of jax.numpy's routines (didax.api.numpy.more_routines) against jax.numpy.

Each case is written once against a namespace and run on ``didax.numpy``
and ``jax.numpy``: values, shapes, dtypes and weak types equal; a selection
also under jit, vmap and grad.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax.errors import ConcretizationTypeError

rng = np.random.default_rng(0)
F = rng.normal(size=(3, 4)) * 3
Fn = F.copy()
Fn[0, 1] = np.nan
Fn[2, :] = np.nan
I = rng.integers(-20, 20, size=(3, 4))
U = np.array([0, 3, 3, 7, 1])
V = np.linspace(-1, 1, 5)
M = rng.normal(size=(2, 3, 4))
S = rng.normal(size=(4, 4))
CASES: dict[str, Callable[[Any], Any]] = {
    "acos": lambda n: n.acos(V * 0.9),
    "atan2": lambda n: n.atan2(V, V[::-1]),
    "pow": lambda n: n.pow(V, 2),
    "concat": lambda n: n.concat([F, F], axis=1),
    "permute_dims": lambda n: n.permute_dims(M, (2, 0, 1)),
    "matrix_transpose": lambda n: n.matrix_transpose(M),
    "amax": lambda n: n.amax(F, axis=0),
    "amin": lambda n: n.amin(F),
    "around": lambda n: n.around(F, 1),
    "positive": lambda n: n.positive(I),
    "cumulative_sum": lambda n: n.cumulative_sum(F, axis=1, include_initial=True),
    "cumulative_prod": lambda n: n.cumulative_prod(V),
    "unstack": lambda n: n.unstack(M, axis=1),
    "vecdot": lambda n: n.vecdot(M, M),
    "matvec": lambda n: n.matvec(M, F[0]),
    "vecmat": lambda n: n.vecmat(F[:2, :3], M),
    "vecmat2": lambda n: n.vecmat(V[:3], M),
    "rint": lambda n: n.rint(np.array([0.5, 1.5, -2.5, 2.51])),
    "rint_int": lambda n: n.rint(I),
    "trunc": lambda n: n.trunc(F),
    "trunc_int": lambda n: n.trunc(I),
    "logical_xor": lambda n: n.logical_xor(F > 0, I),
    "fmod": lambda n: n.fmod(F, 1.5),
    "fmod_int": lambda n: n.fmod(I, np.array([3, 0, -3, 5])),
    "divmod": lambda n: n.divmod(I, 7),
    "modf": lambda n: n.modf(F),
    "float_power": lambda n: n.float_power(I, 2),
    "gcd": lambda n: n.gcd(I, 12),
    "lcm": lambda n: n.lcm(I, np.array([3, 0, 4, 6])),
    "ptp": lambda n: n.ptp(F, axis=1),
    "nanargmax": lambda n: n.nanargmax(Fn, axis=1),
    "nanargmin": lambda n: n.nanargmin(Fn[:2]),
    "nanargmax_kd": lambda n: n.nanargmax(Fn, axis=0, keepdims=True),
    "nancumsum": lambda n: n.nancumsum(Fn, axis=1),
    "nancumprod": lambda n: n.nancumprod(Fn),
    "isin": lambda n: n.isin(I, np.array([1, 2, 3, -5])),
    "isin_inv": lambda n: n.isin(I, U, invert=True),
    "digitize": lambda n: n.digitize(F, np.array([-1.0, 0.0, 1.0])),
    "digitize_r": lambda n: n.digitize(F, np.array([1.0, 0.0, -1.0]), right=True),
    "bincount": lambda n: n.bincount(U),
    "bincount_w": lambda n: n.bincount(U, V, minlength=10),
    "bincount_len": lambda n: n.bincount(U, length=4),
    "unravel_index": lambda n: n.unravel_index(np.array([0, 5, 11, 30, -3]), (3, 4)),
    "ravel_multi_index": lambda n: n.ravel_multi_index(
        (np.array([0, 2]), np.array([1, 3])), (3, 4)
    ),
    "ravel_multi_index_clip": lambda n: n.ravel_multi_index(
        (np.array([0, 5]), np.array([-1, 3])), (3, 4), mode="clip"
    ),
    "ravel_multi_index_wrapF": lambda n: n.ravel_multi_index(
        (np.array([0, 5]), np.array([-1, 3])), (3, 4), mode="wrap", order="F"
    ),
    "indices": lambda n: n.indices((2, 3)),
    "indices_sparse": lambda n: n.indices((2, 3), sparse=True),
    "ix_": lambda n: F[n.ix_(np.array([0, 2]), np.array([1, 3]))],
    "diag_indices_from": lambda n: n.diag_indices_from(S),
    "tril_indices_from": lambda n: n.tril_indices_from(F, 1),
    "triu_indices_from": lambda n: n.triu_indices_from(F),
    "logspace": lambda n: n.logspace(0, 2, 5),
    "logspace_b": lambda n: n.logspace(0.0, 3.0, 4, base=2.0, endpoint=False),
    "geomspace": lambda n: n.geomspace(1, 1000, 4),
    "geomspace_neg": lambda n: n.geomspace(-1.0, -16.0, 5),
    "trapezoid": lambda n: n.trapezoid(F),
    "trapezoid_x": lambda n: n.trapezoid(F, x=np.array([0.0, 1.0, 3.0, 4.0])),
    "trapezoid_dx": lambda n: n.trapezoid(F, dx=0.5, axis=0),
    "broadcast_arrays": lambda n: n.broadcast_arrays(F, V[:4], 2.0),
}


def _same(got: Any, want: Any) -> None:
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for a, b in zip(got_leaves, want_leaves, strict=True):
        a2, b2 = np.asarray(a), np.asarray(b)
        assert a2.shape == b2.shape, (a2.shape, b2.shape)
        assert a2.dtype == b2.dtype, (a2.dtype, b2.dtype)
        np.testing.assert_allclose(a2, b2, rtol=1e-12, equal_nan=True)
        assert getattr(a, "weak_type", False) == getattr(b, "weak_type", False)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_jax(name: str) -> None:
    _same(CASES[name](dnp), CASES[name](jnp))


UNARY: dict[str, Callable[[Any, Any], Any]] = {
    "trunc": lambda n, x: n.trunc(x),
    "modf": lambda n, x: n.modf(x),
    "ptp": lambda n, x: n.ptp(x, axis=0),
    "trapezoid": lambda n, x: n.trapezoid(x),
    "nancumsum": lambda n, x: n.nancumsum(x, axis=1),
    "cumulative_prod": lambda n, x: n.cumulative_prod(x, axis=1, include_initial=True),
    "vecdot": lambda n, x: n.vecdot(x, x),
    "rint": lambda n, x: n.rint(x),
    "fmod": lambda n, x: n.fmod(x, 1.5),
    "float_power": lambda n, x: n.float_power(x, 3),
    "nanargmax": lambda n, x: n.nanargmax(x, axis=1),
    "digitize": lambda n, x: n.digitize(x, np.array([-1.0, 0.0, 1.0])),
    "isin": lambda n, x: n.isin(n.round(x), np.array([0.0, 1.0])),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_under_jit_vmap_and_grad(name: str) -> None:
    f = UNARY[name]
    _same(dx.jit(lambda x: f(dnp, x))(Fn), jax.jit(lambda x: f(jnp, x))(Fn))
    _same(dx.vmap(lambda x: f(dnp, x))(M), jax.vmap(lambda x: f(jnp, x))(M))
    out = f(jnp, F)
    if all(jnp.issubdtype(o.dtype, jnp.floating) for o in jax.tree_util.tree_leaves(out)):

        def total(n: Any) -> Callable[[Any], Any]:
            return lambda x: sum(o.sum() for o in jax.tree_util.tree_leaves(f(n, x)))

        _same(dx.grad(total(dnp))(F), jax.grad(total(jnp))(F))


def test_integer_routines_under_jit() -> None:
    _same(dx.jit(lambda a: dnp.gcd(a, 12))(I), jnp.gcd(I, 12))
    _same(dx.jit(lambda a: dnp.bincount(a, length=9))(U), jnp.bincount(U, length=9))
    _same(
        dx.jit(lambda i: dnp.unravel_index(i, (3, 4)))(np.array([1, 7])),
        jnp.unravel_index(np.array([1, 7]), (3, 4)),
    )


def test_queries() -> None:
    assert dnp.broadcast_shapes((3, 1), (4,)) == jnp.broadcast_shapes((3, 1), (4,)) == (3, 4)
    assert (dnp.ndim(F), dnp.shape(F), dnp.size(F), dnp.size(F, 1)) == (2, (3, 4), 12, 4)
    assert dnp.isscalar(3.0)
    assert dnp.isscalar(dnp.asarray(2.0)) == jnp.isscalar(jnp.asarray(2.0))
    assert not dnp.isscalar(F)
    assert not dnp.isscalar("a")
    assert dnp.iinfo(np.int8).max == 127
    assert dnp.finfo(np.float32).eps == jnp.finfo(np.float32).eps
    assert dnp.finfo(dnp.bfloat16).eps == jnp.finfo(jnp.bfloat16).eps
    assert dnp.issubdtype(np.float32, np.floating)
    assert dnp.issubdtype(dnp.bfloat16, np.floating) == jnp.issubdtype(jnp.bfloat16, np.floating)
    assert not dnp.issubdtype(np.int32, np.floating)
    assert dnp.promote_types(np.int32, np.float16) == jnp.promote_types(np.int32, np.float16)
    assert dnp.result_type(np.ones(2, np.float32), 2.0) == np.float32
    assert dnp.can_cast(np.int32, np.int64)
    assert not dnp.can_cast(np.float64, np.float32)


def test_refusals() -> None:
    with pytest.raises(ValueError, match="integers"):
        dnp.gcd(F, 2)
    with pytest.raises(TypeError, match="integer type"):
        dnp.bincount(F[0])
    with pytest.raises(ConcretizationTypeError, match="length="):
        dx.jit(dnp.bincount)(U)
    with pytest.raises(ValueError, match="invalid entry"):
        dnp.ravel_multi_index((np.array([0, 5]),), (3,))
    with pytest.raises(ConcretizationTypeError, match="mode='raise'"):
        dx.jit(lambda i: dnp.ravel_multi_index((i,), (3,)))(np.array([1]))
    with pytest.raises(ValueError, match="2-dimensional"):
        dnp.matrix_transpose(V)
    with pytest.raises(ValueError, match="1-dimensional"):
        dnp.digitize(F, F)
