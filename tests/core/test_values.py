"""core.values: the one classification of Python objects as didax values, and their types."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from typing import Any

import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
from didax.core import dtypes, values
from didax.core.abstract import ShapedArray
from didax.core.trace import Tracer
from didax.core.values import (
    ValueKind,
    as_array,
    get_aval,
    is_python_scalar,
    is_value,
    value_kind,
)


class _Color(enum.IntEnum):
    RED = 1


class _HasArray:
    """A foreign array: anything NumPy can read through ``__array__``."""

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray[Any, Any]:
        return np.arange(4, dtype=np.int32).reshape(2, 2)


def _staged_tracer_kind_and_aval() -> tuple[ValueKind, ShapedArray, bool]:
    seen: list[tuple[ValueKind, ShapedArray, bool]] = []

    def f(x: Any) -> Any:
        seen.append((value_kind(x), get_aval(x), isinstance(x, Tracer)))
        return x

    dx.make_jaxpr(f)(np.ones((2, 3), np.float32))
    return seen[0]


# --- value_kind --------------------------------------------------------------------


@pytest.mark.parametrize("x", [True, False, 0, -3, 2**70, 1.5, float("nan")])
def test_python_scalars_are_scalars(x: Any) -> None:
    assert value_kind(x) is ValueKind.SCALAR
    assert is_python_scalar(x)


@pytest.mark.parametrize(
    "x",
    [
        np.float64(1.0),  # subclasses float, but is a NumPy scalar
        np.int32(3),
        np.bool_(True),
        np.ones(3),
        np.zeros((), np.int8),
        np.ones((2, 0), np.float16),
    ],
)
def test_numpy_arrays_and_scalars_are_host_values(x: Any) -> None:
    assert value_kind(x) is ValueKind.HOST
    assert not is_python_scalar(x)


def test_didax_array_is_an_array_value() -> None:
    a = dx.device_put(np.ones(3))
    assert value_kind(a) is ValueKind.ARRAY
    assert get_aval(a) == ShapedArray((3,), dtypes.float64)


def test_tracer_is_a_tracer_value() -> None:
    kind, aval, is_tracer = _staged_tracer_kind_and_aval()
    assert kind is ValueKind.TRACER
    assert is_tracer
    assert aval == ShapedArray((2, 3), dtypes.float32)


def test_foreign_array_is_read_through_dunder_array() -> None:
    x = jnp.ones((2, 3), jnp.float32)
    assert value_kind(x) is ValueKind.FOREIGN
    assert get_aval(x) == ShapedArray((2, 3), dtypes.float32)
    out = as_array(x)
    assert isinstance(out, np.ndarray)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.ones((2, 3), np.float32))


@pytest.mark.parametrize("x", [[1.0, 2.0], {"a": 1}, None, "abc", (1,), _Color.RED])
def test_non_values_raise_type_error(x: Any) -> None:
    with pytest.raises(TypeError, match="is not a valid didax value"):
        value_kind(x)
    assert not is_value(x)
    with pytest.raises(TypeError):
        get_aval(x)
    with pytest.raises(TypeError):
        as_array(x)


def test_int_enum_is_not_a_python_scalar() -> None:
    assert isinstance(_Color.RED, int)
    assert not is_python_scalar(_Color.RED)


@pytest.mark.parametrize(
    "x", [1, 1.0, True, np.ones(2), np.float32(1.0), jnp.ones(2), dx.device_put(np.ones(2))]
)
def test_is_value_accepts_every_kind(x: Any) -> None:
    assert is_value(x)


# --- get_aval ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        (2.0, ShapedArray((), dtypes.float64, weak_type=True)),
        (3, ShapedArray((), dtypes.int64, weak_type=True)),
        (True, ShapedArray((), dtypes.bool_, weak_type=False)),
        (np.float64(2.0), ShapedArray((), dtypes.float64)),
        (np.float32(2.0), ShapedArray((), dtypes.float32)),
        (np.ones((2, 3), np.int16), ShapedArray((2, 3), dtypes.int16)),
    ],
)
def test_get_aval(x: Any, expected: ShapedArray) -> None:
    aval = get_aval(x)
    assert aval == expected
    assert aval.weak_type is expected.weak_type


def test_only_non_bool_python_scalars_are_weak() -> None:
    assert get_aval(2.0).weak_type
    assert get_aval(2).weak_type
    assert not get_aval(True).weak_type
    assert not get_aval(np.float64(2.0)).weak_type


# --- as_array ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "dtype"),
    [(1.0, np.float64), (1, np.int64), (True, np.bool_), (np.float32(1.0), np.float32)],
)
def test_as_array_default_dtypes(x: Any, dtype: Any) -> None:
    out = as_array(x)
    assert isinstance(out, np.ndarray)
    assert out.dtype == dtype
    assert out.shape == ()


def test_as_array_keeps_a_numpy_array_as_is() -> None:
    x = np.ones(3, np.float32)
    assert as_array(x) is x


def test_as_array_reads_a_device_array() -> None:
    out = as_array(dx.device_put(np.arange(3.0)))
    np.testing.assert_array_equal(out, np.arange(3.0))


@pytest.mark.parametrize(
    "x",
    [
        np.array(["a", "b"]),
        np.array([b"x"]),
        np.array([1, "a"], dtype=object),
        np.array(["2020-01-01"], dtype="datetime64[D]"),
    ],
)
def test_as_array_rejects_unsupported_dtypes(x: Any) -> None:
    with pytest.raises(TypeError, match="does not support arrays of dtype"):
        as_array(x)


def test_as_array_accepts_float0() -> None:
    z = np.zeros((2,), dtypes.float0)
    out = as_array(z)
    assert out.dtype == dtypes.float0
    assert out.shape == (2,)


def test_as_array_of_an_abstract_tracer_fails() -> None:
    def f(x: Any) -> Any:
        with pytest.raises(TypeError, match="abstract tracer"):
            as_array(x)
        return x

    dx.make_jaxpr(f)(1.0)


# --- the per-type memo -------------------------------------------------------------


@pytest.fixture
def fresh_type() -> Iterator[type[_HasArray]]:
    class Fresh(_HasArray):
        pass

    yield Fresh
    values._KIND_BY_TYPE.pop(Fresh, None)


def test_kind_is_memoised_per_type(
    fresh_type: type[_HasArray], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert fresh_type not in values._KIND_BY_TYPE
    assert value_kind(fresh_type()) is ValueKind.FOREIGN
    assert values._KIND_BY_TYPE[fresh_type] is ValueKind.FOREIGN

    # The second value of the type is classified by the memo alone.
    def no_classify(t: type) -> ValueKind | None:
        raise AssertionError(f"{t} was classified again")

    monkeypatch.setattr(values, "_classify_type", no_classify)
    assert value_kind(fresh_type()) is ValueKind.FOREIGN
    assert get_aval(fresh_type()) == ShapedArray((2, 2), dtypes.int32)


def test_non_values_are_not_memoised() -> None:
    class NotAValue:
        pass

    with pytest.raises(TypeError):
        value_kind(NotAValue())
    assert NotAValue not in values._KIND_BY_TYPE


def test_subclasses_are_classified_by_their_base() -> None:
    class MyArray(np.ndarray):
        pass

    x = np.ones(3).view(MyArray)
    try:
        assert value_kind(x) is ValueKind.HOST
        assert get_aval(x) == ShapedArray((3,), dtypes.float64)
    finally:
        values._KIND_BY_TYPE.pop(MyArray, None)
