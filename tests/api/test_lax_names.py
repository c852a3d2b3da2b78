"""The public names of ``jax.lax`` that ``didax.lax`` still lacks, each with its reason.

``MISSING`` is the list: a name of ``jax.lax`` (JAX 0.10.2) absent from
``didax.lax`` fails the test unless it is listed with a reason, and a
listed name that ``didax.lax`` now has fails it too, so the list only
shrinks as names land. A reason starting "in progress:" marks work under
way in a parallel change (none is left); the others say why didax declines the
name. At most 15 may remain (issue 28).
"""

from __future__ import annotations

from typing import Final

import jax.lax

import didax.lax

_SEND_RECV: Final = (
    "declined: JAX implements psend/precv on GPUs only (point-to-point transfers that "
    "XLA's CPU backend does not run)"
)
_RAGGED_ALL_TO_ALL: Final = (
    "declined: XLA's CPU backend cannot run it (JAX 0.10.2 on a CPU fails with 'HLO "
    "opcode ragged-all-to-all is not supported')"
)
_TOKENS: Final = (
    "declined: tokens order side effects in JAX's effect system, which didax does not have "
    "(its programs have no effects to order)"
)

MISSING: Final[dict[str, str]] = {
    **dict.fromkeys(("psend", "precv"), _SEND_RECV),
    **dict.fromkeys(("ragged_all_to_all", "ragged_all_to_all_p"), _RAGGED_ALL_TO_ALL),
    **dict.fromkeys(("after_all", "after_all_p", "create_token", "create_token_p"), _TOKENS),
    "stage": (
        "declined: JAX's staging of a function into a named sub-computation for its "
        "compiler passes (stage_p); didax's jit already stages"
    ),
    "stage_p": "declined: the primitive of lax.stage (see stage)",
    "composite": (
        "declined: a StableHLO composite (a named decomposition a backend may replace) "
        "has no use without a backend that matches its name"
    ),
    "dce_sink": (
        "declined: marks a value used for JAX's effect-aware DCE; didax's DCE keeps what a "
        "program returns, and has no effects"
    ),
    "dce_sink_p": "declined: the primitive of lax.dce_sink (see dce_sink)",
    "device_put_p": (
        "declined: didax's device_put places concrete arrays (api.sharding) and "
        "with_sharding_constraint lays traced ones out; no primitive is staged for it"
    ),
    "scaled_dot": (
        "declined: JAX's block-scaled (microscaling) dot of fp8/fp4 operands with scale "
        "arrays; didax has no fp8/fp4 dtypes"
    ),
}


def _jax_names() -> list[str]:
    return sorted(n for n in dir(jax.lax) if not n.startswith("_"))


def test_every_missing_name_has_a_reason() -> None:
    missing = [n for n in _jax_names() if not hasattr(didax.lax, n)]
    unexplained = [n for n in missing if n not in MISSING]
    assert not unexplained, (
        f"names of jax.lax missing from didax.lax, with no reason: {unexplained}"
    )


def test_listed_names_are_missing() -> None:
    present = [n for n in MISSING if hasattr(didax.lax, n)]
    assert not present, f"didax.lax has these now: remove them from MISSING: {present}"


def test_listed_names_are_jax_names() -> None:
    stale = sorted(set(MISSING) - set(_jax_names()))
    assert not stale, f"not names of jax.lax: {stale}"


def test_reasons_are_written() -> None:
    assert all(reason.strip() for reason in MISSING.values())


def test_at_most_15_remain() -> None:
    """Issue 28's bound on the names of jax.lax didax declines."""
    assert len(MISSING) <= 15, sorted(MISSING)
