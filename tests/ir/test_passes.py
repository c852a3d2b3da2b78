"""ir.passes (dead-code elimination, with per-primitive DCE rules) and nested type checking."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax.core import dtypes
from didax.core import lax as core_lax
from didax.core.abstract import ShapedArray
from didax.core.lax.jit import jit_p
from didax.core.primitive import Primitive
from didax.interpreters.evaluation import eval_jaxpr
from didax.ir.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var
from didax.ir.passes import DCE_RULES, dce_jaxpr, live_equations
from didax.ir.typecheck import JaxprTypeError, typecheck_jaxpr

F64 = ShapedArray((), dtypes.float64)
F64_3 = ShapedArray((3,), dtypes.float64)
F64_2 = ShapedArray((2,), dtypes.float64)


def _names(jaxpr: Jaxpr) -> list[str]:
    return [e.primitive.name for e in jaxpr.eqns]


def _two_outputs(x: Any, y: Any) -> Any:
    a = core_lax.sin(x)
    b = core_lax.mul(a, y)
    core_lax.exp(y)  # dead
    return a, core_lax.cos(b)


# --- dce_jaxpr ------------------------------------------------------------------------


def test_dce_drops_unused_equations() -> None:
    jaxpr = dx.make_jaxpr(_two_outputs)(1.0, 2.0).jaxpr
    assert _names(jaxpr) == ["sin", "mul", "exp", "cos"]
    pruned, used = dce_jaxpr(jaxpr)
    assert _names(pruned) == ["sin", "mul", "cos"]
    assert used == [True, True]
    assert pruned.outs == jaxpr.outs
    typecheck_jaxpr(pruned)
    np.testing.assert_allclose(eval_jaxpr(pruned, [1.0, 2.0]), eval_jaxpr(jaxpr, [1.0, 2.0]))


def test_dce_of_some_outputs_keeps_inputs_unless_pruned() -> None:
    jaxpr = dx.make_jaxpr(_two_outputs)(1.0, 2.0).jaxpr
    first_only, used = dce_jaxpr(jaxpr, [True, False])
    assert _names(first_only) == ["sin"]
    assert used == [True, False]
    assert first_only.in_binders == jaxpr.in_binders  # y is kept as an input
    assert len(first_only.outs) == 1
    np.testing.assert_allclose(eval_jaxpr(first_only, [1.0, 2.0]), [np.sin(1.0)])

    pruned, used = dce_jaxpr(jaxpr, [True, False], prune_inputs=True)
    assert used == [True, False]
    assert pruned.in_binders == jaxpr.in_binders[:1]
    typecheck_jaxpr(pruned)
    np.testing.assert_allclose(eval_jaxpr(pruned, [1.0]), [np.sin(1.0)])


def test_dce_of_no_outputs_drops_everything() -> None:
    jaxpr = dx.make_jaxpr(_two_outputs)(1.0, 2.0).jaxpr
    empty, used = dce_jaxpr(jaxpr, [False, False])
    assert empty.eqns == ()
    assert empty.outs == ()
    assert used == [False, False]
    assert dce_jaxpr(jaxpr, [False, False], prune_inputs=True)[0].in_binders == ()


def test_dce_reports_an_input_returned_directly_as_used() -> None:
    jaxpr = dx.make_jaxpr(lambda x, y: (y, core_lax.sin(x)))(1.0, 2.0).jaxpr
    pruned, used = dce_jaxpr(jaxpr, [True, False])
    assert used == [False, True]
    assert pruned.eqns == ()


def test_dce_keeps_literal_outputs() -> None:
    a = Var(F64)
    lit = Literal.of(np.float64(3.0))
    jaxpr = Jaxpr((a,), (), (lit, a))
    pruned, used = dce_jaxpr(jaxpr, [True, False])
    assert pruned.outs == (lit,)
    assert used == [False]


def test_dce_requires_one_flag_per_output() -> None:
    jaxpr = dx.make_jaxpr(_two_outputs)(1.0, 2.0).jaxpr
    with pytest.raises(ValueError, match="zip"):
        dce_jaxpr(jaxpr, [True])


# --- live_equations ----------------------------------------------------------------------


def test_live_equations_walks_backwards_and_updates_live() -> None:
    jaxpr = dx.make_jaxpr(_two_outputs)(1.0, 2.0).jaxpr
    x, y = jaxpr.in_binders
    sin_eqn, mul_eqn, _, cos_eqn = jaxpr.eqns
    live = {mul_eqn.out_binders[0]}
    kept = live_equations(jaxpr.eqns, live)
    assert kept == [sin_eqn, mul_eqn]
    assert live == {mul_eqn.out_binders[0], sin_eqn.out_binders[0], x, y}

    live = {x}
    assert live_equations(jaxpr.eqns, live) == []
    assert live == {x}

    live = {cos_eqn.out_binders[0], sin_eqn.out_binders[0]}
    assert live_equations(jaxpr.eqns, live) == [sin_eqn, mul_eqn, cos_eqn]


# --- DCE rules --------------------------------------------------------------------------------


def _jaxpr_with_inner_jit() -> Jaxpr:
    def f(x: Any) -> Any:
        return dx.jit(lambda y: (y * 2.0, dnp.sin(y)))(x)[0]

    return dx.make_jaxpr(f)(1.0).jaxpr


def test_jit_has_a_dce_rule() -> None:
    assert jit_p in DCE_RULES


def test_dce_prunes_the_body_of_a_jit_call() -> None:
    jaxpr = _jaxpr_with_inner_jit()
    (eqn,) = jaxpr.eqns
    assert eqn.primitive is jit_p
    assert "sin" in _names(eqn.params["jaxpr"])
    assert len(eqn.out_binders) == 2

    pruned, used = dce_jaxpr(jaxpr)
    assert used == [True]
    (new_eqn,) = pruned.eqns
    body = new_eqn.params["jaxpr"]
    assert isinstance(body, Jaxpr)
    assert "sin" not in _names(body)
    assert _names(body) == ["mul"]
    assert len(body.outs) == 1
    assert len(new_eqn.out_binders) == 1
    assert new_eqn.out_binders[0] is eqn.out_binders[0]  # the used output keeps its variable
    assert new_eqn.params["name"] == eqn.params["name"]
    typecheck_jaxpr(pruned)
    np.testing.assert_allclose(eval_jaxpr(pruned, [1.5]), [3.0])


def test_jit_dce_prunes_unused_operands() -> None:
    def f(x: Any, y: Any) -> Any:
        return dx.jit(lambda a, b: (a * 2.0, dnp.sin(b)))(x, y)[0]

    jaxpr = dx.make_jaxpr(f)(1.0, 2.0).jaxpr
    pruned, used = dce_jaxpr(jaxpr)
    assert used == [True, False]
    (eqn,) = pruned.eqns
    assert eqn.inputs == (jaxpr.in_binders[0],)
    assert len(eqn.params["jaxpr"].in_binders) == 1
    typecheck_jaxpr(pruned)


def test_dce_rule_is_consulted_only_when_some_outputs_are_unused() -> None:
    prim = Primitive("passes_test_multi", multiple_results=True)
    calls: list[list[bool]] = []

    @DCE_RULES.defines(prim)
    def rule(used_outputs: Sequence[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn | None]:
        calls.append(list(used_outputs))
        used_inputs = [used_outputs[0], used_outputs[1]]
        new_eqn = JaxprEqn(
            prim,
            tuple(x for x, u in zip(eqn.inputs, used_inputs, strict=True) if u),
            eqn.params,
            tuple(v for v, u in zip(eqn.out_binders, used_outputs, strict=True) if u),
        )
        return used_inputs, new_eqn

    a, b, c, d = Var(F64), Var(F64), Var(F64), Var(F64)
    eqn = JaxprEqn(prim, (a, b), {}, (c, d))
    jaxpr = Jaxpr((a, b), (eqn,), (c, d))

    pruned, used = dce_jaxpr(jaxpr)
    assert calls == []  # every output used: the equation is kept as it is
    assert pruned.eqns == (eqn,)
    assert used == [True, True]

    pruned, used = dce_jaxpr(jaxpr, [False, True])
    assert calls == [[False, True]]
    (new_eqn,) = pruned.eqns
    assert new_eqn.inputs == (b,)
    assert new_eqn.out_binders == (d,)
    assert used == [False, True]


def test_dce_rule_returning_none_drops_the_equation() -> None:
    prim = Primitive("passes_test_droppable", multiple_results=True)
    DCE_RULES.register(prim, lambda used_outputs, eqn: ([False], None))
    a, b, c = Var(F64), Var(F64), Var(F64)
    jaxpr = Jaxpr((a,), (JaxprEqn(prim, (a,), {}, (b, c)),), (b, c))
    pruned, used = dce_jaxpr(jaxpr, [True, False])
    assert pruned.eqns == ()
    assert used == [False]


def test_primitive_without_rule_keeps_all_operands() -> None:
    prim = Primitive("passes_test_unruled", multiple_results=True)
    a, b, c, d = Var(F64), Var(F64), Var(F64), Var(F64)
    eqn = JaxprEqn(prim, (a, b), {}, (c, d))
    pruned, used = dce_jaxpr(Jaxpr((a, b), (eqn,), (c, d)), [True, False])
    assert pruned.eqns == (eqn,)
    assert used == [True, True]


# --- typecheck of nested bodies ------------------------------------------------------------


def _jit_eqn(body: Any, x: Var, out: Var) -> JaxprEqn:
    return JaxprEqn(jit_p, (x,), {"jaxpr": body, "name": "f"}, (out,))


def _ill_typed_body() -> Jaxpr:
    a, b, c = Var(F64), Var(F64_3), Var(F64)
    return Jaxpr((a,), (JaxprEqn(core_lax.add_p, (a, b), {}, (c,)),), (c,))


def test_typecheck_accepts_a_well_typed_nested_body() -> None:
    a, b = Var(F64), Var(F64)
    body = Jaxpr((a,), (JaxprEqn(core_lax.sin_p, (a,), {}, (b,)),), (b,))
    x, y = Var(F64), Var(F64)
    jaxpr = Jaxpr((x,), (_jit_eqn(body, x, y),), (y,))
    assert str(typecheck_jaxpr(jaxpr)) == "(f64[]) -> (f64[])"


def test_typecheck_rejects_an_ill_typed_nested_body() -> None:
    x, y = Var(F64), Var(F64)
    jaxpr = Jaxpr((x,), (_jit_eqn(_ill_typed_body(), x, y),), (y,))
    with pytest.raises(JaxprTypeError, match="in jit's jaxpr") as info:
        typecheck_jaxpr(jaxpr)
    assert "used before it is bound" in str(info.value)


def test_typecheck_rejects_a_nested_body_with_a_bad_equation() -> None:
    # f64[3] + f64[2]: no broadcast makes these one shape (a rank-0 operand would).
    a, b, c = Var(F64_3), Var(F64_2), Var(F64_3)
    body = Jaxpr((a, b), (JaxprEqn(core_lax.add_p, (a, b), {}, (c,)),), (c,))
    x, z, y = Var(F64_3), Var(F64_2), Var(F64_3)
    eqn = JaxprEqn(jit_p, (x, z), {"jaxpr": body, "name": "f"}, (y,))
    with pytest.raises(JaxprTypeError, match="in jit's jaxpr: ill-typed equation add"):
        typecheck_jaxpr(Jaxpr((x, z), (eqn,), (y,)))


def test_typecheck_rejects_operands_that_do_not_match_the_body() -> None:
    a, b = Var(F64), Var(F64)
    body = Jaxpr((a,), (JaxprEqn(core_lax.sin_p, (a,), {}, (b,)),), (b,))
    x, y = Var(F64_3), Var(F64)
    with pytest.raises(JaxprTypeError, match="the jitted function f"):
        typecheck_jaxpr(Jaxpr((x,), (_jit_eqn(body, x, y),), (y,)))


def test_typecheck_rejects_a_closed_jaxpr_param() -> None:
    a, b = Var(F64), Var(F64)
    body = ClosedJaxpr(Jaxpr((a,), (JaxprEqn(core_lax.sin_p, (a,), {}, (b,)),), (b,)), ())
    x, y = Var(F64), Var(F64)
    jaxpr = Jaxpr((x,), (_jit_eqn(body, x, y),), (y,))
    with pytest.raises(JaxprTypeError, match="ClosedJaxpr") as info:
        typecheck_jaxpr(jaxpr)
    assert "jit's param jaxpr" in str(info.value)


def test_typecheck_descends_into_tuples_of_bodies() -> None:
    prim = Primitive("passes_test_branches")
    x, y = Var(F64), Var(F64)
    eqn = JaxprEqn(prim, (x,), {"branches": (_ill_typed_body(),)}, (y,))
    with pytest.raises(JaxprTypeError, match=r"in passes_test_branches's branches\[0\]"):
        typecheck_jaxpr(Jaxpr((x,), (eqn,), (y,)))
