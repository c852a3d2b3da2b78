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


def main() -> None:
    names = sys.argv[1:] or list(CHECKS)
    results: dict[str, str | None] = {}
    for name in names:
        try:
            CHECKS[name]()
            results[name] = None
        except Exception:
            results[name] = traceback.format_exc()
    print("RESULTS " + json.dumps(results))


if __name__ == "__main__":
    main()
