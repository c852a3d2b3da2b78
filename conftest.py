"""Doctest namespace and the x64 mode of each test.

Every docstring example may use ``np`` (NumPy) without importing it.

Modes: the suite under ``tests/`` compares didax with JAX in 64 bits
(``tests/conftest.py`` turns both on when it is collected, so that module
code and fixtures see it too); everything else runs with the defaults a
user gets (32-bit, as JAX's): the doctests of ``src``, ``docs`` and the
README, and the benchmarks of ``bench``. A test marked ``x64_off`` runs in
the default mode too. Each item's mode is set for its duration, whatever
the item before it left.
"""

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import jax
import numpy as np
import pytest

import didax as dx
from didax.interpreters.evaluation import compiled_route

TESTS: Final = Path(__file__).parent / "tests"
# DIDAX_TESTS_X64=0 runs the suite in the default mode too (see tests/conftest.py).
_SUITE_X64: Final = os.environ.get("DIDAX_TESTS_X64", "1") != "0"
# DIDAX_TESTS_EAGER=compiled runs every eager primitive by its compiled route,
# as on an accelerator (a survey of the device path on a CPU-only machine).
_COMPILED_EAGER: Final = os.environ.get("DIDAX_TESTS_EAGER") == "compiled"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "x64_off: run with didax and JAX in their default 32-bit mode"
    )
    config.addinivalue_line(
        "markers",
        "slow: a long table whose slice the default run covers; run by `nox -s slow`",
    )
    config.addinivalue_line(
        "markers",
        "xla_default_emitters: exact only with XLA's default CPU emitters; the tests"
        " session runs it apart from the rest (noxfile.py, ``OLDER_EMITTERS``)",
    )


@pytest.fixture(autouse=True)
def _doctest_numpy(doctest_namespace: dict[str, Any]) -> None:
    doctest_namespace["np"] = np


def _suite_x64(item: pytest.Item) -> bool:
    """Whether ``item`` runs with x64 on: a test of the suite, unless marked ``x64_off``."""
    in_suite = TESTS in Path(str(item.path)).parents
    return in_suite and item.get_closest_marker("x64_off") is None and _SUITE_X64


@pytest.fixture(autouse=True)
def _x64_mode(request: pytest.FixtureRequest) -> Iterator[None]:
    want = _suite_x64(request.node)
    # jax's config is untyped: read and set through Any.
    jax_config: Any = jax.config
    previous, previous_jax = dx.config.jax_enable_x64, jax_config.read("jax_enable_x64")
    dx.config.update("jax_enable_x64", want)
    jax_config.update("jax_enable_x64", want)
    route = compiled_route() if _COMPILED_EAGER else contextlib.nullcontext()
    try:
        with route:
            yield
    finally:
        dx.config.update("jax_enable_x64", previous)
        jax_config.update("jax_enable_x64", previous_jax)
