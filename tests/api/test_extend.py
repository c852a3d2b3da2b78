"""didax.extend: a user-defined primitive gets every transformation through its rules."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax import lax
from didax.extend import Primitive, ShapedArray, UndefinedPrimal, Zero, lowering
from didax.ir.typecheck import typecheck_jaxpr

RNG = np.random.default_rng(3)


def _scaled_add_primitive(name: str = "scaled_add", skip: str = "") -> Primitive:
    """``scaled_add(x, y, scale=s) = s * x + y``: linear in x and y, with a param.

    Every rule is defined except the one named ``skip``.
    """
    p = Primitive(name)
    if skip != "impl":
        p.def_impl(lambda x, y, *, scale: scale * x + y)
    p.def_abstract_eval(lambda x, y, *, scale: ShapedArray(x.shape, x.dtype))

    def lower(ctx: lowering.LoweringRuleContext, x: Any, y: Any, *, scale: float) -> list[Any]:
        s = lowering.full(ctx.avals_in[0], scale)
        return [lowering.hlo.add(lowering.hlo.multiply(s, x), y)]

    if skip != "lowering":
        p.def_lowering(lower)

    def jvp(primals: Any, tangents: Any, *, scale: float) -> tuple[Any, Any]:
        x, y = primals
        xt, yt = (dnp.zeros_like(x) if isinstance(t, Zero) else t for t in tangents)
        return p.bind(x, y, scale=scale), p.bind(xt, yt, scale=scale)

    if skip != "jvp":
        p.def_jvp(jvp)

    def transpose(ct: Any, x: Any, y: Any, *, scale: float) -> list[Any]:
        return [
            lax.mul(ct, scale) if isinstance(x, UndefinedPrimal) else None,
            ct if isinstance(y, UndefinedPrimal) else None,
        ]

    if skip != "transpose":
        p.def_transpose(transpose)

    def batch(args: Any, dims: Any, *, scale: float) -> tuple[Any, Any]:
        x, y = args
        dx_, dy = dims
        size = np.shape(x)[dx_] if dx_ is not None else np.shape(y)[dy]
        x, y = (
            dnp.broadcast_to(a, (size, *np.shape(a))) if d is None else dnp.moveaxis(a, d, 0)
            for a, d in ((x, dx_), (y, dy))
        )
        return p.bind(x, y, scale=scale), 0

    if skip != "batching":
        p.def_batching(batch)
    return p


P = _scaled_add_primitive()


def f(x: Any, y: Any) -> Any:
    return dnp.sum(dnp.sin(P.bind(x, y, scale=3.0)))


def jf(x: Any, y: Any) -> Any:
    return jnp.sum(jnp.sin(3.0 * x + y))


def test_every_transformation_matches_jax() -> None:
    x, y = RNG.normal(size=(4,)), RNG.normal(size=(4,))
    np.testing.assert_allclose(f(x, y), jf(x, y), rtol=1e-12)
    np.testing.assert_allclose(dx.jit(f)(x, y), jf(x, y), rtol=1e-12)
    for argnums in (0, 1, (0, 1)):
        ours = dx.grad(f, argnums)(x, y)
        theirs = jax.grad(jf, argnums)(x, y)
        for o, t in zip(
            jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs), strict=True
        ):
            np.testing.assert_allclose(o, t, rtol=1e-12)
    np.testing.assert_allclose(dx.jit(dx.grad(f))(x, y), jax.grad(jf)(x, y), rtol=1e-12)
    xs = RNG.normal(size=(3, 4))
    np.testing.assert_allclose(
        dx.vmap(f, in_axes=(0, None))(xs, y), jax.vmap(jf, in_axes=(0, None))(xs, y), rtol=1e-12
    )
    np.testing.assert_allclose(
        dx.jit(dx.vmap(dx.grad(f), in_axes=(1, None)))(xs.T, y),
        jax.vmap(jax.grad(jf), in_axes=(1, None))(xs.T, y),
        rtol=1e-12,
    )
    np.testing.assert_allclose(dx.hessian(f)(x, y), jax.hessian(jf)(x, y), rtol=1e-10)
    typecheck_jaxpr(dx.make_jaxpr(dx.grad(f))(x, y))


def test_a_primitive_without_an_impl_is_evaluated_by_its_lowering() -> None:
    # Eager evaluation's compiled route, as for the standard primitives that
    # have no NumPy impl; with neither, the error names both.
    p = _scaled_add_primitive("lowered_only", skip="impl")
    x, y = RNG.normal(size=(3,)), RNG.normal(size=(3,))
    out = p.bind(x, y, scale=2.0)
    assert isinstance(out, dx.Array)
    np.testing.assert_allclose(np.asarray(out), 2.0 * x + y, rtol=1e-12)
    bare = Primitive("no_impl_no_lowering")
    bare.def_abstract_eval(lambda x: x)
    with pytest.raises(
        NotImplementedError,
        match=r"'no_impl_no_lowering' has no impl .* rule, and no lowering for platform 'cpu'",
    ):
        bare.bind(x)


def test_a_primitive_with_only_an_impl_runs_it_on_large_operands() -> None:
    # Large operands take the compiled route, but only a primitive that lowers.
    from didax.interpreters.evaluation import LARGE

    p = Primitive("impl_only_large")
    p.def_impl(lambda x: np.add(x, 1))
    p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    x = dx.device_put(np.zeros(LARGE, np.float32))
    out = p.bind(x)
    assert out._host is not None
    np.testing.assert_array_equal(np.asarray(out)[:3], [1.0, 1.0, 1.0])


@pytest.mark.parametrize(
    ("transform", "rule"),
    [
        (dx.jit, "lowering"),
        (lambda g: lambda x, y: dx.jvp(g, (x, y), (x, y)), "jvp"),
        (dx.grad, "transpose"),
        (dx.vmap, "batching"),
    ],
)
def test_missing_rule_names_primitive_and_transformation(transform: Any, rule: str) -> None:
    p = _scaled_add_primitive("half_ruled", skip=rule)

    def g(x: Any, y: Any) -> Any:
        return dnp.sum(p.bind(x, y, scale=2.0))

    with pytest.raises(NotImplementedError, match=rf"'half_ruled' has no {rule}"):
        transform(g)(np.ones(3), np.ones(3))


def test_rules_cannot_be_registered_twice() -> None:
    p = _scaled_add_primitive()
    with pytest.raises(ValueError, match="already registered"):
        p.def_impl(lambda x, y, *, scale: x)


def test_a_primitive_with_only_an_impl_rule_runs_eagerly() -> None:
    # As JAX's: eager evaluation needs no abstract-evaluation rule; tracing does.
    p = Primitive("impl_only_double")
    p.def_impl(lambda x: 2 * x)
    out = p.bind(np.ones(2, np.float32))
    assert isinstance(out, dx.Array)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out), [2.0, 2.0])
    with pytest.raises(NotImplementedError, match="abstract evaluation"):
        dx.jit(lambda x: p.bind(x))(1.0)
