"""The public names of ``jax.errors`` that ``didax.errors`` lacks, each with its reason."""

from __future__ import annotations

from typing import Final

import jax.errors

import didax.errors

MISSING: Final[dict[str, str]] = {
    "InconclusiveDimensionOperation": (
        "declined: raised by comparisons of JAX's symbolic dimensions (shape polymorphism); "
        "didax's shapes are integers"
    ),
}


def _public(module: object) -> set[str]:
    return {n for n in dir(module) if not n.startswith("_")}


def test_missing_names_have_reasons() -> None:
    lacking = _public(jax.errors) - _public(didax.errors)
    assert sorted(lacking - set(MISSING)) == [], "missing without a reason"
    assert sorted(set(MISSING) - lacking) == [], "listed but didax has it now"
    assert all(r.startswith("declined: ") for r in MISSING.values())
