"""The small submodules of jax in didax: dtypes, tree, typing, ops, dlpack, monitoring, lib.

Each against JAX's on the same inputs (``didax.tree`` and
``didax.monitoring`` are JAX's own functions, re-exported).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp

# --- dtypes --------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        (np.int8, np.uint8),
        (np.int32, 2.0),
        (1, 2.0),
        (np.float16, ml_dtypes.bfloat16),
        ("int16", np.ones(2, np.float32)),
        (np.complex64, np.float64),
        (True, 1),
        (np.dtype("uint32"), np.int32),
    ],
)
def test_result_type_is_jax_s(args: tuple[Any, ...]) -> None:
    ours = dx.dtypes.result_type(*args, return_weak_type_flag=True)
    theirs = jax.dtypes.result_type(*args, return_weak_type_flag=True)
    assert ours == theirs


@pytest.mark.x64_off
@pytest.mark.filterwarnings("ignore:Explicitly requested dtype")  # JAX warns on 64-bit args
def test_result_type_and_canonical_dtypes_in_32_bits() -> None:
    for args in [(np.int64, 1), (np.float64,), (1.0, 2j)]:
        assert dx.dtypes.result_type(*args) == jax.dtypes.result_type(*args)
    for t in [np.int64, np.uint64, np.float64, np.complex128, np.float16, ml_dtypes.bfloat16]:
        assert dx.dtypes.canonicalize_dtype(t) == jax.dtypes.canonicalize_dtype(t)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (np.float32, np.floating),
        (ml_dtypes.bfloat16, np.floating),
        (np.int8, np.signedinteger),
        (np.uint8, np.signedinteger),
        (np.float32, "extended"),
        ("key", "prng_key"),
        ("key", "extended"),
        ("key", np.floating),
    ],
)
def test_issubdtype_is_jax_s(a: Any, b: Any) -> None:
    def resolve(lib: Any, t: Any) -> Any:
        if t == "key":
            return lib.random.key(0).dtype
        return getattr(lib.dtypes, t) if isinstance(t, str) else t

    jax_dtypes: Any = jax.dtypes  # (its stubs do not re-export issubdtype, finfo, iinfo)
    ours = dx.dtypes.issubdtype(resolve(dx, a), resolve(dx, b))
    assert ours == jax_dtypes.issubdtype(resolve(jax, a), resolve(jax, b))


def test_scalar_type_itemsize_and_the_rest() -> None:
    for x in [1, 1.0, True, 1j, np.int8(1), np.ones(2, np.float16)]:
        assert dx.dtypes.scalar_type_of(x) is jax.dtypes.scalar_type_of(x)
    jax_dtypes: Any = jax.dtypes
    kinds: list[Any] = [np.float32, np.int8, ml_dtypes.bfloat16, np.complex128, np.bool_]
    for t in kinds:
        assert dx.dtypes.itemsize_bits(t) == jax_dtypes.itemsize_bits(t)
    assert dx.dtypes.bfloat16 is jax.dtypes.bfloat16
    assert dx.dtypes.finfo(ml_dtypes.bfloat16).eps == jax_dtypes.finfo(ml_dtypes.bfloat16).eps
    assert dx.dtypes.iinfo(np.int16).max == jax_dtypes.iinfo(np.int16).max
    assert issubclass(dx.dtypes.TypePromotionError, ValueError)
    with pytest.raises(ValueError, match="extended"):
        dx.dtypes.canonicalize_dtype(dx.random.key(0).dtype)
    assert dx.dtypes.canonicalize_dtype(dx.random.key(0).dtype, allow_extended_dtype=True)


def test_public_names_are_jax_s() -> None:
    for ours, theirs in [
        (dx.dtypes, jax.dtypes),
        (dx.tree, jax.tree),
        (dx.typing, jax.typing),
        (dx.ops, jax.ops),
        (dx.dlpack, jax.dlpack),
        (dx.monitoring, jax.monitoring),
        (dx.lib, jax.lib),
        (dx.image, jax.image),
        (dx.profiler, jax.profiler),
    ]:
        names = {n for n in dir(theirs) if not n.startswith("_")}
        lacking = names - set(ours.__all__)
        # The profiler's server, its remote-session plumbing and profile readers stay JAX's.
        allowed = {"ProfileData", "ProfileEvent", "ProfileOptions", "ProfilePlane"}
        allowed |= {"register_subprocess", "start_server", "stop_server"}
        assert lacking <= allowed, (ours.__name__, sorted(lacking))


# --- tree and typing ------------------------------------------------------------------


def test_tree_is_jax_s() -> None:
    tree = {"a": 1, "b": (2, [3, 4])}
    assert dx.tree.map(lambda x: x * 2, tree) == jax.tree.map(lambda x: x * 2, tree)
    assert dx.tree.leaves(tree) == [1, 2, 3, 4]
    assert dx.tree.reduce(lambda a, b: a + b, tree) == 10
    assert dx.tree.all(tree)
    assert str(dx.tree.structure(tree)) == str(jax.tree.structure(tree))
    assert [p for p, _ in dx.tree.leaves_with_path(tree)] == [
        p for p, _ in jax.tree.leaves_with_path(tree)
    ]
    doubled = dx.jit(lambda t: dx.tree.map(lambda x: x * 2, t))({"w": dnp.ones(2)})
    np.testing.assert_array_equal(doubled["w"], [2.0, 2.0])


def test_typing_names() -> None:
    def f(x: dx.typing.ArrayLike, dtype: dx.typing.DTypeLike = None) -> Any:
        return dnp.asarray(x, dtype)

    assert f([1, 2], np.float32).dtype == np.float32


# --- ops: segment reductions ------------------------------------------------------------

SEGMENT_IDS = np.array([0, 2, 2, -1, 5, 1, 0])


@pytest.mark.parametrize("name", ["segment_sum", "segment_prod", "segment_max", "segment_min"])
def test_segment_reductions_are_jax_s(name: str) -> None:
    ours_fn, theirs_fn = getattr(dx.ops, name), getattr(jax.ops, name)
    # (didax's scatter-add and scatter-mul take numbers only: bool data for max and min.)
    kinds: list[Any] = [np.float32, np.int32]
    kinds += [np.bool_] if name in ("segment_max", "segment_min") else []
    cases = [(t, {"num_segments": 4}) for t in kinds]
    cases += [(np.float32, {"num_segments": 4, "bucket_size": 3}), (np.int32, {"num_segments": 6})]

    def data(dtype: Any) -> Any:
        return (np.arange(14).reshape(7, 2) % 5).astype(dtype)

    # JAX's results in one compiled program (its eager ops compile one by one).
    every = jax.jit(lambda: [theirs_fn(data(t), SEGMENT_IDS, **kw) for t, kw in cases])()
    for (dtype, kwargs), theirs in zip(cases, every, strict=True):
        ours = ours_fn(data(dtype), SEGMENT_IDS, **kwargs)
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)
    # By default, as many segments as the largest id asks for (6 here).
    np.testing.assert_array_equal(ours_fn(data(np.int32), SEGMENT_IDS), every[-1])
    jitted = dx.jit(ours_fn, static_argnums=2)(data(np.float32), SEGMENT_IDS, 4)
    np.testing.assert_array_equal(jitted, every[0])


@pytest.mark.parametrize("name", ["segment_sum", "segment_max"])
def test_segment_reductions_differentiate_and_batch_as_jax_s(name: str) -> None:
    data = np.linspace(0.5, 2.0, 12).reshape(2, 6)
    ids = np.array([0, 1, 1, 3, 0, 2])
    ours_fn, theirs_fn = getattr(dx.ops, name), getattr(jax.ops, name)

    def both(lib: Any, fn: Any) -> tuple[Any, Any]:
        batched = lib.vmap(lambda d: fn(d, ids, 4))(data)
        return batched, lib.grad(lambda d: (fn(d, ids, 4) ** 2).sum())(data[0])

    ours, theirs = dx.jit(lambda: both(dx, ours_fn))(), jax.jit(lambda: both(jax, theirs_fn))()
    np.testing.assert_allclose(ours[0], theirs[0])
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)


def test_segment_ids_must_be_integers() -> None:
    with pytest.raises(TypeError, match="segment_sum: segment_ids must be integers"):
        dx.ops.segment_sum(np.ones(3), np.array([0.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="non-negative"):
        dx.ops.segment_sum(np.ones(3), np.array([0, 1, 1]), -1)


# --- dlpack, monitoring ------------------------------------------------------------------


def test_dlpack() -> None:
    x = dnp.arange(4.0)
    np.testing.assert_array_equal(dx.dlpack.from_dlpack(np.arange(3.0)), [0.0, 1.0, 2.0])
    exported: Any = x  # (a didax Array has __dlpack__; NumPy's stubs want their protocol)
    np.testing.assert_array_equal(np.from_dlpack(exported), np.arange(4.0))
    np.testing.assert_array_equal(dx.dlpack.from_dlpack(jnp.arange(2.0)), [0.0, 1.0])
    kinds: list[Any] = [np.float32, ml_dtypes.bfloat16, np.bool_, "U3", np.float16, np.int8]
    for t in kinds:
        assert dx.dlpack.is_supported_dtype(t) == jax.dlpack.is_supported_dtype(t)
    with pytest.raises(TypeError, match="dtype-like"):
        dx.dlpack.is_supported_dtype(None)


def test_monitoring_listeners_hear_recorded_events() -> None:
    heard: list[tuple[str, float]] = []

    def listener(event: str, duration_secs: float, **kwargs: str | int) -> None:
        heard.append((event, duration_secs))

    dx.monitoring.register_event_duration_secs_listener(listener)
    try:
        dx.monitoring.record_event_duration_secs("/didax/test", 0.5)
    finally:
        dx.monitoring.unregister_event_duration_listener(listener)
    dx.monitoring.record_event_duration_secs("/didax/test", 1.0)
    assert heard == [("/didax/test", 0.5)]
    assert dx.lib.__all__ == []
