"""The public names of ``jax.export`` that ``didax.export`` lacks, each with its reason.

A name of ``jax.export`` (JAX 0.10.2) absent from ``didax.export`` fails the
test unless ``MISSING`` lists it with a reason, and a listed name that
``didax.export`` now has fails it too, so the list only shrinks. Issue 30
allows 3% (none of these 13 names): didax has them all.
"""

from __future__ import annotations

from typing import Final

import jax.export

import didax.export

MISSING: Final[dict[str, str]] = {}


def _jax_names() -> list[str]:
    return sorted(n for n in dir(jax.export) if not n.startswith("_"))


def test_every_missing_name_has_a_reason() -> None:
    missing = [n for n in _jax_names() if not hasattr(didax.export, n)]
    assert not [n for n in missing if n not in MISSING], missing


def test_listed_names_are_missing() -> None:
    assert not [n for n in MISSING if hasattr(didax.export, n)]


def test_listed_names_are_jax_names() -> None:
    assert not sorted(set(MISSING) - set(_jax_names()))
