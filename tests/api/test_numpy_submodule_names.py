"""The public names of ``jax.numpy.linalg`` and ``jax.numpy.fft`` that didax lacks.

``MISSING`` lists, per module, each name of JAX 0.10.2's module absent from
didax's, with its reason: a name absent without a reason fails the test, and
so does a listed name that didax now has, so the lists only shrink as names
land. At most 3% of a module's names may remain (issue 29); ``OVER_BOUND``
names the modules that exceed it and why, and fails once one no longer does.
"""

from __future__ import annotations

from types import ModuleType
from typing import Final

import jax.numpy as jnp
import pytest

import didax.numpy as dnp

MISSING: Final[dict[str, dict[str, str]]] = {
    "linalg": {},
    "fft": {},
}
OVER_BOUND: Final[dict[str, str]] = {}


def _modules(name: str) -> tuple[ModuleType, ModuleType]:
    jax_module: ModuleType = getattr(jnp, name)
    didax_module: ModuleType = getattr(dnp, name)
    return jax_module, didax_module


def _jax_names(name: str) -> list[str]:
    return sorted(n for n in dir(_modules(name)[0]) if not n.startswith("_"))


@pytest.mark.parametrize("module", sorted(MISSING))
def test_every_missing_name_has_a_reason(module: str) -> None:
    ours = _modules(module)[1]
    missing = [n for n in _jax_names(module) if not hasattr(ours, n)]
    unexplained = [n for n in missing if n not in MISSING[module]]
    assert not unexplained, f"names of jax.numpy.{module} missing from didax: {unexplained}"


@pytest.mark.parametrize("module", sorted(MISSING))
def test_listed_names_are_missing(module: str) -> None:
    ours = _modules(module)[1]
    present = [n for n in MISSING[module] if hasattr(ours, n)]
    assert not present, f"didax.numpy.{module} has these now: remove them from MISSING: {present}"
    stale = sorted(set(MISSING[module]) - set(_jax_names(module)))
    assert not stale, f"not names of jax.numpy.{module}: {stale}"


@pytest.mark.parametrize("module", sorted(MISSING))
def test_at_most_three_percent_remain(module: str) -> None:
    within = len(MISSING[module]) <= 0.03 * len(_jax_names(module))
    # A module over the bound must say why, and leave OVER_BOUND when it is within.
    assert within != (module in OVER_BOUND), OVER_BOUND.get(module, module)
