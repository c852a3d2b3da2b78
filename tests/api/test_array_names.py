"""The attributes of ``jax.Array`` that didax's ``Array`` and tracers lack, each with its reason.

``MISSING`` lists each public attribute of ``jax.Array`` (JAX 0.10.2)
absent from ``didax.Array``; ``TRACER_MISSING`` each one that JAX's
tracers have (under ``jit``) and didax's lack. A name absent without a
reason fails the test, and so does a listed name that didax now has.
"""

from __future__ import annotations

from typing import Any, Final

import jax
import numpy as np

import didax as dx

MISSING: Final[dict[str, str]] = {}

_PLACEMENT: Final = (
    "declined on tracers: a traced value has no device, shards or placement until the "
    "program runs (JAX's tracers raise ConcretizationTypeError or AttributeError here too); "
    "Arrays have it"
)
TRACER_MISSING: Final[dict[str, str]] = dict.fromkeys(
    (
        "addressable_data",
        "addressable_shards",
        "committed",
        "device",
        "global_shards",
        "is_fully_addressable",
        "is_fully_replicated",
        "sharding",
        "to_device",
    ),
    _PLACEMENT,
)


def _public(names: list[str]) -> set[str]:
    return {n for n in names if not n.startswith("_")}


def _jax_tracer_names() -> set[str]:
    found: set[str] = set()

    def record(x: Any) -> Any:
        found.update(_public(dir(x)) & _public(dir(jax.Array)))
        return x

    jax.jit(record)(1.0)
    return found


def _didax_tracer_names() -> set[str]:
    found: set[str] = set()

    def record(x: Any) -> Any:
        found.update(_public(dir(x)))
        return x

    dx.jit(record)(np.float32(1.0))
    return found


def test_every_missing_array_attribute_has_a_reason() -> None:
    missing = _public(dir(jax.Array)) - _public(dir(dx.Array))
    assert missing <= set(MISSING), f"without a reason: {sorted(missing - set(MISSING))}"
    present = set(MISSING) & _public(dir(dx.Array))
    assert not present, f"didax.Array has these now: remove them from MISSING: {present}"


def test_every_missing_tracer_attribute_has_a_reason() -> None:
    missing = _jax_tracer_names() - _didax_tracer_names()
    assert missing <= set(TRACER_MISSING), (
        f"without a reason: {sorted(missing - set(TRACER_MISSING))}"
    )
    present = set(TRACER_MISSING) & _didax_tracer_names()
    assert not present, f"didax's tracers have these now: remove them: {present}"
