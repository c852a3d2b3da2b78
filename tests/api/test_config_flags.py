"""The top-level configuration flags against JAX's: values, scoping, and what didax refuses.

Flags didax honours fully (``debug_infs``, ``numpy_dtype_promotion``,
``numpy_rank_promotion``, ``make_user_context``) are checked by behaviour
against JAX's on the same programs; the others at JAX's default, and by the
``NotImplementedError`` any other value JAX accepts gets.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp

FLAGS = [
    "debug_nans",
    "debug_infs",
    "numpy_dtype_promotion",
    "numpy_rank_promotion",
    "default_device",
    "transfer_guard_host_to_device",
    "transfer_guard_device_to_host",
    "transfer_guard_device_to_device",
    "check_tracer_leaks",
    "enable_checks",
    "default_prng_impl",
    "threefry_partitionable",
    "enable_custom_prng",
    "legacy_prng_key",
    "debug_key_reuse",
    "array_garbage_collection_guard",
    "allow_f16_reductions",
    "no_tracing",
    "no_execution",
    "thread_guard",
    "auto_pcast",
    "remove_size_one_mesh_axis_from_type",
    "softmax_custom_jvp",
    "jax2tf_associative_scan_reductions",
]

# For each flag didax honours at JAX's default only: a value JAX takes that didax refuses.
REFUSED: dict[str, object] = {
    "check_tracer_leaks": True,
    "enable_checks": True,
    "default_prng_impl": "rbg",
    "threefry_partitionable": False,
    "enable_custom_prng": True,
    "legacy_prng_key": "error",
    "debug_key_reuse": True,
    "array_garbage_collection_guard": "fatal",
    "allow_f16_reductions": False,
    "no_tracing": True,
    "no_execution": True,
    "thread_guard": True,
    "auto_pcast": False,
    "remove_size_one_mesh_axis_from_type": True,
    "softmax_custom_jvp": True,
}


@pytest.mark.parametrize("name", FLAGS)
def test_default_is_jax_s_and_the_flag_scopes_it(name: str) -> None:
    flag = getattr(dx, name)
    theirs = getattr(jax, name).value
    assert flag.value == theirs
    with flag(theirs):
        assert flag.value == theirs
        assert dx.config.read(flag.option) == theirs
    if name == "default_device":
        return
    refused = REFUSED.get(name)
    if refused is not None:
        with pytest.raises(NotImplementedError, match=flag.option), flag(refused):
            pass
        assert flag.value == theirs
    with pytest.raises(ValueError, match=flag.option):
        dx.config.update(flag.option, "no such value")


def test_checking_leaks_and_transfer_guard() -> None:
    assert dx.checking_leaks is dx.check_tracer_leaks
    with dx.transfer_guard("allow"):
        assert dx.transfer_guard_host_to_device.value == "allow"
        assert dx.transfer_guard_device_to_host.value == "allow"
    assert dx.transfer_guard_host_to_device.value is None


def test_default_device() -> None:
    with dx.default_device(dx.devices()[0]):
        assert dx.config.jax_default_device == dx.devices()[0]
        assert dx.device_put(1.0).device == dx.devices()[0]
    with dx.default_device("cpu"):
        pass
    with pytest.raises(NotImplementedError, match="default_device"), dx.default_device("tpu"):
        pass


def test_bare_flag_call_sets_true_as_jax_s() -> None:
    with dx.debug_infs():
        assert dx.debug_infs.value is True
    with pytest.raises(TypeError, match="takes the new value"):
        dx.numpy_rank_promotion()


# --- debug_infs and debug_nans: eagerly and under jit -------------------------------


def _raises(fn: Callable[[], Any]) -> str | None:
    try:
        np.asarray(fn())
    except FloatingPointError as e:
        return str(e)
    return None


@pytest.mark.parametrize(
    ("flag", "x", "expected"),
    [("debug_infs", 0.0, "inf"), ("debug_infs", 1.0, None), ("debug_nans", -1.0, "nan")],
)
def test_debug_checks_raise_where_jax_s_do(flag: str, x: float, expected: str | None) -> None:
    arg = np.full(2, x, np.float32)
    # (One library's flag at a time: didax's jit runs its programs through jaxlib.)
    with getattr(dx, flag)(True):
        ours = [_raises(lambda: dnp.log(arg)), _raises(lambda: dx.jit(dnp.log)(arg))]
    with getattr(jax, flag)(True):
        theirs = [_raises(lambda: jnp.log(arg)), _raises(lambda: jax.jit(jnp.log)(arg))]
    for o, t in zip(ours, theirs, strict=True):
        assert (o is None) == (t is None) == (expected is None)
        if o is not None:
            assert f"invalid value ({expected})" in o
    assert _raises(lambda: dx.jit(dnp.log)(np.zeros(2, np.float32))) is None  # off again


# --- numpy_dtype_promotion ------------------------------------------------------------

PROMOTION_CASES = [
    (np.int32(1), np.float32(2)),
    (np.ones(2, np.int32), 1),
    (np.ones(2, np.float32), 1.0),
    (np.ones(2, np.int32), 1.0),
    (np.ones(2, np.int8), np.ones(2, np.int16)),
    (np.ones(2, np.float32), np.ones(2, np.float32)),
    (True, np.ones(2, np.int32)),
    (1, 2.0),
    (1.0, 2j),
    (np.ones(2, np.float16), np.ones(2, np.float32)),
]


def _outcome(fn: Callable[[Any, Any], Any], a: Any, b: Any) -> str:
    try:
        r = fn(a, b)
    except (TypeError, ValueError) as e:
        return type(e).__name__
    return f"{r.dtype}{'w' if r.weak_type else ''}"


def _promotion_table(mode: str) -> None:
    with dx.numpy_dtype_promotion(mode), jax.numpy_dtype_promotion(mode):
        ours = [_outcome(dnp.add, a, b) for a, b in PROMOTION_CASES]
        ours_jit = [_outcome(dx.jit(dnp.multiply), a, b) for a, b in PROMOTION_CASES]
        theirs = [_outcome(jnp.add, a, b) for a, b in PROMOTION_CASES]
    assert ours == theirs
    assert ours_jit == theirs


@pytest.mark.parametrize("mode", ["standard", "strict"])
def test_dtype_promotion_is_jax_s(mode: str) -> None:
    _promotion_table(mode)


@pytest.mark.x64_off
@pytest.mark.parametrize("mode", ["standard", "strict"])
def test_dtype_promotion_is_jax_s_in_32_bits(mode: str) -> None:
    _promotion_table(mode)


def test_strict_promotion_error() -> None:
    with dx.numpy_dtype_promotion("strict"):
        with pytest.raises(dx.dtypes.TypePromotionError, match="jax_numpy_dtype_promotion=strict"):
            dnp.add(np.ones(2, np.int32), np.ones(2, np.float32))
        with pytest.raises(dx.dtypes.TypePromotionError):
            dx.dtypes.result_type(np.int32, np.float32)
    assert dnp.add(np.ones(2, np.int32), np.ones(2, np.float32)).dtype == np.float32


# --- numpy_rank_promotion -------------------------------------------------------------


@pytest.mark.parametrize("mode", ["allow", "warn", "raise"])
def test_rank_promotion_is_jax_s(mode: str) -> None:
    cases = [
        (np.ones((2, 3)), np.ones(3)),
        (np.ones((2, 3)), 1.0),
        (np.ones((2, 3)), np.ones((1, 3))),
        (np.ones(()), np.ones(3)),
    ]

    def outcome(fn: Callable[[Any, Any], Any], a: Any, b: Any) -> str:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            try:
                fn(a, b)
            except ValueError as e:
                return "raise" if "jax_numpy_rank_promotion='raise'" in str(e) else str(e)
        return "warn" if any("rank promotion" in str(w.message) for w in record) else "ok"

    with dx.numpy_rank_promotion(mode), jax.numpy_rank_promotion(mode):
        ours = [outcome(dnp.add, a, b) for a, b in cases]
        theirs = [outcome(jnp.add, a, b) for a, b in cases]
    assert ours == theirs


# --- make_user_context ----------------------------------------------------------------


def test_user_context_keys_jit_s_cache_as_jax_s() -> None:
    def count_traces(lib: Any) -> list[int]:
        context = lib.make_user_context(default_value=None)
        traces = [0]

        @lib.jit
        def f(x: Any) -> Any:
            traces[0] += 1
            return x * 2

        seen = []
        for value in (None, None, 1, 1, 2, None):
            with context(value):
                f(1.0)
            seen.append(traces[0])
        return seen

    assert count_traces(dx) == count_traces(jax) == [1, 1, 2, 2, 3, 3]
