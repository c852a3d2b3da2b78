"""didax.numpy's histograms (``didax.api.numpy.histograms``) against jax.numpy.

``histogram`` and ``histogram_bin_edges``: each case is a function of a
numpy module (``jnp`` or ``dnp``) run in both, eagerly and under jit;
values, shapes, dtypes and weak types must be JAX's (``same_as_jax``, in
tests/api/conftest.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp

rng = np.random.RandomState(0)
M = rng.randn(3, 4)
S = rng.randn(4, 4)
V = rng.randn(5)
T = rng.randn(2, 3, 4)

Case = Callable[[Any], Any]
GradCase = Callable[[Any, Any], Any]
Compare = Callable[[Any, Any], None]

CASES: dict[str, Case] = {
    "histogram": lambda np_: np_.histogram(np_.asarray(T)),
    "histogram_range": lambda np_: np_.histogram(np_.asarray(M), bins=4, range=(-1.0, 1.0)),
    "histogram_edges_density": lambda np_: np_.histogram(
        np_.asarray(V), bins=np_.asarray([-2.0, 0.0, 0.5, 2.0]), density=True
    ),
    "histogram_weights": lambda np_: np_.histogram(
        np_.asarray(M), bins=3, weights=np_.abs(np_.asarray(M))
    ),
    "histogram_bin_edges": lambda np_: np_.histogram_bin_edges(np_.asarray(V), bins=4),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_matches_jax(name: str, same_as_jax: Compare) -> None:
    case = CASES[name]
    same_as_jax(case(dnp), case(jnp))


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_matches_jax(name: str, same_as_jax: Compare) -> None:
    case = CASES[name]
    same_as_jax(dx.jit(lambda: case(dnp))(), jax.jit(lambda: case(jnp))())
