"""The public names of ``jax.stages`` that ``didax.stages`` lacks, each with its reason (none).

A name of ``jax.stages`` (JAX 0.10.2) absent from ``didax.stages`` fails the
test unless ``MISSING`` lists it with a reason, and a listed name that
``didax.stages`` now has fails it too (issue 30: at most 3% may remain).
"""

from __future__ import annotations

from typing import Final

import jax.stages

import didax.stages

MISSING: Final[dict[str, str]] = {}


def _jax_names() -> list[str]:
    return sorted(n for n in dir(jax.stages) if not n.startswith("_"))


def test_every_missing_name_has_a_reason() -> None:
    missing = [n for n in _jax_names() if not hasattr(didax.stages, n)]
    assert not [n for n in missing if n not in MISSING], missing


def test_listed_names_are_missing() -> None:
    assert not [n for n in MISSING if hasattr(didax.stages, n)]
