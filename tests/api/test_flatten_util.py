"""``didax.flatten_util.ravel_pytree`` against ``jax.flatten_util.ravel_pytree``."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.flatten_util import ravel_pytree as jax_ravel

import didax as dx
import didax.numpy as dnp
from didax.flatten_util import ravel_pytree

RNG = np.random.default_rng(3)

TREES: dict[str, Any] = {
    "one dtype": {"w": RNG.normal(size=(2, 3)), "b": RNG.normal(size=3)},
    "mixed dtypes": [
        RNG.normal(size=2).astype(np.float32),
        np.arange(3, dtype=np.int32),
        np.array([True, False]),
    ],
    "scalars": (1.0, 2, {"c": np.float32(3.5)}),
    "complex": [np.ones(2, np.complex64), np.arange(2.0, dtype=np.float32)],
    "empty": {"a": [], "b": ()},
    "a 0-d leaf": [np.float32(2.0), np.zeros((2, 0))],
}


def _leaves_equal(ours: Any, theirs: Any) -> None:
    ours_leaves, ours_tree = jax.tree_util.tree_flatten(ours)
    theirs_leaves, theirs_tree = jax.tree_util.tree_flatten(theirs)
    ours_tree, theirs_tree = str(ours_tree), str(theirs_tree)
    assert ours_tree == theirs_tree
    for a, b in zip(ours_leaves, theirs_leaves, strict=True):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def _check(name: str) -> None:
    tree = TREES[name]
    flat, unravel = ravel_pytree(tree)
    theirs, their_unravel = jax_ravel(tree)
    assert isinstance(flat, dx.Array)
    assert flat.dtype == theirs.dtype
    np.testing.assert_array_equal(np.asarray(flat), np.asarray(theirs))
    _leaves_equal(unravel(flat), their_unravel(theirs))
    _leaves_equal(unravel(dnp.asarray(np.asarray(theirs)) * 2), their_unravel(theirs * 2))


@pytest.mark.parametrize("name", sorted(TREES))
def test_ravel_and_unravel_are_jax_s(name: str) -> None:
    _check(name)


@pytest.mark.x64_off
@pytest.mark.parametrize("name", sorted(TREES))
def test_ravel_and_unravel_are_jax_s_in_32_bits(name: str) -> None:
    _check(name)


def test_unravel_takes_only_the_promoted_dtype_where_leaves_differ() -> None:
    _, unravel = ravel_pytree(TREES["mixed dtypes"])
    _, their_unravel = jax_ravel(TREES["mixed dtypes"])
    wrong = np.zeros(7, np.int32)
    with pytest.raises(TypeError) as theirs:
        their_unravel(jnp.asarray(wrong))
    with pytest.raises(TypeError) as ours:
        unravel(dnp.asarray(wrong))
    assert str(ours.value) == str(theirs.value)


def test_one_dtype_unravel_takes_any_dtype_and_is_hashable() -> None:
    tree = TREES["one dtype"]
    _, unravel = ravel_pytree(tree)
    out = unravel(dnp.zeros(9, dnp.int32))
    assert out["w"].dtype == np.int32
    assert unravel == ravel_pytree(tree)[1]
    assert hash(unravel) == hash(ravel_pytree(tree)[1])


def test_under_jit_grad_and_vmap() -> None:
    tree = {"w": RNG.normal(size=(2, 3)), "b": RNG.normal(size=3)}

    def loss(t: Any, ravel: Any) -> Any:
        flat, unravel = ravel(t)
        back = unravel(flat * flat)
        return (back["w"].sum() + back["b"].prod()) * flat.sum()

    ours = dx.jit(dx.grad(lambda t: loss(t, ravel_pytree)))(tree)
    theirs = jax.jit(jax.grad(lambda t: loss(t, jax_ravel)))(tree)
    for k in tree:
        np.testing.assert_allclose(np.asarray(ours[k]), np.asarray(theirs[k]), rtol=1e-12)
    batch = {"w": RNG.normal(size=(4, 2, 3)), "b": RNG.normal(size=(4, 3))}
    flat = dx.vmap(lambda t: ravel_pytree(t)[0])(batch)
    expected = jax.vmap(lambda t: jax_ravel(t)[0])(batch)
    np.testing.assert_array_equal(np.asarray(flat), np.asarray(expected))
    # The finite-difference check of one coordinate of the gradient.
    eps = 1e-6
    bumped = {"w": tree["w"].copy(), "b": tree["b"]}
    bumped["w"][0, 0] += eps
    slope = (float(loss(bumped, ravel_pytree)) - float(loss(tree, ravel_pytree))) / eps
    assert abs(slope - float(ours["w"][0, 0])) < 1e-4 * max(1.0, abs(slope))
