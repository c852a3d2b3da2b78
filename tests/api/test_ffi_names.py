"""The public names of ``jax.ffi`` that ``didax.ffi`` still lacks, each with its reason.

As ``test_debug_names.py``: a missing name needs a reason, a listed name
that didax now has fails, and at most 3% may remain (issue 30).
"""

from __future__ import annotations

from typing import Final

import jax.ffi

import didax.ffi

MISSING: Final[dict[str, str]] = {}


def _jax_names() -> list[str]:
    return sorted(n for n in dir(jax.ffi) if not n.startswith("_"))


def test_every_missing_name_has_a_reason() -> None:
    missing = [n for n in _jax_names() if not hasattr(didax.ffi, n)]
    unexplained = [n for n in missing if n not in MISSING]
    assert not unexplained, f"names of jax.ffi missing from didax.ffi: {unexplained}"


def test_listed_names_are_missing_and_jax_names() -> None:
    present = [n for n in MISSING if hasattr(didax.ffi, n)]
    assert not present, f"didax.ffi has these now: remove them from MISSING: {present}"
    assert not set(MISSING) - set(_jax_names())


def test_at_most_three_percent_missing() -> None:
    assert len(MISSING) <= 0.03 * len(_jax_names()), MISSING
