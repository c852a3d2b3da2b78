"""Transfer guards (``transfer_guard`` and its three directions) against JAX's on the same cases.

Each row is a transfer didax and JAX both make (or both do not): under
every level the two must agree on whether it raises, and on the message
where JAX's text names the same aval.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax.errors import JaxRuntimeError

LEVELS = ("allow", "log", "disallow", "log_explicit", "disallow_explicit")

Thunk = Callable[[Any, Any, Any], object]  # (library, its numpy, a device Array) -> result


def _jit_add(lib: Any) -> Any:
    return lib.jit(lambda a: a + 1)


_JITTED = {dx: _jit_add(dx), jax: _jit_add(jax)}

# name -> (thunk, whether implicit, whether a transfer at all, message compared)
CASES: dict[str, tuple[Thunk, bool, bool, bool]] = {
    "jit_numpy_arg": (lambda lib, np_, x: _JITTED[lib](np.ones(3)), True, True, True),
    "jit_int_arg": (
        lambda lib, np_, x: _JITTED[lib](np.arange(4, dtype=np.int32)),
        True,
        True,
        True,
    ),
    "jit_python_scalar": (lambda lib, np_, x: _JITTED[lib](2.0), True, True, True),
    "jit_device_array": (lambda lib, np_, x: _JITTED[lib](x), True, False, False),
    "eager_op_numpy": (lambda lib, np_, x: np_.sin(np.ones((2, 3))), True, True, True),
    "eager_op_python_scalar": (lambda lib, np_, x: x + 1.0, True, True, False),
    "asarray_numpy": (lambda lib, np_, x: np_.asarray(np.ones(3)), True, True, True),
    "array_list": (lambda lib, np_, x: np_.array([1.0, 2.0]), True, True, True),
    "device_put_numpy": (lambda lib, np_, x: lib.device_put(np.ones(3)), False, True, True),
    "device_put_to_device": (
        lambda lib, np_, x: lib.device_put(np.ones(2), lib.devices()[0]),
        False,
        True,
        True,
    ),
    "device_put_array": (lambda lib, np_, x: lib.device_put(x), False, False, False),
    "eager_op_arrays": (lambda lib, np_, x: np_.sin(x) * x, True, False, False),
    # On a CPU the host is the device: reading an Array is no transfer.
    "np_asarray": (lambda lib, np_, x: np.asarray(x), True, False, False),
    "tolist_repr": (lambda lib, np_, x: (x.tolist(), repr(x)), True, False, False),
    "float_of_sum": (lambda lib, np_, x: float(x.sum()), True, False, False),
    "device_get": (lambda lib, np_, x: lib.device_get(x), False, False, False),
}


def _outcome(lib: Any, np_: Any, level: str, thunk: Thunk) -> str | None:
    x = np_.arange(3.0)
    np.asarray(x)  # made and read before the block
    try:
        with lib.transfer_guard(level):
            thunk(lib, np_, x)
    except JaxRuntimeError as e:
        return str(e)
    return None


@pytest.mark.parametrize("level", LEVELS)
def test_levels_agree_with_jax(level: str, caplog: pytest.LogCaptureFixture) -> None:
    # One level per test: every case in it, didax's and JAX's outcomes side by side.
    for name, (thunk, implicit, transfer, same_text) in CASES.items():
        with caplog.at_level(logging.WARNING, logger="didax"):
            caplog.clear()
            ours = _outcome(dx, dnp, level, thunk)
            logged = [r.getMessage() for r in caplog.records if "transfer:" in r.getMessage()]
        theirs = _outcome(jax, jnp, level, thunk)
        assert (ours is None) == (theirs is None), (name, ours, theirs)
        guarded = transfer and (level.endswith("_explicit") or (implicit and level != "allow"))
        assert (ours is not None) == (guarded and level.startswith("disallow")), name
        assert bool(logged) == (guarded and level.startswith("log")), (name, logged)
        if ours is not None and same_text:
            assert ours == theirs, name
        if logged:
            assert logged[0].startswith("host-to-device transfer: aval=ShapedArray("), logged


@pytest.mark.x64_off
def test_message_in_32_bit_mode() -> None:
    with pytest.raises(JaxRuntimeError) as ours, dx.transfer_guard("disallow"):
        dnp.sin(np.ones(3))
    with pytest.raises(JaxRuntimeError) as theirs, jax.transfer_guard("disallow"):
        jnp.sin(np.ones(3))
    assert str(ours.value) == str(theirs.value)
    assert "float32[3]" in str(ours.value)


def test_directions_are_separate_and_nest() -> None:
    with dx.transfer_guard("disallow"):
        with dx.transfer_guard_host_to_device("allow"):
            dnp.asarray(np.ones(2))  # the inner block allows it
        with pytest.raises(JaxRuntimeError, match="host-to-device"):
            dnp.asarray(np.ones(2))
    with dx.transfer_guard_device_to_host("disallow"), dx.transfer_guard_device_to_device("log"):
        dnp.asarray(np.ones(2))  # host-to-device is not guarded
    dnp.asarray(np.ones(2))


def test_config_update_is_process_wide() -> None:
    dx.config.update("jax_transfer_guard_host_to_device", "disallow")
    try:
        with pytest.raises(JaxRuntimeError, match="Disallowed host-to-device"):
            dnp.asarray(np.ones(2))
        dx.device_put(np.ones(2))  # explicit
    finally:
        dx.config.update("jax_transfer_guard_host_to_device", None)
    dnp.asarray(np.ones(2))


def test_the_all_directions_option() -> None:
    dx.config.update("jax_transfer_guard", "disallow")
    try:
        assert dx.transfer_guard_device_to_host.value == "disallow"
        with pytest.raises(JaxRuntimeError, match="Disallowed host-to-device"):
            dnp.asarray(np.ones(2))
    finally:
        dx.config.update("jax_transfer_guard", None)
    assert dx.transfer_guard_host_to_device.value is None
    dnp.asarray(np.ones(2))


def test_a_block_guards_its_own_thread_only() -> None:
    seen: list[object] = []

    def other() -> None:
        seen.append(dnp.asarray(np.ones(2)).shape)

    with dx.transfer_guard("disallow"):
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen == [(2,)]


def test_jit_hit_path_and_host_kept_arrays() -> None:
    f = dx.jit(lambda a, b: a * b)
    x = dnp.arange(3.0)  # an eager result: didax keeps its data on the host
    y = dnp.ones(3)
    with dx.transfer_guard("disallow_explicit"):
        # Moving an Array's host data to the device is didax's, not a transfer.
        np.testing.assert_allclose(np.asarray(f(x, y)), [0.0, 1.0, 2.0])
        np.testing.assert_allclose(np.asarray(f(x, y)), [0.0, 1.0, 2.0])
        with pytest.raises(JaxRuntimeError, match="weak_type=True"):
            f(x, 2.0)


def test_refused_level_and_bad_level() -> None:
    with pytest.raises(ValueError, match="jax_transfer_guard_host_to_device"):
        dx.config.update("jax_transfer_guard_host_to_device", "never")
