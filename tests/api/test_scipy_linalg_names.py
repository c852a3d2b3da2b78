"""The public names of ``jax.scipy.linalg`` that ``didax.scipy.linalg`` still lacks, with reasons.

``MISSING`` is the census (issue 29): a name of ``jax.scipy.linalg``
(JAX 0.10.2) absent from ``didax.scipy.linalg`` fails the test unless it is
listed with a reason, and a listed name that didax now has fails it too, so
the list only shrinks as names land. Issue 29 asks for at most 3% (one
name); none remains.
"""

from __future__ import annotations

from typing import Final

import jax.scipy.linalg

import didax.scipy.linalg

MISSING: Final[dict[str, str]] = {}


def _jax_names() -> list[str]:
    return sorted(n for n in dir(jax.scipy.linalg) if not n.startswith("_"))


def test_every_missing_name_has_a_reason() -> None:
    missing = [n for n in _jax_names() if not hasattr(didax.scipy.linalg, n)]
    unexplained = [n for n in missing if n not in MISSING]
    assert not unexplained, (
        f"names of jax.scipy.linalg missing from didax.scipy.linalg, with no reason: {unexplained}"
    )


def test_listed_names_are_missing() -> None:
    present = [n for n in MISSING if hasattr(didax.scipy.linalg, n)]
    assert not present, f"didax.scipy.linalg has these now: remove them from MISSING: {present}"


def test_listed_names_are_jax_names() -> None:
    stale = sorted(set(MISSING) - set(_jax_names()))
    assert not stale, f"not names of jax.scipy.linalg: {stale}"


def test_few_names_remain() -> None:
    # issue 29's bound is 3% (one name of 40): every name is there.
    assert not MISSING, sorted(MISSING)


def test_reasons_are_declined_with_why() -> None:
    assert all(r.startswith("declined: ") and len(r) > 30 for r in MISSING.values())
