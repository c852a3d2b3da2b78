"""didax.Array behaves as a JAX Array under NumPy's and Python's protocols.

Most tests run the same check on a JAX Array and a didax Array (``lib``
fixture), so the expected behaviour is JAX's, not a transcription of it.
"""

from __future__ import annotations

import copy
import operator
import pickle
from types import ModuleType
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp


@pytest.fixture(params=["jax", "didax"])
def lib(request: pytest.FixtureRequest) -> tuple[ModuleType, Any]:
    return (jax, jnp) if request.param == "jax" else (dx, dnp)


def _arr(lib: tuple[ModuleType, Any], data: Any, dtype: Any = None) -> Any:
    return lib[1].asarray(np.asarray(data, dtype))


def test_results_are_arrays_of_their_library(lib: tuple[ModuleType, Any]) -> None:
    a = _arr(lib, [[1.0, 2.0], [3.0, 4.0]])
    assert isinstance(a, lib[0].Array)
    assert isinstance(a + 1, lib[0].Array)


@pytest.mark.parametrize("copy_arg", [None, True, False])
def test_dunder_array_with_copy(lib: tuple[ModuleType, Any], copy_arg: bool | None) -> None:
    a = _arr(lib, [1.0, 2.0, 3.0])
    host = np.asarray(a, copy=copy_arg) if copy_arg is not None else np.asarray(a)
    np.testing.assert_array_equal(host, [1.0, 2.0, 3.0])
    if copy_arg:
        host[0] = 10.0  # a copy is the caller's own
    else:
        assert not host.flags.writeable  # a view of immutable data
    assert float(a[0]) == 1.0
    assert np.asarray(a, dtype=np.float32).dtype == np.float32


def test_array_of_didax_is_read_only_and_unchanged() -> None:
    a = dnp.ones(3)
    with pytest.raises(ValueError, match="read-only"):
        np.asarray(a)[0] = 5.0
    np.testing.assert_array_equal(np.asarray(a), [1.0, 1.0, 1.0])


@pytest.mark.parametrize("spec", [".4f", "", ">10.2e", "g"])
def test_format_of_scalars(lib: tuple[ModuleType, Any], spec: str) -> None:
    loss = _arr(lib, 0.123456789)
    assert format(loss, spec) == format(0.123456789, spec)
    assert f"{_arr(lib, 7, np.int32):03d}" == "007"


def test_format_of_a_vector_needs_an_empty_spec(lib: tuple[ModuleType, Any]) -> None:
    v = _arr(lib, [1.0, 2.0])
    assert format(v, "") == str(v)
    with pytest.raises(TypeError):
        format(v, ".2f")


def test_array_priority_wins_over_numpy(lib: tuple[ModuleType, Any]) -> None:
    a = _arr(lib, [1.0, 2.0])
    out = np.float64(2.0) * a
    assert isinstance(out, lib[0].Array)
    out = np.ones(2) + a
    assert isinstance(out, lib[0].Array)
    assert a.__array_priority__ == 100


@pytest.mark.parametrize(
    "fn",
    [np.sum, np.mean, np.max, np.min, np.prod, np.argmax, np.argmin, np.cumsum],
    ids=lambda f: f.__name__,
)
def test_numpy_reductions_on_arrays(lib: tuple[ModuleType, Any], fn: Any) -> None:
    data = np.array([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    a = _arr(lib, data)
    np.testing.assert_allclose(np.asarray(fn(a)), fn(data))
    np.testing.assert_allclose(np.asarray(fn(a, axis=1)), fn(data, axis=1))


def test_numpy_reduction_keywords(lib: tuple[ModuleType, Any]) -> None:
    data = np.array([[1.0, 5.0], [4.0, 2.0]])
    a = _arr(lib, data)
    np.testing.assert_allclose(np.asarray(np.sum(a, axis=0, keepdims=True)), [[5.0, 7.0]])
    assert np.sum(a, dtype=np.float32).dtype == np.float32
    np.testing.assert_allclose(np.asarray(a.max(axis=1, keepdims=True)), [[5.0], [4.0]])


def test_out_argument_is_refused() -> None:
    a = dnp.ones(3)
    with pytest.raises((TypeError, NotImplementedError), match="out"):
        np.sum(a, out=np.zeros(()))


def test_tolist_and_item(lib: tuple[ModuleType, Any]) -> None:
    a = _arr(lib, [[1, 2], [3, 4]], np.int32)
    assert a.tolist() == [[1, 2], [3, 4]]
    assert type(a.tolist()[0][0]) is int
    assert a[1, 0].item() == 3
    assert a.item(3) == 4
    assert type(_arr(lib, 2.5).item()) is float


def test_dlpack_round_trip(lib: tuple[ModuleType, Any]) -> None:
    a = _arr(lib, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(np.from_dlpack(a), [1.0, 2.0, 3.0])
    back = jax.dlpack.from_dlpack(a) if lib[0] is dx else a
    np.testing.assert_array_equal(np.asarray(back), [1.0, 2.0, 3.0])


def test_hash_is_refused(lib: tuple[ModuleType, Any]) -> None:
    with pytest.raises(TypeError, match="unhashable"):
        hash(_arr(lib, [1.0]))
    with pytest.raises(TypeError):
        {_arr(lib, 1.0): 1}


def test_item_assignment_is_refused_pointing_to_at(lib: tuple[ModuleType, Any]) -> None:
    a = _arr(lib, [1.0, 2.0])
    with pytest.raises(TypeError, match=r"\.at"):
        a[0] = 5.0
    assert float(a[0]) == 1.0


def test_iteration_len_and_unpacking(lib: tuple[ModuleType, Any]) -> None:
    a = _arr(lib, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert len(a) == 3
    rows = list(a)
    assert len(rows) == 3
    assert all(isinstance(r, lib[0].Array) and r.shape == (2,) for r in rows)
    first, *_ = a
    np.testing.assert_array_equal(np.asarray(first), [1.0, 2.0])
    with pytest.raises(TypeError):
        len(_arr(lib, 1.0))
    with pytest.raises(TypeError):
        iter(_arr(lib, 1.0))


@pytest.mark.parametrize(
    "op",
    [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge],
    ids=lambda f: f.__name__,
)
def test_comparison_operators(lib: tuple[ModuleType, Any], op: Any) -> None:
    a, b = _arr(lib, [1.0, 2.0, 3.0]), _arr(lib, [3.0, 2.0, 1.0])
    got = op(a, b)
    assert isinstance(got, lib[0].Array)
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(np.asarray(got), op(np.asarray(a), np.asarray(b)))
    assert (a == None) is False  # noqa: E711


def test_copy_deepcopy_and_pickle(lib: tuple[ModuleType, Any]) -> None:
    a = _arr(lib, [1.0, 2.0])
    weak = lib[1].asarray(2.0)
    for c in (a.copy(), copy.copy(a), copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        assert isinstance(c, lib[0].Array)
        np.testing.assert_array_equal(np.asarray(c), [1.0, 2.0])
    assert pickle.loads(pickle.dumps(weak)).weak_type == weak.weak_type


def test_astype_t_and_mt(lib: tuple[ModuleType, Any]) -> None:
    a = _arr(lib, np.arange(24.0).reshape(2, 3, 4))
    assert a.astype(np.int32).dtype == np.int32
    assert a.astype(lib[1].float32).dtype == np.float32
    assert a.T.shape == (4, 3, 2)
    assert a.mT.shape == (2, 4, 3)
    want = np.swapaxes(np.arange(24.0).reshape(2, 3, 4), -1, -2)
    np.testing.assert_array_equal(np.asarray(a.mT), want)


METHODS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("reshape", (4, 3), {}),
    ("reshape", ((3, 4),), {}),
    ("reshape", (-1,), {}),
    ("sum", (), {}),
    ("sum", (0,), {}),
    ("sum", (), {"axis": 1, "keepdims": True}),
    ("mean", (), {"axis": 0}),
    ("max", (), {"axis": 1}),
    ("min", (), {}),
    ("prod", (), {"axis": 0}),
    ("argmax", (), {}),
    ("argmax", (), {"axis": 1}),
    ("argmin", (), {"axis": 0}),
    ("transpose", (), {}),
    ("transpose", (1, 0), {}),
    ("transpose", ((1, 0),), {}),
    ("squeeze", (), {}),
    ("flatten", (), {}),
    ("ravel", (), {}),
    ("clip", (2.0, 7.0), {}),
    ("clip", (), {"max": 3.0}),
    ("round", (), {}),
    ("round", (1,), {}),
    ("conj", (), {}),
    ("cumsum", (), {"axis": 1}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), METHODS, ids=lambda v: str(v))
def test_methods_match_jax(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    data = (np.arange(12.0).reshape(3, 4) * 0.7) % 5.0
    want = getattr(jnp.asarray(data), name)(*args, **kwargs)
    got = getattr(dnp.asarray(data), name)(*args, **kwargs)
    assert isinstance(got, dx.Array)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want))


def test_squeeze_of_unit_axes() -> None:
    a = dnp.ones((1, 3, 1))
    assert a.squeeze().shape == (3,)
    assert a.squeeze(axis=0).shape == (3, 1)


def test_scalar_conversions(lib: tuple[ModuleType, Any]) -> None:
    assert float(_arr(lib, 2.5)) == 2.5
    assert int(_arr(lib, 3, np.int32)) == 3
    assert bool(_arr(lib, 1.0)) is True
    assert [10, 20, 30][_arr(lib, 1, np.int32)] == 20
    with pytest.raises((TypeError, ValueError)):
        bool(_arr(lib, [1.0, 2.0]))


def test_complex_input_is_accepted_as_jax_accepts_it() -> None:
    z = np.array([1 + 2j, 3 - 1j], np.complex64)
    assert dnp.asarray(z).dtype == np.complex64
    np.testing.assert_array_equal(dx.jit(lambda x: x * 2)(z), z * 2)
    assert dx.jit(lambda x: x)(1j).dtype == np.complex128
    assert repr(dnp.asarray(np.complex64(1j))) == "Array(0.+1.j, dtype=complex64)"
