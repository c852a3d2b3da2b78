"""``lax.ragged_dot`` and ``lax.ragged_dot_general`` against ``jax.lax``, in JAX's three modes.

Values (eagerly and under ``jit``), jvp in every mode, grad of both
operands and vmap where JAX defines them (its transpose rule covers the
non-contracting mode only, its batching rule batch axes at 0), finite
differences, ``preferred_element_type`` and JAX's shape errors.
"""

from __future__ import annotations

from typing import Any, Final

import jax
import numpy as np
import pytest
from jax import lax as jlax

import didax as dx
from didax import lax as dlax

RNG: Final = np.random.default_rng(0)

# (name, lhs shape, rhs shape, group sizes, (dot dims, lhs ragged, rhs group), jax grads it)
CASES: Final[list[tuple[str, tuple[int, ...], tuple[int, ...], Any, Any, bool]]] = [
    ("basic", (7, 3), (3, 3, 4), [2, 0, 4], ((((1,), (1,)), ((), ())), (0,), (0,)), True),
    ("basic_short", (6, 2), (2, 2, 3), [1, 2], ((((1,), (1,)), ((), ())), (0,), (0,)), True),
    (
        "noncontracting_batched_2d_sizes",
        (2, 7, 3),
        (3, 2, 3, 4),
        [[2, 0, 5], [1, 3, 3]],
        ((((2,), (2,)), ((0,), (1,))), (1,), (0,)),
        True,
    ),
    (
        "noncontracting_group_last",
        (5, 3),
        (3, 4, 2),
        [3, 2],
        ((((1,), (0,)), ((), ())), (0,), (2,)),
        True,
    ),
    ("contracting", (3, 7), (7, 4), [2, 0, 5], ((((1,), (0,)), ((), ())), (1,), ()), False),
    (
        "contracting_batched",
        (2, 3, 6),
        (2, 6, 4),
        [[1, 5], [4, 2]],
        ((((2,), (1,)), ((0,), (0,))), (2,), ()),
        False,
    ),
    ("batch", (3, 4, 2), (3, 2, 5), [1, 2], ((((2,), (1,)), ((0,), (0,))), (0,), ()), False),
]
IDS: Final = [c[0] for c in CASES]


def _dims(lib: Any, spec: Any) -> Any:
    dot, ragged, group = spec
    return lib.RaggedDotDimensionNumbers(dot, list(ragged), list(group))


def _operands(case: Any, dtype: Any) -> tuple[Any, Any, Any]:
    _, ls, rs, gs, _, _ = case
    return (
        RNG.normal(size=ls).astype(dtype),
        RNG.normal(size=rs).astype(dtype),
        np.asarray(gs, np.int32),
    )


def _checks(lib: Any, jx: Any, spec: Any, grads: bool) -> Any:
    dims = _dims(lib, spec)

    def f(x: Any, w: Any, gs: Any) -> Any:
        return lib.ragged_dot_general(x, w, gs, dims)

    def loss(x: Any, w: Any, gs: Any) -> Any:
        return (f(x, w, gs) ** 2).sum()

    def run(x: Any, w: Any, gs: Any, dx_: Any, dw: Any, xs: Any, ws: Any, gss: Any) -> Any:
        out = [f(x, w, gs), jx.jvp(lambda x, w: f(x, w, gs), (x, w), (dx_, dw))]
        if grads:
            out.append(jx.grad(loss, argnums=(0, 1))(x, w, gs))
        if gs.ndim == 1:  # JAX batches all three at axis 0 only, and [p..., g] sizes not at all
            out.append(jx.vmap(f)(xs, ws, gss))
        return out

    return jx.jit(run)


# Every case in float64; float32 for one case of each mode.
TYPED: Final = [(c, np.float64) for c in CASES] + [
    (c, np.float32) for c in CASES if c[0] in ("basic", "contracting", "batch")
]


@pytest.mark.parametrize(
    ("case", "dtype"), TYPED, ids=[f"{c[0]}-{np.dtype(d).name}" for c, d in TYPED]
)
def test_ragged_dot_general_equals_jax(case: Any, dtype: Any) -> None:
    x, w, gs = _operands(case, dtype)
    dx_, dw = _operands(case, dtype)[:2]
    spec, grads = case[4], case[5]
    eager = dlax.ragged_dot_general(x, w, gs, _dims(dlax, spec))
    args = (x, w, gs, dx_, dw, np.stack([x, dx_]), np.stack([w, dw]), np.stack([gs, gs[::-1]]))
    ours = _checks(dlax, dx, spec, grads)(*args)
    theirs = _checks(jlax, jax, spec, grads)(*args)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(np.asarray(eager), np.asarray(theirs[0]), rtol=tol, atol=tol)
    for o, t in zip(
        jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs), strict=True
    ):
        assert np.asarray(o).dtype == np.asarray(t).dtype
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=tol, atol=tol)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_vmap_of_one_operand_equals_a_loop(case: Any) -> None:
    """Where JAX's batching rule refuses (one operand batched), against a loop."""
    x, w, gs = _operands(case, np.float64)
    dims = _dims(dlax, case[4])
    xs = np.stack([x, 2 * x, -x])
    got = dx.vmap(lambda x: dlax.ragged_dot_general(x, w, gs, dims))(xs)
    want = np.stack(
        [np.asarray(jlax.ragged_dot_general(v, w, gs, _dims(jlax, case[4]))) for v in xs]
    )
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)


def test_ragged_dot_grad_by_finite_differences_in_every_mode() -> None:
    for case in CASES:
        x, w, gs = _operands(case, np.float64)
        dims = _dims(dlax, case[4])

        def loss(x: Any, w: Any, gs: Any = gs, dims: Any = dims) -> Any:
            return (dlax.ragged_dot_general(x, w, gs, dims) ** 2).sum()

        gx, gw = dx.grad(loss, argnums=(0, 1))(x, w)
        vx, vw = _operands(case, np.float64)[:2]
        eps = 1e-6
        fd = (loss(x + eps * vx, w + eps * vw) - loss(x - eps * vx, w - eps * vw)) / (2 * eps)
        np.testing.assert_allclose(
            float(np.sum(gx * vx) + np.sum(gw * vw)), float(fd), rtol=1e-6, err_msg=case[0]
        )


def test_ragged_dot_preferred_element_type_and_ints() -> None:
    x = np.arange(12, dtype=np.int8).reshape(4, 3)
    w = np.ones((2, 3, 2), np.int8)
    gs = np.array([1, 3], np.int32)
    ours = dlax.ragged_dot(x, w, gs, preferred_element_type=np.int32)
    jx, jw, jgs = (jax.numpy.asarray(v) for v in (x, w, gs))
    theirs = jlax.ragged_dot(jx, jw, jgs, preferred_element_type=np.int32)
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (((4, 3), (2, 3, 2), np.array([1.0, 3.0])), "group_sizes.dtype is subtype of np.integer"),
        (((4, 3), (3, 3, 2), np.array([1, 3], np.int32)), "rhs group dimension size to be 2"),
        (((4, 3), (2, 3, 2), np.int32(4)), "rank of group_sizes to be >=1"),
    ],
)
def test_ragged_dot_errors_are_jaxs(args: Any, message: str) -> None:
    ls, rs, gs = args
    x, w = np.ones(ls, np.float32), np.ones(rs, np.float32)
    with pytest.raises(TypeError, match=message):
        jlax.ragged_dot(jax.numpy.asarray(x), jax.numpy.asarray(w), jax.numpy.asarray(gs))
    with pytest.raises(TypeError, match=message):
        dlax.ragged_dot(x, w, gs)
