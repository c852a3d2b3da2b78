"""core.promotion: the one promotion module, and conversions that agree eager and jitted."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

import attrs
import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax import lax
from didax.core import dtypes
from didax.core.errors import DTypeError
from didax.core.lax import elementwise as P
from didax.core.promotion import coerce_weak, convert, kind_rank, result_type, scalar_as


@contextlib.contextmanager
def jax_x64(on: bool) -> Iterator[None]:
    """JAX's x64 mode for the oracle (the test session turns it on globally)."""
    jax.config.update("jax_enable_x64", on)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", True)


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


def test_result_type_of_values() -> None:
    assert result_type(np.ones(2, np.float32), 2.0) == (dtypes.float32, False)
    assert result_type(np.ones(2, np.int32), np.ones(2, np.float32)) == (dtypes.float32, False)
    assert result_type(np.ones(2, np.int32), 2.0) == (dtypes.float64, True)
    assert result_type(1, 2.0) == (dtypes.float64, True)
    assert kind_rank(dtypes.bool_) < kind_rank(dtypes.int8) < kind_rank(dtypes.float16)


def test_coerce_weak_gives_scalars_the_partner_type() -> None:
    # add takes scalar operands: the scalar takes the dtype and stays rank-0.
    strong = np.ones((2, 3), np.float32)
    a, b = coerce_weak(P.add_p, (strong, 2.0))
    assert np.asarray(b).dtype == np.float32
    assert np.shape(b) == ()
    # select's cases do not: the scalar takes the shape too.
    a, b = coerce_weak(P.select_p, (strong, 2.0))
    assert isinstance(b, dx.Array)
    assert b.dtype == np.float32
    assert b.shape == (2, 3)
    np.testing.assert_array_equal(b, np.full((2, 3), 2.0, np.float32))
    # The strong operand is returned as it is: lax never promotes.
    assert a is strong


def test_coerce_weak_refuses_a_higher_kind() -> None:
    with pytest.raises(DTypeError, match="cannot take the dtype int32"):
        lax.add(np.ones(2, np.int32), 2.5)


def test_lax_and_numpy_share_promotion() -> None:
    # The same weak scalar meets the same strong partner in lax and numpy alike.
    x = np.ones(3, np.float32)
    assert lax.mul(x, 2.0).dtype == dnp.multiply(x, 2.0).dtype == np.float32


# --- JAX's lattice -----------------------------------------------------------

WEAKABLE: Final = [d for d in dtypes.SUPPORTED if d != dtypes.bool_]


@attrs.frozen
class _Abstract:
    aval: jax.core.ShapedArray
    dtype: np.dtype[Any]


def _jax_lattice_result(ops: Sequence[tuple[np.dtype[Any], bool]]) -> tuple[Any, bool]:
    from jax._src import core as jax_core
    from jax._src import dtypes as jax_dtypes

    # Abstract values (JAX reads a value's weak type from its ``aval``): JAX's
    # CPU backend cannot hold float6 arrays.
    values = [_Abstract(jax_core.ShapedArray((), d, weak_type=w), d) for d, w in ops]
    dtype, weak = jax_dtypes.lattice_result_type(*values)
    return jax_dtypes.canonicalize_dtype(dtype), weak


def _outcome(f: Callable[..., object], *args: Any) -> object:
    """``f(*args)``, or the name of its error (the narrow dtypes have no promotions)."""
    try:
        return f(*args)
    except (TypeError, ValueError) as e:  # JAX's TypePromotionError is a ValueError
        return type(e).__name__


@pytest.mark.parametrize("x64", [True, False], ids=["x64", "x32"])
def test_result_type_is_jax_lattice_over_all_pairs(x64: bool) -> None:
    """Every pair of supported dtypes, each strong or weak, promotes as JAX's ``promote_types``."""
    kinds = [(d, False) for d in dtypes.SUPPORTED] + [(d, True) for d in WEAKABLE]
    if not x64:
        kinds = [(d, w) for d, w in kinds if d.itemsize < 8]
    with jax_x64(x64), dx.enable_x64(x64):
        for a, b in itertools.product(kinds, repeat=2):
            ours = _outcome(dtypes.result_type, [a, b])
            assert ours == _outcome(_jax_lattice_result, [a, b]), (a, b)
        for da, db in itertools.product(dtypes.SUPPORTED, repeat=2):
            if x64 or (da.itemsize < 8 and db.itemsize < 8):
                ours = _outcome(dtypes.promote_types, da, db)
                assert ours == _outcome(jnp.promote_types, da, db), (da, db)


def test_result_type_of_triples_matches_jax() -> None:
    # Two narrow dtypes stand for all (the pairs test covers each): they join nothing.
    wide = [d for d in dtypes.SUPPORTED if d not in dtypes.NARROW[1:-1]]
    kinds = [(d, False) for d in wide] + [(d, True) for d in wide if d != dtypes.bool_]
    for ops in itertools.combinations(kinds, 3):
        assert _outcome(dtypes.result_type, ops) == _outcome(_jax_lattice_result, ops), ops


@pytest.mark.parametrize(
    ("x", "y"),
    [
        (np.ones(2, np.int32), np.ones(2, np.float32)),
        (np.ones(2, np.int32), 2),
        (np.ones(2, np.uint8), np.ones(2, np.int8)),
        (np.ones(2, np.uint64), np.ones(2, np.int64)),
        (np.ones(2, ml_dtypes.bfloat16), np.ones(2, np.float16)),
        (np.ones(2, np.float16), 2.5),
        (np.ones(2, np.int16), 2.5),
        (np.ones(2, np.bool_), 1),
    ],
)
def test_numpy_operators_promote_as_jax(x: Any, y: Any) -> None:
    for op in ("add", "multiply", "divide", "maximum"):
        expected = getattr(jnp, op)(x, y)
        got = getattr(dnp, op)(x, y)
        assert np.asarray(got).dtype == expected.dtype, (op, x.dtype, y)


def test_dtype_arguments_truncate_with_x64_off() -> None:
    with dx.enable_x64(False):
        assert dtypes.canonicalize(float) == np.float32
        assert dtypes.python_scalar_dtype(3) == np.int32
        with pytest.warns(UserWarning, match="truncated to dtype float32"):
            assert dtypes.canonicalize(np.float64) == np.float32
    assert dtypes.canonicalize(np.float64) == np.float64
