"""The public names of ``jax`` (the top-level module) that ``didax`` lacks, each with its reason.

``MISSING`` is the list: a public name of ``jax`` (JAX 0.10.2) absent from
``didax`` fails the test unless it is listed with a reason, and a listed
name that ``didax`` now has fails it too, so the list only shrinks as names
land. A reason starting "pending:" marks a name a parallel change of issue
30 is building (the integrator drops those lines when it lands); the
others say why didax declines the name. At most 10 declined names may
remain (issue 30).
"""

from __future__ import annotations

import functools
import subprocess
import sys
from typing import Final

import didax

_REFS: Final = (
    "declined: JAX's mutable array references (Ref, new_ref, freeze...) are a different "
    "state model from didax's, whose values are immutable (its effects are host callbacks only)"
)

MISSING: Final[dict[str, str]] = {
    **dict.fromkeys(("Ref", "new_ref", "empty_ref", "free_ref", "freeze", "ref"), _REFS),
    "ds": (
        "declined: a Slice (start, size) for indexing mutable references and Pallas kernels; "
        "didax has neither (see Ref)"
    ),
    "ad": (
        "declined: the markers (GradRef, GradValue, DontWant, DidntWant) of JAX's gradients "
        "through mutable references (see Ref)"
    ),
    "api_util": (
        "declined: JAX's internal helpers for building transformations on its linear_util "
        "(flatten_fun, argnums_partial, debug_info...), which didax's API layer does not use"
    ),
    "memory": (
        "declined: memory spaces (jax.memory.Space: device, pinned host) of arrays and "
        "shardings; didax's arrays have one memory space, the device's"
    ),
}


@functools.cache
def _jax_names() -> list[str]:
    # From a fresh interpreter: in this one dir(jax) also lists the submodules
    # other tests happened to import (jax.ad_checkpoint, ...).
    out = subprocess.run(
        [sys.executable, "-c", "import jax; print(' '.join(dir(jax)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return sorted(n for n in out.stdout.split() if not n.startswith("_"))


def test_every_missing_name_has_a_reason() -> None:
    missing = [n for n in _jax_names() if not hasattr(didax, n)]
    unexplained = [n for n in missing if n not in MISSING]
    assert not unexplained, f"names of jax missing from didax, with no reason: {unexplained}"


def test_listed_names_are_missing() -> None:
    present = [n for n in MISSING if hasattr(didax, n)]
    assert not present, f"didax has these now: remove them from MISSING: {present}"


def test_listed_names_are_jax_names() -> None:
    stale = sorted(set(MISSING) - set(_jax_names()))
    assert not stale, f"not names of jax: {stale}"


def test_reasons_are_written() -> None:
    assert all(r.startswith(("declined: ", "pending: ")) for r in MISSING.values())


def test_at_most_10_remain() -> None:
    """Issue 30's bound on the names of jax didax declines (pending ones aside)."""
    declined = sorted(n for n, r in MISSING.items() if not r.startswith("pending: "))
    assert len(declined) <= 10, declined
