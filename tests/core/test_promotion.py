"""core.promotion: the one promotion module, and conversions that agree eager and jitted."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax import lax
from didax.core import dtypes
from didax.core.errors import DTypeError
from didax.core.lax import primitives as P
from didax.core.promotion import coerce_weak, convert, kind_rank, result_type, scalar_as

NASTY = np.array([np.nan, np.inf, -np.inf, 1e10, -1e10, 2.7, -2.7, 0.5], np.float64)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.uint32])
def test_float_to_int_agrees_eager_and_jitted(dtype: Any) -> None:
    """NaN, infinities and out-of-range floats saturate the same way on the host and in XLA."""
    eager = dnp.asarray(NASTY, dtype=dtype)
    jitted = dx.jit(lambda x: dnp.asarray(x, dtype=dtype))(NASTY)
    np.testing.assert_array_equal(eager, np.asarray(jitted))
    full = dnp.full(3, np.float64(np.nan), dtype=dtype)
    np.testing.assert_array_equal(full, np.zeros(3, dtype))


def test_convert_host_array_runs_the_impl_now() -> None:
    out = dx.make_jaxpr(lambda: convert(NASTY, dtypes.int32))()
    # Converted at trace time: a constant, no convert_element_type equation.
    assert "convert_element_type" not in str(out)
    assert out.consts[0].dtype == np.int32


def test_convert_keeps_values_of_the_dtype() -> None:
    x = np.ones(2, np.float32)
    assert convert(x, dtypes.float32) is x


def test_scalar_as_keeps_weak_default_width_scalars() -> None:
    assert scalar_as(2.0, dtypes.float64, weak=True) == 2.0
    assert type(scalar_as(2.0, dtypes.float64, weak=True)) is float
    assert type(scalar_as(3, dtypes.int64, weak=True)) is int
    out = scalar_as(2.5, dtypes.float32)
    assert isinstance(out, np.ndarray)
    assert out.dtype == np.float32


def test_result_type_is_nep50() -> None:
    assert result_type(np.ones(2, np.float32), 2.0) == (dtypes.float32, False)
    assert result_type(np.ones(2, np.int32), 2.0) == (dtypes.float64, True)
    assert result_type(1, 2.0) == (dtypes.float64, True)
    assert kind_rank(dtypes.bool_) < kind_rank(dtypes.int8) < kind_rank(dtypes.float16)


def test_coerce_weak_gives_scalars_the_partner_type() -> None:
    a, b = coerce_weak(P.add_p, (np.ones((2, 3), np.float32), 2.0))
    assert isinstance(b, np.ndarray)
    assert (b.dtype, b.shape) == (np.float32, (2, 3))
    assert a is not None


def test_coerce_weak_refuses_a_higher_kind() -> None:
    with pytest.raises(DTypeError, match="cannot take the dtype int32"):
        lax.add(np.ones(2, np.int32), 2.5)


def test_lax_and_numpy_share_promotion() -> None:
    # The same weak scalar meets the same strong partner in lax and numpy alike.
    x = np.ones(3, np.float32)
    assert lax.mul(x, 2.0).dtype == dnp.multiply(x, 2.0).dtype == np.float32
