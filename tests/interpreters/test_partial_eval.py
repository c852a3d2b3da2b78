"""Partial evaluation: the known/unknown split, on traces and on jaxprs, and its jit rule."""

from __future__ import annotations

import pathlib
from typing import Any

import numpy as np

import didax as dx
from didax import lax
from didax.interpreters.jaxpr_transforms import partial_eval_jaxpr
from didax.interpreters.partial_eval import linearize_flat
from didax.ir.typecheck import typecheck_jaxpr

GOLDEN = pathlib.Path(__file__).parent.parent / "golden"


def _sin_neg(x: Any) -> Any:
    return lax.neg(lax.sin(x))


def _names(closed: Any) -> list[str]:
    return [e.primitive.name for e in closed.eqns]


def test_partial_eval_jaxpr_unzips_autodidax_jvp_example() -> None:
    # Autodidax part 4: the jvp jaxpr of sin/neg with the primal known and the
    # tangent unknown unzips into a primal jaxpr (returning the residual cos a)
    # and a linear tangent jaxpr.
    jvp_jaxpr = dx.make_jaxpr(lambda x, t: dx.jvp(_sin_neg, (x,), (t,)))(3.0, 1.0)
    known, unknown, out_unknowns, num_res = partial_eval_jaxpr(jvp_jaxpr.jaxpr, [False, True])
    assert str(known) == (GOLDEN / "autodidax_pe_known.txt").read_text().rstrip("\n")
    assert str(unknown) == (GOLDEN / "autodidax_pe_unknown.txt").read_text().rstrip("\n")
    assert out_unknowns == (False, True)
    assert num_res == 1
    typecheck_jaxpr(known)
    typecheck_jaxpr(unknown)


def test_partial_eval_jaxpr_is_cached_by_fingerprint() -> None:
    j1 = dx.make_jaxpr(lambda x, t: dx.jvp(_sin_neg, (x,), (t,)))(3.0, 1.0)
    j2 = dx.make_jaxpr(lambda x, t: dx.jvp(_sin_neg, (x,), (t,)))(5.0, 2.0)
    assert (
        partial_eval_jaxpr(j1.jaxpr, [False, True])[1]
        is partial_eval_jaxpr(j2.jaxpr, [False, True])[1]
    )


def test_linearize_computes_primals_now_and_stages_only_tangents() -> None:
    calls: list[int] = []

    def f(x: Any) -> Any:
        calls.append(1)
        return [lax.mul(lax.sin(x), lax.exp(x))]

    x = np.linspace(0.1, 1.0, 4)
    outs, linear, residuals, differentiable, nonzero = linearize_flat(f, [x])
    assert calls == [1]
    np.testing.assert_allclose(outs[0], np.sin(x) * np.exp(x))
    assert differentiable == [True]
    assert nonzero == [True]
    # only linear operations remain: no sin, exp or cos is recomputed
    assert set(_names(linear)) <= {"mul", "add"}
    assert all(isinstance(r, dx.Array) for r in residuals)
    typecheck_jaxpr(linear)


def test_residuals_are_deduplicated() -> None:
    def f(x: Any) -> Any:
        c = lax.cos(x)
        # c multiplies the tangent twice: one residual, not two
        return [lax.add(lax.mul(c, lax.sin(x)), lax.mul(c, x))]

    _, linear, residuals, _, _ = linearize_flat(f, [np.ones(3)])
    ids = [id(r) for r in residuals]
    assert len(ids) == len(set(ids))
    assert len(linear.in_binders) == len(residuals) + 1


def test_jit_partial_eval_rule_splits_known_and_unknown_calls() -> None:
    traces: list[int] = []

    @dx.jit
    def g(x: Any) -> Any:
        traces.append(1)
        return lax.mul(lax.sin(x), x)

    x = np.linspace(0.0, 1.0, 5)
    y, f_jvp = dx.linearize(g, x)
    np.testing.assert_allclose(y, np.sin(x) * x)
    t = np.ones(5)
    np.testing.assert_allclose(f_jvp(t), (np.cos(x) * x + np.sin(x)) * t)
    assert traces == [1]
    closed = dx.make_jaxpr(f_jvp)(t)
    # the linear map is one jit call whose body only multiplies and adds:
    # the known call ran when linearize did
    (call,) = [e for e in closed.eqns if e.primitive.name == "jit"]
    assert set(_names(call.params["jaxpr"])) <= {"mul", "add"}
    typecheck_jaxpr(closed)


def test_known_jit_outputs_are_not_recomputed() -> None:
    def f(x: Any) -> Any:
        return dx.jit(lambda a: (lax.exp(a), lax.mul(a, a)))(x)[1]

    closed = dx.make_jaxpr(lambda x, t: dx.linearize(f, x)[1](t))(2.0, 1.0)

    # exp is a known output of the jitted call: it appears in no unknown jaxpr
    def walk(j: Any) -> list[str]:
        names = []
        for e in j.eqns:
            names.append(e.primitive.name)
            if "jaxpr" in e.params:
                names += walk(e.params["jaxpr"])
        return names

    assert walk(closed).count("exp") == 1  # once, in the known call


def test_linearize_of_integer_input_has_no_tangent_input() -> None:
    def f(x: Any, n: Any) -> Any:
        return [lax.mul(x, lax.convert_element_type(n, np.float64))]

    _, linear, _, differentiable, nonzero = linearize_flat(f, [2.0, np.int64(3)])
    assert differentiable == [True, False]
    assert nonzero == [True]
    assert len(linear.in_binders) == 1
