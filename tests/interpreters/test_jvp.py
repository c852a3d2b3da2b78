"""interpreters.jvp: jvp_flat, symbolic zeros, nesting and perturbation confusion, against JAX."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

import didax as dx
from didax.core import dtypes
from didax.core import lax as core_lax
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL
from didax.core.primitive import Primitive
from didax.interpreters.evaluation import IMPL_RULES
from didax.interpreters.jvp import (
    JVP_RULES,
    JVPTracer,
    Zero,
    add_tangents,
    instantiate_zeros,
    jvp_flat,
)

F64 = ShapedArray((), dtypes.float64)
F64_3 = ShapedArray((3,), dtypes.float64)

# A primitive with impl and typing rules but no jvp rule: differentiating it fails.
NO_JVP_P = Primitive("jvp_test_no_jvp_rule")
ABSTRACT_EVAL.register(NO_JVP_P, lambda x: x)
IMPL_RULES.register(NO_JVP_P, lambda x: x * 3)


# --- symbolic zeros ---------------------------------------------------------------------------


def test_zero_like_uses_the_tangent_dtype() -> None:
    assert Zero.like(F64) == Zero(F64)
    weak = ShapedArray((), dtypes.float64, weak_type=True)
    assert Zero.like(weak).aval == weak  # tangents keep their primal's weakness, as JAX's
    assert Zero.like(ShapedArray((2,), dtypes.int32)).aval == ShapedArray((2,), dtypes.float0)
    assert Zero.like(ShapedArray((), dtypes.bool_)).aval.dtype == dtypes.float0


def test_zero_tangents_pass_through() -> None:
    def f(x: Any, y: Any) -> list[Any]:
        return [core_lax.sin(y), core_lax.mul(x, 2.0), y]

    outs, tangents = jvp_flat(f, [1.0, np.float64(2.0)], [np.float64(1.0), Zero(F64)])
    np.testing.assert_allclose(outs, [np.sin(2.0), 2.0, 2.0])
    assert tangents[0] == Zero(F64)  # sin of a value with a zero tangent
    assert tangents[2] == Zero(F64)
    np.testing.assert_allclose(tangents[1], 2.0)


def test_a_primitive_with_all_zero_tangents_is_not_differentiated() -> None:
    def f(x: Any, y: Any) -> list[Any]:
        return [NO_JVP_P.bind(y), core_lax.mul(x, y)]

    outs, tangents = jvp_flat(f, [2.0, np.float64(5.0)], [np.float64(1.0), Zero(F64)])
    np.testing.assert_allclose(outs, [15.0, 10.0])
    assert isinstance(tangents[0], Zero)
    np.testing.assert_allclose(tangents[1], 5.0)
    # With a nonzero tangent the missing rule is needed, and named.
    with pytest.raises(NotImplementedError, match="jvp_test_no_jvp_rule"):
        jvp_flat(lambda x: [NO_JVP_P.bind(x)], [np.float64(1.0)], [np.float64(1.0)])


def test_outputs_independent_of_the_inputs_have_zero_tangents() -> None:
    outs, tangents = jvp_flat(
        lambda x: [np.ones((2, 3), np.float32), core_lax.iota(dtypes.int32, 4)],
        [1.0],
        [np.float64(1.0)],
    )
    assert tangents == [
        Zero(ShapedArray((2, 3), dtypes.float32)),
        Zero(ShapedArray((4,), dtypes.float0)),
    ]
    np.testing.assert_array_equal(outs[1], np.arange(4))


def test_integer_results_have_float0_zero_tangents() -> None:
    def f(x: Any) -> list[Any]:
        return [core_lax.convert_element_type(x, np.int32), core_lax.lt(x, 0.5)]

    _, tangents = jvp_flat(f, [np.arange(3.0)], [np.ones(3)])
    assert tangents == [
        Zero(ShapedArray((3,), dtypes.float0)),
        Zero(ShapedArray((3,), dtypes.float0)),
    ]


def test_rules_are_not_given_tracers_of_their_own_trace() -> None:
    seen: list[Any] = []
    prim = Primitive("jvp_test_spy")
    ABSTRACT_EVAL.register(prim, lambda x: x)
    IMPL_RULES.register(prim, lambda x: x)

    @JVP_RULES.defines(prim)
    def rule(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
        seen.extend([*primals, *tangents])
        return primals[0], tangents[0]

    outs, tangents = jvp_flat(lambda x: [prim.bind(x)], [np.float64(1.0)], [np.float64(2.0)])
    assert not any(isinstance(v, JVPTracer) for v in seen)
    assert (outs, tangents) == ([1.0], [2.0])


# --- instantiate_zeros and add_tangents ---------------------------------------------------


def test_instantiate_zeros() -> None:
    z = instantiate_zeros(Zero(ShapedArray((2, 3), dtypes.float32)))
    assert isinstance(z, dx.Array)
    assert z.shape == (2, 3)
    assert z.dtype == np.float32
    np.testing.assert_array_equal(z, np.zeros((2, 3), np.float32))
    f0 = np.asarray(instantiate_zeros(Zero(ShapedArray((4,), dtypes.float0))))
    assert (f0.shape, f0.dtype) == ((4,), dtypes.float0)
    t = np.ones(3)
    assert instantiate_zeros(t) is t


def test_instantiate_zeros_is_staged_under_a_trace() -> None:
    closed = dx.make_jaxpr(lambda: instantiate_zeros(Zero(F64_3)))()
    assert [e.primitive.name for e in closed.eqns] == ["broadcast_in_dim"]
    assert closed.out_avals == (F64_3,)


def test_add_tangents_skips_zeros() -> None:
    t = np.ones(3)
    assert add_tangents(Zero(F64_3), t) is t
    assert add_tangents(t, Zero(F64_3)) is t
    np.testing.assert_array_equal(add_tangents(t, t), 2 * t)


# --- against jax.jvp -------------------------------------------------------------------------

RNG = np.random.default_rng(0)
X3 = RNG.uniform(0.5, 1.5, 3)
Y3 = RNG.uniform(0.5, 1.5, 3)
M23 = RNG.normal(size=(2, 3))

CASES: dict[str, tuple[Callable[..., Any], Callable[..., Any], tuple[Any, ...]]] = {
    "sin_mul_exp": (
        lambda x, y: core_lax.mul(core_lax.sin(x), core_lax.exp(y)),
        lambda x, y: jnp.sin(x) * jnp.exp(y),
        (X3, Y3),
    ),
    "div_log_sqrt": (
        lambda x, y: core_lax.div(core_lax.log(x), core_lax.sqrt(y)),
        lambda x, y: jnp.log(x) / jnp.sqrt(y),
        (X3, Y3),
    ),
    "pow_tanh": (
        lambda x, y: core_lax.tanh(core_lax.pow(x, y)),
        lambda x, y: jnp.tanh(x**y),
        (X3, Y3),
    ),
    "max_min": (
        lambda x, y: core_lax.sub(core_lax.max(x, y), core_lax.min(x, y)),
        lambda x, y: jnp.maximum(x, y) - jnp.minimum(x, y),
        (X3, Y3),
    ),
    "dot_logistic": (
        lambda m, x: core_lax.logistic(core_lax.dot(m, x)),
        lambda m, x: jax.nn.sigmoid(m @ x),
        (M23, X3),
    ),
    "reduce_and_broadcast": (
        lambda x, y: core_lax.mul(
            core_lax.broadcast_in_dim(core_lax.reduce_sum(x, 0), (3,), ()),
            core_lax.cumsum(y, 0),
        ),
        lambda x, y: jnp.sum(x) * jnp.cumsum(y),
        (X3, Y3),
    ),
    "reduce_max_prod": (
        lambda x, y: core_lax.add(core_lax.reduce_max(x, 0), core_lax.reduce_prod(y, 0)),
        lambda x, y: jnp.max(x) + jnp.prod(y),
        (X3, Y3),
    ),
    "integer_pow_select": (
        lambda x, y: core_lax.select(
            core_lax.lt(x, y), core_lax.integer_pow(x, 3), core_lax.neg(y)
        ),
        lambda x, y: jnp.where(x < y, x**3, -y),
        (X3, Y3),
    ),
    "structural": (
        lambda m, x: core_lax.reduce_sum(
            core_lax.mul(core_lax.transpose(core_lax.reshape(m, (3, 2)), (1, 0)), M23), (0,)
        ),
        lambda m, x: jnp.sum(jlax.transpose(jnp.reshape(m, (3, 2)), (1, 0)) * M23, axis=0),
        (M23, X3),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_jvp_flat_matches_jax(name: str) -> None:
    f, jf, args = CASES[name]
    rng = np.random.default_rng(1)
    tangents = [rng.normal(size=np.shape(a)) for a in args]
    outs, t_outs = jvp_flat(lambda *xs: [f(*xs)], list(args), tangents)
    expected, expected_t = jax.jvp(jf, args, tuple(tangents))
    np.testing.assert_allclose(outs[0], expected, rtol=1e-12)
    np.testing.assert_allclose(
        np.asarray(instantiate_zeros(t_outs[0])), expected_t, rtol=1e-10, atol=1e-12
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_jvp_flat_with_one_zero_tangent_matches_jax(name: str) -> None:
    f, jf, (a, b) = CASES[name]
    ta = np.random.default_rng(2).normal(size=np.shape(a))
    _, t_outs = jvp_flat(
        lambda x, y: [f(x, y)], [a, b], [ta, Zero.like(ShapedArray(b.shape, b.dtype))]
    )
    _, expected_t = jax.jvp(lambda x: jf(x, b), (a,), (ta,))
    np.testing.assert_allclose(
        np.asarray(instantiate_zeros(t_outs[0])), expected_t, rtol=1e-10, atol=1e-12
    )


# --- nesting -----------------------------------------------------------------------------------


def _derivative(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def df(x: Any) -> Any:
        _, (t,) = jvp_flat(lambda y: [f(y)], [x], [1.0])
        return instantiate_zeros(t)

    return df


@pytest.mark.parametrize("x", [0.3, 1.7, -2.0])
def test_nested_jvp_flat_gives_second_derivatives(x: float) -> None:
    def f(y: Any) -> Any:
        return core_lax.mul(core_lax.sin(y), core_lax.exp(core_lax.mul(y, 0.5)))

    def jf(y: Any) -> Any:
        return jnp.sin(y) * jnp.exp(0.5 * y)

    d2 = _derivative(_derivative(f))(x)
    expected = jax.grad(jax.grad(jf))(x)
    np.testing.assert_allclose(d2, expected, rtol=1e-12)
    d3 = _derivative(_derivative(_derivative(f)))(x)
    np.testing.assert_allclose(d3, jax.grad(jax.grad(jax.grad(jf)))(x), rtol=1e-12)


@pytest.mark.parametrize(("x", "y"), [(3.0, 1.0), (-1.5, 4.0), (0.0, 0.0)])
def test_no_perturbation_confusion(x: float, y: float) -> None:
    # d/dx [x * d/dy (x + y)] = d/dx [x * 1] = 1, not 2.
    def g(x_: Any) -> Any:
        return core_lax.mul(x_, _derivative(lambda y_: core_lax.add(x_, y_))(y))

    np.testing.assert_allclose(_derivative(g)(x), 1.0)


def test_inner_tangent_of_an_outer_tracer_is_zero() -> None:
    # To the inner jvp, the outer tracer is a constant.
    seen: list[Any] = []

    def outer(x: Any) -> list[Any]:
        _, (t,) = jvp_flat(lambda y: [core_lax.mul(x, 2.0)], [1.0], [1.0])
        seen.append(t)
        return [x]

    jvp_flat(outer, [np.float64(1.0)], [np.float64(1.0)])
    assert seen == [Zero(F64)]


def test_jvp_flat_of_a_staged_function() -> None:
    closed = dx.make_jaxpr(lambda x, t: jvp_flat(lambda y: [core_lax.sin(y)], [x], [t])[1][0])(
        1.0, 1.0
    )
    assert [e.primitive.name for e in closed.eqns] == ["sin", "cos", "mul"]
