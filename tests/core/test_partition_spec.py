"""PartitionSpec compares, hashes and prints as JAX's: entries in canonical form."""

from __future__ import annotations

from typing import Any

import jax.sharding
import pytest

from didax.sharding import PartitionSpec as P

SPECS: list[tuple[Any, ...]] = [
    (),
    ("x",),
    ("x", "y"),
    (("x",), ("y",)),
    (("x", "y"), None),
    (["x"], None),
    ((), "y"),
    (None,),
    ("x", None),
    (("y", "x"),),
]


@pytest.mark.parametrize("a", SPECS, ids=repr)
@pytest.mark.parametrize("b", SPECS, ids=repr)
def test_equality_and_hash_as_jax(a: tuple[Any, ...], b: tuple[Any, ...]) -> None:
    J = jax.sharding.PartitionSpec
    assert (P(*a) == P(*b)) == (J(*a) == J(*b))
    if P(*a) == P(*b):
        assert hash(P(*a)) == hash(P(*b))


@pytest.mark.parametrize("a", SPECS, ids=repr)
def test_repr_and_entries_as_jax(a: tuple[Any, ...]) -> None:
    ours, theirs = P(*a), jax.sharding.PartitionSpec(*a)
    assert repr(ours) == repr(theirs)
    assert tuple(ours) == tuple(theirs)
    assert len(ours) == len(theirs)
