"""The control-flow primitives' rules, directly: DCE, partial evaluation, batching, verification."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax import lax
from didax.core.abstract import ShapedArray
from didax.core.dtypes import float64
from didax.core.lax.cond import cond_p
from didax.core.lax.scan import scan_p
from didax.core.lax.while_loop import while_p
from didax.interpreters.partial_eval import linearize_flat
from didax.ir.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var
from didax.ir.passes import dce_jaxpr
from didax.ir.typecheck import JaxprTypeError, typecheck_jaxpr


def _eqns(jaxpr: Jaxpr, prim: Any) -> list[JaxprEqn]:
    return [e for e in jaxpr.eqns if e.primitive is prim]


def _names(jaxpr: Jaxpr) -> list[str]:
    return [e.primitive.name for e in jaxpr.eqns]


# --- DCE -----------------------------------------------------------------------------------


def test_dce_prunes_unused_cond_outputs_in_every_branch() -> None:
    def f(x: Any) -> Any:
        a, _ = lax.cond(x > 0.0, lambda v: (dnp.sin(v), dnp.exp(v)), lambda v: (v, v * 3.0), x)
        return a

    jaxpr, _ = dce_jaxpr(dx.make_jaxpr(f)(1.0).jaxpr)
    (eqn,) = _eqns(jaxpr, cond_p)
    assert len(eqn.out_binders) == 1
    for branch in eqn.params["branches"]:
        assert "exp" not in _names(branch)
        assert "mul" not in _names(branch)
        assert len(branch.outs) == 1
    typecheck_jaxpr(jaxpr)


def test_dce_prunes_scan_carries_and_ys() -> None:
    def f(xs: Any) -> Any:
        def step(c: Any, x: Any) -> Any:
            a, b = c
            return (a + x, b * 2.0 + dnp.sin(a)), (a * x, dnp.exp(b))

        (a, _), (y1, _) = lax.scan(step, (0.0, 1.0), xs)
        return a, y1

    jaxpr, _ = dce_jaxpr(dx.make_jaxpr(f)(np.arange(3.0)).jaxpr)
    (eqn,) = _eqns(jaxpr, scan_p)
    assert eqn.params["num_carry"] == 1  # b feeds nothing that is used
    assert len(eqn.out_binders) == 2  # the carry a and the ys y1
    body = eqn.params["jaxpr"]
    assert "exp" not in _names(body)
    assert "sin" not in _names(body)
    typecheck_jaxpr(jaxpr)
    np.testing.assert_allclose(np.asarray(dx.jit(f)(np.arange(3.0))[1]), [0.0, 0.0, 2.0])


def test_dce_keeps_a_carry_that_a_live_carry_needs() -> None:
    def f(xs: Any) -> Any:
        def step(c: Any, x: Any) -> Any:
            a, b = c
            return (a + b, b + x), None

        (a, _), _ = lax.scan(step, (0.0, 1.0), xs)
        return a

    jaxpr, _ = dce_jaxpr(dx.make_jaxpr(f)(np.arange(3.0)).jaxpr)
    (eqn,) = _eqns(jaxpr, scan_p)
    assert eqn.params["num_carry"] == 2
    assert len(eqn.out_binders) == 2  # b comes out under a fresh variable
    typecheck_jaxpr(jaxpr)


def test_dce_prunes_while_carries_the_predicate_does_not_need() -> None:
    def f(x: Any) -> Any:
        def body(c: Any) -> Any:
            i, v, w = c
            return i + 1, v * 2.0, dnp.exp(w)

        _, v, _ = lax.while_loop(lambda c: c[0] < 3, body, (0, x, x))
        return v

    jaxpr, _ = dce_jaxpr(dx.make_jaxpr(f)(1.0).jaxpr)
    (eqn,) = _eqns(jaxpr, while_p)
    assert len(eqn.params["body_jaxpr"].outs) == 2  # i (the predicate reads it) and v
    assert "exp" not in _names(eqn.params["body_jaxpr"])
    typecheck_jaxpr(jaxpr)


# --- partial evaluation --------------------------------------------------------------------


def test_cond_with_unknown_predicate_is_staged_whole() -> None:
    # Under linearize the predicate is a primal (known): the cond splits.
    def f(x: Any) -> Any:
        return lax.cond(x > 0.0, lambda v: dnp.sin(v) * v, lambda v: v * 3.0, x)

    _, linear, residuals, _, _ = linearize_flat(lambda x: [f(x)], [np.float64(0.5)])
    (eqn,) = _eqns(linear, cond_p)
    # The known part computed cos(x) (and x) for the true branch: residuals, in
    # slots of their own (scalars, so inlined as literals, or residual binders);
    # the false branch has none. The last operand is the tangent.
    known = [x for x in eqn.inputs[1:-1] if isinstance(x, Literal) or x in linear.in_binders]
    assert len(known) >= 2
    assert len(residuals) + len([x for x in known if isinstance(x, Literal)]) >= 2
    assert all("sin" not in _names(b) for b in eqn.params["branches"])
    typecheck_jaxpr(linear)


def test_scan_residuals_that_are_constants_are_not_stacked() -> None:
    w = np.full((3, 3), 0.1)

    def f(h0: Any, xs: Any) -> Any:
        def step(h: Any, x: Any) -> Any:
            h = dnp.tanh(w @ h + x)
            return h, None

        return lax.scan(step, h0, xs)[0]

    _, linear, residuals, _, _ = linearize_flat(
        lambda h, xs: [f(h, xs)], [np.ones(3), np.ones((5, 3))]
    )
    (eqn,) = _eqns(linear, scan_p)
    # w is a constant of the unknown scan (passed once), and only per-step
    # residuals are stacked along the length-5 axis.
    res_shapes = [np.shape(r) for r in residuals]
    assert (3, 3) in res_shapes
    assert (5, 3, 3) not in res_shapes
    assert eqn.params["num_consts"] >= 1


def test_while_partial_eval_computes_known_carries_now() -> None:
    def f(x: Any) -> Any:
        def body(c: Any) -> Any:
            i, v = c
            return i + 1, dnp.sin(v)

        return lax.while_loop(lambda c: c[0] < 4, body, (0, x))[1]

    outs, linear, _, _, _ = linearize_flat(lambda x: [f(x)], [np.float64(0.3)])
    v = 0.3
    for _ in range(4):
        v = np.sin(v)
    np.testing.assert_allclose(float(np.asarray(outs[0])), v)
    assert _eqns(linear, while_p)


# --- batching ------------------------------------------------------------------------------


def test_batched_predicate_cond_becomes_a_select() -> None:
    f = dx.vmap(lambda x: lax.cond(x > 0.0, lambda v: v * 2.0, lambda v: -v, x))
    closed = dx.make_jaxpr(f)(np.array([-1.0, 2.0]))
    assert "cond" not in _names(closed.jaxpr)
    assert "select" in _names(closed.jaxpr)
    np.testing.assert_allclose(np.asarray(f(np.array([-1.0, 2.0]))), [1.0, 4.0])


def test_unbatched_predicate_cond_stays_a_cond() -> None:
    f = dx.vmap(lambda x, p: lax.cond(p, lambda v: v * 2.0, lambda v: -v, x), (0, None))
    closed = dx.make_jaxpr(f)(np.array([-1.0, 2.0]), True)
    assert "cond" in _names(closed.jaxpr)


def test_batched_predicate_while_runs_while_any_lane_runs() -> None:
    f = dx.vmap(lambda x: lax.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x))
    closed = dx.make_jaxpr(f)(np.array([1.0, 3.0, 20.0]))
    (eqn,) = _eqns(closed.jaxpr, while_p)
    assert "reduce_max" in _names(eqn.params["cond_jaxpr"])
    assert "select" in _names(eqn.params["body_jaxpr"])
    np.testing.assert_allclose(np.asarray(f(np.array([1.0, 3.0, 20.0]))), [16.0, 12.0, 20.0])


# --- verification --------------------------------------------------------------------------


def test_verifier_descends_into_branches_and_bodies() -> None:
    closed = dx.make_jaxpr(lambda x: lax.cond(x > 0.0, lambda v: dnp.sin(v), lambda v: v, x))(1.0)
    (eqn,) = _eqns(closed.jaxpr, cond_p)
    good = eqn.params["branches"][1]  # true_fun: sin
    # An ill-typed body: its output variable claims the wrong type.
    (inner,) = good.eqns
    bad_out = Var(ShapedArray((2,), float64))
    bad = Jaxpr(
        good.in_binders,
        (JaxprEqn(inner.primitive, inner.inputs, inner.params, (bad_out,)),),
        (bad_out,),
    )
    broken = JaxprEqn(
        cond_p, eqn.inputs, {"branches": (eqn.params["branches"][0], bad)}, eqn.out_binders
    )
    jaxpr = Jaxpr(closed.jaxpr.in_binders, (*closed.jaxpr.eqns[:-1], broken), closed.jaxpr.outs)
    with pytest.raises(JaxprTypeError, match=r"cond's branches\[1\]"):
        typecheck_jaxpr(jaxpr)


def test_verifier_refuses_a_closed_jaxpr_param() -> None:
    closed = dx.make_jaxpr(lambda x: lax.cond(x > 0.0, lambda v: v, lambda v: -v, x))(1.0)
    (eqn,) = _eqns(closed.jaxpr, cond_p)
    branches = tuple(ClosedJaxpr(b, ()) for b in eqn.params["branches"])
    broken = JaxprEqn(cond_p, eqn.inputs, {"branches": branches}, eqn.out_binders)
    jaxpr = Jaxpr(closed.jaxpr.in_binders, (*closed.jaxpr.eqns[:-1], broken), closed.jaxpr.outs)
    with pytest.raises(JaxprTypeError, match="constant-free"):
        typecheck_jaxpr(jaxpr)


def test_every_transformed_control_flow_jaxpr_typechecks() -> None:
    def f(x: Any, xs: Any) -> Any:
        c, ys = lax.scan(lambda c, a: (c * a + dnp.sin(c), c), x, xs)
        v = lax.while_loop(lambda v: v < 5.0, lambda v: v + 1.0, c)
        return lax.cond(v > 6.0, lambda: v * dnp.sum(ys), lambda: v)

    args = (0.5, np.arange(1.0, 4.0))
    for make in (
        lambda: dx.make_jaxpr(f)(*args),
        lambda: dx.make_jaxpr(lambda x, xs: dx.jvp(f, (x, xs), (1.0, np.ones(3))))(*args),
        lambda: dx.make_jaxpr(dx.vmap(f, (0, None)))(np.array([0.5, 0.7]), args[1]),
        lambda: dx.make_jaxpr(lambda x, xs: dx.linearize(f, x, xs)[1](1.0, np.ones(3)))(*args),
    ):
        typecheck_jaxpr(make())
