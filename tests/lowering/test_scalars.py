"""lowering.scalars and to_buffer: device copies of arguments, scalars kept and reused."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import didax as dx
from didax.lowering import scalars, xla
from didax.lowering.host_arguments import to_buffer

_fresh = itertools.count(1)


def _unique_constant() -> float:
    return 3.0 + next(_fresh) / 7919.0


# --- to_buffer ---------------------------------------------------------------------------------


def test_to_buffer_of_an_array_is_its_buffer() -> None:
    a = dx.device_put(np.arange(3.0))
    assert to_buffer(a) is a.buffer


def test_to_buffer_copies_host_arrays() -> None:
    x = np.arange(4, dtype=np.int8)
    buf = to_buffer(x)
    host = xla.to_host(buf)
    assert host.dtype == np.int8
    np.testing.assert_array_equal(host, x)


def test_python_scalars_reuse_one_device_buffer() -> None:
    v = _unique_constant()
    b1 = to_buffer(v)
    b2 = to_buffer(float(str(v)))  # an equal float, another object
    assert b1 is b2
    assert xla.to_host(b1) == v


def test_complex_scalars_reuse_one_device_buffer_keyed_by_their_parts() -> None:
    v = complex(_unique_constant(), -2.0)
    assert to_buffer(v) is to_buffer(complex(str(v)))
    assert xla.to_host(to_buffer(v)) == v
    pos, neg = to_buffer(complex(1.0, 0.0)), to_buffer(complex(1.0, -0.0))
    assert pos is not neg
    assert np.signbit(xla.to_host(neg).imag)
    assert not np.signbit(xla.to_host(pos).imag)


def test_scalar_buffers_are_bounded() -> None:
    for i in range(scalars.SCALAR_BUFFERS_SIZE + 10):
        to_buffer(i + 0.5)
    assert len(scalars.SCALAR_BUFFERS) <= scalars.SCALAR_BUFFERS_SIZE
    assert xla.to_host(to_buffer(3.5)) == 3.5  # after an emptying, made again


def test_scalar_buffers_tell_signed_zeros_apart() -> None:
    pos, neg = to_buffer(0.0), to_buffer(-0.0)
    assert pos is not neg
    assert not np.signbit(xla.to_host(pos))
    assert np.signbit(xla.to_host(neg))
    assert to_buffer(-0.0) is neg


@pytest.mark.parametrize(("scalar", "dtype"), [(1, np.int64), (1.0, np.float64), (True, np.bool_)])
def test_scalar_buffers_are_keyed_by_type(scalar: Any, dtype: Any) -> None:
    buf = to_buffer(scalar)
    host = xla.to_host(buf)
    assert host.dtype == dtype
    assert host == scalar
    others = [to_buffer(s) for s in (1, 1.0, True) if type(s) is not type(scalar)]
    assert all(o is not buf for o in others)


def test_nan_scalars_share_a_buffer() -> None:
    assert to_buffer(float("nan")) is to_buffer(float("nan"))
