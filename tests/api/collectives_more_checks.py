"""Checks of the newer collectives under ``shard_map`` on 8 host devices, against JAX.

Run in one subprocess by ``test_collectives_more.py`` (XLA fixes the number
of host devices at backend start-up), reported as
``tests/lowering/multidevice_checks.py`` reports its own.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import numpy as np

CHECKS: Final[dict[str, Callable[[], None]]] = {}


def check(fn: Callable[[], None]) -> Callable[[], None]:
    CHECKS[fn.__name__] = fn
    return fn


def _close(a: Any, b: Any, tol: float = 1e-6) -> None:
    assert np.shape(a) == np.shape(b), (np.shape(a), np.shape(b))
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def _body(lax: Any) -> Any:
    def body(v: Any) -> Any:  # v: (8, 16) per device of a 1-d mesh "i" of 8
        return (
            lax.pmin(v, "i"),
            lax.all_to_all(v, "i", 0, 1),
            lax.all_to_all(v, "i", 0, 1, tiled=True),
            lax.all_to_all(v, "i", 1, 0, tiled=True),
            lax.pswapaxes(v, "i", 0),
            lax.pshuffle(v, "i", [3, 0, 1, 2, 7, 4, 5, 6]),
            v * lax.axis_size("i"),
        )

    return body


def _run(lib: Any, body: Any, mesh: Any, spec: Any, x: Any, n_out: int) -> Any:
    return lib.shard_map(body, mesh=mesh, in_specs=spec, out_specs=(spec,) * n_out, check_vma=False)


@check
def new_collectives_equal_jax() -> None:
    import jax
    from jax.sharding import PartitionSpec as JP

    import didax as dx
    from didax.sharding import Mesh
    from didax.sharding import PartitionSpec as P

    mesh, jmesh = (
        Mesh(np.array(dx.devices()), ("i",)),
        jax.sharding.Mesh(np.array(jax.devices()), ("i",)),
    )
    x = np.random.default_rng(0).normal(size=(64, 16)).astype(np.float32)
    ours = _run(dx, _body(dx.lax), mesh, P("i"), x, 7)
    theirs = _run(jax, _body(jax.lax), jmesh, JP("i"), x, 7)(x)
    for run in (ours, dx.jit(ours)):
        for o, t in zip(run(x), theirs, strict=True):
            _close(o, t)
    text = dx.jit(ours).lower(x).as_text()
    assert "stablehlo.all_to_all" in text


@check
def all_to_all_over_several_axes_of_a_2d_mesh() -> None:
    import jax
    from jax.sharding import PartitionSpec as JP

    import didax as dx
    from didax.sharding import Mesh
    from didax.sharding import PartitionSpec as P

    mesh = Mesh(np.array(dx.devices()).reshape(4, 2), ("x", "y"))
    jmesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))

    def body(lax: Any) -> Any:
        def f(v: Any) -> Any:  # v: (8, 4)
            return (
                lax.all_to_all(v[:4], "x", 0, 1),
                lax.all_to_all(v, ("x", "y"), 0, 0, tiled=True),
                lax.all_to_all(v, "y", 1, 0, tiled=True),
                lax.pmin(v, ("x", "y")),
            )

        return f

    x = np.random.default_rng(1).normal(size=(32, 8)).astype(np.float32)
    ours = _run(dx, body(dx.lax), mesh, P("x", "y"), x, 4)
    theirs = _run(jax, body(jax.lax), jmesh, JP("x", "y"), x, 4)(x)
    for o, t in zip(dx.jit(ours)(x), theirs, strict=True):
        _close(o, t)


@check
def grads_under_shard_map_equal_jax() -> None:
    import jax
    from jax.sharding import PartitionSpec as JP

    import didax as dx
    from didax.sharding import Mesh
    from didax.sharding import PartitionSpec as P

    mesh, jmesh = (
        Mesh(np.array(dx.devices()), ("i",)),
        jax.sharding.Mesh(np.array(jax.devices()), ("i",)),
    )
    x = np.random.default_rng(2).normal(size=(64, 16))
    w = np.random.default_rng(3).normal(size=(64, 16))

    def body(lax: Any) -> Any:
        def f(v: Any) -> Any:
            return (
                lax.all_to_all(v, "i", 0, 0, tiled=True) * 2.0
                + lax.pswapaxes(v, "i", 0)
                + lax.pshuffle(v, "i", [1, 2, 3, 4, 5, 6, 7, 0])
            )

        return f

    def loss(lib: Any, mesh: Any, spec: Any) -> Any:
        run = lib.shard_map(body(lib.lax), mesh=mesh, in_specs=spec, out_specs=spec)
        return lambda x: (run(x) * w).sum()

    got = dx.jit(dx.grad(loss(dx, mesh, P("i"))))(x)
    want = jax.grad(loss(jax, jmesh, JP("i")))(x)
    _close(got, want, 1e-12)


@check
def pbroadcast_and_pcast_under_shard_map() -> None:
    """JAX lowers its pbroadcast on GPUs only: checked against its documented equivalent."""
    import jax
    from jax.sharding import PartitionSpec as JP

    import didax as dx
    from didax.sharding import Mesh
    from didax.sharding import PartitionSpec as P

    mesh, jmesh = (
        Mesh(np.array(dx.devices()), ("i",)),
        jax.sharding.Mesh(np.array(jax.devices()), ("i",)),
    )
    x = np.random.default_rng(4).normal(size=(64, 16))

    def ours(v: Any) -> Any:
        return dx.lax.pbroadcast(v, "i", 5) + dx.lax.pcast(v, "i", to="varying")

    def theirs(v: Any) -> Any:
        masked = jax.numpy.where(jax.lax.axis_index("i") == 5, v, 0.0)
        return jax.lax.psum(masked, "i") + v

    run = dx.shard_map(ours, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
    jrun = jax.shard_map(theirs, mesh=jmesh, in_specs=JP("i"), out_specs=JP("i"))
    _close(dx.jit(run)(x), jrun(x), 1e-12)
    w = np.random.default_rng(5).normal(size=x.shape)
    _close(
        dx.grad(lambda x: (run(x) * w).sum())(x),
        jax.grad(lambda x: (jrun(x) * w).sum())(x),
        1e-12,
    )


if __name__ == "__main__":
    import jax

    import didax as dx

    sys.path.insert(0, str(Path(__file__).parent.parent / "lowering"))
    jax.config.update("jax_enable_x64", True)
    dx.config.update("jax_enable_x64", True)
    importlib.import_module("multidevice_checks").main(CHECKS)
