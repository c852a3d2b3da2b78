"""The values API: transfers, device_put/device_get, eval_shape, debug_nans, disable_jit, odds.

Each behaviour is checked against JAX's where JAX defines it.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax.core.array import Array
from didax.core.basearray import Value
from didax.errors import ConcretizationTypeError
from didax.lowering import xla


def _array(x: Value) -> Array:
    """An eager result, which is a didax Array (is_on_device and on_host are its own)."""
    assert isinstance(x, Array)
    return x


@pytest.fixture
def transfers(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, ...]]:
    """Records the shape of every host-to-device transfer."""
    seen: list[tuple[int, ...]] = []
    original = xla.to_device

    def counting(host: Any) -> Any:
        seen.append(np.shape(host))
        return original(host)

    monkeypatch.setattr(xla, "to_device", counting)
    return seen


def test_jitted_call_on_asarray_arrays_transfers_once(transfers: list[Any]) -> None:
    f = dx.jit(lambda a, b: a * b + 1.0)
    a, b = dnp.asarray(np.arange(5.0)), dnp.asarray(np.ones(5))
    assert not _array(a).is_on_device
    assert _array(a).on_host
    f(a, b)
    assert _array(a).is_on_device
    assert _array(b).is_on_device
    first = len(transfers)
    assert first == 2
    out = f(a, b)
    assert len(transfers) == first, "the second call transferred its arguments again"
    assert out.is_on_device
    f(out, out)  # a jitted result lives on the device already
    assert len(transfers) == first


def test_device_put_moves_once_and_keeps_device_arrays(transfers: list[Any]) -> None:
    tree = dx.device_put({"w": np.ones((2, 2)), "b": 0.5})
    assert all(leaf.is_on_device for leaf in jax.tree_util.tree_leaves(tree))
    n = len(transfers)
    again = dx.device_put(tree)
    assert again["w"] is tree["w"]
    assert len(transfers) == n
    assert tree["b"].weak_type
    assert not tree["w"].weak_type


def test_device_put_copies_numpy_data() -> None:
    host = np.ones(3)
    put = dx.device_put(host)
    host[0] = 7.0
    np.testing.assert_array_equal(np.asarray(put), [1.0, 1.0, 1.0])


def test_device_get_and_block_until_ready_on_pytrees() -> None:
    tree = {"a": dnp.ones(2), "b": [dnp.arange(3), "label", None]}
    assert dx.block_until_ready(tree) is tree
    host = dx.device_get(tree)
    want = jax.device_get({"a": jnp.ones(2), "b": [jnp.arange(3), "label", None]})
    assert type(host["a"]) is type(want["a"]) is np.ndarray
    np.testing.assert_array_equal(host["b"][0], want["b"][0])
    assert host["b"][1:] == ["label", None]


def test_eval_shape_and_shape_dtype_struct() -> None:
    def f(x: Any, y: Any) -> Any:
        return {"s": dnp.sum(x * y), "m": dnp.matmul(x, x.T)}

    x = dx.ShapeDtypeStruct((3, 4), np.float32)
    out = dx.eval_shape(f, x, 2.0)
    want = jax.eval_shape(_jax_f, jax.ShapeDtypeStruct((3, 4), np.float32), 2.0)
    assert out["s"].shape == want["s"].shape
    assert out["s"].dtype == want["s"].dtype
    assert out["m"].shape == want["m"].shape == (3, 3)
    assert out["m"].dtype == want["m"].dtype
    assert x.size == 12
    assert x.ndim == 2


def _jax_f(x: Any, y: Any) -> Any:
    return {"s": jnp.sum(x * y), "m": jnp.matmul(x, x.T)}


def test_eval_shape_runs_no_computation(transfers: list[Any]) -> None:
    out = dx.eval_shape(lambda x: dnp.sin(x) * 2, dx.ShapeDtypeStruct((1000, 1000), np.float64))
    assert out.shape == (1000, 1000)
    assert transfers == []


def test_debug_nans_names_the_primitive_and_line_eagerly() -> None:
    x = dnp.asarray(-1.0)
    assert np.isnan(float(dnp.log(x)))  # off: NaN flows through silently, as JAX
    with dx.config.override("jax_debug_nans", True):
        with pytest.raises(FloatingPointError, match=r"log.*test_values_api\.py:\d+"):
            dnp.log(x)
        # a NaN argument is not the primitive's fault: only produced NaNs raise
        dnp.sin(dnp.asarray(0.5))


def test_debug_nans_under_jit_reruns_eagerly_to_find_the_primitive() -> None:
    def f(x: Any) -> Any:
        y = dnp.sin(x) * 2.0
        return dnp.sqrt(x - 2.0) + y

    with dx.config.override("jax_debug_nans", True):
        with pytest.raises(FloatingPointError, match=r"sqrt.*test_values_api\.py"):
            dx.jit(f)(1.0)
        assert np.isfinite(float(dx.jit(f)(3.0)))


def test_debug_nans_through_grad() -> None:
    with dx.config.override("jax_debug_nans", True), pytest.raises(FloatingPointError):
        dx.grad(lambda x: dnp.sqrt(x))(-1.0)


def test_disable_jit_runs_the_python_function_eagerly() -> None:
    seen: list[Any] = []

    def f(x: Any) -> Any:
        seen.append(x)
        return x * 2

    with dx.disable_jit():
        assert dx.jit(f)(dnp.asarray(3.0)) == 6.0
    assert type(seen[-1]) is dx.Array  # not a tracer: the function ran on the values
    with dx.config.override("jax_disable_jit", True):
        dx.jit(f)(dnp.asarray(3.0))
        dx.jit(f)(dnp.asarray(3.0))
    assert len(seen) == 3
    assert all(type(s) is dx.Array for s in seen)
    dx.jit(f)(dnp.asarray(3.0))
    assert not isinstance(seen[-1], dx.Array)  # traced again once jit is back


def test_allow_int_gives_float0_gradients_as_jax() -> None:
    got = dx.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(3.0, 2)
    want = jax.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(3.0, 2)
    assert float(got[0]) == float(want[0])
    assert got[1].dtype == want[1].dtype == jax.dtypes.float0
    with pytest.raises(TypeError, match="allow_int"):
        dx.grad(lambda x, n: x * n, argnums=(0, 1))(3.0, 2)
    with pytest.raises(TypeError, match="floating"):
        dx.grad(lambda x: x * 2, allow_int=True)(3)


@pytest.mark.parametrize("make", [dnp.zeros, dnp.ones, lambda n: dnp.full(n, 1.0)])
def test_traced_shape_is_a_concretization_error_naming_the_argument(make: Any) -> None:
    with pytest.raises(ConcretizationTypeError, match="shape argument"):
        dx.jit(make)(3)
    with pytest.raises(ConcretizationTypeError, match="shape argument"):
        dx.jit(lambda n: make((2, n)))(3)
    assert dx.jit(make, static_argnums=0)(3).shape == (3,)


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"donate_argnums": 0, "static_argnums": 0}, ValueError),
        ({"donate_argnames": "x", "static_argnames": "x"}, ValueError),
        ({"donate_argnums": 5}, ValueError),
        ({"donate_argnums": "x"}, TypeError),
    ],
)
def test_bad_donation_is_refused_as_jax(options: dict[str, Any], error: type[Exception]) -> None:
    def f(x: Any, y: Any = 1.0) -> Any:
        return x * y

    with pytest.raises(error):
        jax.jit(f, **options)(jnp.ones(2), 2.0)
    with pytest.raises(error):
        dx.jit(f, **options)(dnp.ones(2), 2.0)


@pytest.mark.parametrize(
    "options", [{"donate_argnums": 0}, {"donate_argnames": "x"}, {"donate_argnums": (0,)}]
)
def test_donated_arrays_are_deleted_as_jax(options: dict[str, Any]) -> None:
    def f(x: Any, y: Any) -> Any:
        return x * y, y + 1.0

    jx, jy = jnp.asarray(np.arange(3.0)), jnp.asarray(np.full(3, 2.0))
    want = jax.jit(f, **options)(jx, jy)
    x, y = dnp.asarray(np.arange(3.0)), dnp.asarray(np.full(3, 2.0))
    got = dx.jit(f, **options)(x, y)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    assert x.is_deleted() == jx.is_deleted() is True
    assert y.is_deleted() == jy.is_deleted() is False
    with pytest.raises(RuntimeError, match="deleted"):
        np.asarray(x)
    with pytest.raises(RuntimeError, match="deleted"):
        dnp.sin(x)
    with pytest.raises(RuntimeError, match="deleted"):
        dx.jit(f)(x, y)


def test_donation_in_a_training_loop_and_of_non_arrays() -> None:
    step = dx.jit(lambda p, g: {"w": p["w"] - 0.5 * g}, donate_argnums=0)
    params = {"w": dnp.ones(4)}
    for _ in range(3):
        old = params["w"]
        params = step(params, dnp.ones(4))
        assert old.is_deleted()
    np.testing.assert_array_equal(np.asarray(params["w"]), np.full(4, -0.5))
    # Python scalars and NumPy arrays get buffers of their own: nothing
    # shared (such as didax's cache of scalar buffers) is donated.
    f = dx.jit(lambda s, v: s * v, donate_argnums=(0, 1))
    host = np.ones(2)
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(f(2.0, host)), [2.0, 2.0])
    np.testing.assert_array_equal(host, [1.0, 1.0])
    assert float(dx.jit(lambda s: s + 0.0)(2.0)) == 2.0


def test_negative_donate_argnums_count_from_the_end() -> None:
    # JAX 0.10.2 accepts a negative index but donates nothing for it; didax
    # reads it as Python reads a negative index.
    x, y = dnp.ones(3), dnp.ones(3)
    dx.jit(lambda a, b: a * b, donate_argnums=-1)(x, y)
    assert not x.is_deleted()
    assert y.is_deleted()
