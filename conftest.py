"""Doctest namespace and modes.

Every docstring example may use ``np`` (NumPy) without importing it, and
runs with didax's defaults (32-bit, as JAX's), whatever mode the tests
collected in the same process set (``tests/conftest.py`` turns 64 bits on
for the suite's comparisons with JAX). A test marked ``x64_off`` runs with
both didax and JAX in their default 32-bit mode.
"""

from collections.abc import Iterator
from typing import Any

import jax
import numpy as np
import pytest

import didax as dx


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "x64_off: run with didax and JAX in their default 32-bit mode"
    )


@pytest.fixture(autouse=True)
def _doctest_numpy(doctest_namespace: dict[str, Any]) -> None:
    doctest_namespace["np"] = np


@pytest.fixture(autouse=True)
def _x64_mode(request: pytest.FixtureRequest) -> Iterator[None]:
    """Doctests and ``x64_off`` tests run in the 32-bit default mode; others as collected."""
    is_doctest = request.node.__class__.__name__ == "DoctestItem"
    if not (is_doctest or request.node.get_closest_marker("x64_off")):
        yield
        return
    # jax's config is untyped: read and set through Any.
    jax_config: Any = jax.config
    previous, previous_jax = dx.config.jax_enable_x64, jax_config.read("jax_enable_x64")
    dx.config.update("jax_enable_x64", False)
    jax_config.update("jax_enable_x64", False)
    try:
        yield
    finally:
        dx.config.update("jax_enable_x64", previous)
        jax_config.update("jax_enable_x64", previous_jax)
