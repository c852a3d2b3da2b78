"""``didax.image`` against ``jax.image``: every method, up and down, antialiased or not."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import numpy as np
import pytest

import didax as dx

IMAGE = np.random.default_rng(0).normal(size=(5, 7, 2)).astype(np.float32)
METHODS = ["nearest", "linear", "cubic", "cubic-pytorch", "lanczos3", "lanczos5", "area"]


# (method, output shape, antialias): CI's slice (each method once, shrinking one
# dimension and growing the other, antialiasing on and off in turn), and the
# slow session's whole table.
SLICE = [(m, (3, 11, 2), i % 2 == 0) for i, m in enumerate(METHODS)]
TABLE = [
    (m, shape, aa)
    for m in METHODS
    for shape in [(9, 4, 2), (3, 11, 2), (5, 3, 2)]
    for aa in (True, False)
]


def _resize_table(every: Sequence[tuple[str, tuple[int, ...], bool]]) -> None:
    # Each library's resizes in one compiled program (JAX's eager ops compile one by one).
    ours = dx.jit(lambda x: [dx.image.resize(x, s, m, aa) for m, s, aa in every])(IMAGE)
    theirs = jax.jit(lambda x: [jax.image.resize(x, s, m, aa) for m, s, aa in every])(IMAGE)
    for case, o, t in zip(every, ours, theirs, strict=True):
        assert (o.dtype, o.shape) == (t.dtype, t.shape), case
        np.testing.assert_allclose(o, t, atol=2e-6, err_msg=str(case))
    method, shape, antialias = every[-1]
    eager = dx.image.resize(IMAGE, shape, method, antialias)
    np.testing.assert_allclose(eager, ours[-1], atol=1e-6)


def test_resize_is_jax_s() -> None:
    _resize_table(SLICE)


@pytest.mark.slow
def test_resize_is_jax_s_whole_table() -> None:
    _resize_table(TABLE)


def test_scale_and_translate_is_jax_s() -> None:
    scale, shift = np.array([1.5, 0.8], np.float32), np.array([0.3, -0.5], np.float32)
    cases = [("linear", True), ("cubic", False), ("lanczos3", True), ("area", False)]
    cases += [("cubic-pytorch", False)]

    def every(lib: Any) -> Any:
        return lib.jit(
            lambda x: [
                lib.image.scale_and_translate(x, (8, 6, 2), (0, 1), scale, shift, m, aa)
                for m, aa in cases
            ]
        )(IMAGE)

    for o, t in zip(every(dx), every(jax), strict=True):
        np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-5)


def test_resize_of_integers_grad_vmap_and_errors() -> None:
    ints = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert dx.image.resize(ints, (6, 2), "nearest").dtype == np.int32
    ours = dx.image.resize(ints, (6, 2), "linear")
    theirs = jax.jit(lambda x: jax.image.resize(x, (6, 2), "linear"))(ints)
    assert ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)

    def loss(lib: Any, x: Any) -> Any:
        return (lib.image.resize(x, (4, 9), "cubic") ** 2).sum()

    np.testing.assert_allclose(
        dx.jit(dx.grad(lambda x: loss(dx, x)))(IMAGE[..., 0]),
        jax.jit(jax.grad(lambda x: loss(jax, x)))(IMAGE[..., 0]),
        rtol=1e-5,
        atol=1e-6,
    )
    batch = np.stack([IMAGE[..., 0], -IMAGE[..., 0]])
    np.testing.assert_allclose(
        dx.vmap(lambda x: dx.image.resize(x, (3, 3), "linear"))(batch),
        jax.jit(jax.vmap(lambda x: jax.image.resize(x, (3, 3), "linear")))(batch),
        atol=2e-6,
    )
    assert dx.image.ResizeMethod.from_string("bilinear") is dx.image.ResizeMethod.LINEAR
    with pytest.raises(ValueError, match="Unknown resize method"):
        dx.image.resize(IMAGE, (2, 2, 2), "bogus")
    with pytest.raises(ValueError, match="number of dimensions"):
        dx.image.resize(IMAGE, (2, 2), "linear")
    with pytest.raises(ValueError, match="Nearest neighbor"):
        dx.image.scale_and_translate(IMAGE, (2, 2, 2), (0,), [1.0], [0.0], "nearest")


@pytest.mark.x64_off
def test_resize_in_32_bits() -> None:
    ours = dx.image.resize(IMAGE.astype(np.float64), (8, 3, 2), "lanczos3")
    theirs = jax.jit(lambda x: jax.image.resize(x, (8, 3, 2), "lanczos3"))(IMAGE.astype(np.float64))
    assert ours.dtype == theirs.dtype == np.float32
    np.testing.assert_allclose(ours, theirs, atol=2e-6)
