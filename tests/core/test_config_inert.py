"""JAX's configuration options: every one accepted by didax, the absl entry points as JAX's.

Options didax implements are tested by their effects (tests/api/
test_config_flags.py); the rest (``core.config_inert``) are accepted,
stored and read back, from ``update``, a thread's override, their
environment variable and absl flags, with JAX's defaults.
"""

from __future__ import annotations

import enum
import os
import subprocess
import sys
import textwrap

import jax
import pytest

import didax as dx
from didax.core.config import OPTIONS
from didax.core.config_inert import INERT_OPTIONS
from didax.lowering.xla import BACKEND_OPTIONS


def _jax_default(name: str) -> object:
    value = jax.config.values[name]
    return value.name.lower() if isinstance(value, enum.Enum) else value


def test_every_option_of_the_installed_jax_is_accepted() -> None:
    assert set(jax.config.values) <= set(OPTIONS)
    assert set(INERT_OPTIONS) <= set(jax.config.values)  # none JAX no longer has
    assert set(INERT_OPTIONS) >= BACKEND_OPTIONS


@pytest.mark.parametrize("name", sorted(INERT_OPTIONS))
def test_an_inert_option_has_jax_s_default(name: str) -> None:
    if name.upper() not in os.environ:
        assert INERT_OPTIONS[name] == _jax_default(name)
        assert dx.config.read(name) == getattr(dx.config, name) == INERT_OPTIONS[name]


# The backend's options go to jax.config, which checks them (and refuses
# jax_num_cpu_devices once the backend started): the subprocess test below.
@pytest.mark.parametrize("name", sorted(set(INERT_OPTIONS) - BACKEND_OPTIONS))
def test_an_inert_option_is_stored_and_scoped(name: str) -> None:
    old = dx.config.read(name)
    marker = object()
    try:
        dx.config.update(name, marker)
        assert dx.config.read(name) is marker
        assert dx.config.values[name] is marker
    finally:
        dx.config.update(name, old)
    with dx.config.override(name, 7):
        assert dx.config.read(name) == 7
    assert dx.config.read(name) == old


def _run(script: str, *, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


def test_an_inert_option_takes_its_environment_variable_as_its_type() -> None:
    out = _run(
        "import didax as dx\n"
        "print(dx.config.jax_pgle_profiling_runs, dx.config.jax_enable_pgle, "
        "dx.config.jax_memory_fitting_level)",
        env={
            "JAX_PGLE_PROFILING_RUNS": "7",
            "JAX_ENABLE_PGLE": "true",
            "JAX_MEMORY_FITTING_LEVEL": "O1",
        },
    )
    assert out == "7 True O1"


PARSE = """
    import sys
    sys.argv = ["prog", "--jax_enable_x64", "--jax_num_cpu_devices=3",
                "--jax_log_compiles=false", "--other", "--", "--jax_debug_nans"]
    import {lib} as lib
    lib.config.parse_flags_with_absl()
    lib.config.parse_flags_with_absl()  # a second call changes nothing
    c = lib.config
    print(c.jax_enable_x64, c.jax_num_cpu_devices, c.jax_log_compiles, c.jax_debug_nans)
"""


def test_parse_flags_with_absl_sets_what_jax_s_sets() -> None:
    env = {"JAX_ENABLE_X64": "0"}
    ours = _run(PARSE.format(lib="didax"), env=env)
    assert ours == _run(PARSE.format(lib="jax"), env=env)
    assert ours == "True 3 False False"


def test_config_with_absl_reads_the_flags_when_the_app_starts() -> None:
    script = """
        import sys
        from absl import app
        import didax as dx
        sys.argv = ["prog", "--jax_enable_x64", "--jax_pgle_profiling_runs=5"]
        dx.config.config_with_absl()
        print(dx.config.jax_enable_x64, end=" ")
        app.run(lambda argv: print(dx.config.jax_enable_x64, dx.config.jax_pgle_profiling_runs))
    """
    assert _run(script, env={"JAX_ENABLE_X64": "0"}) == "False True 5"


def test_a_misspelt_option_is_still_refused() -> None:
    with pytest.raises(AttributeError, match="Unrecognized config option: jax_enable_x46"):
        dx.config.update("jax_enable_x46", True)


def test_the_backend_s_options_are_forwarded_to_jax_as_jax_takes_them() -> None:
    script = """
        import didax as dx, didax.numpy as dnp
        dx.config.update("jax_num_cpu_devices", 3)
        print(len(dx.devices()), dx.jit(lambda x: x + 1)(dnp.ones(2)).sum(), end=" ")
        try:
            dx.config.update("jax_num_cpu_devices", 2)  # the backend has started: JAX refuses
        except RuntimeError as e:
            print("refused" if "before backends are initialized" in str(e) else e, end=" ")
        print(dx.config.jax_num_cpu_devices)
    """
    assert _run(script) == "3 4.0 refused 3"
