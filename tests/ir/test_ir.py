"""The IR: golden printing, the type checker, fingerprints and dead-code elimination."""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import didax as dx
from didax import lax
from didax.core import dtypes
from didax.core import lax as core_lax
from didax.core.abstract import ShapedArray
from didax.interpreters.evaluation import eval_closed_jaxpr, eval_jaxpr
from didax.ir.fingerprint import fingerprint
from didax.ir.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, JaxprType, Literal, Var
from didax.ir.passes import dce_jaxpr
from didax.ir.typecheck import JaxprTypeError, typecheck_jaxpr

GOLDEN = pathlib.Path(__file__).parent.parent / "golden"

F64 = ShapedArray((), dtypes.float64)
F64_3 = ShapedArray((3,), dtypes.float64)


def _sin_neg(x: Any) -> Any:
    return lax.neg(lax.sin(x))


def _consts_and_params(x: Any) -> Any:
    y = lax.mul(x, np.arange(3, dtype=np.float32))
    return lax.reduce_sum(y, 0), lax.broadcast_in_dim(y, (2, 3), (1,))


def _vmap_matvec(m: Any) -> Any:
    return dx.vmap(lambda row: lax.dot(row, np.ones(3)))(m)


GOLDEN_CASES: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
    # Autodidax part 2: make_jaxpr(lambda x: 2. * x)
    "autodidax_mul": (lambda x: lax.mul(2.0, x), (3.0,)),
    # Autodidax part 2: omnistaging stages a mul of two constants
    "autodidax_omnistaging": (lambda: lax.mul(2.0, 2.0), ()),
    # Autodidax part 4: the sin/neg example and its JVP jaxpr
    "autodidax_sin_neg": (_sin_neg, (3.0,)),
    "autodidax_sin_neg_jvp": (lambda x, t: dx.jvp(_sin_neg, (x,), (t,)), (3.0, 1.0)),
    "consts_and_params": (_consts_and_params, (np.ones(3, np.float32),)),
    "vmap_matvec": (_vmap_matvec, (np.ones((4, 3)),)),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_golden_jaxpr_text(name: str) -> None:
    fun, args = GOLDEN_CASES[name]
    closed = dx.make_jaxpr(fun)(*args)
    typecheck_jaxpr(closed)
    expected = (GOLDEN / f"{name}.txt").read_text().rstrip("\n")
    assert str(closed) == expected


def test_make_jaxpr_stages_mul_of_constants() -> None:
    closed = dx.make_jaxpr(lambda: lax.mul(2.0, 2.0))()
    assert [e.primitive.name for e in closed.eqns] == ["mul"]
    assert eval_closed_jaxpr(closed, []) == [4.0]


def test_jaxpr_type_prints_like_autodidax() -> None:
    closed = dx.make_jaxpr(lambda x: lax.mul(2.0, x))(3.0)
    assert str(typecheck_jaxpr(closed)) == "(f64[]) -> (f64[])"


def test_scalar_constants_are_inlined_and_arrays_hoisted_once() -> None:
    c = np.ones(3)
    closed = dx.make_jaxpr(lambda x: lax.add(lax.mul(x, c), lax.mul(c, 2.0)))(np.ones(3))
    assert len(closed.consts) == 1
    assert closed.consts[0] is c
    mul_by_two = closed.eqns[-2]
    # 2.0 stays a rank-0 literal operand (JAX's ``mul c 2.0:f64[]``): no broadcast.
    assert isinstance(mul_by_two.inputs[1], Literal)
    assert mul_by_two.inputs[1].aval.shape == ()
    assert [e.primitive.name for e in closed.eqns] == ["mul", "mul", "add"]


def test_weak_python_scalar_input_is_weakly_typed() -> None:
    closed = dx.make_jaxpr(lambda x: x)(2.0)
    assert closed.in_avals == (ShapedArray((), dtypes.float64, weak_type=True),)
    strong = dx.make_jaxpr(lambda x: x)(np.float64(2.0))
    assert strong.in_avals == (F64,)


# --- the type checker --------------------------------------------------------


def _eqn(prim: Any, inputs: tuple[Any, ...], outs: tuple[Var, ...], **params: Any) -> JaxprEqn:
    return JaxprEqn(prim, inputs, params, outs)


def test_typecheck_accepts_a_well_typed_jaxpr() -> None:
    a, b = Var(F64), Var(F64)
    jaxpr = Jaxpr((a,), (_eqn(core_lax.sin_p, (a,), (b,)),), (b,))
    assert typecheck_jaxpr(jaxpr) == JaxprType((F64,), (F64,))


def test_typecheck_rejects_unbound_variable() -> None:
    a, b, c = Var(F64), Var(F64), Var(F64)
    jaxpr = Jaxpr((a,), (_eqn(core_lax.add_p, (a, c), (b,)),), (b,))
    with pytest.raises(JaxprTypeError, match="used before it is bound"):
        typecheck_jaxpr(jaxpr)


def test_typecheck_rejects_unbound_output() -> None:
    a, b = Var(F64), Var(F64)
    with pytest.raises(JaxprTypeError, match="used before it is bound"):
        typecheck_jaxpr(Jaxpr((a,), (), (b,)))


def test_typecheck_rejects_rebound_variable() -> None:
    a, b = Var(F64), Var(F64)
    eqns = (_eqn(core_lax.sin_p, (a,), (b,)), _eqn(core_lax.cos_p, (a,), (b,)))
    with pytest.raises(JaxprTypeError, match="bound twice"):
        typecheck_jaxpr(Jaxpr((a,), eqns, (b,)))
    with pytest.raises(JaxprTypeError, match="bound twice"):
        typecheck_jaxpr(Jaxpr((a, a), (), (a,)))


def test_typecheck_rejects_ill_typed_equation() -> None:
    a, b, c = Var(F64), Var(F64_3), Var(F64)
    jaxpr = Jaxpr((a, b), (_eqn(core_lax.add_p, (a, b), (c,)),), (c,))
    with pytest.raises(JaxprTypeError, match="add"):
        typecheck_jaxpr(jaxpr)


def test_typecheck_rejects_wrong_out_binder_type() -> None:
    a, b = Var(F64), Var(F64_3)
    jaxpr = Jaxpr((a,), (_eqn(core_lax.sin_p, (a,), (b,)),), (b,))
    with pytest.raises(JaxprTypeError, match="returns f64"):
        typecheck_jaxpr(jaxpr)


def test_typecheck_rejects_wrong_out_binder_dtype() -> None:
    a, b = Var(F64), Var(ShapedArray((), dtypes.float32))
    jaxpr = Jaxpr((a,), (_eqn(core_lax.sin_p, (a,), (b,)),), (b,))
    with pytest.raises(JaxprTypeError):
        typecheck_jaxpr(jaxpr)


def test_typecheck_rejects_wrong_number_of_out_binders() -> None:
    a, b, c = Var(F64), Var(F64), Var(F64)
    jaxpr = Jaxpr((a,), (_eqn(core_lax.sin_p, (a,), (b, c)),), (b,))
    with pytest.raises(JaxprTypeError, match="returns 1 values"):
        typecheck_jaxpr(jaxpr)


def test_typecheck_rejects_bad_params() -> None:
    a, b = Var(F64_3), Var(ShapedArray((4,), dtypes.float64))
    eqn = _eqn(core_lax.reshape_p, (a,), (b,), new_sizes=(4,))
    with pytest.raises(JaxprTypeError, match="reshape"):
        typecheck_jaxpr(Jaxpr((a,), (eqn,), (b,)))


def test_typecheck_rejects_non_scalar_literal_and_bad_consts() -> None:
    a, b = Var(F64_3), Var(F64_3)
    lit = Literal(np.float64(1.0), F64_3)
    with pytest.raises(JaxprTypeError, match="not a scalar"):
        typecheck_jaxpr(Jaxpr((a,), (_eqn(core_lax.add_p, (a, lit), (b,)),), (b,)))
    with pytest.raises(JaxprTypeError, match="constant"):
        typecheck_jaxpr(ClosedJaxpr(Jaxpr((a,), (), (a,)), (np.ones(4),)))


# --- fingerprints ------------------------------------------------------------


def _f(x: Any) -> Any:
    return lax.add(lax.sin(x), 1.0)


def test_fingerprint_ignores_variable_identity() -> None:
    j1 = dx.make_jaxpr(_f)(1.0)
    j2 = dx.make_jaxpr(_f)(2.0)
    assert j1.jaxpr is not j2.jaxpr
    assert fingerprint(j1) == fingerprint(j2)
    assert hash(fingerprint(j1)) == hash(fingerprint(j2))


@pytest.mark.parametrize(
    ("other", "equal"),
    [
        (lambda x: lax.add(lax.sin(x), 1.0), True),  # the same program, traced again
        (lambda x: lax.add(lax.sin(x), 2.0), False),  # another literal
        (lambda x: lax.add(lax.cos(x), 1.0), False),  # another primitive
        (lambda x: lax.add(1.0, lax.sin(x)), False),  # operands swapped
        (lambda x: lax.sub(lax.sin(x), -1.0), False),  # same values, other program
    ],
)
def test_fingerprint_equal_exactly_for_equal_programs(
    other: Callable[[Any], Any], equal: bool
) -> None:
    j1, j2 = dx.make_jaxpr(_f)(1.0), dx.make_jaxpr(other)(1.0)
    assert (fingerprint(j1) == fingerprint(j2)) is equal


def test_fingerprint_distinguishes_types_params_and_signed_zero() -> None:
    fp = fingerprint
    assert fp(dx.make_jaxpr(_f)(1.0)) != fp(dx.make_jaxpr(_f)(np.float32(1.0)))
    assert fp(dx.make_jaxpr(_f)(np.ones(2))) != fp(dx.make_jaxpr(_f)(np.ones(3)))
    s0 = dx.make_jaxpr(lambda x: lax.reduce_sum(x, 0))(np.ones((2, 2)))
    s1 = dx.make_jaxpr(lambda x: lax.reduce_sum(x, 1))(np.ones((2, 2)))
    assert fp(s0) != fp(s1)
    pz = dx.make_jaxpr(lambda x: lax.add(x, 0.0))(1.0)
    nz = dx.make_jaxpr(lambda x: lax.add(x, -0.0))(1.0)
    assert fp(pz) != fp(nz)
    nan1 = dx.make_jaxpr(lambda x: lax.add(x, float("nan")))(1.0)
    nan2 = dx.make_jaxpr(lambda x: lax.add(x, float("nan")))(1.0)
    assert fp(nan1) == fp(nan2)


def test_fingerprint_distinguishes_output_order_and_sharing() -> None:
    a = dx.make_jaxpr(lambda x, y: (lax.sin(x), lax.sin(y)))(1.0, 2.0)
    b = dx.make_jaxpr(lambda x, y: (lax.sin(y), lax.sin(x)))(1.0, 2.0)
    c = dx.make_jaxpr(lambda x, y: (lax.sin(x), lax.sin(x)))(1.0, 2.0)
    assert len({fingerprint(a), fingerprint(b), fingerprint(c)}) == 3


# --- dead-code elimination -----------------------------------------------------


def test_dce_removes_unused_equations_and_reports_used_inputs() -> None:
    def f(x: Any, y: Any) -> Any:
        lax.cos(y)  # dead
        return lax.sin(x), lax.mul(y, 2.0)

    closed = dx.make_jaxpr(f)(1.0, 2.0)
    assert len(closed.eqns) == 3
    pruned, used = dce_jaxpr(closed.jaxpr)
    assert [e.primitive.name for e in pruned.eqns] == ["sin", "mul"]
    assert used == [True, True]
    only_first, used = dce_jaxpr(closed.jaxpr, [True, False])
    assert [e.primitive.name for e in only_first.eqns] == ["sin"]
    assert used == [True, False]
    typecheck_jaxpr(only_first)
    assert eval_jaxpr(only_first, [0.5, 2.0]) == [np.sin(0.5)]
