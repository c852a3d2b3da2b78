"""``pmin``, ``all_to_all``, ``pswapaxes``, ``pshuffle``, ``pbroadcast``, ``pcast``, ``axis_size``.

Under ``vmap(axis_name=...)`` (the named-axis rules), against JAX's vmap:
values, grads of the linear ones, a named axis with an ordinary vmap inside
(the ordinary batching rules), and an operand that does not vary over the
axis. Under ``shard_map`` on 8 host devices (the lowerings), the checks in
``collectives_more_checks.py`` run in one subprocess, as
``tests/lowering/test_multidevice.py`` runs its own.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Final

import jax
import numpy as np
import pytest

import didax as dx

HERE: Final = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "lowering"))
checks: Any = importlib.import_module("collectives_more_checks")
run_checks: Any = importlib.import_module("test_multidevice").run_checks

Body = Any

# name -> a body over a lax module, run per position of an axis "i" of size 4 on (4, 6) values.
BODIES: Final[dict[str, Body]] = {
    "pmin": lambda lax: lambda v: lax.pmin(v, "i"),
    "all_to_all_00": lambda lax: lambda v: lax.all_to_all(v, "i", 0, 0),
    "all_to_all_01": lambda lax: lambda v: lax.all_to_all(v, "i", 0, 1),
    "all_to_all_10": lambda lax: lambda v: lax.all_to_all(v[:, :4], "i", 1, 0),
    "all_to_all_tiled_00": lambda lax: lambda v: lax.all_to_all(v, "i", 0, 0, tiled=True),
    "all_to_all_tiled_01": lambda lax: lambda v: lax.all_to_all(v, "i", 0, 1, tiled=True),
    "all_to_all_tiled_10": lambda lax: (
        lambda v: lax.all_to_all(v.reshape(2, 12), "i", 1, 0, tiled=True)
    ),
    "pswapaxes": lambda lax: lambda v: lax.pswapaxes(v, "i", 0),
    "pshuffle": lambda lax: lambda v: lax.pshuffle(v, "i", [2, 0, 3, 1]),
    "pbroadcast": lambda lax: lambda v: lax.pbroadcast(v, "i", 2),
    "axis_size": lambda lax: lambda v: v * lax.axis_size("i"),
}
# JAX's pbroadcast batching rule fails under grad (it calls take with a list).
LINEAR: Final = [n for n in BODIES if n not in ("pmin", "axis_size", "pbroadcast")]


def _x(dtype: Any = np.float32) -> np.ndarray[Any, Any]:
    return np.random.default_rng(0).normal(size=(4, 4, 6)).astype(dtype)


def _both(make: Body) -> tuple[Any, Any]:
    return make(dx.lax), make(jax.lax)


@pytest.mark.parametrize("name", list(BODIES))
def test_under_vmap_with_axis_name_equals_jax(name: str) -> None:
    ours, theirs = _both(BODIES[name])
    x = _x()
    want = jax.vmap(theirs, axis_name="i")(x)
    np.testing.assert_allclose(np.asarray(dx.vmap(ours, axis_name="i")(x)), want, rtol=1e-6)
    got = dx.jit(dx.vmap(ours, axis_name="i", in_axes=1))(np.swapaxes(x, 0, 1))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


@pytest.mark.parametrize("name", LINEAR)
def test_grad_under_vmap_equals_jax(name: str) -> None:
    ours, theirs = _both(BODIES[name])
    x = _x(np.float64)
    w = np.random.default_rng(1).normal(size=np.shape(jax.vmap(theirs, axis_name="i")(x)))

    def loss(vmap: Any, f: Any) -> Any:
        return lambda x: (vmap(f, axis_name="i")(x) * w).sum()

    np.testing.assert_allclose(
        np.asarray(dx.grad(loss(dx.vmap, ours))(x)),
        np.asarray(jax.grad(loss(jax.vmap, theirs))(x)),
        rtol=1e-12,
    )


@pytest.mark.parametrize("name", ["all_to_all_01", "all_to_all_tiled_10", "pswapaxes", "pmin"])
def test_ordinary_vmap_inside_the_named_axis(name: str) -> None:
    """The ordinary batching rules: a batch axis that is not the collective's."""
    ours, theirs = _both(BODIES[name])
    x = np.random.default_rng(2).normal(size=(4, 3, 4, 6)).astype(np.float32)
    got = dx.vmap(dx.vmap(ours, in_axes=0), axis_name="i")(x)
    want = jax.vmap(jax.vmap(theirs, in_axes=0), axis_name="i")(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


@pytest.mark.parametrize("name", ["all_to_all_01", "all_to_all_tiled_00", "pbroadcast", "pmin"])
def test_an_operand_that_does_not_vary(name: str) -> None:
    """Equal at every position: as if each position held a copy (JAX's own rule differs here)."""
    ours = BODIES[name](dx.lax)
    c = _x()[0]
    got = dx.vmap(lambda x: ours(c) + x, axis_name="i")(np.zeros((4, 1, 1), np.float32))
    want = dx.vmap(ours, axis_name="i")(np.stack([c] * 4))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_pcast_to_varying_is_the_identity_and_other_casts_are_refused() -> None:
    x = _x()
    got = dx.vmap(lambda v: dx.lax.pcast(v, "i", to="varying"), axis_name="i")(x)
    np.testing.assert_array_equal(np.asarray(got), x)
    with pytest.raises(ValueError, match="Allowed `to` values"):
        dx.vmap(lambda v: dx.lax.pcast(v, "i", to="bogus"), axis_name="i")(x)
    with pytest.raises(NotImplementedError, match="reduced"):
        dx.vmap(lambda v: dx.lax.pcast(v, "i", to="reduced"), axis_name="i")(x)


@pytest.mark.parametrize(
    ("body", "kind", "message"),
    [
        (lambda lax: lambda v: lax.all_to_all(v[:3], "i", 0, 0), ValueError, "respectively"),
        (
            lambda lax: lambda v: lax.all_to_all(v[:3], "i", 0, 0, tiled=True),
            ValueError,
            "has to be divisible",
        ),
        (lambda lax: lambda v: lax.pshuffle(v, "i", [0, 0, 1, 2]), ValueError, "permutation"),
        (lambda lax: lambda v: lax.pmin(v, "j"), NameError, "unbound axis name"),
    ],
)
def test_errors_are_jaxs(body: Body, kind: type[Exception], message: str) -> None:
    for lib, vmap in ((dx.lax, dx.vmap), (jax.lax, jax.vmap)):
        with pytest.raises(kind, match=message):
            vmap(body(lib), axis_name="i")(_x())


def test_pmin_is_not_differentiable() -> None:
    def f(v: Any) -> Any:
        return dx.jvp(lambda u: dx.lax.pmin(u, "i"), (v,), (v,))

    with pytest.raises(TypeError, match="pmin is not differentiable"):
        dx.vmap(f, axis_name="i")(_x())


def test_the_primitives_are_public_as_jaxs() -> None:
    lax_: ModuleType = dx.lax
    for name in ("pmin_p", "pmax_p", "psum_p", "all_to_all_p", "all_gather_p", "ppermute_p"):
        assert hasattr(lax_, name), name
        assert hasattr(jax.lax, name), name


# --- under shard_map, on 8 host devices ------------------------------------------------------


@pytest.fixture(scope="module")
def results() -> dict[str, str | None]:
    report: dict[str, str | None] = run_checks(HERE / "collectives_more_checks.py")
    return report


@pytest.mark.parametrize("name", list(checks.CHECKS))
def test_under_shard_map(results: dict[str, str | None], name: str) -> None:
    assert name in results
    failure = results[name]
    assert failure is None, failure
