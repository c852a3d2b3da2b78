"""``didax.export``: exports that JAX calls, and JAX's exports that didax calls.

Each table row is one function written twice (didax's and JAX's NumPy):
didax exports it, runs it, and JAX deserializes didax's bytes and runs
them (eagerly and under ``jax.jit``); JAX exports it and didax
deserializes JAX's bytes and runs them; every result matches JAX's own
call. Then the fields both sides read, and the refusals (several
platforms, wrong arguments), each by name; batch-polymorphic exports are
``test_export_symbolic``'s.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any, NamedTuple, cast

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import export as jexport

import didax as dx
import didax.numpy as dnp
from didax.api.export.flatbuffer import Reader, Scalar, Scalars, Table, write

# JAX's side of the round trip needs the ``flatbuffers`` package (a dev dependency).
JAX_READS: Any = pytest.mark.skipif(
    importlib.util.find_spec("flatbuffers") is None,
    reason="jax.export's serialization needs the flatbuffers package",
)

_C = np.linspace(-1.0, 1.0, 6).reshape(2, 3)


def _affine(np_: Any, x: Any, y: Any) -> Any:
    # A captured constant, a pytree of results, a reduction.
    return {"z": np_.tanh(x * _C.astype(x.dtype) + y), "s": [x.sum(axis=1)]}


def _matmul(np_: Any, x: Any, y: Any) -> Any:
    return (x @ y.T, np_.exp(-(x**2)))


def _ints(np_: Any, x: Any, y: Any) -> Any:
    return (x * 3 - y) % 7, np_.maximum(x, y) > 2


Row = tuple[Callable[..., Any], tuple[int, ...], tuple[int, ...], Any]
ROWS: list[Row] = [
    (_affine, (2, 3), (3,), np.float32),
    (_affine, (2, 3), (), np.float64),
    (_matmul, (4, 3), (5, 3), np.float32),
    (_ints, (3, 4), (3, 4), np.int32),
]


def _inputs(shape: tuple[int, ...], other: tuple[int, ...], dtype: Any) -> tuple[Any, Any]:
    rng = np.random.default_rng(0)
    if np.dtype(dtype).kind == "i":
        return rng.integers(-5, 5, shape).astype(dtype), rng.integers(-5, 5, other).astype(dtype)
    return rng.normal(size=shape).astype(dtype), rng.normal(size=other).astype(dtype)


def _close(got: Any, want: Any) -> None:
    assert repr(jax.tree_util.tree_structure(got)) == repr(jax.tree_util.tree_structure(want))
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), strict=True):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)


@JAX_READS
@pytest.mark.parametrize(("fun", "shape", "other", "dtype"), ROWS)
def test_round_trip_both_ways(
    fun: Callable[..., Any], shape: tuple[int, ...], other: tuple[int, ...], dtype: Any
) -> None:
    x, y = _inputs(shape, other, dtype)
    want = jax.jit(lambda a, b: fun(jnp, a, b))(x, y)
    specs = (dx.ShapeDtypeStruct(shape, dtype), dx.ShapeDtypeStruct(other, dtype))
    exp = dx.export.export(dx.jit(lambda a, b: fun(dnp, a, b)))(*specs)
    _close(exp.call(x, y), want)
    # didax's bytes, in JAX.
    from_didax = jexport.deserialize(dx.export.serialize(exp))
    assert from_didax.in_tree == exp.in_tree
    assert from_didax.out_tree == exp.out_tree
    _close(from_didax.call(x, y), want)
    _close(jax.jit(from_didax.call)(x, y), want)
    # JAX's bytes, in didax.
    jspecs = (jax.ShapeDtypeStruct(shape, dtype), jax.ShapeDtypeStruct(other, dtype))
    jexp = jexport.export(jax.jit(lambda a, b: fun(jnp, a, b)))(*jspecs)
    from_jax = dx.export.deserialize(jexp.serialize())
    assert from_jax.in_tree == jexp.in_tree
    assert from_jax.out_tree == jexp.out_tree
    assert [(a.shape, a.dtype) for a in from_jax.out_avals] == [
        (a.shape, a.dtype) for a in jexp.out_avals
    ]
    assert from_jax.platforms == jexp.platforms
    assert from_jax.calling_convention_version == jexp.calling_convention_version
    _close(from_jax.call(x, y), want)


@JAX_READS
@pytest.mark.x64_off
def test_round_trip_in_32_bit_mode() -> None:
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    exp = dx.export.export(dx.jit(lambda a, k: a * 2.0 + k["b"]))(x, {"b": 1.0})
    assert exp.in_avals[1].dtype == np.float32
    _close(jexport.deserialize(exp.serialize()).call(x, {"b": 1.0}), x * 2.0 + 1.0)


def test_exported_fields_and_module() -> None:
    exp = dx.export.export(dx.jit(lambda x, *, k: (x + k, x)))(np.ones(3), k=np.ones(3))
    assert exp.fun_name == "<lambda>"
    assert exp.in_tree == jax.tree_util.tree_structure(((0,), {"k": 0}))
    assert exp.out_tree == jax.tree_util.tree_structure((0, 0))
    assert exp.nr_devices == 1
    assert exp.platforms == (dx.export.default_export_platform(),)
    assert (
        dx.export.minimum_supported_calling_convention_version
        <= exp.calling_convention_version
        <= dx.export.maximum_supported_calling_convention_version
        == jexport.maximum_supported_calling_convention_version
    )
    assert exp.module_kept_var_idx == (0, 1)
    assert not exp.uses_global_constants
    assert "func.func public @main(%arg0: tensor<3xf64>, %arg1: tensor<3xf64>)" in (
        exp.mlir_module()
    )
    again = dx.export.deserialize(exp.serialize())
    assert again == exp
    _close(again.call(np.ones(3), k=np.ones(3)), (np.full(3, 2.0), np.ones(3)))


def test_refusals() -> None:
    with pytest.raises(ValueError, match="must be the result of `jit`"):
        dx.export.export(cast(Any, lambda x: x))
    with pytest.raises(NotImplementedError, match="multi-platform"):
        dx.export.export(dx.jit(lambda x: x), platforms=["cpu", "cuda"])
    exp = dx.export.export(dx.jit(lambda x: x * 2))(dx.ShapeDtypeStruct((2,), np.float32))
    with pytest.raises(ValueError, match=r"Shape mismatch for args\[0\].shape\[0\] \(expected"):
        exp.call(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="Dtype mismatch for args\\[0\\]: expected float32 and"):
        exp.call(np.ones(2, np.int32))
    with pytest.raises(ValueError, match="different argument structure"):
        exp.call(np.ones(2, np.float32), np.ones(2, np.float32))
    with pytest.raises(NotImplementedError, match="under a transformation"):
        dx.jit(exp.call)(np.ones(2, np.float32))
    other = "cuda" if dx.export.default_export_platform() == "cpu" else "cpu"
    foreign = dx.export.export(dx.jit(lambda x: x * 2), platforms=[other])(np.ones(2))
    with pytest.raises(ValueError, match=f"exported for platforms '\\('{other}',\\)'"):
        foreign.call(np.ones(2))


@JAX_READS
def test_jax_symbolic_batch_exports_run_at_two_batch_sizes() -> None:
    def f(np_: Any, x: Any, w: Any) -> Any:
        return {"y": np_.tanh(x @ w) + x.sum(axis=1, keepdims=True), "n": (x * x).sum()}

    b, n = jexport.symbolic_shape("b, n")
    specs = (jax.ShapeDtypeStruct((b, 4), np.float32), jax.ShapeDtypeStruct((4, n), np.float32))
    jexp = jexport.export(jax.jit(lambda x, w: f(jnp, x, w)))(*specs)
    exp = dx.export.deserialize(jexp.serialize())
    assert exp.uses_global_constants
    assert [a.str_short() for a in exp.in_avals] == ["f32[b,4]", "f32[4,n]"]
    rng = np.random.default_rng(1)
    for batch, width in [(3, 2), (7, 5)]:
        x = rng.normal(size=(batch, 4)).astype(np.float32)
        w = rng.normal(size=(4, width)).astype(np.float32)
        _close(exp.call(x, w), jexp.call(x, w))
    with pytest.raises(ValueError, match=r"args\[0\].shape\[1\] \(expected same constant\): "):
        exp.call(np.ones((3, 5), np.float32), np.ones((4, 2), np.float32))
    # Didax's export of the result is JAX's again.
    again = jexport.deserialize(exp.serialize())
    _close(again.call(x, w), jexp.call(x, w))


@JAX_READS
def test_shardings_are_refused_by_name() -> None:
    mesh = jax.make_mesh((1,), ("a",))
    sharded = jax.jit(jnp.sin, in_shardings=jax.sharding.NamedSharding(mesh, jax.P("a")))
    jexp = jexport.export(sharded)(jax.ShapeDtypeStruct((4,), np.float32))
    with pytest.raises(NotImplementedError, match="exported with shardings"):
        dx.export.deserialize(jexp.serialize())


def test_flatbuffer_tables_round_trip() -> None:
    leaf = Table({0: Scalar("b", -3), 2: "név"})
    root = Table(
        {
            0: Scalar("H", 7),
            1: [leaf, Table({})],
            3: Scalars("I", (1, 2, 3)),
            4: b"\x00\x01\xff",
            5: ["a", ""],
            6: Scalar("?", True),
            7: Scalar("q", -(2**40)),
        }
    )
    r = Reader(write(root))
    assert r.scalar(0, "H") == 7
    assert r.scalar(9, "H", 5) == 5
    first, empty = r.tables(1)
    assert first.scalar(0, "b") == -3
    assert first.string(2) == "név"
    assert first.string(1) is None
    assert empty.scalar(0, "b") == 0
    assert r.scalars(3, "I") == (1, 2, 3)
    assert r.byte_vector(4) == b"\x00\x01\xff"
    assert r.strings(5) == ["a", ""]
    assert r.scalar(6, "?") == 1
    assert r.scalar(7, "q") == -(2**40)
    assert r.table(8) is None
    assert r.tables(8) == []


class _Point(NamedTuple):
    x: Any
    y: Any


@jax.tree_util.register_pytree_node_class
class _Scaled:
    def __init__(self, v: Any, scale: float) -> None:
        self.v, self.scale = v, scale

    def tree_flatten(self) -> tuple[tuple[Any], float]:
        return (self.v,), self.scale

    @classmethod
    def tree_unflatten(cls, scale: float, children: Any) -> _Scaled:
        return cls(children[0], scale)


def _register_both(name: str) -> None:
    # The same registration in didax and JAX (their registries are separate).
    if name == "point":
        jexport.register_namedtuple_serialization(_Point, serialized_name="test.point")
        dx.export.register_namedtuple_serialization(_Point, serialized_name="test.point")
        return
    for register in (
        jexport.register_pytree_node_serialization,
        dx.export.register_pytree_node_serialization,
    ):
        register(
            _Scaled,
            serialized_name="test.scaled",
            serialize_auxdata=lambda s: str(s).encode(),
            deserialize_auxdata=lambda b: float(b.decode()),
        )


@JAX_READS
def test_custom_pytree_nodes_serialize_both_ways() -> None:
    def f(p: Any, s: Any) -> Any:
        return _Point(p.x + s.v * s.scale, p.y), _Scaled(p.x, s.scale)

    args = (_Point(np.ones(2), np.zeros(2)), _Scaled(np.arange(2.0), 3.0))
    exp = dx.export.export(dx.jit(f))(*args)
    with pytest.raises(ValueError, match="unregistered type"):
        exp.serialize()
    _register_both("point")
    _register_both("scaled")
    with pytest.raises(ValueError, match="Duplicate serialization registration"):
        dx.export.register_namedtuple_serialization(_Point, serialized_name="other")
    from_didax = jexport.deserialize(exp.serialize())
    assert from_didax.in_tree == exp.in_tree
    got_point, got_scaled = from_didax.call(*args)
    np.testing.assert_allclose(got_point.x, [1.0, 4.0])
    assert got_scaled.scale == 3.0
    jexp = jexport.export(jax.jit(f))(*args)
    from_jax = dx.export.deserialize(jexp.serialize())
    assert from_jax.out_tree == jexp.out_tree
    np.testing.assert_allclose(from_jax.call(*args)[0].x, [1.0, 4.0])


def test_disabled_safety_checks() -> None:
    check = dx.export.DisabledSafetyCheck.custom_call("lapack_sgetrf")
    assert check.is_custom_call() == "lapack_sgetrf"
    assert dx.export.DisabledSafetyCheck.platform().is_custom_call() is None
    other = "cuda" if dx.export.default_export_platform() == "cpu" else "cpu"
    checks = [dx.export.DisabledSafetyCheck.platform(), check]
    exp = dx.export.export(dx.jit(lambda x: x + 1), platforms=[other], disabled_checks=checks)(
        np.ones(2)
    )
    again = dx.export.deserialize(exp.serialize())
    assert again.disabled_safety_checks == tuple(checks)
    np.testing.assert_allclose(again.call(np.ones(2)), [2.0, 2.0])
