"""core.trace: the current trace, its restoration, invalidation and tracer concreteness."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import didax as dx
from didax.core import lax, trace
from didax.core.abstract import ShapedArray
from didax.core.errors import ConcretizationTypeError, UnexpectedTracerError
from didax.core.primitive import Primitive
from didax.core.trace import (
    Trace,
    Tracer,
    check_valid,
    current_trace,
    eager_evaluation,
    new_trace,
    set_current_trace,
)
from didax.errors import ConcretizationTypeError as PublicConcretizationTypeError
from didax.errors import UnexpectedTracerError as PublicUnexpectedTracerError
from didax.interpreters.evaluation import EVAL_TRACE, EvalTrace
from didax.interpreters.jvp import jvp_flat
from didax.interpreters.staging import StagingTrace


class _RecordingTrace(Trace):
    """Answers every primitive with its name, remembering what it was given."""

    name = "recording"

    def __init__(self, parent: Trace | None) -> None:
        super().__init__(parent)
        self.seen: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def process_primitive(
        self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]
    ) -> Any:
        self.seen.append((prim.name, tuple(args), params))
        return prim.name


def _leak_staged_tracer() -> Any:
    leaked: list[Any] = []

    def f(x: Any) -> Any:
        leaked.append(x)
        return x

    dx.make_jaxpr(f)(1.0)
    return leaked[0]


# --- the current trace ---------------------------------------------------------------


def test_current_trace_is_the_root_eval_trace_outside_transformations() -> None:
    assert current_trace() is EVAL_TRACE
    assert isinstance(EVAL_TRACE, EvalTrace)
    assert EVAL_TRACE.parent is None


def test_root_trace_cannot_be_installed_twice() -> None:
    with pytest.raises(RuntimeError, match="already installed"):
        trace.set_root_trace(EvalTrace(parent=None))
    assert current_trace() is EVAL_TRACE


def test_primitive_bind_goes_to_the_current_trace() -> None:
    prim = Primitive("trace_test_recorded")
    rec = _RecordingTrace(current_trace())
    with set_current_trace(rec):
        assert prim.bind(1, 2.0, k=3) == "trace_test_recorded"
    assert rec.seen == [("trace_test_recorded", (1, 2.0), {"k": 3})]
    assert current_trace() is EVAL_TRACE


def test_set_current_trace_restores_the_previous_trace() -> None:
    outer = _RecordingTrace(current_trace())
    inner = _RecordingTrace(outer)
    with set_current_trace(outer):
        assert current_trace() is outer
        with set_current_trace(inner):
            assert current_trace() is inner
        assert current_trace() is outer
    assert current_trace() is EVAL_TRACE
    # set_current_trace does not invalidate.
    assert outer.is_valid
    assert inner.is_valid


def test_set_current_trace_restores_after_an_exception() -> None:
    rec = _RecordingTrace(current_trace())
    with pytest.raises(ZeroDivisionError), set_current_trace(rec):
        _ = 1 / 0
    assert current_trace() is EVAL_TRACE


def test_new_trace_makes_current_and_invalidates_at_the_end() -> None:
    rec = _RecordingTrace(current_trace())
    with new_trace(rec) as t:
        assert t is rec
        assert current_trace() is rec
        assert rec.is_valid
    assert current_trace() is EVAL_TRACE
    assert not rec.is_valid


def test_new_trace_invalidates_after_an_exception() -> None:
    rec = _RecordingTrace(current_trace())
    with pytest.raises(KeyError), new_trace(rec):
        raise KeyError("x")
    assert not rec.is_valid
    assert current_trace() is EVAL_TRACE


def test_traces_get_distinct_tags() -> None:
    a, b = _RecordingTrace(None), _RecordingTrace(None)
    assert a.tag != b.tag
    assert repr(a) == f"_RecordingTrace(tag={a.tag})"


def test_current_trace_is_thread_local() -> None:
    seen: list[Trace] = []

    def f(x: Any) -> Any:
        assert isinstance(current_trace(), StagingTrace)
        worker = threading.Thread(target=lambda: seen.append(current_trace()))
        worker.start()
        worker.join()
        return x

    dx.make_jaxpr(f)(1.0)
    assert seen == [EVAL_TRACE]


def test_eager_evaluation_makes_the_root_trace_current() -> None:
    seen: list[Any] = []

    def f(x: Any) -> Any:
        staging = current_trace()
        assert isinstance(staging, StagingTrace)
        with eager_evaluation():
            assert current_trace() is EVAL_TRACE
            seen.append(lax.sin(1.0))  # evaluated now, not staged
        assert current_trace() is staging
        return lax.cos(x)

    closed = dx.make_jaxpr(f)(1.0)
    assert [e.primitive.name for e in closed.eqns] == ["cos"]
    assert isinstance(seen[0], dx.Array)
    np.testing.assert_allclose(seen[0], np.sin(1.0))


# --- invalidation ----------------------------------------------------------------------


def test_leaked_tracer_raises_when_used_eagerly() -> None:
    leaked = _leak_staged_tracer()
    with pytest.raises(UnexpectedTracerError, match="after that transformation ended") as info:
        lax.sin(leaked)
    assert "make_jaxpr" in str(info.value)
    assert "f64[]" in str(info.value)
    assert "test_trace.py" in str(info.value)  # the user's line


def test_leaked_tracer_raises_under_another_transformation() -> None:
    leaked = _leak_staged_tracer()
    with pytest.raises(UnexpectedTracerError):
        dx.make_jaxpr(lambda y: lax.add(y, leaked))(1.0)
    with pytest.raises(UnexpectedTracerError):
        jvp_flat(lambda y: [lax.add(y, leaked)], [1.0], [1.0])


def test_check_valid() -> None:
    check_valid(1.0)  # not a tracer: nothing to check
    check_valid(np.ones(2))
    leaked = _leak_staged_tracer()
    with pytest.raises(UnexpectedTracerError):
        check_valid(leaked)


def test_errors_are_the_public_ones() -> None:
    assert UnexpectedTracerError is PublicUnexpectedTracerError
    assert ConcretizationTypeError is PublicConcretizationTypeError
    assert issubclass(ConcretizationTypeError, TypeError)
    assert UnexpectedTracerError.__module__ == "didax.errors"


# --- tracers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("convert", "what"),
    [
        (bool, "bool()"),
        (int, "int()"),
        (float, "float()"),
        (np.asarray, "conversion to a NumPy array"),
    ],
)
def test_staged_tracer_is_not_concrete(convert: Any, what: str) -> None:
    messages: list[str] = []

    def f(x: Any) -> Any:
        with pytest.raises(ConcretizationTypeError) as info:
            convert(x)
        messages.append(str(info.value))
        return x

    dx.make_jaxpr(f)(np.float64(1.0))
    (message,) = messages
    assert message.startswith(what)
    assert "lax.cond" in message
    assert "f64[]" in message
    assert "make_jaxpr" in message


def test_staged_tracer_cannot_index() -> None:
    def f(x: Any) -> list[Any]:
        with pytest.raises(ConcretizationTypeError):
            [0, 1][x]
        return [x]

    dx.make_jaxpr(f)(np.int64(1))


def test_jvp_tracer_over_concrete_values_is_concrete() -> None:
    seen: list[Any] = []

    def f(x: Any) -> list[Any]:
        assert isinstance(x, Tracer)
        seen.extend([bool(lax.gt(x, 0.0)), int(lax.convert_element_type(x, np.int64))])
        # float() would drop the derivative: refused, as JAX's (see test_reliability).
        with pytest.raises(ConcretizationTypeError, match="derivative"):
            float(x)
        seen.append(float(lax.stop_gradient(x)))
        return [x]

    jvp_flat(f, [2.5], [1.0])
    assert seen == [True, 2, 2.5]


def test_only_integer_tracers_index() -> None:
    def f(x: Any) -> list[Any]:
        with pytest.raises(TypeError, match="only integer tracers"):
            [0, 1][x]
        return [x]

    jvp_flat(f, [1.0], [1.0])


def test_tracers_are_unhashable() -> None:
    def f(x: Any) -> Any:
        with pytest.raises(TypeError, match="not hashable"):
            hash(x)
        with pytest.raises(TypeError):
            {x: 1}  # noqa: B018
        return x

    dx.make_jaxpr(f)(1.0)


def test_tracer_array_attributes() -> None:
    seen: list[tuple[Any, ...]] = []

    def f(x: Any) -> Any:
        seen.append((x.shape, x.dtype, x.ndim, x.size, len(x), x.aval))
        assert repr(x) == "Traced<f32[2,3]>with<StagingTrace>"
        return x

    dx.make_jaxpr(f)(np.ones((2, 3), np.float32))
    assert seen == [((2, 3), np.float32, 2, 6, 2, ShapedArray((2, 3), np.dtype(np.float32)))]


def test_len_of_a_scalar_tracer_fails() -> None:
    def f(x: Any) -> Any:
        with pytest.raises(TypeError, match="0-d"):
            len(x)
        return x

    dx.make_jaxpr(f)(1.0)
