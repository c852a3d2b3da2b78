"""interpreters.jaxpr_transforms: jvp/vmap/partial-eval/transpose jaxprs, instantiate, caches.

Each produced jaxpr is type checked and evaluated (``eval_jaxpr`` on
``[*consts, *args]``) against JAX's transformation of the same function.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
from didax.core import dtypes
from didax.core import lax as core_lax
from didax.core.cache import LRUCache
from didax.interpreters import jaxpr_transforms as jt
from didax.interpreters.evaluation import eval_jaxpr
from didax.interpreters.jaxpr_transforms import (
    close_over_nothing,
    jaxpr_as_fun,
    jvp_jaxpr,
    partial_eval_jaxpr,
    transpose_jaxpr,
    vmap_jaxpr,
)
from didax.ir.jaxpr import ClosedJaxpr, Jaxpr, Var
from didax.ir.typecheck import typecheck_jaxpr

RNG = np.random.default_rng(0)


def _jaxpr(f: Callable[..., Any], *args: Any) -> Jaxpr:
    closed = dx.make_jaxpr(f)(*args)
    assert closed.consts == ()
    return closed.jaxpr


def _run(closed: ClosedJaxpr, *args: Any) -> list[Any]:
    typecheck_jaxpr(closed)
    return eval_jaxpr(closed.jaxpr, [*closed.consts, *args])


def _names(jaxpr: Jaxpr) -> list[str]:
    return [e.primitive.name for e in jaxpr.eqns]


# --- jvp_jaxpr ------------------------------------------------------------------------------


def _sin_mul_cos(x: Any, y: Any) -> Any:
    return core_lax.mul(core_lax.sin(x), x), core_lax.cos(y)


def _j_sin_mul_cos(x: Any, y: Any) -> Any:
    return jnp.sin(x) * x, jnp.cos(y)


X3, Y3 = RNG.normal(size=3), RNG.normal(size=3)


@pytest.mark.parametrize(
    ("instantiate", "out_nonzeros"),
    [(False, (True, False)), (True, (True, True)), ([False, True], (True, True))],
)
def test_jvp_jaxpr(instantiate: bool | list[bool], out_nonzeros: tuple[bool, ...]) -> None:
    jaxpr = _jaxpr(_sin_mul_cos, X3, Y3)
    closed, nz = jvp_jaxpr(jaxpr, [True, False], instantiate)
    assert nz == out_nonzeros
    tx = RNG.normal(size=3)
    # inputs: primals, then the nonzero tangents; outputs: primals, then nonzero tangents
    assert len(closed.in_avals) == 3
    outs = _run(closed, X3, Y3, tx)
    assert len(outs) == 2 + sum(out_nonzeros)
    (p0, p1), (t0, t1) = jax.jvp(lambda x: _j_sin_mul_cos(x, Y3), (X3,), (tx,))
    np.testing.assert_allclose(outs[0], p0)
    np.testing.assert_allclose(outs[1], p1)
    np.testing.assert_allclose(outs[2], t0)
    if out_nonzeros[1]:
        # The zero tangent was instantiated as an explicit zeros output.
        assert outs[3].shape == (3,)
        assert outs[3].dtype == np.float64
        np.testing.assert_array_equal(outs[3], t1)
        np.testing.assert_array_equal(outs[3], np.zeros(3))


def test_jvp_jaxpr_never_instantiates_float0_outputs() -> None:
    jaxpr = _jaxpr(lambda x, i: (core_lax.mul(x, 2.0), core_lax.add(i, 1)), 1.0, np.int64(3))
    closed, nz = jvp_jaxpr(jaxpr, [True, False], True)
    assert nz == (True, False)
    assert closed.out_avals == (
        jaxpr.out_avals[0],
        jaxpr.out_avals[1],
        jaxpr.out_avals[0],  # a weak primal has a weak tangent, as in JAX
    )
    outs = _run(closed, np.float64(1.5), np.int64(3), np.float64(1.0))
    np.testing.assert_allclose(outs, [3.0, 4, 2.0])
    assert outs[1].dtype == np.int64


def test_jvp_jaxpr_with_every_tangent_zero() -> None:
    jaxpr = _jaxpr(_sin_mul_cos, X3, Y3)
    closed, nz = jvp_jaxpr(jaxpr, [False, False])
    assert nz == (False, False)
    assert len(closed.in_avals) == 2  # no tangent inputs
    assert len(closed.out_avals) == 2  # and no tangent outputs
    assert _names(closed.jaxpr) == ["sin", "mul", "cos"]  # nothing differentiated
    np.testing.assert_allclose(_run(closed, X3, Y3)[1], np.cos(Y3))


# --- vmap_jaxpr ---------------------------------------------------------------------------


def _add_sin(x: Any, y: Any) -> Any:
    return core_lax.add(x, y), core_lax.sin(y)


def _j_add_sin(x: Any, y: Any) -> Any:
    return x + y, jnp.sin(y)


@pytest.mark.parametrize("instantiate", [False, True])
def test_vmap_jaxpr(instantiate: bool) -> None:
    jaxpr = _jaxpr(_add_sin, X3, Y3)
    xs = RNG.normal(size=(4, 3))
    closed, batched = vmap_jaxpr(jaxpr, 4, [True, False], instantiate)
    assert batched == (True, instantiate)
    out_sum, out_sin = _run(closed, xs, Y3)
    exp_sum, exp_sin = jax.vmap(_j_add_sin, in_axes=(0, None))(xs, Y3)
    np.testing.assert_allclose(out_sum, exp_sum)
    if instantiate:
        assert out_sin.shape == (4, 3)
        np.testing.assert_allclose(out_sin, exp_sin)
    else:
        # Unbatched: computed once, not broadcast.
        assert out_sin.shape == (3,)
        np.testing.assert_allclose(out_sin, exp_sin[0])
        assert closed.out_avals[1] == jaxpr.out_avals[1]


def test_vmap_jaxpr_instantiates_by_default() -> None:
    jaxpr = _jaxpr(_add_sin, X3, Y3)
    _, batched = vmap_jaxpr(jaxpr, 2, [False, True])
    assert batched == (True, True)


def test_vmap_jaxpr_of_a_matvec() -> None:
    m = RNG.normal(size=(2, 3))
    jaxpr = _jaxpr(lambda m, v: core_lax.tanh(core_lax.dot(m, v)), m, X3)
    vs = RNG.normal(size=(5, 3))
    closed, batched = vmap_jaxpr(jaxpr, 5, [False, True])
    assert batched == (True,)
    (out,) = _run(closed, m, vs)
    np.testing.assert_allclose(out, jax.vmap(lambda v: jnp.tanh(m @ v))(vs))


# --- partial_eval_jaxpr -----------------------------------------------------------------------


def _sin_and_cos_mul(x: Any, y: Any) -> Any:
    return core_lax.sin(x), core_lax.mul(core_lax.cos(x), y)


def test_partial_eval_jaxpr_splits_known_and_unknown() -> None:
    jaxpr = _jaxpr(_sin_and_cos_mul, 1.0, 2.0)
    known, unknown, out_unknowns, num_res = partial_eval_jaxpr(jaxpr, [False, True])
    assert out_unknowns == (False, True)
    assert num_res == 1
    assert _names(known.jaxpr) == ["sin", "cos"]
    assert _names(unknown) == ["mul"]  # cos is not recomputed
    typecheck_jaxpr(unknown)
    x, y = np.float64(0.7), np.float64(-1.3)
    sin_x, residual = _run(known, x)
    np.testing.assert_allclose(residual, np.cos(x))
    (prod,) = eval_jaxpr(unknown, [residual, y])
    expected_sin, expected_prod = jax.jit(lambda a, b: (jnp.sin(a), jnp.cos(a) * b))(x, y)
    np.testing.assert_allclose(sin_x, expected_sin)
    np.testing.assert_allclose(prod, expected_prod)


def test_partial_eval_jaxpr_instantiate_makes_a_known_output_unknown() -> None:
    jaxpr = _jaxpr(_sin_and_cos_mul, 1.0, 2.0)
    known, unknown, out_unknowns, num_res = partial_eval_jaxpr(jaxpr, [False, True], True)
    assert out_unknowns == (True, True)
    assert num_res == 2
    x, y = np.float64(0.7), np.float64(-1.3)
    residuals = _run(known, x)
    assert len(residuals) == num_res  # no known outputs, only residuals
    typecheck_jaxpr(unknown)
    # The known sin(x) reaches the unknown jaxpr as a residual, which it returns.
    assert isinstance(unknown.outs[0], Var)
    assert unknown.outs[0] in unknown.in_binders[:num_res]
    sin_x, prod = eval_jaxpr(unknown, [*residuals, y])
    np.testing.assert_allclose(sin_x, np.sin(x))
    np.testing.assert_allclose(prod, np.cos(x) * y)


def test_partial_eval_jaxpr_with_everything_known() -> None:
    jaxpr = _jaxpr(_sin_and_cos_mul, 1.0, 2.0)
    known, unknown, out_unknowns, num_res = partial_eval_jaxpr(jaxpr, [False, False])
    assert out_unknowns == (False, False)
    assert num_res == 0
    assert unknown.outs == ()
    np.testing.assert_allclose(_run(known, 0.5, 2.0), [np.sin(0.5), 2 * np.cos(0.5)])


def test_partial_eval_of_a_jvp_jaxpr_is_linearize() -> None:
    # jvp, then the tangent unknown: the unknown jaxpr is the linear map.
    jaxpr = _jaxpr(lambda x: core_lax.mul(core_lax.sin(x), x), 1.0)
    jvp, _ = jvp_jaxpr(jaxpr, [True])
    body, consts = close_over_nothing(jvp)
    assert consts == ()
    known, unknown, out_unknowns, num_res = partial_eval_jaxpr(body, [False, True])
    assert out_unknowns == (False, True)
    assert len(unknown.in_binders) == num_res + 1
    assert set(_names(unknown)) <= {"mul", "add", "neg"}
    x, t = np.float64(0.9), np.float64(1.7)
    primal, *residuals = _run(known, x)
    (tangent,) = eval_jaxpr(unknown, [*residuals, t])
    expected_primal, expected_tangent = jax.jvp(lambda a: jnp.sin(a) * a, (x,), (t,))
    np.testing.assert_allclose(primal, expected_primal)
    np.testing.assert_allclose(tangent, expected_tangent)


# --- transpose_jaxpr ----------------------------------------------------------------------------

W = RNG.normal(size=(2, 3))


def _scaled_matvec(x: Any, w: Any) -> Any:
    return core_lax.mul(core_lax.dot(w, x), 2.0)


def test_transpose_jaxpr_matches_jax_vjp() -> None:
    jaxpr = _jaxpr(_scaled_matvec, X3, W)
    closed, out_nonzero = transpose_jaxpr(jaxpr, [True, False], [True])
    assert out_nonzero == (True,)
    ct = RNG.normal(size=2)
    (ct_x,) = _run(closed, W, ct)  # inputs: defined operands, then nonzero cotangents
    _, pullback = jax.vjp(lambda x: 2.0 * (W @ x), X3)
    np.testing.assert_allclose(ct_x, pullback(ct)[0])


def test_transpose_jaxpr_with_a_zero_cotangent() -> None:
    jaxpr = _jaxpr(_scaled_matvec, X3, W)
    closed, out_nonzero = transpose_jaxpr(jaxpr, [True, False], [False])
    assert out_nonzero == (False,)
    assert closed.out_avals == ()
    assert len(closed.in_avals) == 1  # only w: no cotangent input
    closed, out_nonzero = transpose_jaxpr(jaxpr, [True, False], [False], True)
    assert out_nonzero == (True,)
    (ct_x,) = _run(closed, W)
    np.testing.assert_array_equal(ct_x, np.zeros(3))


def test_transpose_jaxpr_of_several_linear_inputs() -> None:
    def f(x: Any, z: Any, w: Any) -> Any:
        return core_lax.dot(w, x), core_lax.neg(x)

    jaxpr = _jaxpr(f, X3, X3, W)
    closed, out_nonzero = transpose_jaxpr(jaxpr, [True, True, False], [True, True])
    assert out_nonzero == (True, False)  # nothing flows to z
    closed_inst, out_nonzero_inst = transpose_jaxpr(
        jaxpr, [True, True, False], [True, True], [False, True]
    )
    assert out_nonzero_inst == (True, True)
    ct0, ct1 = RNG.normal(size=2), RNG.normal(size=3)
    (ct_x,) = _run(closed, W, ct0, ct1)
    ct_x2, ct_z = _run(closed_inst, W, ct0, ct1)
    _, pullback = jax.vjp(lambda x, z: (W @ x, -x), X3, X3)
    exp_x, exp_z = pullback((ct0, ct1))
    np.testing.assert_allclose(ct_x, exp_x)
    np.testing.assert_allclose(ct_x2, exp_x)
    np.testing.assert_array_equal(ct_z, exp_z)


def test_transpose_jaxpr_needs_one_flag_per_input_and_output() -> None:
    jaxpr = _jaxpr(_scaled_matvec, X3, W)
    with pytest.raises(ValueError, match="one flag per input"):
        transpose_jaxpr(jaxpr, [True], [True])
    with pytest.raises(ValueError, match="one flag per input"):
        transpose_jaxpr(jaxpr, [True, False], [True, True])


# --- helpers ------------------------------------------------------------------------------------


def test_jaxpr_as_fun_and_close_over_nothing() -> None:
    jaxpr = _jaxpr(lambda x: core_lax.exp(x), 1.0)
    np.testing.assert_allclose(jaxpr_as_fun(jaxpr)(np.float64(0.5)), [np.exp(0.5)])
    c = np.arange(3.0)
    closed = dx.make_jaxpr(lambda x: core_lax.add(x, c))(X3)
    body, consts = close_over_nothing(closed)
    assert body is closed.jaxpr
    assert consts == closed.consts
    assert consts[0] is c


# --- caches -----------------------------------------------------------------------------------


def _cached(
    cache: LRUCache[Any],
    build: Callable[[Jaxpr], Any],
    fun: Callable[..., Any],
    args: Sequence[Any],
) -> None:
    j1 = _jaxpr(fun, *args)
    j2 = _jaxpr(fun, *args)
    assert j1 is not j2
    first = build(j1)
    hits = cache.info().hits
    second = build(j2)
    assert second is first
    assert second[0] is first[0]
    assert cache.info().hits == hits + 1


def test_jvp_cache_returns_the_identical_object() -> None:
    _cached(jt._JVP, lambda j: jvp_jaxpr(j, [True, False], [True, False]), _sin_mul_cos, (X3, Y3))
    j = _jaxpr(_sin_mul_cos, X3, Y3)
    assert jvp_jaxpr(j, [True, True]) is not jvp_jaxpr(j, [True, False])


def test_vmap_cache_returns_the_identical_object() -> None:
    _cached(jt._VMAP, lambda j: vmap_jaxpr(j, 7, [True, False], False), _add_sin, (X3, Y3))
    j = _jaxpr(_add_sin, X3, Y3)
    assert vmap_jaxpr(j, 7, [True, False], False) is not vmap_jaxpr(j, 6, [True, False], False)


def test_partial_eval_cache_returns_the_identical_object() -> None:
    _cached(
        jt._PARTIAL_EVAL,
        lambda j: partial_eval_jaxpr(j, [True, False]),
        _sin_and_cos_mul,
        (1.0, 2.0),
    )


def test_transpose_cache_returns_the_identical_object() -> None:
    _cached(
        jt._TRANSPOSE,
        lambda j: transpose_jaxpr(j, [True, False], [True]),
        _scaled_matvec,
        (X3, W),
    )
    j = _jaxpr(_scaled_matvec, X3, W)
    assert transpose_jaxpr(j, [True, False], [True]) is not transpose_jaxpr(
        j, [True, False], [False]
    )


def test_caches_tell_programs_of_other_types_apart() -> None:
    j64 = _jaxpr(_add_sin, X3, Y3)
    j32 = _jaxpr(_add_sin, X3.astype(np.float32), Y3.astype(np.float32))
    a, _ = vmap_jaxpr(j64, 3, [True, True])
    b, _ = vmap_jaxpr(j32, 3, [True, True])
    assert a is not b
    assert b.out_avals[0].dtype == dtypes.float32
