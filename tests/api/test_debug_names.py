"""The public names of ``jax.debug`` that ``didax.debug`` still lacks, each with its reason.

``MISSING`` is the list: a name of ``jax.debug`` (JAX 0.10.2) absent from
``didax.debug`` fails the test unless it is listed with a reason, and a
listed name that ``didax.debug`` now has fails it too, so the list only
shrinks as names land. At most 3% of the names may remain (issue 30).
"""

from __future__ import annotations

from typing import Final

import jax.debug

import didax.debug

MISSING: Final[dict[str, str]] = {}


def _jax_names() -> list[str]:
    return sorted(n for n in dir(jax.debug) if not n.startswith("_"))


def test_every_missing_name_has_a_reason() -> None:
    missing = [n for n in _jax_names() if not hasattr(didax.debug, n)]
    unexplained = [n for n in missing if n not in MISSING]
    assert not unexplained, f"names of jax.debug missing from didax.debug: {unexplained}"


def test_listed_names_are_missing_and_jax_names() -> None:
    present = [n for n in MISSING if hasattr(didax.debug, n)]
    assert not present, f"didax.debug has these now: remove them from MISSING: {present}"
    assert not set(MISSING) - set(_jax_names())


def test_at_most_three_percent_missing() -> None:
    assert len(MISSING) <= 0.03 * len(_jax_names()), MISSING
