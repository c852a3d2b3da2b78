"""``didax.custom_batching`` against ``jax.custom_batching``: rules under vmap, jit and nesting."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp


def _with_rule(lib: Any, np_: Any, seen: list[Any]) -> Any:
    @lib.custom_batching.custom_vmap
    def f(x: Any, pair: Any) -> Any:
        return {"a": np_.sin(x) * pair[0], "b": pair[1] + 1.0}

    @f.def_vmap
    def rule(axis_size: int, in_batched: list[Any], x: Any, pair: Any) -> tuple[Any, Any]:
        seen.append((axis_size, in_batched))
        # A rule that is not f's batching: it shows which one ran.
        out = {"a": np_.cos(x) * pair[0], "b": pair[1] + 2.0}
        return out, {"a": in_batched[0] or in_batched[1][0], "b": in_batched[1][1]}

    return f


@pytest.mark.parametrize(
    "in_axes", [(0, None), (0, (0, None)), (None, (0, 0)), (0, (None, 0))], ids=str
)
def test_the_rule_runs_under_vmap_as_jax_s(in_axes: Any) -> None:
    # A mapped argument is a vector, an unmapped one a scalar.
    axes = [in_axes[0], *(in_axes[1] if isinstance(in_axes[1], tuple) else (in_axes[1],) * 2)]
    x, y, z = (
        np.linspace(0.1 * i, 1.0, 3) if a == 0 else np.float64(0.3 * i)
        for i, a in enumerate(axes, start=1)
    )
    args = (x, (y, z))
    seen_ours: list[Any] = []
    seen_theirs: list[Any] = []
    ours = dx.vmap(_with_rule(dx, dnp, seen_ours), in_axes=in_axes)(*args)
    theirs = jax.vmap(_with_rule(jax, jnp, seen_theirs), in_axes=in_axes)(*args)
    assert seen_ours == seen_theirs
    for key in ("a", "b"):
        np.testing.assert_allclose(ours[key], theirs[key])
    jitted = dx.jit(dx.vmap(_with_rule(dx, dnp, []), in_axes=in_axes))(*args)
    np.testing.assert_allclose(jitted["a"], theirs["a"])


def test_unbatched_calls_run_the_function() -> None:
    f = _with_rule(dx, dnp, [])
    out = f(0.5, (2.0, 3.0))
    np.testing.assert_allclose(out["a"], np.sin(0.5) * 2.0)
    np.testing.assert_allclose(dx.jit(f)(0.5, (2.0, 3.0))["b"], 4.0)
    assert "custom_vmap_call" in str(dx.make_jaxpr(f)(0.5, (2.0, 3.0)))


def test_sequential_vmap_is_jax_s() -> None:
    x = np.linspace(0.0, 1.0, 4)
    ours_g = dx.custom_batching.sequential_vmap(lambda a, b: {"s": dnp.sin(a) * b, "b": b})
    theirs_g = jax.custom_batching.sequential_vmap(lambda a, b: {"s": jnp.sin(a) * b, "b": b})
    ours = dx.vmap(ours_g, in_axes=(0, None))(x, 3.0)
    theirs = jax.vmap(theirs_g, in_axes=(0, None))(x, 3.0)
    np.testing.assert_allclose(ours["s"], theirs["s"])
    np.testing.assert_allclose(ours["b"], theirs["b"])
    nested = dx.vmap(dx.vmap(ours_g, in_axes=(0, None)), in_axes=(None, 0))(x, x)
    np.testing.assert_allclose(nested["s"], np.sin(x)[None, :] * x[:, None])


def test_derivatives_are_the_function_s() -> None:
    # (JAX 0.10.2's reverse mode refuses custom_vmap calls; didax differentiates the function.)
    f = _with_rule(dx, dnp, [])

    def loss(x: Any) -> Any:
        return f(x, (2.0, 3.0))["a"]

    np.testing.assert_allclose(dx.grad(loss)(0.5), 2.0 * np.cos(0.5))
    _, tangent = dx.jvp(loss, (0.5,), (1.0,))
    np.testing.assert_allclose(tangent, 2.0 * np.cos(0.5))
    theirs = jax.jvp(lambda x: _with_rule(jax, jnp, [])(x, (2.0, 3.0))["a"], (0.5,), (1.0,))
    np.testing.assert_allclose(tangent, theirs[1])


def test_errors() -> None:
    f = dx.custom_batching.custom_vmap(lambda x: x * 2)
    with pytest.raises(AttributeError, match="No batching rule defined"):
        f(1.0)
    f.def_vmap(lambda n, b, x: ((x, x), b[0]))
    with pytest.raises(TypeError, match="structured as the function's"):
        dx.vmap(f)(np.ones(2))
    f.def_vmap(lambda n, b, x: (x[0], True))
    with pytest.raises(ValueError, match="vmap rule's result 0"):
        dx.vmap(f)(np.ones(2))
    scale = np.arange(2.0)

    def closes_over(s: Any) -> Any:
        g = dx.custom_batching.custom_vmap(lambda x: x * s)
        g.def_vmap(lambda n, b, x: (x * s, b[0]))
        return g(1.0)

    with pytest.raises(NotImplementedError, match="closes over a value this vmap batches"):
        dx.vmap(closes_over)(scale)
