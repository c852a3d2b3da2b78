"""interpreters.evaluation: the root EvalTrace, the impl rules and eval_jaxpr."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import didax as dx
from didax.core import dtypes
from didax.core import lax as core_lax
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, abstract_eval
from didax.core.array import Array
from didax.core.basearray import HostArray, Value
from didax.core.errors import ShapeError, UnexpectedTracerError
from didax.core.lax.jit import jit_p
from didax.core.primitive import Primitive
from didax.core.trace import current_trace, eager_evaluation
from didax.interpreters import evaluation
from didax.interpreters.evaluation import (
    EVAL_TRACE,
    IMPL_RULES,
    EvalTrace,
    eval_closed_jaxpr,
    eval_jaxpr,
)
from didax.ir.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var

F64 = ShapedArray((), dtypes.float64)
F64_3 = ShapedArray((3,), dtypes.float64)
MATVEC = (((1,), (0,)), ((), ()))


def _host_of(x: Value) -> HostArray | None:
    """An eager result's host data (None when only XLA computed it)."""
    assert isinstance(x, Array)
    return x._host


def _arr(values: Any, dtype: Any) -> np.ndarray[Any, Any]:
    return np.asarray(values, dtype)


# --- eval_jaxpr ---------------------------------------------------------------------------


def test_eval_jaxpr_of_a_hand_built_jaxpr() -> None:
    a, b = Var(F64_3), Var(F64)
    c, d, e = Var(F64_3), Var(F64_3), Var(F64)
    eqns = (
        JaxprEqn(
            core_lax.broadcast_in_dim_p, (b,), {"shape": (3,), "broadcast_dimensions": ()}, (c,)
        ),
        JaxprEqn(core_lax.mul_p, (a, c), {}, (d,)),
        JaxprEqn(core_lax.reduce_sum_p, (d,), {"axes": (0,)}, (e,)),
    )
    two = Literal.of(np.float64(2.0))
    jaxpr = Jaxpr((a, b), eqns, (d, e, b, two))
    x = np.array([1.0, 2.0, 3.0])
    d_out, e_out, b_out, lit_out = eval_jaxpr(jaxpr, [x, np.float64(10.0)])
    np.testing.assert_array_equal(d_out, [10.0, 20.0, 30.0])
    np.testing.assert_array_equal(e_out, 60.0)
    assert b_out == 10.0
    assert lit_out == 2.0
    assert isinstance(lit_out, np.float64)


def test_eval_jaxpr_with_a_literal_operand() -> None:
    a, b = Var(F64), Var(F64)
    jaxpr = Jaxpr(
        (a,), (JaxprEqn(core_lax.sub_p, (Literal.of(np.float64(5.0)), a), {}, (b,)),), (b,)
    )
    assert eval_jaxpr(jaxpr, [np.float64(2.0)]) == [3.0]


def test_eval_jaxpr_checks_the_number_of_arguments() -> None:
    a = Var(F64)
    with pytest.raises(ValueError, match="zip"):
        eval_jaxpr(Jaxpr((a,), (), (a,)), [1.0, 2.0])


def test_eval_jaxpr_binds_under_the_current_trace() -> None:
    # Interpreting a jaxpr under make_jaxpr stages its equations again.
    inner = dx.make_jaxpr(lambda x: core_lax.exp(core_lax.sin(x)))(1.0)
    outer = dx.make_jaxpr(lambda x: eval_jaxpr(inner.jaxpr, [x]))(1.0)
    assert [e.primitive.name for e in outer.eqns] == ["sin", "exp"]


def test_eval_closed_jaxpr_passes_constants_first() -> None:
    c = np.array([1.0, 2.0, 3.0])
    closed = dx.make_jaxpr(lambda x: core_lax.sub(x, c))(np.zeros(3))
    assert isinstance(closed, ClosedJaxpr)
    assert len(closed.consts) == 1
    (out,) = eval_closed_jaxpr(closed, [np.full(3, 10.0)])
    np.testing.assert_array_equal(out, [9.0, 8.0, 7.0])


# --- the root trace --------------------------------------------------------------------------


def test_eval_trace_is_the_root() -> None:
    assert isinstance(EVAL_TRACE, EvalTrace)
    assert current_trace() is EVAL_TRACE
    assert EVAL_TRACE.name == "eager evaluation"


def test_eval_trace_accepts_python_scalars_and_device_arrays() -> None:
    out = EVAL_TRACE.process_primitive(core_lax.add_p, [1.0, 2.0], {})
    assert isinstance(out, dx.Array)
    assert out.dtype == np.float64
    assert out.weak_type  # two weak operands: a weak result, as JAX's lax.add(2.0, 3.0)
    assert out == 3.0
    dev = dx.device_put(np.arange(3.0))
    out = EVAL_TRACE.process_primitive(core_lax.neg_p, [dev], {})
    assert isinstance(out, dx.Array)
    np.testing.assert_array_equal(out, [0.0, -1.0, -2.0])


def test_eval_trace_types_before_running_the_impl() -> None:
    with pytest.raises(ShapeError, match="add applied to operands of types") as eager:
        EVAL_TRACE.process_primitive(core_lax.add_p, [np.ones(3), np.ones(4)], {})
    staged: list[str] = []

    def f(x: Any, y: Any) -> Any:
        with pytest.raises(ShapeError) as info:
            core_lax.add_p.bind(x, y)
        staged.append(str(info.value))
        return x

    dx.make_jaxpr(f)(np.ones(3), np.ones(4))
    # The same message eagerly and traced, but for the user's line.
    assert str(eager.value).split(" (at ")[0] == staged[0].split(" (at ")[0]


def test_multiple_results_come_back_as_a_list_of_typed_arrays() -> None:
    prim = Primitive("evaluation_test_split", multiple_results=True)

    ABSTRACT_EVAL.register(prim, lambda x: [x, x.update(dtype=dtypes.int8)])
    # The impl returns Python lists and NumPy's default dtypes: the trace fixes both.
    IMPL_RULES.register(prim, lambda x: [x * 2, [int(v) for v in x]])
    outs = EVAL_TRACE.process_primitive(prim, [np.array([1.5, 2.5], np.float32)], {})
    assert isinstance(outs, list)
    assert [o.dtype for o in outs] == [np.float32, np.int8]
    np.testing.assert_array_equal(outs[0], [3.0, 5.0])
    np.testing.assert_array_equal(outs[1], [1, 2])


def test_large_operands_take_the_compiled_route_except_products() -> None:
    big = dx.device_put(np.linspace(-1.0, 1.0, evaluation.LARGE, dtype=np.float32))
    small = dx.device_put(np.linspace(-1.0, 1.0, 7, dtype=np.float32))
    out = core_lax.tanh(big)
    assert _host_of(out) is None  # computed by XLA
    np.testing.assert_array_equal(np.asarray(out), np.asarray(dx.jit(core_lax.tanh)(big)))
    assert _host_of(core_lax.tanh(small)) is not None  # NumPy, the host route
    # A result of a million elements makes the signature compiled too.
    wide = core_lax.broadcast_in_dim(small[:1], (evaluation.LARGE,), (0,))
    assert _host_of(wide) is None
    # BLAS computes a large product: it stays on the host.
    m = dx.device_put(np.ones((1024, 1024), np.float32))
    prod = core_lax.dot_general(m, m, (((1,), (0,)), ((), ())))
    assert _host_of(prod) is not None
    np.testing.assert_array_equal(np.asarray(prod), np.full((1024, 1024), 1024.0, np.float32))


def test_the_compiled_route_takes_device_arrays_as_they_are() -> None:
    assert jit_p not in IMPL_RULES  # no host impl: always compiled
    body = dx.make_jaxpr(lambda x: core_lax.mul(x, 2.0))(np.ones(2)).jaxpr
    dev = dx.device_put(np.array([1.0, 2.0]))
    (out,) = EVAL_TRACE.process_primitive(jit_p, [dev], {"jaxpr": body, "name": "double"})
    assert isinstance(out, dx.Array)
    assert out.is_on_device  # computed by XLA, not on the host
    assert _host_of(out) is None
    np.testing.assert_array_equal(np.asarray(out), [2.0, 4.0])


def test_a_tracer_reaching_eager_evaluation_raises() -> None:
    messages: list[str] = []

    def f(x: Any) -> Any:
        with pytest.raises(UnexpectedTracerError) as info, eager_evaluation():
            core_lax.sin(x)
        messages.append(str(info.value))
        with pytest.raises(UnexpectedTracerError):
            EVAL_TRACE.process_primitive(core_lax.cos_p, [x], {})
        return x

    dx.make_jaxpr(f)(1.0)
    assert "reached eager evaluation of sin" in messages[0]
    assert "make_jaxpr" in messages[0]


# --- impl rules: exact dtypes ------------------------------------------------------------


IMPL_CASES: list[tuple[Primitive, list[Any], dict[str, Any], Any]] = [
    # NumPy would sum int8 in the platform integer.
    (core_lax.reduce_sum_p, [_arr([100, 100, 100], np.int8)], {"axes": (0,)}, np.int8(44)),
    (core_lax.reduce_prod_p, [_arr([16, 16, 2], np.uint8)], {"axes": (0,)}, np.uint8(0)),
    (
        core_lax.cumsum_p,
        [_arr([100, 100], np.int8)],
        {"axis": 0, "reverse": False},
        _arr([100, -56], np.int8),
    ),
    (
        core_lax.cumsum_p,
        [_arr([1, 2, 3], np.int16)],
        {"axis": 0, "reverse": True},
        _arr([6, 5, 3], np.int16),
    ),
    (core_lax.add_p, [_arr([127], np.int8), _arr([1], np.int8)], {}, _arr([-128], np.int8)),
    (core_lax.mul_p, [_arr([200], np.uint8), _arr([2], np.uint8)], {}, _arr([144], np.uint8)),
    # Integer division truncates toward zero (C and XLA); NumPy floors.
    (
        core_lax.div_p,
        [_arr([-7, 7], np.int32), _arr([2, -2], np.int32)],
        {},
        _arr([-3, -3], np.int32),
    ),
    # XLA's x / 0 has every bit set; x % 0 is x.
    (core_lax.div_p, [_arr([5], np.uint8), _arr([0], np.uint8)], {}, _arr([255], np.uint8)),
    (
        core_lax.rem_p,
        [_arr([-7, 5], np.int16), _arr([2, 0], np.int16)],
        {},
        _arr([-1, 5], np.int16),
    ),
    (core_lax.sign_p, [_arr([3, 0], np.uint8)], {}, _arr([1, 0], np.uint8)),
    (core_lax.abs_p, [_arr([-3], np.int8)], {}, _arr([3], np.int8)),
    (core_lax.integer_pow_p, [_arr([3], np.int8)], {"y": 3}, _arr([27], np.int8)),
    (core_lax.integer_pow_p, [_arr([1.5], np.float32)], {"y": 2}, _arr([2.25], np.float32)),
    (core_lax.sin_p, [_arr([0.0], np.float32)], {}, _arr([0.0], np.float32)),
    (core_lax.exp_p, [_arr([0.0], np.float16)], {}, _arr([1.0], np.float16)),
    (core_lax.rsqrt_p, [_arr([4.0], np.float32)], {}, _arr([0.5], np.float32)),
    (core_lax.logistic_p, [_arr([0.0], np.float16)], {}, _arr([0.5], np.float16)),
    (
        core_lax.round_p,
        [_arr([2.5, -2.5], np.float32)],
        {"rounding_method": 0},
        _arr([3, -3], np.float32),
    ),
    (
        core_lax.round_p,
        [_arr([2.5, -2.5], np.float32)],
        {"rounding_method": 1},
        _arr([2, -2], np.float32),
    ),
    (
        core_lax.dot_general_p,
        [np.full((2, 3), 50, np.int8), np.ones(3, np.int8)],
        {"dimension_numbers": MATVEC, "precision": None, "preferred_element_type": None},
        _arr([-106, -106], np.int8),
    ),
    (
        # A wider preferred type is the type the product is computed in.
        core_lax.dot_general_p,
        [np.full((2, 3), 50, np.int8), np.ones(3, np.int8)],
        {
            "dimension_numbers": MATVEC,
            "precision": (core_lax.Precision.HIGHEST, core_lax.Precision.HIGHEST),
            "preferred_element_type": np.dtype(np.int32),
        },
        _arr([150, 150], np.int32),
    ),
    (
        # A float product typed int is computed in float, then converted.
        core_lax.dot_general_p,
        [_arr([[0.75, 0.75]], np.float32), _arr([1.0, 1.0], np.float32)],
        {
            "dimension_numbers": MATVEC,
            "precision": None,
            "preferred_element_type": np.dtype(np.int32),
        },
        _arr([1], np.int32),
    ),
    (
        core_lax.reduce_max_p,
        [_arr([[1, 5], [7, 2]], np.int8)],
        {"axes": (1,)},
        _arr([5, 7], np.int8),
    ),
    (
        core_lax.argmax_p,
        [_arr([1.0, 3.0, 2.0], np.float64)],
        {"axis": 0, "index_dtype": dtypes.int32},
        np.int32(1),
    ),
    (core_lax.iota_p, [], {"dtype": dtypes.int16, "size": 3}, _arr([0, 1, 2], np.int16)),
    (
        core_lax.convert_element_type_p,
        [_arr([np.nan, 1e10, -1e10, 2.7], np.float64)],
        {"new_dtype": dtypes.int8, "weak_type": False},
        _arr([0, 127, -128, 2], np.int8),
    ),
    (
        core_lax.select_p,
        [_arr([True, False], np.bool_), _arr([1, 1], np.int8), _arr([2, 2], np.int8)],
        {},
        _arr([1, 2], np.int8),
    ),
    (core_lax.not_p, [_arr([0], np.uint8)], {}, _arr([255], np.uint8)),
    (core_lax.and_p, [_arr([6], np.int16), _arr([3], np.int16)], {}, _arr([2], np.int16)),
    (core_lax.or_p, [_arr([True], np.bool_), _arr([False], np.bool_)], {}, _arr([True], np.bool_)),
    (core_lax.eq_p, [_arr([1], np.uint8), _arr([1], np.uint8)], {}, _arr([True], np.bool_)),
]


@pytest.mark.parametrize(
    ("prim", "args", "params", "expected"),
    IMPL_CASES,
    ids=[f"{c[0].name}-{i}" for i, c in enumerate(IMPL_CASES)],
)
def test_impl_result_has_the_typing_rules_dtype(
    prim: Primitive, args: list[Any], params: dict[str, Any], expected: Any
) -> None:
    (aval,) = abstract_eval(prim, [ShapedArray(a.shape, a.dtype) for a in args], params)
    # The raw impl rule already computes in the right dtype, without NumPy's promotion.
    with np.errstate(all="ignore"):
        raw = np.asarray(IMPL_RULES[prim](*args, **params))
    assert raw.dtype == aval.dtype
    assert raw.shape == aval.shape
    # And through the trace, which is what users see.
    out = EVAL_TRACE.process_primitive(prim, args, params)
    assert isinstance(out, dx.Array)
    assert out.dtype == aval.dtype
    np.testing.assert_array_equal(out, expected)


# --- IEEE arithmetic without warnings --------------------------------------------------------


@pytest.mark.parametrize(
    ("prim", "args", "expected"),
    [
        (core_lax.log_p, [np.float64(0.0)], -np.inf),
        (core_lax.log_p, [np.float32(-1.0)], np.nan),
        (core_lax.div_p, [np.float64(1.0), np.float64(0.0)], np.inf),
        (core_lax.div_p, [np.float64(0.0), np.float64(0.0)], np.nan),
        (core_lax.sqrt_p, [np.float64(-1.0)], np.nan),
        (core_lax.rsqrt_p, [np.float64(0.0)], np.inf),
        (core_lax.exp_p, [np.float32(1000.0)], np.inf),
        (core_lax.logistic_p, [np.float64(-1000.0)], 0.0),
        (core_lax.mul_p, [np.float16(60000.0), np.float16(60000.0)], np.inf),
    ],
)
def test_ieee_results_without_warnings(prim: Primitive, args: list[Any], expected: float) -> None:
    # pytest runs with filterwarnings=error: a NumPy RuntimeWarning would fail here.
    out = EVAL_TRACE.process_primitive(prim, args, {})
    assert out.dtype == np.asarray(args[0]).dtype
    np.testing.assert_array_equal(out, expected)


def test_log_of_zero_through_lax() -> None:
    assert core_lax.log(0.0) == -np.inf


def test_a_large_eager_numpy_call_is_one_compiled_program() -> None:
    # As JAX's jitted jax.numpy functions: the broadcast of b fuses into the add.
    import didax.numpy as dnp
    from didax.interpreters import evaluation as ev

    seen: list[str] = []
    real = ev._compiled

    def spy(prim: Primitive, args: Any, params: dict[str, Any]) -> Any:
        seen.append(prim.name)
        return real(prim, args, params)

    x = dx.device_put(np.ones((ev.LARGE // 8, 8), np.float32))
    b = dnp.arange(8, dtype=dnp.float32)
    try:
        ev._compiled = spy
        out = x + b
    finally:
        ev._compiled = real
    # One jitted program: no eager primitive ran (not a broadcast, then an add).
    assert seen == []
    assert _host_of(out) is None
    np.testing.assert_array_equal(np.asarray(out)[-1], np.arange(8, dtype=np.float32) + 1)
    small = dnp.ones((2, 8), dnp.float32) + b  # small: primitive by primitive, on the host
    assert _host_of(small) is not None
