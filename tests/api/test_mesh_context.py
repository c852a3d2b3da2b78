"""``set_mesh``, ``reshard``, ``smap`` and ``fwd_and_bwd`` against JAX's."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp


def test_set_mesh_is_a_setter_and_a_context_manager() -> None:
    mesh = dx.make_mesh((1,), ("x",))
    outer = dx.set_mesh(mesh)
    try:
        with dx.set_mesh(None), pytest.raises(ValueError, match="needs a mesh in context"):
            dx.reshard(np.ones(2), dx.P("x"))
        assert dx.reshard(np.ones(2), dx.P("x")).sharding == dx.NamedSharding(mesh, dx.P("x"))
    finally:
        outer.__exit__(None, None, None)
    with pytest.raises(ValueError, match="needs a mesh"):
        dx.reshard(np.ones(2), dx.P())
    with pytest.raises(ValueError, match=r"outside of `jax\.jit`"):
        dx.jit(lambda x: (dx.set_mesh(mesh), x)[1])(1.0)
    with pytest.raises(ValueError, match="Mesh"):
        dx.set_mesh("x")  # type: ignore[arg-type]


def test_reshard_concrete_and_traced() -> None:
    mesh = dx.make_mesh((1,), ("x",))
    s = dx.NamedSharding(mesh, dx.P("x"))
    tree = {"a": np.arange(4.0), "b": [np.ones(2)]}
    out = dx.reshard(tree, s)
    assert out["a"].sharding == s
    assert out["b"][0].sharding == s
    prefix = dx.reshard(tree, {"a": s, "b": dx.NamedSharding(mesh, dx.P())})
    assert prefix["b"][0].sharding == dx.NamedSharding(mesh, dx.P())
    jitted = dx.jit(lambda x: dx.reshard(x * 2, s))(np.arange(4.0))
    np.testing.assert_array_equal(jitted, np.arange(4.0) * 2)
    with pytest.raises(TypeError, match="NamedSharding or a PartitionSpec"):
        dx.reshard(np.ones(2), "x")


def test_smap_is_jax_s() -> None:
    def f(lib: Any, x: Any, y: Any) -> Any:
        return lib.lax.psum(x * y, "i"), x + 1

    # (didax's mesh axes behave as JAX's Auto ones.)
    auto = (jax.sharding.AxisType.Auto,)
    ours_mesh, theirs_mesh = dx.make_mesh((1,), ("i",)), jax.make_mesh((1,), ("i",), auto)
    x, y = np.arange(6.0).reshape(2, 3), np.arange(3.0)
    with dx.set_mesh(ours_mesh):
        ours = dx.smap(lambda a, b: f(dx, a, b), in_axes=(1, None), out_axes=(0, 1), axis_name="i")(
            x, y
        )
    with jax.set_mesh(theirs_mesh):
        theirs = jax.smap(
            lambda a, b: f(jax, a, b), in_axes=(1, None), out_axes=(0, 1), axis_name="i"
        )(x, y)
    for o, t in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(o, t)
    with pytest.raises(ValueError, match="no mesh in context"):
        dx.smap(lambda a: a, axis_name="i")(x)
    with pytest.raises(TypeError, match="axis_name"):
        dx.smap(lambda a: a, axis_name=("i", "j"))
    with dx.set_mesh(ours_mesh), pytest.raises(NameError, match="unbound axis name"):
        dx.smap(lambda a: a, axis_name="j")(x)


@pytest.mark.parametrize("argnums", [0, (0, 1), 1])
@pytest.mark.parametrize("jitted", [True, False])
def test_fwd_and_bwd_is_jax_s(argnums: Any, jitted: bool) -> None:
    x, w = np.linspace(0.1, 1.0, 4), np.linspace(-1.0, 1.0, 4)
    ct = np.ones(4)
    fwd, bwd = dx.fwd_and_bwd(lambda a, b: dnp.sin(a) * b, argnums, jitted=jitted)
    jfwd, jbwd = jax.fwd_and_bwd(lambda a, b: jnp.sin(a) * b, argnums, jitted=jitted)
    y, res = fwd(x, w)
    jy, jres = jfwd(x, w)
    np.testing.assert_allclose(y, jy)
    ours, theirs = bwd(res, ct), jbwd(jres, ct)
    for o, t in zip(jax.tree.leaves(ours), jax.tree.leaves(theirs), strict=True):
        np.testing.assert_allclose(o, t, rtol=1e-12)
    assert str(jax.tree.structure(ours)) == str(jax.tree.structure(theirs))


def test_fwd_and_bwd_with_aux_and_errors() -> None:
    fwd, bwd = dx.fwd_and_bwd(lambda a: (a**2, {"aux": a}), 0, has_aux=True)
    _, res, aux = fwd(np.float64(3.0))
    np.testing.assert_allclose(aux["aux"], 3.0)
    np.testing.assert_allclose(bwd(res, np.float64(1.0)), 6.0)
    with pytest.raises(TypeError, match="callable"):
        dx.fwd_and_bwd(3, 0)  # type: ignore[arg-type]
