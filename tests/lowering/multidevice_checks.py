"""Checks that need 8 devices, run in one subprocess by ``test_multidevice.py``.

XLA fixes the number of host devices when its backend starts, so these run
in a process started with ``XLA_FLAGS=--xla_force_host_platform_device_count=8``
(``python multidevice_checks.py`` prints a JSON object: check name -> None
or the failure). Each check compares didax with JAX (same process, same
devices) and with NumPy on one device.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from typing import Any, Final

import numpy as np

CHECKS: Final[dict[str, Callable[[], None]]] = {}


def check(fn: Callable[[], None]) -> Callable[[], None]:
    CHECKS[fn.__name__] = fn
    return fn


def _close(a: Any, b: Any, tol: float = 1e-6) -> None:
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def _meshes() -> Any:
    import jax

    import didax as dx
    from didax.sharding import Mesh

    devs = dx.devices()
    return (
        Mesh(np.array(devs), ("i",)),
        Mesh(np.array(devs).reshape(4, 2), ("x", "y")),
        jax.sharding.Mesh(np.array(jax.devices()), ("i",)),
        jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y")),
    )


def _specs() -> list[tuple[Any, ...]]:
    # (mesh index: 0 for 1-d, 1 for 2-d; spec entries)
    return [
        (0, ("i",)),
        (0, (None, "i")),
        (1, ("x", "y")),
        (1, ("y", "x")),
        (1, (("x", "y"),)),
        (1, (None, "y")),
        (1, ("x",)),
        (1, ()),
    ]


@check
def devices_and_count() -> None:
    import jax

    import didax as dx

    assert dx.device_count() == 8 == jax.device_count()
    assert [d.id for d in dx.devices()] == [d.id for d in jax.devices()]
    assert dx.local_device_count() == 8


@check
def device_put_layouts_equal_jax() -> None:
    import jax

    import didax as dx
    from didax.sharding import NamedSharding, PartitionSpec

    meshes = _meshes()
    a = np.arange(16 * 8, dtype=np.float32).reshape(16, 8)
    for m, parts in _specs():
        s = NamedSharding(meshes[m], PartitionSpec(*parts))
        js = jax.sharding.NamedSharding(meshes[m + 2], jax.sharding.PartitionSpec(*parts))
        x, jx = dx.device_put(a, s), jax.device_put(a, js)
        assert x.sharding == s
        ours = {sh.device.id: (sh.index, np.asarray(sh.data)) for sh in x.addressable_shards}
        theirs = {sh.device.id: (sh.index, np.asarray(sh.data)) for sh in jx.addressable_shards}
        assert ours.keys() == theirs.keys()
        assert len(ours) == 8
        for k in ours:
            assert ours[k][0] == theirs[k][0], (parts, k, ours[k][0], theirs[k][0])
            _close(ours[k][1], theirs[k][1])
        _close(np.asarray(x), a)
        _close(x + 1.0, a + 1.0)  # eager ops gather to the host


@check
def jit_sharded_args_matmul_reduction() -> None:
    import jax

    import didax as dx
    from didax.sharding import NamedSharding
    from didax.sharding import PartitionSpec as P

    mesh1, mesh2, jmesh1, jmesh2 = _meshes()
    rng = np.random.default_rng(0)
    a = rng.standard_normal((16, 8)).astype(np.float32)
    b = rng.standard_normal((8, 4)).astype(np.float32)

    def f(x: Any, w: Any) -> Any:
        return (x @ w).sum(axis=0)

    for mesh, jmesh, spec in ((mesh1, jmesh1, ("i",)), (mesh2, jmesh2, ("x", "y"))):
        x = dx.device_put(a, NamedSharding(mesh, P(*spec)))
        jx = jax.device_put(a, jax.sharding.NamedSharding(jmesh, jax.sharding.PartitionSpec(*spec)))
        fj = dx.jit(f)
        out = fj(x, b)
        _close(out, jax.jit(f)(jx, b), 1e-5)
        _close(out, (a @ b).sum(0), 1e-5)
        assert isinstance(out.sharding, NamedSharding)
        out2 = fj(x, b)  # the hit path
        _close(out2, out)
        assert fj.cache_info().hits >= 1
        text = fj.lower(x, b).as_text()
        assert "mhlo.num_partitions = 8" in text, text
        assert "mhlo.sharding" in text, text
        hlo = fj.lower(x, b).compile().as_hlo_text()
        assert "all-reduce" in hlo, hlo
        # A single-device argument alongside: it is replicated over the mesh.
        assert fj(np.asarray(x), b).committed_sharding is None


@check
def jit_in_out_shardings_equal_jax() -> None:
    import jax

    import didax as dx
    from didax.sharding import NamedSharding
    from didax.sharding import PartitionSpec as P

    _, mesh2, _, jmesh2 = _meshes()
    a = np.arange(64, dtype=np.float32).reshape(8, 8)

    def g(x: Any) -> Any:
        return dx.numpy.sin(x) * 2.0 + x.T

    def gj(x: Any) -> Any:
        return jax.numpy.sin(x) * 2.0 + x.T

    ins, outs = P("x", "y"), P("y", None)
    f = dx.jit(g, in_shardings=NamedSharding(mesh2, ins), out_shardings=NamedSharding(mesh2, outs))
    jf = jax.jit(
        gj,
        in_shardings=jax.sharding.NamedSharding(jmesh2, jax.sharding.PartitionSpec(*ins.parts)),
        out_shardings=jax.sharding.NamedSharding(jmesh2, jax.sharding.PartitionSpec(*outs.parts)),
    )
    out, jout = f(a), jf(a)
    _close(out, jout, 1e-6)
    assert out.sharding == NamedSharding(mesh2, outs)
    ours = {sh.device.id: sh.index for sh in out.addressable_shards}
    assert ours == {sh.device.id: sh.index for sh in jout.addressable_shards}
    # Chained: the result feeds another sharded program without a copy to the host.
    h = dx.jit(lambda x: x.sum())
    _close(h(out), np.asarray(jout).sum(), 1e-5)
    # Per-argument prefixes, and a tuple of results.
    f2 = dx.jit(
        lambda x, y: (x + y, x * y),
        in_shardings=(NamedSharding(mesh2, P("x")), None),
        out_shardings=(NamedSharding(mesh2, P()), NamedSharding(mesh2, P(None, "x"))),
    )
    s, p = f2(a, a)
    _close(s, a + a)
    _close(p, a * a)
    assert p.sharding.spec == P(None, "x")
    assert s.sharding.spec == P()
    # Specs a user compares with JAX's spelling: the results of a program of an
    # Array sharded P("x", "y"), and of a sharding constraint P("y", "x").
    b = dx.device_put(a, NamedSharding(mesh2, P("x", "y")))
    assert dx.jit(lambda x: x * 2)(b).sharding.spec == P("x", "y")
    constrained = dx.jit(
        lambda x: dx.lax.with_sharding_constraint(x + 1, NamedSharding(mesh2, P("y", "x")))
    )(b)
    assert constrained.sharding.spec == P("y", "x")
    assert repr(constrained.sharding.spec) == repr(jax.sharding.PartitionSpec("y", "x"))


@check
def sharding_constraint_and_grad() -> None:
    import jax

    import didax as dx
    from didax.sharding import NamedSharding
    from didax.sharding import PartitionSpec as P

    _, mesh2, _, jmesh2 = _meshes()
    a = np.arange(48, dtype=np.float64).reshape(8, 6) / 10

    def f(x: Any) -> Any:
        y = dx.lax.with_sharding_constraint(dx.numpy.tanh(x), NamedSharding(mesh2, P("x", "y")))
        return (y * y).sum()

    def fj(x: Any) -> Any:
        s = jax.sharding.NamedSharding(jmesh2, jax.sharding.PartitionSpec("x", "y"))
        y = jax.lax.with_sharding_constraint(jax.numpy.tanh(x), s)
        return (y * y).sum()

    with jax.enable_x64(True):
        _close(dx.jit(f)(a), jax.jit(fj)(a), 1e-12)
        _close(dx.grad(f)(a), jax.grad(fj)(a), 1e-12)
        _close(dx.jit(dx.grad(f))(a), jax.jit(jax.grad(fj))(a), 1e-12)
        assert "@Sharding" in dx.jit(f).lower(a).as_text()
        _close(dx.vmap(f)(np.stack([a, a])), jax.vmap(fj)(np.stack([a, a])), 1e-12)


@check
def grad_of_jit_with_sharded_argument() -> None:
    import jax

    import didax as dx
    from didax.sharding import NamedSharding
    from didax.sharding import PartitionSpec as P

    mesh1, _, jmesh1, _ = _meshes()
    a = np.linspace(-1, 1, 32).reshape(16, 2)
    x = dx.device_put(a, NamedSharding(mesh1, P("i")))
    with jax.enable_x64(True):
        js = jax.sharding.NamedSharding(jmesh1, jax.sharding.PartitionSpec("i"))
        jx = jax.device_put(a, js)

    def loss(w: Any) -> Any:
        return (dx.numpy.exp(w) * w).sum()

    def lossj(w: Any) -> Any:
        return (jax.numpy.exp(w) * w).sum()

    with jax.enable_x64(True):
        _close(dx.grad(dx.jit(loss))(x), jax.grad(jax.jit(lossj))(jx), 1e-12)
        _close(dx.jit(dx.grad(loss))(x), jax.jit(jax.grad(lossj))(jx), 1e-12)


@check
def bad_layouts_raise() -> None:
    import didax as dx
    from didax.sharding import NamedSharding
    from didax.sharding import PartitionSpec as P

    mesh1, mesh2, _, _ = _meshes()
    for fn, kind in (
        (lambda: dx.device_put(np.ones(6), NamedSharding(mesh1, P("i"))), ValueError),
        (lambda: NamedSharding(mesh2, P("z")), ValueError),
        (lambda: dx.device_put(np.ones(8), NamedSharding(mesh2, P("x", "y"))), ValueError),
    ):
        try:
            fn()
        except kind:
            pass
        else:
            raise AssertionError(f"expected {kind.__name__}")
    message = ""
    try:
        dx.lax.psum(1.0, "i")
    except NameError as e:
        message = str(e)
    assert "unbound axis name" in message, "psum outside shard_map must raise NameError"


def _jax_specs(specs: Any) -> Any:
    import jax

    from didax.sharding import PartitionSpec

    if isinstance(specs, PartitionSpec):
        return jax.sharding.PartitionSpec(*specs.parts)
    return tuple(_jax_specs(s) for s in specs)


def _collectives_body(lax: Any) -> Any:
    def body(a: Any) -> Any:
        return (
            lax.psum(a, "x"),
            lax.all_gather(a, "y", axis=0, tiled=True),
            lax.all_gather(a, "x", axis=1),
            lax.ppermute(a, "x", [(i, (i + 1) % 4) for i in range(4)]),
            lax.axis_index("x")[None] * 10 + lax.axis_index("y")[None],
            lax.axis_index(("x", "y"))[None],
            lax.pmax(a, ("x", "y")),
            lax.psum_scatter(a, "y", scatter_dimension=1, tiled=True),
            lax.psum_scatter(a.reshape(2, 1, 2), "y"),
            lax.pmean(a, "y"),
        )

    return body


@check
def shard_map_collectives_equal_jax() -> None:
    import jax

    import didax as dx
    from didax.sharding import PartitionSpec as P

    _, mesh2, _, jmesh2 = _meshes()
    a = np.arange(32, dtype=np.float32).reshape(8, 4)
    out_specs = (
        P(None, "y"),
        P("x"),
        P(None, None, "y"),
        P("x", "y"),
        P(("x", "y")),
        P(("x", "y")),
        P(),
        P("x", "y"),
        P("x", "y"),
        P("x"),
    )
    ours = dx.shard_map(
        _collectives_body(dx.lax),
        mesh=mesh2,
        in_specs=P("x", "y"),
        out_specs=out_specs,
        check_vma=False,
    )
    theirs = jax.shard_map(
        _collectives_body(jax.lax),
        mesh=jmesh2,
        in_specs=_jax_specs(P("x", "y")),
        out_specs=_jax_specs(out_specs),
        check_vma=False,
    )(a)
    for run in (ours, dx.jit(ours)):
        got = run(a)
        assert len(got) == len(theirs)
        for o, t in zip(got, theirs, strict=True):
            assert o.shape == t.shape, (o.shape, t.shape)
            _close(o, t)
    text = dx.jit(ours).lower(a).as_text()
    for needle in (
        "@SPMDFullToShardShape",
        "@SPMDShardToFullShape",
        "stablehlo.all_reduce",
        "stablehlo.all_gather",
        "stablehlo.reduce_scatter",
        "stablehlo.collective_permute",
        "stablehlo.partition_id",
        "{manual}",
    ):
        assert needle in text, needle


@check
def shard_map_1d_vmap_and_jvp_equal_jax() -> None:
    import jax

    import didax as dx
    from didax.sharding import PartitionSpec as P

    mesh1, _, jmesh1, _ = _meshes()
    a = np.linspace(-2, 2, 64).reshape(16, 4)

    def body(lax: Any, np_: Any) -> Any:
        def f(x: Any) -> Any:
            return lax.psum(np_.sin(x) * x, "i"), lax.all_gather(x.sum(0), "i")

        return f

    specs = (P(), P())
    ours = dx.shard_map(
        body(dx.lax, dx.numpy), mesh=mesh1, in_specs=P("i"), out_specs=specs, check_vma=False
    )
    with jax.enable_x64(True):
        jf = jax.shard_map(
            body(jax.lax, jax.numpy),
            mesh=jmesh1,
            in_specs=_jax_specs(P("i")),
            out_specs=_jax_specs(specs),
            check_vma=False,
        )
        for o, t in zip(ours(a), jf(a), strict=True):
            _close(o, t, 1e-12)
        stacked = np.stack([a, 2 * a, -a])
        for o, t in zip(dx.vmap(ours)(stacked), jax.vmap(jf)(stacked), strict=True):
            _close(o, t, 1e-12)
        for o, t in zip(dx.jit(dx.vmap(ours))(stacked), jax.vmap(jf)(stacked), strict=True):
            _close(o, t, 1e-12)
        tangent = np.cos(a)
        (_, ot), (_, jt) = dx.jvp(ours, (a,), (tangent,)), jax.jvp(jf, (a,), (tangent,))
        for o, t in zip(ot, jt, strict=True):
            _close(o, t, 1e-12)


def _mlp_loss(np_: Any) -> Any:
    def loss(params: Any, x: Any, y: Any) -> Any:
        w1, b1, w2 = params
        h = np_.tanh(x @ w1 + b1)
        return ((h @ w2 - y) ** 2).mean()

    return loss


@check
def data_parallel_grad_equals_single_device_and_jax() -> None:
    import jax

    import didax as dx
    from didax.sharding import Mesh
    from didax.sharding import PartitionSpec as P

    rng = np.random.default_rng(1)
    params = (rng.standard_normal((5, 7)), rng.standard_normal(7), rng.standard_normal((7, 2)))
    x, y = rng.standard_normal((32, 5)), rng.standard_normal((32, 2))
    loss, jloss = _mlp_loss(dx.numpy), _mlp_loss(jax.numpy)
    with jax.enable_x64(True):
        ref = jax.grad(jloss)(params, x, y)
    single = dx.grad(loss)(params, x, y)
    for tree in (single,):
        for o, t in zip(tree, ref, strict=True):
            _close(o, t, 1e-12)
    for mesh in (
        Mesh(np.array(dx.devices()), ("i",)),
        Mesh(np.array(dx.devices()).reshape(4, 2), ("x", "y")),
    ):
        axes = mesh.axis_names
        data = P(axes)

        def dp_loss(p: Any, xb: Any, yb: Any, mesh: Any = mesh, axes: Any = axes) -> Any:
            return dx.lax.pmean(loss(p, xb, yb), axes)

        sharded = dx.shard_map(dp_loss, mesh=mesh, in_specs=(P(), data, data), out_specs=P())
        _close(sharded(params, x, y), loss(params, x, y), 1e-12)
        for grads in (dx.grad(sharded)(params, x, y), dx.jit(dx.grad(sharded))(params, x, y)):
            for o, t in zip(grads, single, strict=True):
                _close(o, t, 1e-12)
        # The usual step: per-device gradients, averaged with pmean.
        step = dx.jit(
            dx.shard_map(
                lambda p, xb, yb, axes=axes: dx.lax.pmean(dx.grad(loss)(p, xb, yb), axes),
                mesh=mesh,
                in_specs=(P(), data, data),
                out_specs=P(),
            )
        )
        for o, t in zip(step(params, x, y), single, strict=True):
            _close(o, t, 1e-12)


@check
def grad_of_collectives_equals_jax() -> None:
    import jax

    import didax as dx
    from didax.sharding import PartitionSpec as P

    mesh1, _, jmesh1, _ = _meshes()
    x = np.linspace(-1, 1, 32).reshape(16, 2)

    def f(lax: Any) -> Any:
        def body(v: Any) -> Any:
            g = lax.all_gather(v, "i", axis=0, tiled=True)
            p = lax.ppermute(v, "i", [(j, (j + 1) % 8) for j in range(8)])
            s = lax.psum_scatter(g * g, "i", scatter_dimension=0, tiled=True)
            return lax.psum((g**3).sum() + (p * v).sum() + (s * v).sum(), "i")

        return body

    ours = dx.shard_map(f(dx.lax), mesh=mesh1, in_specs=P("i"), out_specs=P())
    with jax.enable_x64(True):
        jf = jax.shard_map(
            f(jax.lax), mesh=jmesh1, in_specs=_jax_specs(P("i")), out_specs=_jax_specs(P())
        )
        _close(dx.grad(ours)(x), jax.grad(jf)(x), 1e-12)
        _close(dx.jit(dx.grad(ours))(x), jax.grad(jf)(x), 1e-12)
        _close(ours(x), jf(x), 1e-12)
    eps = 1e-6
    d = np.zeros_like(x)
    d[3, 1] = eps
    fd = (float(ours(x + d)) - float(ours(x - d))) / (2 * eps)
    assert abs(fd - float(np.asarray(dx.grad(ours)(x))[3, 1])) < 1e-5


def _named_body(lax: Any, np_: Any) -> Any:
    def g(v: Any) -> Any:
        return (
            lax.psum(v, "i"),
            lax.pmax(v, "i"),
            lax.pmean(v * v, "i"),
            lax.all_gather(v, "i"),
            lax.all_gather(v, "i", axis=0, tiled=True),
            lax.axis_index("i"),
            lax.ppermute(v, "i", [(j, (j + 1) % 8) for j in range(8)]),
            lax.psum_scatter(np_.tile(v, 8), "i", scatter_dimension=0, tiled=True),
        )

    return g


@check
def vmap_axis_name_and_pmap_equal_jax() -> None:
    import jax

    import didax as dx

    x = np.arange(24.0).reshape(8, 3) / 7
    with jax.enable_x64(True):
        theirs = jax.vmap(_named_body(jax.lax, jax.numpy), axis_name="i")(x)
        ours_vmap = dx.vmap(_named_body(dx.lax, dx.numpy), axis_name="i")(x)
        ours_jit = dx.jit(dx.vmap(_named_body(dx.lax, dx.numpy), axis_name="i"))(x)
        ours_pmap = dx.pmap(_named_body(dx.lax, dx.numpy), axis_name="i")(x)
        jax_pmap = jax.pmap(_named_body(jax.lax, jax.numpy), axis_name="i")(x)
        for ours in (ours_vmap, ours_jit, ours_pmap):
            for o, t in zip(ours, theirs, strict=True):
                assert o.shape == t.shape, (o.shape, t.shape)
                _close(o, t, 1e-12)
        for o, t in zip(ours_pmap, jax_pmap, strict=True):
            _close(o, t, 1e-12)
        assert len(ours_pmap[0].addressable_shards) == 8

        def loss(lax: Any) -> Any:
            return lambda v: lax.psum(v * v, "i").sum() + (v * lax.axis_index("i")).sum()

        _close(
            dx.grad(lambda x: dx.vmap(loss(dx.lax), axis_name="i")(x).sum())(x),
            jax.grad(lambda x: jax.vmap(loss(jax.lax), axis_name="i")(x).sum())(x),
            1e-12,
        )
        _close(
            dx.grad(lambda x: dx.pmap(loss(dx.lax), axis_name="i")(x).sum())(x),
            jax.grad(lambda x: jax.pmap(loss(jax.lax), axis_name="i")(x).sum())(x),
            1e-12,
        )
        w = np.ones(3)
        _close(
            dx.pmap(lambda v, w: v @ w, in_axes=(0, None))(x, w),
            jax.pmap(lambda v, w: v @ w, in_axes=(0, None))(x, w),
            1e-12,
        )


@check
def shard_map_bad_inputs_name_the_user_line() -> None:
    import didax as dx
    from didax.sharding import PartitionSpec as P

    mesh1, mesh2, _, _ = _meshes()
    here = __file__

    def raises(fn: Callable[[], Any], kind: type[BaseException], *words: str) -> None:
        try:
            fn()
        except kind as e:
            text = str(e) + "".join(getattr(e, "__notes__", []))
            for w in (*words, here):
                assert w in text, (w, text)
        else:
            raise AssertionError(f"expected {kind.__name__}")

    raises(
        lambda: dx.shard_map(lambda v: v, mesh=mesh1, in_specs=P("i"), out_specs=P("i"))(
            np.ones(6)
        ),
        ValueError,
        "shard_map",
        "not a multiple of 8",
    )
    raises(
        lambda: dx.shard_map(lambda v: v.sum(), mesh=mesh1, in_specs=P("i"), out_specs=P("i"))(
            np.ones(8)
        ),
        ValueError,
        "out_specs",
        "rank 0",
    )
    raises(
        lambda: dx.jit(
            dx.shard_map(
                lambda v: dx.lax.psum(v, "z"), mesh=mesh2, in_specs=P("x"), out_specs=P("x")
            )
        )(np.ones(8)),
        NameError,
        "unbound axis name",
        "'z'",
    )


@check
def check_vma_refuses_what_jax_refuses() -> None:
    import jax

    import didax as dx
    from didax.sharding import PartitionSpec as P

    _, mesh2, _, jmesh2 = _meshes()
    a = np.arange(32, dtype=np.float32).reshape(8, 4)
    cases = [
        # (body over a lax module, out_specs, whether JAX's check_vma accepts it)
        (lambda lax: lambda v: v * 2, P(), False),
        (lambda lax: lambda v: lax.psum(v, ("x", "y")), P(), True),
        (lambda lax: lambda v: lax.psum(v, "x"), P(None, "y"), True),
        (lambda lax: lambda v: lax.psum(v, "x"), P(), False),
        (lambda lax: lambda v: lax.pmax(v, ("x", "y")) + 1.0, P(), True),
        (lambda lax: lambda v: lax.all_gather(v, "y", axis=1, tiled=True), P("x"), False),
        (lambda lax: lambda v: lax.axis_index("x") + v.sum() * 0, P(), False),
    ]
    for make, spec, accepted in cases:
        ours_ok = jax_ok = True
        message = ""
        try:
            dx.shard_map(make(dx.lax), mesh=mesh2, in_specs=P("x", "y"), out_specs=spec)(a)
        except ValueError as e:
            message = str(e)
            ours_ok = False
        assert ours_ok or "varies" in message, message
        try:
            jax.shard_map(
                make(jax.lax),
                mesh=jmesh2,
                in_specs=_jax_specs(P("x", "y")),
                out_specs=_jax_specs(spec),
            )(a)
        except Exception:
            jax_ok = False
        assert ours_ok == jax_ok == accepted, (spec, ours_ok, jax_ok, accepted)


@check
def collectives_in_16_bit_floats_equal_jax() -> None:
    import jax
    import ml_dtypes

    import didax as dx
    from didax.sharding import PartitionSpec as P

    mesh1, _, jmesh1, _ = _meshes()

    def body(lax: Any) -> Any:
        def f(v: Any) -> Any:
            return (
                lax.psum(v, "i"),
                lax.pmax(v, "i"),
                lax.all_gather(v, "i", tiled=True),
                lax.ppermute(v, "i", [(j, (j + 3) % 8) for j in range(8)]),
                lax.psum_scatter(v, "i", tiled=True),
            )

        return f

    specs = (P(), P(), P(), P("i"), P("i"))
    for dtype in (np.float16, ml_dtypes.bfloat16):
        a = (np.arange(64) / 8).astype(dtype)
        ours = dx.shard_map(
            body(dx.lax), mesh=mesh1, in_specs=P("i"), out_specs=specs, check_vma=False
        )(a)
        theirs = jax.shard_map(
            body(jax.lax),
            mesh=jmesh1,
            in_specs=_jax_specs(P("i")),
            out_specs=_jax_specs(specs),
            check_vma=False,
        )(a)
        for o, t in zip(ours, theirs, strict=True):
            assert o.dtype == t.dtype, (o.dtype, t.dtype)
            _close(np.asarray(o, np.float32), np.asarray(t, np.float32), 1e-2)


def main(checks: dict[str, Callable[[], None]] = CHECKS) -> None:
    """Runs the checks named on the command line (all by default) and prints the report."""
    names = sys.argv[1:] or list(checks)
    results: dict[str, str | None] = {}
    for name in names:
        try:
            checks[name]()
            results[name] = None
        except Exception:
            results[name] = traceback.format_exc()
    print("RESULTS " + json.dumps(results))


if __name__ == "__main__":
    main()
