"""interpreters.staging: trace_to_jaxpr, constants and literals, omnistaging, closure conversion."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
import pytest

from didax.core import dtypes
from didax.core import lax as core_lax
from didax.core.abstract import ShapedArray
from didax.core.errors import ConcretizationTypeError, DTypeError, ShapeError
from didax.core.trace import current_trace
from didax.interpreters.evaluation import eval_closed_jaxpr
from didax.interpreters.jvp import JVPTracer, jvp_flat
from didax.interpreters.staging import StagingTrace, StagingTracer, trace_to_jaxpr
from didax.ir.jaxpr import ClosedJaxpr, JaxprType, Literal, Var
from didax.ir.typecheck import typecheck_jaxpr

F64 = ShapedArray((), dtypes.float64)
F64_3 = ShapedArray((3,), dtypes.float64)
F32_3 = ShapedArray((3,), dtypes.float32)


def _names(closed: ClosedJaxpr) -> list[str]:
    return [e.primitive.name for e in closed.eqns]


def test_trace_to_jaxpr_stages_and_typechecks() -> None:
    def f(x: Any, y: Any) -> list[Any]:
        return [core_lax.mul(core_lax.sin(x), y), core_lax.reduce_sum(x, 0)]

    closed = trace_to_jaxpr(f, [F64_3, F64_3])
    assert _names(closed) == ["sin", "mul", "reduce_sum"]
    assert closed.consts == ()
    assert typecheck_jaxpr(closed) == JaxprType((F64_3, F64_3), (F64_3, F64))
    x, y = np.arange(3.0), np.full(3, 2.0)
    out = eval_closed_jaxpr(closed, [x, y])
    np.testing.assert_allclose(out[0], np.sin(x) * y)
    np.testing.assert_allclose(out[1], 3.0)


def test_arguments_are_staging_tracers_of_the_given_types() -> None:
    seen: list[Any] = []

    def f(x: Any, y: Any) -> list[Any]:
        seen.extend([x, y, current_trace()])
        return [x]

    closed = trace_to_jaxpr(f, [F32_3, F64], name="my_staging")
    x, y, trace = seen
    assert isinstance(trace, StagingTrace)
    assert trace.name == "my_staging"
    assert not trace.is_valid  # invalidated when tracing ended
    assert isinstance(x, StagingTracer)
    assert (x.aval, y.aval) == (F32_3, F64)
    assert closed.jaxpr.in_binders == (x.binder, y.binder)
    assert closed.jaxpr.outs == (x.binder,)


def test_array_constants_are_hoisted_once_per_object() -> None:
    c = np.arange(3.0)
    d = np.arange(3.0)  # equal, but another object

    def f(x: Any) -> list[Any]:
        return [core_lax.add(core_lax.mul(x, c), core_lax.mul(c, d))]

    closed = trace_to_jaxpr(f, [F64_3])
    assert len(closed.consts) == 2
    assert closed.consts[0] is c
    assert closed.consts[1] is d
    assert len(closed.jaxpr.in_binders) == 3
    const_c = closed.jaxpr.in_binders[0]
    uses = [x for e in closed.eqns for x in e.inputs if x is const_c]
    assert len(uses) == 2  # one binder, used twice
    assert typecheck_jaxpr(closed).in_types == (F64_3,)
    np.testing.assert_allclose(eval_closed_jaxpr(closed, [np.ones(3)])[0], c + c * d)


def test_foreign_array_constants_are_read_to_the_host() -> None:
    c = jnp.arange(3.0)
    closed = trace_to_jaxpr(lambda x: [core_lax.add(x, c)], [F64_3])
    (const,) = closed.consts
    assert isinstance(const, np.ndarray)
    np.testing.assert_array_equal(const, [0.0, 1.0, 2.0])


@pytest.mark.parametrize(
    ("scalar", "aval"),
    [
        (2.0, ShapedArray((), dtypes.float64, weak_type=True)),
        (3, ShapedArray((), dtypes.int64, weak_type=True)),
        (True, ShapedArray((), dtypes.bool_)),
        (np.float32(2.0), ShapedArray((), dtypes.float32)),
        (np.array(5, np.int16), ShapedArray((), dtypes.int16)),
    ],
)
def test_scalars_become_literals(scalar: Any, aval: ShapedArray) -> None:
    # eq takes any dtype; the operand's partner has the scalar's own type.
    def f(x: Any) -> list[Any]:
        return [core_lax.eq_p.bind(x, scalar)]

    closed = trace_to_jaxpr(f, [aval.strip_weak()])
    assert closed.consts == ()
    ((_, lit),) = (e.inputs for e in closed.eqns)
    assert isinstance(lit, Literal)
    assert lit.aval == aval
    assert lit.aval.weak_type is aval.weak_type
    assert lit.val == scalar
    assert isinstance(lit.val, np.generic)


def test_scalar_outputs_are_literals() -> None:
    closed = trace_to_jaxpr(lambda: [1.5, np.ones(2)], [])
    lit, const = closed.jaxpr.outs
    assert isinstance(lit, Literal)
    assert lit.val == 1.5
    assert isinstance(const, Var)
    assert len(closed.consts) == 1


def test_omnistaging_stages_a_function_of_no_arguments() -> None:
    closed = trace_to_jaxpr(lambda: [core_lax.mul(2.0, 3.0)], [])
    assert _names(closed) == ["mul"]
    assert closed.in_avals == ()
    assert all(isinstance(x, Literal) for x in closed.eqns[0].inputs)
    assert eval_closed_jaxpr(closed, []) == [6.0]


def test_outer_tracers_are_hoisted_as_constants() -> None:
    # Closure conversion: a tracer of an enclosing jvp becomes a constant binder.
    staged: list[ClosedJaxpr] = []

    def outer(x: Any) -> list[Any]:
        assert isinstance(x, JVPTracer)
        closed = trace_to_jaxpr(lambda y: [core_lax.mul(x, y), core_lax.add(x, x)], [F64])
        staged.append(closed)
        return [core_lax.add(x, eval_closed_jaxpr(closed, [np.float64(3.0)])[0])]

    outs, tangents = jvp_flat(outer, [np.float64(2.0)], [np.float64(1.0)])
    (closed,) = staged
    assert len(closed.consts) == 1  # x, once, though used three times
    assert isinstance(closed.consts[0], JVPTracer)
    np.testing.assert_allclose(outs, [8.0])
    np.testing.assert_allclose(tangents, [4.0])


def test_ill_typed_programs_fail_at_trace_time() -> None:
    with pytest.raises(
        ShapeError, match=r"add applied to operands of types \(f64\[3\], f64\[2\]\)"
    ):
        trace_to_jaxpr(
            lambda x, y: [core_lax.add_p.bind(x, y)], [F64_3, ShapedArray((2,), F64.dtype)]
        )
    with pytest.raises(ShapeError, match=r"select applied to operands of types"):
        trace_to_jaxpr(
            lambda p, x, y: [core_lax.select_p.bind(p, x, y)],
            [ShapedArray((3,), dtypes.bool_), F64_3, F64],
        )
    with pytest.raises(
        DTypeError, match=r"add applied to operands of types \(f64\[3\], f32\[3\]\)"
    ):
        trace_to_jaxpr(lambda x, y: [core_lax.add_p.bind(x, y)], [F64_3, F32_3])


def test_staged_tracers_are_abstract() -> None:
    def f(x: Any) -> list[Any]:
        with pytest.raises(ConcretizationTypeError, match="staged out by my_jit"):
            bool(x)
        return [x]

    trace_to_jaxpr(f, [F64], name="my_jit")


def test_staged_results_are_typed_by_the_typing_rules() -> None:
    def f(x: Any) -> list[Any]:
        return [core_lax.convert_element_type(core_lax.lt(x, 1.0), np.int8)]

    closed = trace_to_jaxpr(f, [F64_3])
    assert _names(closed) == ["lt", "convert_element_type"]  # 1.0 stays rank-0
    assert [v.aval for e in closed.eqns for v in e.out_binders] == [
        ShapedArray((3,), dtypes.bool_),
        ShapedArray((3,), dtypes.int8),
    ]
    typecheck_jaxpr(closed)
