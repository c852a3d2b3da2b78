"""The public names of ``jax.errors``, ``jax.custom_derivatives``, ``jax.checkpoint_policies``,
``jax.test_util`` and ``jax.experimental.checkify`` that didax's counterparts lack, each
with its reason.

A name of the JAX module absent from didax's fails the test unless it is
listed with a reason, and a listed name that didax now has fails it too,
so the lists only shrink as names land.
"""

from __future__ import annotations

from typing import Final

import jax
import jax.custom_derivatives
import jax.errors
import jax.test_util
import pytest
from jax.experimental import checkify as jax_checkify

import didax
import didax.custom_derivatives
import didax.errors
import didax.test_util
from didax.experimental import checkify as didax_checkify

MISSING: Final[dict[str, dict[str, str]]] = {
    "errors": {},
    "custom_derivatives": {
        "remat_opt_p": (
            "declined: JAX's internal primitive for defvjp(optimize_remat=True), an option "
            "didax's custom_vjp does not have"
        ),
    },
    "checkpoint_policies": {},
    "test_util": {},
    "experimental.checkify": {},
}

MODULES: Final = {
    "errors": (jax.errors, didax.errors),
    "custom_derivatives": (jax.custom_derivatives, didax.custom_derivatives),
    "checkpoint_policies": (jax.checkpoint_policies, didax.checkpoint_policies),
    "test_util": (jax.test_util, didax.test_util),
    "experimental.checkify": (jax_checkify, didax_checkify),
}


def _public(module: object) -> set[str]:
    return {n for n in dir(module) if not n.startswith("_")}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_missing_names_have_reasons(name: str) -> None:
    theirs, ours = MODULES[name]
    lacking = _public(theirs) - _public(ours)
    assert sorted(lacking - set(MISSING[name])) == [], "missing without a reason"
    assert sorted(set(MISSING[name]) - lacking) == [], "listed but didax has it now"
    assert all(r.startswith("declined: ") for r in MISSING[name].values())
