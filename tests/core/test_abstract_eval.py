"""core.abstract_eval: typing rules applied to abstract values, and the errors they raise."""

from __future__ import annotations

import os
import re
import sys
from typing import Any

import numpy as np
import pytest

from didax.core import dtypes
from didax.core import lax as core_lax
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import (
    ABSTRACT_EVAL,
    TypingFailure,
    abstract_eval,
    dtype_failure,
    shape_failure,
)
from didax.core.errors import DTypeError, ShapeError
from didax.core.primitive import Primitive

HERE = os.path.basename(__file__)


def _sa(shape: tuple[int, ...], dtype: Any, weak: bool = False) -> ShapedArray:
    return ShapedArray(shape, np.dtype(dtype), weak)


F32_3 = _sa((3,), np.float32)
F32_4 = _sa((4,), np.float32)
I32_3 = _sa((3,), np.int32)
MATMUL = (((1,), (0,)), ((), ()))


def _dot(dims: Any) -> dict[str, Any]:
    """dot_general's params: its dimension numbers, no precision or preferred type."""
    return {"dimension_numbers": dims, "precision": None, "preferred_element_type": None}


# --- well-typed applications ----------------------------------------------------------


@pytest.mark.parametrize(
    ("prim", "avals", "params", "expected"),
    [
        (core_lax.add_p, [F32_3, F32_3], {}, F32_3),
        (core_lax.mul_p, [I32_3, I32_3], {}, I32_3),
        (core_lax.sin_p, [F32_3], {}, F32_3),
        (core_lax.lt_p, [F32_3, F32_3], {}, _sa((3,), np.bool_)),
        (
            core_lax.dot_general_p,
            [_sa((2, 3), np.float64), _sa((3, 4), np.float64)],
            _dot(MATMUL),
            _sa((2, 4), np.float64),
        ),
        (
            # batch axis 0 of both, contract lhs 2 with rhs 1: (5, 2, 3) x (5, 3, 4) -> (5, 2, 4)
            core_lax.dot_general_p,
            [_sa((5, 2, 3), np.float32), _sa((5, 3, 4), np.float32)],
            _dot((((2,), (1,)), ((0,), (0,)))),
            _sa((5, 2, 4), np.float32),
        ),
        (core_lax.reshape_p, [_sa((2, 6), np.int8)], {"new_sizes": (3, 4)}, _sa((3, 4), np.int8)),
        (core_lax.reshape_p, [_sa((1,), np.int8)], {"new_sizes": ()}, _sa((), np.int8)),
        (core_lax.reduce_sum_p, [_sa((2, 3), np.float32)], {"axes": (1,)}, _sa((2,), np.float32)),
        (
            core_lax.convert_element_type_p,
            [F32_3],
            {"new_dtype": dtypes.int16, "weak_type": False},
            _sa((3,), np.int16),
        ),
    ],
)
def test_abstract_eval_well_typed(
    prim: Primitive, avals: list[ShapedArray], params: dict[str, Any], expected: ShapedArray
) -> None:
    out = abstract_eval(prim, avals, params)
    assert out == [expected]


def test_weak_type_of_the_result() -> None:
    weak = _sa((), np.float64, weak=True)
    strong = _sa((), np.float64)
    (both_weak,) = abstract_eval(core_lax.add_p, [weak, weak], {})
    (one_weak,) = abstract_eval(core_lax.add_p, [weak, strong], {})
    assert both_weak.weak_type
    assert not one_weak.weak_type
    (reshaped,) = abstract_eval(core_lax.reshape_p, [weak], {"new_sizes": (1,)})
    assert reshaped == _sa((1,), np.float64, weak=True)


def test_abstract_eval_always_returns_a_list() -> None:
    out = abstract_eval(core_lax.neg_p, [F32_3], {})
    assert isinstance(out, list)
    assert out == [F32_3]


# --- ill-typed applications ----------------------------------------------------------------


def test_shape_error_names_primitive_operands_and_caller() -> None:
    line = sys._getframe().f_lineno + 2
    with pytest.raises(ShapeError) as info:
        abstract_eval(core_lax.add_p, [F32_3, F32_4], {})
    message = str(info.value)
    assert message.startswith("add applied to operands of types (f32[3], f32[4])")
    assert "equal shapes" in message
    assert f"{HERE}:{line} (test_shape_error_names_primitive_operands_and_caller)" in message
    assert isinstance(info.value, TypeError)


def test_dtype_error_names_primitive_operands_and_caller() -> None:
    line = sys._getframe().f_lineno + 2
    with pytest.raises(DTypeError) as info:
        abstract_eval(core_lax.add_p, [F32_3, I32_3], {})
    message = str(info.value)
    assert "add applied to operands of types (f32[3], i32[3])" in message
    assert "equal dtypes" in message
    assert f"{HERE}:{line}" in message


@pytest.mark.parametrize(
    ("prim", "avals", "params", "error", "needles"),
    [
        (
            core_lax.dot_general_p,
            [_sa((2, 3), np.float32), _sa((4, 5), np.float32)],
            _dot(MATMUL),
            ShapeError,
            ["dot_general", "f32[2,3]", "f32[4,5]", "dimension_numbers="],
        ),
        (
            core_lax.dot_general_p,
            [_sa((2, 3), np.float32), _sa((3, 4), np.float64)],
            _dot(MATMUL),
            DTypeError,
            ["dot_general", "f32[2,3]", "f64[3,4]"],
        ),
        (
            core_lax.reshape_p,
            [_sa((2, 3), np.float64)],
            {"new_sizes": (4,)},
            ShapeError,
            ["reshape", "f64[2,3]", "new_sizes=(4,)", "cannot reshape"],
        ),
        (
            core_lax.sin_p,
            [I32_3],
            {},
            DTypeError,
            ["sin", "i32[3]", "floating-point"],
        ),
        (
            core_lax.select_p,
            [F32_3, F32_3, F32_3],
            {},
            DTypeError,
            ["select", "(f32[3], f32[3], f32[3])", "predicate must be boolean"],
        ),
    ],
)
def test_ill_typed_applications(
    prim: Primitive,
    avals: list[ShapedArray],
    params: dict[str, Any],
    error: type[TypeError],
    needles: list[str],
) -> None:
    with pytest.raises(error) as info:
        abstract_eval(prim, avals, params)
    message = str(info.value)
    for needle in needles:
        assert needle in message
    assert re.search(rf"\(at \S*{re.escape(HERE)}:\d+ \(test_ill_typed_applications\)\)$", message)
    other = DTypeError if error is ShapeError else ShapeError
    assert not isinstance(info.value, other)


def test_typing_error_hides_jaxpr_params() -> None:
    prim = Primitive("abstract_eval_test_hides_jaxpr")

    @ABSTRACT_EVAL.defines(prim)
    def rule(x: ShapedArray, *, jaxpr: Any, name: str) -> ShapedArray:
        raise shape_failure("never well typed")

    with pytest.raises(ShapeError) as info:
        abstract_eval(prim, [F32_3], {"jaxpr": "SECRET BODY", "name": "f"})
    assert "SECRET BODY" not in str(info.value)
    assert "name=f" in str(info.value)
    assert "never well typed" in str(info.value)


def test_typing_failure_kinds() -> None:
    assert shape_failure("s").kind == "shape"
    assert dtype_failure("d").kind == "dtype"
    failure = TypingFailure("dtype", "why")
    assert failure.reason == "why"
    assert str(failure) == "why"


def test_rule_failure_kinds_map_to_error_classes() -> None:
    prim = Primitive("abstract_eval_test_kinds")

    @ABSTRACT_EVAL.defines(prim)
    def rule(x: ShapedArray) -> ShapedArray:
        raise (dtype_failure if x.dtype == np.int32 else shape_failure)("refused")

    with pytest.raises(DTypeError, match="abstract_eval_test_kinds applied to operands"):
        abstract_eval(prim, [I32_3], {})
    with pytest.raises(ShapeError, match="abstract_eval_test_kinds applied to operands"):
        abstract_eval(prim, [F32_3], {})


def test_other_exceptions_from_rules_propagate() -> None:
    prim = Primitive("abstract_eval_test_bug")

    @ABSTRACT_EVAL.defines(prim)
    def rule(x: ShapedArray) -> ShapedArray:
        raise KeyError("a bug in the rule")

    with pytest.raises(KeyError):
        abstract_eval(prim, [F32_3], {})


def test_primitive_without_rule() -> None:
    prim = Primitive("abstract_eval_test_unruled")
    with pytest.raises(NotImplementedError, match="abstract_eval_test_unruled"):
        abstract_eval(prim, [F32_3], {})


def test_multiple_results_come_back_as_given() -> None:
    prim = Primitive("abstract_eval_test_multi", multiple_results=True)
    ABSTRACT_EVAL.register(prim, lambda x: [x, x.update(dtype=dtypes.int8)])
    assert abstract_eval(prim, [F32_3], {}) == [F32_3, _sa((3,), np.int8)]
