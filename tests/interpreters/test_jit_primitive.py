"""interpreters.jit: the jit primitive's rules (abstract eval, DCE, jvp, vmap, PE, transpose)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
from didax.core import dtypes
from didax.core import lax as core_lax
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, TypingFailure, abstract_eval
from didax.core.errors import ShapeError
from didax.core.lax.jit import jit_p
from didax.core.lax.programs import check_operands
from didax.interpreters.batching import BATCH_RULES, bdim_at_front, vmap_flat
from didax.interpreters.evaluation import eval_jaxpr
from didax.interpreters.jvp import JVP_RULES, Zero, jvp_flat
from didax.interpreters.partial_eval import PE_RULES, linearize_flat
from didax.interpreters.staging import trace_to_jaxpr
from didax.interpreters.transpose import TRANSPOSE_RULES, vjp_flat
from didax.ir.jaxpr import Jaxpr, JaxprEqn
from didax.ir.passes import DCE_RULES
from didax.ir.typecheck import typecheck_jaxpr

F64 = ShapedArray((), dtypes.float64)
F64_3 = ShapedArray((3,), dtypes.float64)
F32_3 = ShapedArray((3,), dtypes.float32)
RNG = np.random.default_rng(0)


def _names(jaxpr: Jaxpr) -> list[str]:
    return [e.primitive.name for e in jaxpr.eqns]


def _body(f: Any, *args: Any) -> Jaxpr:
    closed = dx.make_jaxpr(f)(*args)
    assert closed.consts == ()
    return closed.jaxpr


def _jit_eqns(jaxpr: Jaxpr) -> list[JaxprEqn]:
    return [e for e in jaxpr.eqns if e.primitive is jit_p]


def test_jit_has_every_rule() -> None:
    for table in (ABSTRACT_EVAL, JVP_RULES, BATCH_RULES, PE_RULES, TRANSPOSE_RULES, DCE_RULES):
        assert jit_p in table
    assert jit_p.multiple_results


# --- abstract eval ---------------------------------------------------------------------------


def test_abstract_eval_returns_the_body_output_types() -> None:
    body = _body(
        lambda x, y: (core_lax.mul(x, y), core_lax.reduce_sum(x, 0)), np.ones(3), np.ones(3)
    )
    out = abstract_eval(jit_p, [F64_3, F64_3], {"jaxpr": body, "name": "f"})
    assert out == [F64_3, F64]


def test_abstract_eval_accepts_weak_operands_for_strong_inputs() -> None:
    body = _body(lambda x: core_lax.sin(x), np.float64(1.0))
    weak = ShapedArray((), dtypes.float64, weak_type=True)
    assert abstract_eval(jit_p, [weak], {"jaxpr": body, "name": "f"}) == [F64]


@pytest.mark.parametrize(
    "operands",
    [[F32_3], [F64], [F64_3, F64_3], []],
    ids=["dtype", "shape", "too_many", "too_few"],
)
def test_abstract_eval_refuses_operands_of_the_wrong_types(operands: list[ShapedArray]) -> None:
    body = _body(lambda x: core_lax.sin(x), np.ones(3))
    with pytest.raises(ShapeError) as info:
        abstract_eval(jit_p, operands, {"jaxpr": body, "name": "my_fun"})
    message = str(info.value)
    assert "the jitted function my_fun expects operands of types (f64[3])" in message
    assert message.startswith("jit applied to operands of types (")
    assert "{ lambda" not in message  # the body is not printed


def test_check_operands() -> None:
    check_operands([F64_3], [F64_3], "x")
    with pytest.raises(TypingFailure, match="the thing expects operands of types"):
        check_operands([F32_3], [F64_3], "the thing")


# --- DCE ---------------------------------------------------------------------------------------


def _jit_two_outputs(x: Any, y: Any) -> Any:
    return dx.jit(lambda a, b: (core_lax.mul(a, 2.0), core_lax.sin(b)))(x, y)


def test_dce_rule_prunes_unused_outputs_and_operands() -> None:
    jaxpr = _body(_jit_two_outputs, 1.0, 2.0)
    (eqn,) = _jit_eqns(jaxpr)
    used_inputs, new_eqn = DCE_RULES[jit_p]([True, False], eqn)
    assert used_inputs == [True, False]
    assert new_eqn is not None
    assert new_eqn.inputs == eqn.inputs[:1]
    assert new_eqn.out_binders == eqn.out_binders[:1]
    body = new_eqn.params["jaxpr"]
    assert _names(body) == ["mul"]
    assert len(body.in_binders) == 1
    assert len(body.outs) == 1
    assert new_eqn.params["name"] == eqn.params["name"]
    typecheck_jaxpr(Jaxpr(jaxpr.in_binders, (new_eqn,), new_eqn.out_binders))


def test_dce_rule_of_the_other_output() -> None:
    jaxpr = _body(_jit_two_outputs, 1.0, 2.0)
    (eqn,) = _jit_eqns(jaxpr)
    used_inputs, new_eqn = DCE_RULES[jit_p]([False, True], eqn)
    assert used_inputs == [False, True]
    assert new_eqn is not None
    assert _names(new_eqn.params["jaxpr"]) == ["sin"]
    new = Jaxpr(jaxpr.in_binders, (new_eqn,), new_eqn.out_binders)
    np.testing.assert_allclose(eval_jaxpr(new, [1.0, 2.0]), [np.sin(2.0)])


# --- jvp and batching -----------------------------------------------------------------------


def test_jvp_rule_binds_jit_on_the_jvp_body() -> None:
    g = dx.jit(lambda x, y: core_lax.mul(core_lax.sin(x), y))

    def f(x: Any, t: Any) -> Any:
        return jvp_flat(lambda a, b: [g(a, b)], [x, np.float64(2.0)], [t, Zero(F64)])[1][0]

    closed = dx.make_jaxpr(f)(1.0, 1.0)
    (eqn,) = _jit_eqns(closed.jaxpr)
    assert eqn.params["name"].startswith("jvp(")
    # primals, then the nonzero tangent only
    assert len(eqn.inputs) == 3
    x, t = np.float64(0.4), np.float64(1.5)
    (out,) = eval_jaxpr(closed.jaxpr, [*closed.consts, x, t])
    _, expected = jax.jvp(lambda a: jnp.sin(a) * 2.0, (x,), (t,))
    np.testing.assert_allclose(out, expected)


def test_jvp_rule_with_zero_output_tangent() -> None:
    g = dx.jit(lambda x, y: (core_lax.sin(x), core_lax.cos(y)))
    outs, tangents = jvp_flat(lambda a, b: list(g(a, b)), [1.0, 2.0], [np.float64(1.0), Zero(F64)])
    np.testing.assert_allclose(outs, [np.sin(1.0), np.cos(2.0)])
    np.testing.assert_allclose(tangents[0], np.cos(1.0))
    assert tangents[1] == Zero(F64.update(weak_type=True))  # the primal 2.0 is weak


def test_batching_rule_puts_the_batch_axis_first() -> None:
    g = dx.jit(lambda x, y: core_lax.add(core_lax.sin(x), y))
    xs = RNG.normal(size=(3, 4))
    ((out, d),) = vmap_flat(lambda a, b: [g(a, b)], 4, [xs, np.ones(3)], [1, None])
    assert d == 0
    np.testing.assert_allclose(out, jax.vmap(lambda a: jnp.sin(a) + 1.0, in_axes=1)(xs))
    np.testing.assert_allclose(np.asarray(bdim_at_front(out, d, 4)), np.sin(xs.T) + 1.0)


# --- partial evaluation ------------------------------------------------------------------------


def test_pe_rule_stages_an_unknown_jit_and_does_not_recompute_the_known_part() -> None:
    traced: list[int] = []

    def body(y: Any) -> Any:
        traced.append(1)
        return core_lax.mul(core_lax.sin(y), core_lax.exp(y))

    g = dx.jit(body)
    x = np.linspace(0.1, 1.0, 3)
    outs, linear, residuals, differentiable, nonzero = linearize_flat(lambda a: [g(a)], [x])
    assert traced == [1]
    assert differentiable == [True]
    assert nonzero == [True]
    np.testing.assert_allclose(outs[0], np.sin(x) * np.exp(x))

    (eqn,) = _jit_eqns(linear)
    assert eqn.params["name"].endswith("_unknown")
    assert eqn.params["name"] == "jvp(body)_unknown"
    unknown_body = eqn.params["jaxpr"]
    # sin, cos and exp were computed in the known call; only the linear part is staged.
    assert set(_names(unknown_body)) <= {"mul", "add", "neg"}
    assert all(e.primitive is jit_p for e in linear.eqns)
    typecheck_jaxpr(linear)

    t = RNG.normal(size=3)
    (tangent,) = eval_jaxpr(linear, [*residuals, t])
    _, expected = jax.jvp(lambda a: jnp.sin(a) * jnp.exp(a), (x,), (t,))
    np.testing.assert_allclose(tangent, expected)


def test_pe_rule_with_a_known_output() -> None:
    # An output that depends only on known operands is computed by the known call.
    g = dx.jit(lambda a, b: (core_lax.mul(a, b), core_lax.cos(b)))

    def f(a: Any) -> list[Any]:
        return list(g(a, np.float64(0.5)))

    outs, linear, residuals, _, nonzero = linearize_flat(f, [np.float64(2.0)])
    assert nonzero == [True, False]
    np.testing.assert_allclose(outs, [1.0, np.cos(0.5)])
    (eqn,) = _jit_eqns(linear)
    assert "cos" not in _names(eqn.params["jaxpr"])
    assert len(eqn.out_binders) == 1
    (tangent,) = eval_jaxpr(linear, [*residuals, np.float64(3.0)])
    np.testing.assert_allclose(tangent, 1.5)


# --- transposition -----------------------------------------------------------------------------


def _g(x: Any, w: Any) -> Any:
    return core_lax.mul(core_lax.sin(x), w), core_lax.reduce_sum(core_lax.mul(x, w), 0)


def _jg(x: Any, w: Any) -> Any:
    return jnp.sin(x) * w, jnp.sum(x * w)


def test_vjp_flat_through_jit_matches_jax() -> None:
    g = dx.jit(_g)
    x, w = RNG.normal(size=3), RNG.normal(size=3)
    outs, pullback = vjp_flat(lambda a, b: list(g(a, b)), [x, w])
    ct0, ct1 = RNG.normal(size=3), np.float64(0.7)
    cts = pullback([ct0, ct1])
    expected_outs, jax_pullback = jax.vjp(_jg, x, w)
    for got, want in zip(outs, expected_outs, strict=True):
        np.testing.assert_allclose(got, want)
    for got, want in zip(cts, jax_pullback((ct0, ct1)), strict=True):
        np.testing.assert_allclose(got, want)


def test_vjp_flat_through_jit_with_a_zero_cotangent() -> None:
    g = dx.jit(_g)
    x, w = RNG.normal(size=3), RNG.normal(size=3)
    _, pullback = vjp_flat(lambda a, b: list(g(a, b)), [x, w])
    ct0 = RNG.normal(size=3)
    cts = pullback([ct0, Zero(F64)])
    _, jax_pullback = jax.vjp(_jg, x, w)
    for got, want in zip(cts, jax_pullback((ct0, np.float64(0.0))), strict=True):
        np.testing.assert_allclose(got, want)


def test_transpose_rule_stages_a_transposed_jit() -> None:
    g = dx.jit(_g)
    x, w = RNG.normal(size=3), RNG.normal(size=3)
    _, pullback = vjp_flat(lambda a, b: list(g(a, b)), [x, w])
    closed = trace_to_jaxpr(lambda c0, c1: pullback([c0, c1]), [F64_3, F64])
    (eqn,) = _jit_eqns(closed.jaxpr)
    assert eqn.params["name"].startswith("transpose(")
    typecheck_jaxpr(closed)


def test_vjp_flat_through_jit_of_an_integer_operand() -> None:
    g = dx.jit(lambda x, n: core_lax.mul(x, core_lax.convert_element_type(n, np.float64)))
    _, pullback = vjp_flat(lambda a, n: [g(a, n)], [np.float64(2.0), np.int64(3)])
    ct_x, ct_n = pullback([np.float64(1.0)])
    np.testing.assert_allclose(ct_x, 3.0)
    assert ct_n == Zero(ShapedArray((), dtypes.float0))
