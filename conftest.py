"""Doctest namespace: every docstring example may use ``np`` (NumPy) without importing it."""

from typing import Any

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _doctest_numpy(doctest_namespace: dict[str, Any]) -> None:
    doctest_namespace["np"] = np
