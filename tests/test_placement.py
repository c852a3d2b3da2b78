"""Every primitive's rules live in its family's three modules (docs/contributing.md).

The placement convention: a primitive family is declared, typed and given
its ``didax.lax`` wrappers in ``didax.core.lax.<family>``, all of its
interpreter rules (impl, jvp, batching, transpose, partial evaluation,
DCE, flops) are registered from ``didax.interpreters.<family>``, and its
lowering rules from ``didax.lowering.<family>``. Rule tables remember the
module whose import registered each rule (``RuleTable.registered_from``),
and primitives the module that declared them (``Primitive.declared_in``),
so this test reads the convention off the tables themselves.

``EXEMPT`` lists the primitives not (yet) in that shape, each with the
reason.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Final

import pytest

import didax
from didax.core.abstract_eval import ABSTRACT_EVAL
from didax.core.lax.fft import fft_p
from didax.core.primitive import ALL_PRIMITIVES, Primitive, RuleTable
from didax.interpreters.batching import BATCH_RULES, NAMED_BATCH_RULES
from didax.interpreters.evaluation import IMPL_RULES
from didax.interpreters.flops import FLOPS_RULES
from didax.interpreters.jvp import JVP_RULES
from didax.interpreters.partial_eval import PE_RULES
from didax.interpreters.transpose import TRANSPOSE_RULES
from didax.ir.passes import DCE_RULES
from didax.lowering.mlir import LOWERING_RULES

CORE: Final = "didax.core.lax."

# Tables whose rules belong in didax.interpreters.<family>.
INTERPRETER_TABLES: Final[list[tuple[str, RuleTable[Any]]]] = [
    ("impl", IMPL_RULES),
    ("jvp", JVP_RULES),
    ("batching", BATCH_RULES),
    ("named batching", NAMED_BATCH_RULES),
    ("transpose", TRANSPOSE_RULES),
    ("partial_eval", PE_RULES),
    ("dce", DCE_RULES),
    ("flops", FLOPS_RULES),
]

EXEMPT: Final[dict[str, str]] = {}


def _package_primitives() -> list[Primitive]:
    """The primitives bound to a name at the top level of a ``didax`` module.

    (Not every primitive whose ``declared_in`` is a didax module: a doctest
    there may make one.)
    """
    defined: set[Primitive] = set()
    for info in pkgutil.walk_packages(didax.__path__, prefix="didax."):
        module = importlib.import_module(info.name)
        defined.update(v for v in vars(module).values() if isinstance(v, Primitive))
    return [p for p in ALL_PRIMITIVES if p in defined]


def _family(prim: Primitive) -> str:
    return prim.declared_in.removeprefix(CORE)


def _placed() -> list[Primitive]:
    return [
        p for p in _package_primitives() if p.declared_in.startswith(CORE) and p.name not in EXEMPT
    ]


def test_every_package_primitive_is_declared_in_a_core_lax_family() -> None:
    misplaced = [
        f"{p.name} (declared in {p.declared_in})"
        for p in _package_primitives()
        if not p.declared_in.startswith(CORE) and p.name not in EXEMPT
    ]
    assert not misplaced, "declare these in didax.core.lax.<family>: " + ", ".join(misplaced)


def test_exemptions_are_still_needed() -> None:
    names = {p.name for p in _package_primitives()}
    placed = {p.name for p in _package_primitives() if p.declared_in.startswith(CORE)}
    stale = sorted(n for n in EXEMPT if n not in names)
    assert not stale, f"EXEMPT names primitives that do not exist: {stale}"
    # An exempt primitive that has moved home should leave EXEMPT.
    moved = sorted(n for n in EXEMPT if n in placed)
    assert not moved, f"these are in core.lax.<family> now: drop them from EXEMPT: {moved}"


def _misplaced(
    prim: Primitive, interpreter_tables: list[tuple[str, RuleTable[Any]]] = INTERPRETER_TABLES
) -> list[str]:
    """Where ``prim``'s rules were registered from, for each one not in its family's module."""
    family = _family(prim)
    wrong: list[str] = []
    homes: list[tuple[str, RuleTable[Any], str]] = [("abstract_eval", ABSTRACT_EVAL, CORE + family)]
    homes += [(n, t, f"didax.interpreters.{family}") for n, t in interpreter_tables]
    homes += [("lowering", LOWERING_RULES, f"didax.lowering.{family}")]
    for name, table, home in homes:
        if prim in table and (actual := table.registered_from(prim)) != home:
            wrong.append(f"{name} rule from {actual}, not {home}")
    for platform in LOWERING_RULES.platforms(prim):
        home = f"didax.lowering.{family}"
        if (actual := LOWERING_RULES.registered_from(prim, platform)) != home:
            wrong.append(f"lowering[{platform}] rule from {actual}, not {home}")
    return wrong


@pytest.mark.parametrize("prim", _placed(), ids=lambda p: p.name)
def test_rules_are_registered_from_the_family_modules(prim: Primitive) -> None:
    wrong = _misplaced(prim)
    assert not wrong, f"{prim.name} (family {_family(prim)}): " + "; ".join(wrong)


# The check can fail: a rule for fft_p registered from this module, at its
# import as a family module's rules are, is reported.
_ELSEWHERE: Final[RuleTable[int]] = RuleTable("placement example")
_ELSEWHERE.register(fft_p, 0)


def test_a_rule_registered_from_another_module_is_reported() -> None:
    assert _ELSEWHERE.registered_from(fft_p) == __name__
    assert _misplaced(fft_p) == []
    wrong = _misplaced(fft_p, [*INTERPRETER_TABLES, ("example", _ELSEWHERE)])
    assert wrong == [f"example rule from {__name__}, not didax.interpreters.fft"]
