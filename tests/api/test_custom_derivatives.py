"""custom_jvp, custom_vjp and checkpoint against JAX, under every transformation.

Each program is written once against a namespace (``dx``/``dnp`` or
``jax``/``jnp``) and run with both; values and derivatives must agree.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax.interpreters.custom_derivatives import CustomVJPForwardModeError
from didax.interpreters.partial_eval import linearize_flat
from didax.ir.typecheck import typecheck_jaxpr

D = types.SimpleNamespace(t=dx, np=dnp, custom_jvp=dx.custom_jvp, custom_vjp=dx.custom_vjp)
J = types.SimpleNamespace(t=jax, np=jnp, custom_jvp=jax.custom_jvp, custom_vjp=jax.custom_vjp)


def _close(a: Any, b: Any, tol: float = 1e-10) -> None:
    jax.tree_util.tree_map(
        lambda u, v: np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=tol, atol=tol),
        a,
        b,
    )


# --- the custom functions, written once ----------------------------------------------------


def softplus_jvp(m: types.SimpleNamespace) -> Any:
    """A numerically stable jvp rule (JAX's log1pexp example), two arguments."""

    @m.custom_jvp
    def f(x: Any, y: Any) -> Any:
        return m.np.log(1.0 + m.np.exp(x)) * y

    @f.defjvp
    def f_jvp(primals: Any, tangents: Any) -> Any:
        (x, y), (tx, ty) = primals, tangents
        out = f(x, y)
        sig = 1.0 / (1.0 + m.np.exp(-x))
        return out, sig * y * tx + m.np.log(1.0 + m.np.exp(x)) * ty

    return f


def defjvps_fn(m: types.SimpleNamespace) -> Any:
    @m.custom_jvp
    def f(x: Any, y: Any) -> Any:
        return m.np.sin(x) * y

    f.defjvps(lambda t, ans, x, y: m.np.cos(x) * y * t, lambda t, ans, x, y: m.np.sin(x) * t)
    return f


def nondiff_jvp(m: types.SimpleNamespace) -> Any:
    def make(n: int) -> Callable[..., Any]:
        return lambda x: x**n

    def app(n: int, x: Any, y: Any) -> Any:
        return make(n)(x) * y

    f = m.custom_jvp(app, nondiff_argnums=(0,))

    @f.defjvp
    def f_jvp(n: int, primals: Any, tangents: Any) -> Any:
        (x, y), (tx, ty) = primals, tangents
        return f(n, x, y), n * x ** (n - 1) * y * tx + x**n * ty

    return lambda x, y: f(3, x, y)


def clip_vjp(m: types.SimpleNamespace) -> Any:
    """A gradient-clipping custom_vjp with residuals, two arguments (one a pytree)."""

    @m.custom_vjp
    def f(x: Any, p: Any) -> Any:
        return m.np.sin(x) * p["a"] + p["b"]

    def fwd(x: Any, p: Any) -> Any:
        return f(x, p), (m.np.cos(x), m.np.sin(x), p["a"])

    def bwd(res: Any, g: Any) -> Any:
        cos_x, sin_x, a = res
        return (m.np.clip(cos_x * a * g, -0.5, 0.5), {"a": sin_x * g, "b": g})

    f.defvjp(fwd, bwd)
    return lambda x, y: f(x, {"a": y, "b": y * y})


def vjp_none_ct(m: types.SimpleNamespace) -> Any:
    @m.custom_vjp
    def f(x: Any, y: Any) -> Any:
        return x * y

    f.defvjp(lambda x, y: (x * y, y), lambda y, g: (y * g * 2.0, None))
    return f


def checkpointed(m: types.SimpleNamespace) -> Any:
    def layer(x: Any, y: Any) -> Any:
        return m.np.tanh(m.np.sin(x) * y + x)

    def f(x: Any, y: Any) -> Any:
        for _ in range(3):
            x = m.t.checkpoint(layer)(x, y)
        return x

    return f


def checkpointed_dots(m: types.SimpleNamespace) -> Any:
    w = np.linspace(-1.0, 1.0, 9).reshape(3, 3)

    def layer(x: Any, y: Any) -> Any:
        return m.np.tanh(w @ x * y)

    policy = m.t.checkpoint_policies.dots_saveable

    def f(x: Any, y: Any) -> Any:
        for _ in range(2):
            x = m.t.checkpoint(layer, policy=policy)(x, y)
        return x

    return f


PROGRAMS: dict[str, Callable[[types.SimpleNamespace], Callable[..., Any]]] = {
    "custom_jvp": softplus_jvp,
    "custom_jvp_defjvps": defjvps_fn,
    "custom_jvp_nondiff": nondiff_jvp,
    "custom_vjp": clip_vjp,
    "custom_vjp_none": vjp_none_ct,
    "checkpoint": checkpointed,
    "checkpoint_dots": checkpointed_dots,
}
FORWARD = [k for k in PROGRAMS if not k.startswith("custom_vjp")]

X = np.array([0.3, -1.2, 2.5])
Y = np.array([1.5, 0.5, -0.7])


def _loss(f: Callable[..., Any], m: types.SimpleNamespace) -> Callable[..., Any]:
    return lambda x, y: m.np.sum(f(x, y) ** 2)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_values_eager_and_jit(name: str) -> None:
    expected = PROGRAMS[name](J)(X, Y)
    f = PROGRAMS[name](D)
    _close(f(X, Y), expected)
    _close(dx.jit(f)(X, Y), expected)
    typecheck_jaxpr(dx.make_jaxpr(f)(X, Y))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_grad_under_jit_and_vmap(name: str) -> None:
    expected = jax.grad(_loss(PROGRAMS[name](J), J), argnums=(0, 1))(X, Y)
    g = dx.grad(_loss(PROGRAMS[name](D), D), argnums=(0, 1))
    _close(g(X, Y), expected)
    _close(dx.jit(g)(X, Y), expected)
    _close(dx.grad(dx.jit(_loss(PROGRAMS[name](D), D)), argnums=(0, 1))(X, Y), expected)
    xs = np.stack([X, X * 0.5, -X])
    expected_v = jax.vmap(jax.grad(_loss(PROGRAMS[name](J), J)), (0, None))(xs, Y)
    _close(dx.vmap(dx.grad(_loss(PROGRAMS[name](D), D)), (0, None))(xs, Y), expected_v)
    # grad of vmap: the custom call is batched first, then differentiated.
    expected_gv = jax.grad(lambda xs: jnp.sum(jax.vmap(PROGRAMS[name](J), (0, None))(xs, Y)))(xs)
    got_gv = dx.grad(lambda xs: dnp.sum(dx.vmap(PROGRAMS[name](D), (0, None))(xs, Y)))(xs)
    _close(got_gv, expected_gv)


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_jvp_and_jvp_of_grad(name: str) -> None:
    t = (np.ones(3), np.full(3, 0.5))
    _close(dx.jvp(PROGRAMS[name](D), (X, Y), t), jax.jvp(PROGRAMS[name](J), (X, Y), t))
    expected = jax.jvp(jax.grad(_loss(PROGRAMS[name](J), J)), (X, Y), t)
    _close(dx.jvp(dx.grad(_loss(PROGRAMS[name](D), D)), (X, Y), t), expected)
    hess = jax.hessian(_loss(PROGRAMS[name](J), J))(X, Y)
    _close(dx.hessian(_loss(PROGRAMS[name](D), D))(X, Y), hess)


# Rules that are not the true derivative on purpose (clipped, or doubled).
NOT_THE_DERIVATIVE = {"custom_vjp", "custom_vjp_none"}


@pytest.mark.parametrize("name", sorted(set(PROGRAMS) - NOT_THE_DERIVATIVE))
def test_grad_against_finite_differences(name: str) -> None:
    loss = _loss(PROGRAMS[name](D), D)
    g = np.asarray(dx.grad(loss)(X, Y))
    eps = 1e-6
    for i in range(3):
        e = np.zeros(3)
        e[i] = eps
        fd = (float(loss(X + e, Y)) - float(loss(X - e, Y))) / (2 * eps)
        np.testing.assert_allclose(g[i], fd, rtol=1e-5, atol=1e-6)


def test_custom_jvp_rule_is_used_not_the_function() -> None:
    @dx.custom_jvp
    def f(x: Any) -> Any:
        return dnp.sin(x)

    f.defjvp(lambda p, t: (f(p[0]), 10.0 * t[0]))
    assert float(dx.grad(f)(0.3)) == 10.0
    assert float(dx.jit(dx.grad(f))(0.3)) == 10.0
    # The function is what jit lowers.
    text = dx.jit(f).lower(0.3).as_text()
    assert "sine" in text


def test_custom_vjp_under_jvp_raises_jaxs_error() -> None:
    f = clip_vjp(D)
    with pytest.raises(CustomVJPForwardModeError, match="can't apply forward-mode autodiff"):
        dx.jvp(f, (X, Y), (X, Y))
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        jax.jvp(clip_vjp(J), (X, Y), (X, Y))


def test_closures_over_outer_tracers() -> None:
    # The function and its rule close over a tracer of an enclosing vmap
    # (applied by a jvp inside it) and of an enclosing jit.
    def outer(m: types.SimpleNamespace, w: Any, x: Any) -> Any:
        @m.custom_jvp
        def f(x: Any) -> Any:
            return m.np.sin(x) * w

        f.defjvp(lambda p, t: (f(p[0]), m.np.cos(p[0]) * w * t[0]))
        return m.t.grad(lambda x: m.np.sum(f(x)))(x)

    ws = np.array([1.0, 2.0, 3.0])
    expected = jax.vmap(lambda w: outer(J, w, X))(ws)
    _close(dx.vmap(lambda w: outer(D, w, X))(ws), expected)
    _close(dx.jit(lambda w: outer(D, w, X))(2.0), jax.jit(lambda w: outer(J, w, X))(2.0))


def test_differentiating_a_closed_over_value_is_refused() -> None:
    def outer(w: Any) -> Any:
        @dx.custom_jvp
        def f(x: Any) -> Any:
            return x * w

        f.defjvp(lambda p, t: (f(p[0]), t[0] * w))
        return f(1.0)

    with pytest.raises(TypeError, match="closed-over value"):
        dx.grad(outer)(2.0)


def test_rule_output_errors() -> None:
    @dx.custom_jvp
    def f(x: Any) -> Any:
        return x * 2.0

    f.defjvp(lambda p, t: (f(p[0]), (t[0], t[0])))
    with pytest.raises(TypeError, match=r"structure.*test_custom_derivatives\.py"):
        dx.jvp(f, (1.0,), (1.0,))

    @dx.custom_vjp
    def g(x: Any) -> Any:
        return x * 2.0

    g.defvjp(lambda x: (g(x), None), lambda r, ct: (ct, ct))
    with pytest.raises(TypeError, match="one cotangent per"):
        dx.grad(g)(1.0)

    @dx.custom_jvp
    def h(x: Any) -> Any:
        return x

    with pytest.raises(AttributeError, match="No JVP defined"):
        h(1.0)


# --- checkpoint ---------------------------------------------------------------------------


def _deep(ck: Callable[..., Any] | None) -> Callable[..., Any]:
    def layer(x: Any) -> Any:
        return dnp.sin(dnp.cos(x) * 2.0)

    def f(x: Any) -> Any:
        for _ in range(6):
            x = (ck(layer) if ck else layer)(x)
        return dnp.sum(x)

    return f


def test_checkpoint_keeps_fewer_residuals() -> None:
    x = np.linspace(0.0, 1.0, 5)
    _, _, plain, _, _ = linearize_flat(lambda x: [_deep(None)(x)], [x])
    _, linear, saved, _, _ = linearize_flat(lambda x: [_deep(dx.checkpoint)(x)], [x])
    # With checkpointing only each layer's input is kept (one per layer);
    # without, each layer keeps its intermediate values (two per layer here:
    # -sin(x) and cos(2 cos x); the 2.0 stays a literal of the linear jaxpr).
    assert len(saved) == 6
    assert len(plain) == 12
    # The linearized jaxpr recomputes the primal: sin and cos appear in it.
    names = str(linear)
    assert "checkpoint" in names
    assert "cos" in names


def test_checkpoint_policy_everything_saveable_is_plain_reverse_mode() -> None:
    x = np.linspace(0.0, 1.0, 5)
    ck = lambda f: dx.checkpoint(f, policy=dx.checkpoint_policies.everything_saveable)  # noqa: E731
    _, _, saved, _, _ = linearize_flat(lambda x: [_deep(ck)(x)], [x])
    _, _, plain, _, _ = linearize_flat(lambda x: [_deep(None)(x)], [x])
    assert len(saved) == len(plain)
    _close(dx.grad(_deep(ck))(x), dx.grad(_deep(None))(x))


def test_checkpoint_dots_saveable_saves_the_products() -> None:
    w = np.linspace(-1.0, 1.0, 16).reshape(4, 4)

    def layer(x: Any) -> Any:
        return dnp.tanh(dnp.sin(w @ x))

    def f(policy: Any) -> Callable[..., Any]:
        return lambda x: [dx.checkpoint(layer, policy=policy)(x)]

    x = np.ones(4)
    _, lin_nothing, _, _, _ = linearize_flat(f(dx.checkpoint_policies.nothing_saveable), [x])
    _, lin_dots, saved, _, _ = linearize_flat(f(dx.checkpoint_policies.dots_saveable), [x])
    # With the product saved, the backward pass recomputes sin and tanh from
    # it but never the product itself (only the tangent's product remains).
    assert str(lin_nothing).count("dot_general") == 2
    assert str(lin_dots).count("dot_general") == 1
    assert any(np.shape(r) == (4,) for r in saved)
    expected = jax.grad(lambda x: jnp.sum(jnp.tanh(jnp.sin(w @ x))))(x)
    _close(dx.grad(lambda x: dnp.sum(f(dx.checkpoint_policies.dots_saveable)(x)[0]))(x), expected)


def test_remat_is_checkpoint() -> None:
    assert dx.remat is dx.checkpoint
    assert float(dx.grad(dx.remat(dnp.sin))(0.0)) == 1.0


def test_symbolic_zero_tangents() -> None:
    seen: list[tuple[bool, bool]] = []

    def make(m: types.SimpleNamespace, symbolic_zero: type) -> Any:
        @m.custom_jvp
        def f(x: Any, y: Any) -> Any:
            return x * y

        def f_jvp(primals: Any, tangents: Any) -> Any:
            (x, y), (tx, ty) = primals, tangents
            seen.append((isinstance(tx, symbolic_zero), isinstance(ty, symbolic_zero)))
            t = 0.0 * x
            if not isinstance(tx, symbolic_zero):
                t = t + tx * y
            if not isinstance(ty, symbolic_zero):
                t = t + x * ty
            return f(x, y), t

        f.defjvp(f_jvp, symbolic_zeros=True)
        return f

    from jax.custom_derivatives import SymbolicZero as JaxSymbolicZero

    f_d = make(D, dx.custom_derivatives.SymbolicZero)
    f_j = make(J, JaxSymbolicZero)
    # Differentiating with respect to x only: y's tangent is a symbolic zero.
    _close(dx.grad(f_d)(2.0, 3.0), jax.grad(f_j)(2.0, 3.0))
    assert seen[0] == (False, True)
    assert seen[-1] == (False, True)
    _close(dx.grad(f_d, argnums=1)(2.0, 3.0), jax.grad(f_j, argnums=1)(2.0, 3.0))
    _close(dx.jit(dx.grad(f_d))(2.0, 3.0), 3.0)
    # Under vmap the rule sees arrays of zeros (not symbolic ones).
    _close(dx.vmap(dx.grad(f_d))(np.ones(2), np.full(2, 3.0)), np.full(2, 3.0))


def test_jvp_rule_may_return_a_symbolic_zero() -> None:
    @dx.custom_jvp
    def f(x: Any) -> Any:
        return dnp.floor(x) * 1.0

    f.defjvp(
        lambda p, t: (
            f(p[0]),
            dx.custom_derivatives.SymbolicZero(dx.extend.ShapedArray((), np.dtype("float64"))),
        ),
        symbolic_zeros=True,
    )
    assert float(dx.grad(f)(2.5)) == 0.0
