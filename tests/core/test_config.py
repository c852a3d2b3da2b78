"""core.config: didax.config's options, their validation, and thread-scoped overrides."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import didax as dx
from didax.core import config as config_module
from didax.core import dtypes


def test_update_and_read() -> None:
    assert dx.config.read("jax_debug_nans") is False
    dx.config.update("jax_debug_nans", True)
    try:
        assert dx.config.jax_debug_nans is True
        assert dx.config.values["jax_debug_nans"] is True
    finally:
        dx.config.update("jax_debug_nans", False)


def test_unknown_options_and_bad_values_are_refused() -> None:
    with pytest.raises(AttributeError, match="Unrecognized config option: jax_enable_x32"):
        dx.config.update("jax_enable_x32", True)
    with pytest.raises(AttributeError, match="Unrecognized"):
        dx.config.read("nope")
    with pytest.raises(ValueError, match="takes a bool"):
        dx.config.update("jax_disable_jit", "maybe")
    with pytest.raises(ValueError, match="path or None"):
        dx.config.update("jax_compilation_cache_dir", 3)


def test_environment_strings_are_read() -> None:
    option = config_module.OPTIONS["jax_enable_x64"]
    assert option.validate(option.name, "0") is False
    assert option.validate(option.name, "True") is True


def test_enable_x64_is_scoped_to_the_thread() -> None:
    seen: list[bool] = []
    with dx.enable_x64(False):
        assert not config_module.x64_enabled()
        assert dtypes.default_float() == np.float32
        t = threading.Thread(target=lambda: seen.append(config_module.x64_enabled()))
        t.start()
        t.join()
        with dx.enable_x64(True):
            assert dtypes.default_int() == np.int64
        assert dtypes.default_int() == np.int32
    assert seen == [True]
    assert config_module.x64_enabled()


def test_global_update_of_x64() -> None:
    dx.config.update("jax_enable_x64", False)
    try:
        assert dtypes.python_scalar_dtype(1.0) == np.float32
        # (x64, jax_default_matmul_precision, then the numpy promotion modes:
        # the options tracing reads)
        # (then the values of any user contexts, make_user_context's)
        assert config_module.state_key()[:4] == (False, None, "standard", "allow")
    finally:
        dx.config.update("jax_enable_x64", True)
    assert dtypes.python_scalar_dtype(1.0) == np.float64


def test_default_matmul_precision_option() -> None:
    option = config_module.OPTIONS["jax_default_matmul_precision"]
    assert option.affects_tracing
    assert option.validate(option.name, "tensorfloat32") == "tensorfloat32"
    assert option.validate(option.name, "") is None  # an empty environment variable
    with pytest.raises(ValueError, match="new enum value must be None or in"):
        option.validate(option.name, "fastest")  # a lax.Precision alias, not an option value
    with pytest.raises(NotImplementedError, match="dot algorithm presets"):
        option.validate(option.name, "BF16_BF16_F32")


def test_default_matmul_precision_keys_traces_and_is_scoped_to_the_thread() -> None:
    x64 = config_module.x64_enabled()
    assert config_module.trace_mode() == x64  # unset: the cheapest key, the x64 mode
    seen: list[object] = []
    with dx.default_matmul_precision("float32"):
        assert config_module.state_key()[:4] == (x64, "float32", "standard", "allow")
        assert config_module.trace_mode() == (x64, "float32")
        assert config_module.dispatch_mode() == (x64, "float32")
        t = threading.Thread(target=lambda: seen.append(config_module.trace_mode()))
        t.start()
        t.join()
        with dx.default_matmul_precision(None):
            assert config_module.trace_mode() == x64
    assert seen == [x64]
    dx.config.update("jax_default_matmul_precision", "high")
    try:
        assert config_module.dispatch_mode() == (x64, "high")
    finally:
        dx.config.update("jax_default_matmul_precision", None)
    assert config_module.dispatch_mode() == x64
