"""``custom_vjp`` with ``symbolic_zeros=True`` against JAX's: fwd gets ``CustomVJPPrimal``s
saying which inputs are perturbed, bwd gets (and may return) ``SymbolicZero``s."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.custom_derivatives
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.custom_derivatives
import didax.numpy as dnp


def _make(lib: Any, np_: Any, cd: Any) -> tuple[Callable[..., Any], list[tuple[object, ...]]]:
    seen: list[tuple[object, ...]] = []

    @lib.custom_vjp
    def f(x: Any, y: Any) -> Any:
        return np_.sin(x) * y, x * 2.0

    def fwd(x: Any, y: Any) -> Any:
        seen.append(("fwd", type(x).__name__, x.perturbed, y.perturbed))
        xv, yv = cd.custom_vjp_primal_tree_values((x, y))
        return f(xv, yv), (xv, yv)

    def bwd(res: Any, g: Any) -> Any:
        xv, yv = res
        g1, g2 = g
        zero1, zero2 = isinstance(g1, cd.SymbolicZero), isinstance(g2, cd.SymbolicZero)
        seen.append(("bwd", zero1, zero2))
        gx = (0.0 if zero1 else g1 * np_.cos(xv) * yv) + (0.0 if zero2 else 2.0 * g2)
        gy = cd.zero_from_primal(yv, symbolic_zeros=True) if zero1 else g1 * np_.sin(xv)
        return gx, gy

    f.defvjp(fwd, bwd, symbolic_zeros=True)
    return f, seen


def _grads(lib: Any, f: Callable[..., Any]) -> list[Any]:
    return [
        lib.grad(lambda x, y: f(x, y)[0])(0.5, 2.0),
        lib.grad(lambda x, y: f(x, y)[1], argnums=(0, 1))(0.5, 2.0),
        lib.grad(lambda y: f(0.5, y)[0])(2.0),
        lib.jit(lib.grad(lambda x, y: f(x, y)[1]))(0.5, 2.0),
    ]


def test_rules_see_what_jax_s_see() -> None:
    f_d, seen_d = _make(dx, dnp, didax.custom_derivatives)
    f_j, seen_j = _make(jax, jnp, jax.custom_derivatives)
    for ours, theirs in zip(_grads(dx, f_d), _grads(jax, f_j), strict=True):
        for a, b in zip(
            dx.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs), strict=True
        ):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12)
    assert seen_d == seen_j
    # Under vmap the values are JAX's (didax's fwd then sees every input perturbed).
    xs = np.array([0.1, 0.7])
    np.testing.assert_allclose(
        np.asarray(dx.vmap(dx.grad(lambda x: f_d(x, 2.0)[0]))(xs)),
        np.asarray(jax.vmap(jax.grad(lambda x: f_j(x, 2.0)[0]))(xs)),
        rtol=1e-12,
    )


def test_helpers_and_errors() -> None:
    cd = didax.custom_derivatives
    z = cd.zero_from_primal({"a": np.ones(2, np.float32), "n": np.int32(3)}, symbolic_zeros=True)
    assert z["a"].shape == (2,)
    assert z["n"].dtype == jax.dtypes.float0
    np.testing.assert_array_equal(cd.zero_from_primal(np.ones(2)), np.zeros(2))
    with pytest.raises(TypeError, match="unexpected leaf type"):
        cd.custom_vjp_primal_tree_values((1.0,))

    @dx.custom_vjp
    def g(x: Any) -> Any:
        return x * 3.0

    g.defvjp(
        lambda x: (g(x.value), None),
        lambda _, ct: (cd.SymbolicZero(dx.extend.ShapedArray((3,), np.dtype(np.float32))),),
        symbolic_zeros=True,
    )
    with pytest.raises(ValueError, match="SymbolicZero with a shape/dtype that does not match"):
        dx.grad(g)(1.0)
