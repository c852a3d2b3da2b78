"""The census of JAX's small modules in didax: each public name present, or listed with a reason.

For ``jax.ops``, ``jax.flatten_util``, ``jax.image``, ``jax.tree_util``,
``jax.tree``, ``jax.dtypes``, ``jax.typing`` and ``jax.config`` (JAX
0.10.2): a name of JAX's absent from didax fails unless ``MISSING`` lists
it with its reason, a listed name didax has fails too, and at most 3% of a
module's names may remain (issue 29).
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Final

import jax
import pytest

import didax

MODULES: Final = ("ops", "flatten_util", "image", "tree_util", "tree", "dtypes", "typing")

MISSING: Final[dict[str, dict[str, str]]] = {
    **{m: {} for m in MODULES},
    "config": {
        "add_option": "declined: defines a new option of JAX's own registry (JAX's internals)",
        "meta": "declined: JAX's table of its options' absl flag types (JAX's internals)",
    },
}


def _public(module: object) -> set[str]:
    return {n for n in dir(module) if not n.startswith("_")}


def _pair(name: str) -> tuple[object, object]:
    if name == "config":
        return jax.config, didax.config
    return importlib.import_module(f"jax.{name}"), importlib.import_module(f"didax.{name}")


@pytest.mark.parametrize("name", [*MODULES, "config"])
def test_every_name_is_present_or_listed_with_a_reason(name: str) -> None:
    theirs, ours = _pair(name)
    names = _public(theirs)
    lacking = {n for n in names if not hasattr(ours, n)}
    assert sorted(lacking - set(MISSING[name])) == [], "missing without a reason"
    assert sorted(set(MISSING[name]) - lacking) == [], "listed, but didax has it now"
    assert len(MISSING[name]) <= 0.03 * len(names)


def test_tree_util_is_jax_s_registry() -> None:
    # A node registered through didax is one JAX sees, key paths included.
    @didax.tree_util.register_dataclass
    @dataclasses.dataclass
    class Pair:
        a: object
        b: object

    assert jax.tree_util.tree_leaves(Pair(1, [2, 3])) == [1, 2, 3]
    assert jax.tree_util.tree_leaves({"x": didax.tree_util.Partial(max, 1, 2)}) == [1, 2]
    paths = didax.tree_util.tree_flatten_with_path({"k": [3, 4]})[0]
    assert [didax.tree_util.keystr(p) for p, _ in paths] == ["['k'][0]", "['k'][1]"]
    doubled = didax.jit(lambda p: didax.tree_util.tree_map(lambda x: x * 2, p))(Pair(1.0, 2.0))
    assert (float(doubled.a), float(doubled.b)) == (2.0, 4.0)
