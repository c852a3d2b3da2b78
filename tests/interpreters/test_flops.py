"""The flops interpreter directly: each rule's count, constant propagation, and control flow."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax import lax
from didax.api.flops import cost
from didax.core import lax as core_lax
from didax.core.abstract import ShapedArray
from didax.core.dtypes import float32, float64, int32, int64
from didax.core.lax import STANDARD_PRIMITIVES
from didax.core.lax.cond import cond_p
from didax.core.lax.jit import jit_p
from didax.core.lax.scan import scan_p
from didax.core.lax.while_loop import while_p
from didax.core.primitive import Primitive
from didax.interpreters import loop_flops
from didax.interpreters import while_loop as while_rules
from didax.interpreters.flops import (
    FLOPS_RULES,
    Cost,
    Operand,
    count_jaxpr,
    integer_pow_multiplies,
    operand_of,
)
from didax.ir.jaxpr import Jaxpr

F64 = ShapedArray((), float64)
X = np.linspace(0.5, 2.0, 20).reshape(4, 5)  # 20 elements


def count(fun: Callable[..., Any], *args: Any) -> Cost:
    return cost(fun)(*args)


# --- the table -------------------------------------------------------------------------------


def test_every_standard_and_control_flow_primitive_has_a_rule() -> None:
    # The rules of custom_jvp/custom_vjp/checkpoint come with those primitives.
    prims = [*STANDARD_PRIMITIVES, jit_p, cond_p, while_p, scan_p]
    assert [p.name for p in prims if p not in FLOPS_RULES] == []


def test_missing_rule_names_primitive_and_interpreter() -> None:
    prim = Primitive("flops_test_unruled")
    with pytest.raises(NotImplementedError, match="'flops_test_unruled' has no flops rule"):
        FLOPS_RULES[prim]


def test_a_second_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="already registered"):
        FLOPS_RULES.register(core_lax.add_p, FLOPS_RULES[core_lax.add_p])


def test_cost_arithmetic() -> None:
    assert Cost(1, 2) + Cost(3, 4, estimated=True) == Cost(4, 6, estimated=True)
    assert Cost(2, 3) * 4 == Cost(8, 12)
    assert Cost.maximum([Cost(5, 0), Cost(1, 7)]) == Cost(5, 7, estimated=True)
    assert Cost.maximum([Cost(5, 1), Cost(5, 1)]) == Cost(5, 1)  # nothing was guessed


def test_only_integer_and_boolean_scalars_are_known() -> None:
    assert operand_of(ShapedArray((), int32), 7).value == np.int32(7)
    assert operand_of(ShapedArray((), np.dtype(bool)), True).value == np.True_
    assert operand_of(F64, 1.5).value is None
    assert operand_of(ShapedArray((2,), int64), np.arange(2)).value is None


# --- first-order rules --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "op",
    [lax.add, lax.sub, lax.mul, lax.div, lax.rem, lax.max, lax.min, lax.lt, lax.eq],
    ids=lambda f: f.__name__,
)
def test_binary_element_wise_is_one_per_element(op: Callable[..., Any]) -> None:
    assert count(op, X, X + 1.0) == Cost(20)


@pytest.mark.parametrize(
    "op",
    [lax.neg, lax.abs, lax.sign, lax.floor, lax.ceil, lax.round],
    ids=lambda f: f.__name__,
)
def test_unary_element_wise_is_one_per_element(op: Callable[..., Any]) -> None:
    assert count(op, X) == Cost(20)


@pytest.mark.parametrize(
    "op",
    [
        lax.exp,
        lax.log,
        lax.log1p,
        lax.expm1,
        lax.sin,
        lax.cos,
        lax.tan,
        lax.tanh,
        lax.sqrt,
        lax.rsqrt,
    ],
    ids=lambda f: f.__name__,
)
def test_transcendentals_are_counted_apart(op: Callable[..., Any]) -> None:
    assert count(op, X) == Cost(0, 20)


def test_pow_is_transcendental_and_logistic_is_its_definition() -> None:
    assert count(lax.pow, X, X) == Cost(0, 20)
    assert count(lax.logistic, X) == Cost(60, 20)  # 1 / (1 + exp(-x))


@pytest.mark.parametrize(
    ("y", "muls"), [(0, 0), (1, 0), (2, 1), (3, 2), (5, 3), (8, 3), (-1, 1), (-2, 2)]
)
def test_integer_pow_is_repeated_squaring(y: int, muls: int) -> None:
    assert integer_pow_multiplies(y) == muls
    assert count(lambda x: lax.integer_pow(x, y), X) == Cost(20 * muls)


def test_logical_select_and_integer_operations_count_as_xla_counts_them() -> None:
    b = X > 1.0
    assert count(lambda b: lax.and_(b, lax.not_(b)), b) == Cost(40)
    assert count(lambda b, x: lax.select(b, x, x), b, X) == Cost(20)
    assert count(lambda i: i * i + i, np.arange(6)) == Cost(12)


def test_convert_element_type_costs_only_a_change_of_dtype() -> None:
    assert count(lambda x: lax.convert_element_type(x, float32), X) == Cost(20)
    assert count(lambda x: lax.convert_element_type(x, float64), X) == Cost(0)
    assert count(lambda x: lax.stop_gradient(x), X) == Cost(0)


@pytest.mark.parametrize(
    "op",
    [
        lambda x: lax.reshape(x, (20,)),
        lambda x: lax.transpose(x, (1, 0)),
        lambda x: lax.broadcast_in_dim(x, (3, 4, 5), (1, 2)),
        lambda x: lax.slice(x, (1, 1), (3, 4)),
        lambda x: lax.dynamic_slice(x, (1, 2), (2, 2)),
        lambda x: lax.concatenate([x, x], 0),
        lambda x: lax.rev(x, (0,)),
        lambda x: lax.pad(x, np.float64(0.0), ((1, 1, 1), (0, 0, 0))),
        lambda x: lax.expand_dims(lax.squeeze(lax.expand_dims(x, (0,)), (0,)), (2,)),
        lambda x: lax.iota(float64, 7),
    ],
)
def test_structural_operations_are_free(op: Callable[..., Any]) -> None:
    assert count(op, X) == Cost(0)


def test_reductions_are_n_minus_one_per_output_element() -> None:
    assert count(lambda x: lax.reduce_sum(x, (0, 1)), X) == Cost(19)
    assert count(lambda x: lax.reduce_max(x, (0,)), X) == Cost(15)
    assert count(lambda x: lax.reduce_prod(x, (1,)), X) == Cost(16)
    assert count(lambda x: lax.argmin(x, 1, int32), X) == Cost(16)
    assert count(lambda x: lax.cumsum(x, 1), X) == Cost(16)
    assert count(lambda x: lax.cumsum(x, 0, reverse=True), X) == Cost(15)
    assert count(lambda x: lax.reduce_sum(x, (0,)), np.ones((0, 3))) == Cost(0)


@pytest.mark.parametrize(("m", "k", "n"), [(1, 1, 1), (2, 3, 4), (7, 9, 3), (16, 1, 8)])
def test_matmul_is_two_m_k_n(m: int, k: int, n: int) -> None:
    assert count(lambda a, b: a @ b, np.ones((m, k)), np.ones((k, n))) == Cost(2 * m * k * n)


def test_dot_general_is_twice_output_size_times_contracted_size() -> None:
    a, b = np.ones((3, 4, 5, 6)), np.ones((3, 6, 5, 2))
    dims = (((2, 3), (2, 1)), ((0,), (0,)))
    out = 3 * 4 * 2
    assert count(lambda a, b: lax.dot_general(a, b, dims), a, b) == Cost(2 * out * 30)


# --- constants, dead code ---------------------------------------------------------------------


def test_operations_on_literals_are_folded_as_xla_folds_them() -> None:
    jaxpr = dx.make_jaxpr(lambda x: x * lax.add(2.0, 3.0))(X)
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns].count("add") == 1
    assert count(lambda x: x * lax.add(2.0, 3.0), X) == Cost(20)


def test_arguments_and_closed_over_arrays_are_not_folded() -> None:
    w = np.ones((4, 5))
    assert count(lambda x: x * lax.add(w, w), X) == Cost(40)


def test_dead_code_does_not_count() -> None:
    def f(x: Any) -> Any:
        dnp.exp(x @ x.T)  # computed, never used
        return x + 1.0

    assert count(f, X) == Cost(20)


def test_known_values_flow_through_integer_arithmetic() -> None:
    jaxpr = dx.make_jaxpr(lambda n: (n * 3 + 1) // 2 > 7)(5).jaxpr
    counted = count_jaxpr(jaxpr, [operand_of(ShapedArray((), int64), 5)])
    assert counted.outs[0].value == np.True_
    assert not counted.outs[0].static
    unknown = count_jaxpr(jaxpr, [Operand(ShapedArray((), int64))])
    assert unknown.outs[0].value is None
    assert counted.cost == unknown.cost  # known is not free: the arithmetic still runs


# --- jit and cond ---------------------------------------------------------------------------


def test_jit_counts_its_body_and_passes_known_values_out() -> None:
    inner = dx.jit(lambda x: dnp.sin(x) * x)
    assert count(lambda x: dx.jit(lambda y: inner(y) + 1.0)(x), X) == Cost(40, 20)
    jaxpr = dx.make_jaxpr(dx.jit(lambda n: n + 1))(3).jaxpr
    (out,) = count_jaxpr(jaxpr, [operand_of(ShapedArray((), int64), 3)]).outs
    assert out.value == 4


W = np.ones((5, 5))


def _cond(pred: Any, x: Any) -> Any:
    # True: 20 flops; False: 200 flops and 20 transcendentals.
    return lax.cond(pred, lambda v: v * 2.0, lambda v: dnp.tanh(v @ W), x)


def test_cond_with_a_known_predicate_counts_the_branch_taken() -> None:
    assert count(lambda x: _cond(True, x), X) == Cost(20)
    assert count(lambda x: _cond(False, x), X) == Cost(200, 20)
    # An integer argument is known: 1 (compare) + 1 (convert) + the branch.
    assert count(lambda n, x: _cond(n > 3, x), 5, X) == Cost(22)


def test_cond_with_an_unknown_predicate_counts_the_larger_branch_field_by_field() -> None:
    c = count(lambda x: _cond(dnp.sum(x) > 0.0, x), X)
    assert c == Cost(19 + 1 + 1 + 200, 20, estimated=True)
    same = count(lambda x: lax.cond(dnp.sum(x) > 0.0, lambda v: v * 2.0, lambda v: v + 1.0, x), X)
    assert same == Cost(19 + 1 + 1 + 20)


def test_switch_index_out_of_range_takes_the_last_branch() -> None:
    branches = tuple(
        dx.make_jaxpr(f)(X).jaxpr for f in (lambda v: v, lambda v: v * 2.0, lambda v: dnp.sin(v))
    )
    x = Operand(ShapedArray((4, 5), float64))
    for index, expected in [(0, Cost()), (1, Cost(20)), (2, Cost(0, 20)), (9, Cost(0, 20))]:
        counted = FLOPS_RULES[cond_p](
            [operand_of(ShapedArray((), int32), index), x], [x.aval], branches=branches
        )
        assert not isinstance(counted, Cost)
        assert counted.cost == expected


# --- loops ----------------------------------------------------------------------------------


def _double(i: Any, c: Any) -> Any:
    return c * 2.0


def test_scan_counts_length_times_its_body() -> None:
    body = count(lambda c, x: c * x + 1.0, X[0], X[0])

    def loop(x: Any, reverse: bool) -> Any:
        return lax.scan(lambda c, xi: (c * xi + 1.0, c), x[0], x, reverse=reverse)

    assert count(lambda x: loop(x, False), X) == body * 4
    assert count(lambda x: loop(x, True), X) == body * 4


def test_fori_loop_with_literal_bounds_is_a_scan() -> None:
    assert count(lambda x: lax.fori_loop(0, 10, _double, x), X) == Cost(200)


def test_while_with_a_counted_loop_knows_its_trip_count() -> None:
    # Each trip: 20 multiplies and the counter's add; each test: one compare.
    def f(x: Any, n: Any) -> Any:
        return lax.fori_loop(0, n, _double, x)

    for n in (0, 1, 10, 10**9):
        assert count(f, X, n) == Cost(21 * n + (n + 1))
    assert count(lambda x, a, n: lax.fori_loop(a, n, _double, x), X, 7, 3) == Cost(1)


@pytest.mark.parametrize(
    ("test", "step", "start", "trips"),
    [
        (lambda i: i < 10, 3, 0, 4),
        (lambda i: i <= 9, 3, 0, 4),
        (lambda i: lax.gt(10, i), 3, 0, 4),  # the bound first
        (lambda i: i >= 0, -3, 10, 4),
        (lambda i: i > 0, -3, 10, 4),
        (lambda i: lax.lt(0, i), -5, 10, 2),
        (lambda i: i * i < 50, 1, 0, 8),  # not a counted loop: simulated
        (lambda i: i % 7 != 3, 2, 0, 5),  # 0 2 4 6 8 10 (% 7 = 3): simulated
    ],
)
def test_while_trip_counts(test: Callable[[Any], Any], step: int, start: int, trips: int) -> None:
    def f(x: Any) -> Any:
        return lax.while_loop(lambda c: test(c[0]), lambda c: (c[0] + step, c[1] * 2.0), (start, x))

    jaxpr = dx.make_jaxpr(f)(X).jaxpr
    (loop,) = [e for e in jaxpr.eqns if e.primitive is while_p]
    per_test = count_jaxpr(
        loop.params["cond_jaxpr"], [Operand(v.aval) for v in loop.params["cond_jaxpr"].in_binders]
    ).cost
    assert count(f, X) == Cost(21 * trips) + per_test * (trips + 1)


def test_while_with_an_unknown_predicate_counts_one_iteration() -> None:
    c = count(lambda x: lax.while_loop(lambda v: dnp.sum(v) < 100.0, lambda v: v * 2.0, x), X)
    assert c == Cost(19 + 1 + 20, estimated=True)


def test_a_loop_too_long_to_simulate_counts_one_iteration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(while_rules, "MAX_SIMULATED_TRIPS", 50)

    def f(x: Any) -> Any:
        return lax.while_loop(
            lambda c: c[0] * c[0] < 10_000, lambda c: (c[0] + 1, c[1] * 2.0), (0, x)
        )

    assert count(f, X) == Cost(21 + 2, estimated=True)
    monkeypatch.setattr(while_rules, "MAX_SIMULATED_TRIPS", 1000)
    assert count(f, X) == Cost(21 * 100 + 2 * 101)


def _alternate(i: Any, c: Any) -> Any:
    # Even iterations double (20 flops), odd ones square and add (40).
    return lax.cond(i % 2 == 0, lambda v: v * 2.0, lambda v: v + v * v, c)


def test_a_loop_whose_body_depends_on_the_counter_is_counted_trip_by_trip() -> None:
    index = count(lambda i: i % 2 == 0, 3).flops + 1  # Python's %, the test, the convert
    per_pair = 2 * (index + 1) + 20 + 40  # + 1: the counter's add
    assert count(lambda x: lax.fori_loop(0, 10, _alternate, x), X) == Cost(5 * per_pair)
    assert count(lambda x, n: lax.fori_loop(0, n, _alternate, x), X, 10) == Cost(5 * per_pair + 11)


def test_nested_loops_multiply_and_an_inner_bound_can_follow_the_outer_counter() -> None:
    def inner(i: Any, c: Any) -> Any:
        return lax.fori_loop(0, 4, _double, c)

    assert count(lambda x: lax.fori_loop(0, 3, inner, x), X) == Cost(3 * 4 * 20)

    def triangle(i: Any, c: Any) -> Any:
        return lax.fori_loop(0, i, _double, c)  # i trips: a while loop

    # Outer trip i: the inner loop (21 i + i + 1), the outer counter (1); 5 outer tests.
    expected = sum(21 * i + i + 1 + 1 for i in range(4)) + 5
    assert count(lambda x, n: lax.fori_loop(0, n, triangle, x), X, 4) == Cost(expected)


def test_body_costs_that_stay_unknown_are_estimated_per_iteration() -> None:
    def body(c: Any, x: Any) -> Any:
        return lax.cond(x > 0.0, lambda v: v * 2.0, lambda v: v, c), None

    c = count(lambda c, xs: lax.scan(body, c, xs)[0], X[0], X[:, 0])
    assert c == Cost(4 * (1 + 1 + 5), estimated=True)


def test_transformed_programs_are_counted_too() -> None:
    def f(w: Any, x: Any) -> Any:
        return dnp.sum(dnp.tanh(w @ x))

    w, x = np.ones((3, 4)), np.ones(4)
    fwd = count(f, w, x)
    assert fwd == Cost(2 * 3 * 4 + 2, 3)
    assert count(dx.vmap(f, (None, 0)), w, np.ones((5, 4))) == Cost(5 * (2 * 3 * 4 + 2), 15)
    grad = count(dx.grad(f), w, x)
    assert grad.transcendentals == 3
    assert 2 * fwd.flops < grad.flops < 4 * fwd.flops


def test_count_jaxpr_without_pruning_counts_everything() -> None:
    jaxpr: Jaxpr = dx.make_jaxpr(lambda x: (dnp.exp(x), x + 1.0)[1])(X).jaxpr
    x = Operand(ShapedArray((4, 5), float64))
    assert count_jaxpr(jaxpr, [x]).cost == Cost(20)
    assert count_jaxpr(jaxpr, [x], prune=False).cost == Cost(20, 20)


def test_a_trip_by_trip_count_gives_up_on_an_unknown_predicate_or_a_long_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The body's cost depends on the counter, the predicate on the data.
    def f(x: Any) -> Any:
        def body(c: Any) -> Any:
            return c[0] + 1, _alternate(c[0], c[1])

        return lax.while_loop(lambda c: dnp.sum(c[1]) < 1e6, body, (0, x))[1]

    one = count(f, X)
    assert one.estimated
    assert one.flops < 100

    monkeypatch.setattr(loop_flops, "MAX_EXACT_TRIPS", 3)
    long = count(lambda x, n: lax.fori_loop(0, n, _alternate, x), X, 10)
    assert long.estimated
    assert long.flops < 100
    scan = count(lambda x: lax.fori_loop(0, 10, _alternate, x), X)
    assert scan.estimated
    assert scan.flops == 10 * (count(lambda i: i % 2 == 0, 3).flops + 1 + 1 + 40)


# --- custom rules and checkpoint ----------------------------------------------------------


def test_custom_calls_count_their_function() -> None:
    def body(x: Any) -> Any:
        return x * 2.0 + 1.0

    f = dx.custom_jvp(body)
    f.defjvp(lambda p, t: (f(p[0]), t[0] * 2.0))
    g = dx.custom_vjp(body)
    g.defvjp(lambda x: (g(x), None), lambda r, ct: (ct * 2.0,))
    x = np.ones(5)
    assert dx.flops(f)(x) == dx.flops(g)(x) == dx.flops(body)(x) == 10
    # Differentiated, the rule's equations are what count: the rule's tangent
    # (t * 2.0, once a cotangent arrives) is one multiply per element more.
    with_rule = dx.flops(dx.grad(lambda x: dnp.sum(f(x) * x)))(x)
    without = dx.flops(dx.grad(lambda x: dnp.sum(body(x) * x)))(x)
    assert with_rule == without > 0


def test_checkpoint_counts_its_region_and_the_recomputation() -> None:
    def layer(x: Any) -> Any:
        # The backward pass needs sin(x) * 3.0, which a checkpoint recomputes.
        return dnp.sin(dnp.sin(x) * 3.0)

    x = np.ones(8)
    plain = lambda x: dnp.sum(layer(layer(x)))  # noqa: E731
    ck = lambda x: dnp.sum(dx.checkpoint(layer)(dx.checkpoint(layer)(x)))  # noqa: E731
    assert dx.flops(ck)(x) == dx.flops(plain)(x)
    # The backward pass recomputes the regions: grad costs more with them.
    assert cost(dx.grad(ck))(x).transcendentals > cost(dx.grad(plain))(x).transcendentals
