"""Devices, processes and assembled arrays at the top level, against JAX's.

``default_backend``, ``local_devices``, the ``process_*``/``host_*`` queries,
``make_mesh``, ``make_array_from_callback``,
``make_array_from_single_device_arrays``, ``live_arrays``,
``copy_to_host_async``, ``typeof``, ``float0``, ``Device``, ``Shard`` and
``print_environment_info``.
"""

from __future__ import annotations

import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp


def test_backend_and_process_queries_are_jax_s() -> None:
    assert dx.default_backend() == jax.default_backend()
    assert dx.local_devices() == jax.local_devices()
    assert dx.local_devices(process_index=0) == jax.local_devices(process_index=0)
    assert dx.process_indices() == jax.process_indices()
    assert isinstance(dx.devices()[0], dx.Device)
    assert dx.Device is jax.Device
    with pytest.raises(ValueError, match="one backend"):
        dx.local_devices(backend="tpu")


@pytest.mark.parametrize(
    ("name", "expected"), [("host_count", 1), ("host_id", 0), ("host_ids", [0])]
)
def test_host_names_warn_as_jax_s(name: str, expected: Any) -> None:
    with pytest.warns(UserWarning, match="renamed"):
        ours = getattr(dx, name)()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ours == getattr(jax, name)() == expected


def test_make_mesh() -> None:
    mesh = dx.make_mesh((1,), ("x",))
    theirs = jax.make_mesh((1,), ("x",))
    assert mesh.axis_names == theirs.axis_names
    assert list(mesh.devices.flat) == list(theirs.devices.flat)
    assert dx.make_mesh((1,), ("x",), (jax.sharding.AxisType.Auto,)).shape == {"x": 1}
    with pytest.raises(NotImplementedError, match="Auto"):
        dx.make_mesh((1,), ("x",), (jax.sharding.AxisType.Explicit,))
    with pytest.raises(ValueError, match="must be >="):
        dx.make_mesh((len(dx.devices()) + 1,), ("x",))


def _sharding(spec: Any, lib: Any) -> Any:
    return lib.NamedSharding(lib.make_mesh((1,), ("x",)), spec)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.float64, np.bool_])
def test_make_array_from_callback(dtype: Any) -> None:
    data = (np.arange(12).reshape(4, 3) % 3).astype(dtype)
    ours = dx.make_array_from_callback((4, 3), _sharding(dx.P("x"), dx), lambda i: data[i])
    theirs = jax.make_array_from_callback((4, 3), _sharding(jax.P("x"), jax), lambda i: data[i])
    assert ours.dtype == theirs.dtype
    assert ours.shape == theirs.shape
    np.testing.assert_array_equal(ours, theirs)
    assert ours.sharding == _sharding(dx.P("x"), dx)
    single = dx.make_array_from_callback(
        (4, 3), dx.sharding.SingleDeviceSharding(dx.devices()[0]), lambda i: data[i]
    )
    np.testing.assert_array_equal(single, data)


@pytest.mark.x64_off
def test_make_array_from_callback_in_32_bits() -> None:
    data = np.arange(4.0)  # float64 data: a float32 Array, as JAX's
    ours = dx.make_array_from_callback((4,), _sharding(dx.P("x"), dx), lambda i: data[i])
    theirs = jax.make_array_from_callback((4,), _sharding(jax.P("x"), jax), lambda i: data[i])
    assert ours.dtype == theirs.dtype == np.float32
    np.testing.assert_array_equal(ours, theirs)


def test_make_array_from_callback_refuses_a_wrong_piece() -> None:
    with pytest.raises(ValueError, match="shard shape"):
        dx.make_array_from_callback((4,), _sharding(dx.P("x"), dx), lambda i: np.ones(3))


def test_make_array_from_single_device_arrays() -> None:
    piece = dnp.arange(6.0).reshape(2, 3)
    ours = dx.make_array_from_single_device_arrays((2, 3), _sharding(dx.P("x"), dx), [piece])
    theirs = jax.make_array_from_single_device_arrays(
        (2, 3), _sharding(jax.P("x"), jax), [jnp.arange(6.0).reshape(2, 3)]
    )
    np.testing.assert_array_equal(ours, theirs)
    assert ours.dtype == theirs.dtype
    assert not ours.weak_type
    assert dx.jit(lambda a: a * 2)(ours).sum() == 30.0
    with pytest.raises(ValueError, match="arrays for the"):
        dx.make_array_from_single_device_arrays((2, 3), _sharding(dx.P("x"), dx), [])


def test_live_arrays_and_copy_to_host_async() -> None:
    x = dnp.arange(5.0) + 1.0
    assert any(a is x for a in dx.live_arrays())
    x.delete()
    assert not any(a is x for a in dx.live_arrays())
    tree = {"a": dnp.ones(2), "b": [dnp.zeros(3), "label"]}
    dx.copy_to_host_async(tree)
    np.testing.assert_array_equal(tree["a"], np.ones(2))


@pytest.mark.parametrize(
    "value",
    [2.0, 3, True, np.float32(1.0), np.ones((2, 3), np.int32), [1.0, 2.0]],
    ids=["float", "int", "bool", "np-scalar", "ndarray", "list"],
)
def test_typeof_is_jax_s(value: Any) -> None:
    if isinstance(value, list):
        with pytest.raises(TypeError):
            dx.typeof(value)
        return
    ours, theirs = dx.typeof(value), jax.typeof(value)
    assert (ours.shape, ours.dtype, ours.weak_type) == (
        theirs.shape,
        theirs.dtype,
        theirs.weak_type,
    )


def test_typeof_of_a_tracer() -> None:
    seen: list[str] = []

    def f(x: Any) -> Any:
        seen.append(str(dx.typeof(x)))
        return x

    dx.jit(f)(np.ones(3, np.float32))
    assert seen == ["f32[3]"]


def test_float0_shard_named_sharding_and_version() -> None:
    assert dx.float0 == jax.dtypes.float0 == dx.dtypes.float0
    assert dx.NamedSharding is dx.sharding.NamedSharding
    shard = dx.device_put(np.arange(3.0)).addressable_shards[0]
    assert isinstance(shard, dx.Shard)
    assert dx.version.__version__ == dx.__version__
    assert [int(p) for p in dx.__version__.split(".")[:2]] >= [0, 1]


def test_grad_of_an_integer_input_gives_float0_as_jax_s() -> None:
    ours = dx.grad(lambda x, i: x * i, argnums=(0, 1), allow_int=True)(2.0, 3)
    theirs = jax.grad(lambda x, i: x * i, argnums=(0, 1), allow_int=True)(2.0, 3)
    assert ours[1].dtype == theirs[1].dtype == dx.float0
    np.testing.assert_allclose(ours[0], theirs[0])


def test_print_environment_info(capsys: pytest.CaptureFixture[str]) -> None:
    text = dx.print_environment_info(return_string=True)
    assert text is not None
    assert f"jax:      {jax.__version__}" in text
    assert "didax:" in text
    assert dx.print_environment_info() is None
    assert "device info" in capsys.readouterr().out
