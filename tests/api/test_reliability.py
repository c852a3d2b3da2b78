"""No silent wrong answers: misuses JAX refuses are refused, with JAX's exception types.

Each case was once accepted or answered wrongly by didax; JAX's behaviour
is checked beside it where JAX defines it.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, cast

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax.errors import ConcretizationTypeError


@pytest.mark.parametrize(
    "f",
    [lambda np_, x: float(x) * x, lambda np_, x: np.asarray(x) * x],
    ids=["float", "np.asarray"],
)
def test_converting_a_differentiated_value_raises_instead_of_dropping_it(f: Any) -> None:
    with pytest.raises(TypeError):  # JAX: ConcretizationTypeError / TracerArrayConversionError
        jax.grad(lambda x: f(jnp, x))(2.0)
    with pytest.raises(ConcretizationTypeError, match=r"test_reliability\.py.*derivative"):
        dx.grad(lambda x: f(dnp, x))(2.0)


def test_python_control_flow_on_differentiated_values_still_works() -> None:
    def f(x: Any) -> Any:
        return x * int(x) if x > 0 else -x

    assert float(dx.grad(f)(2.0)) == float(jax.grad(f)(2.0)) == 2.0
    assert float(dx.grad(f)(-2.0)) == float(jax.grad(f)(-2.0)) == -1.0
    assert dx.jvp(lambda x: x * float(dx.lax.stop_gradient(x)), (3.0,), (1.0,))[1] == 3.0


@pytest.mark.parametrize("out_axes", [3, -4])
def test_vmap_out_axes_out_of_range(out_axes: int) -> None:
    x = np.ones((2, 3))

    def f(v: Any) -> Any:
        return v[:, None] * v

    with pytest.raises(ValueError, match="out of bounds"):
        jax.vmap(lambda v: f(jnp.asarray(v)), out_axes=out_axes)(x)
    with pytest.raises(ValueError, match=r"out_axes.*test_reliability\.py"):
        dx.vmap(lambda v: f(dnp.asarray(v)), out_axes=out_axes)(x)
    np.testing.assert_array_equal(
        np.asarray(dx.vmap(lambda v: f(dnp.asarray(v)), out_axes=-3)(x)),
        np.asarray(jax.vmap(lambda v: f(jnp.asarray(v)), out_axes=-3)(x)),
    )


@pytest.mark.parametrize(
    "options",
    [{"static_argnums": 3}, {"static_argnums": -2}, {"static_argnames": "z"}],
)
def test_jit_static_arguments_must_exist(options: dict[str, Any]) -> None:
    def f(x: Any) -> Any:
        return x

    with pytest.raises(ValueError, match="static_argn"):
        jax.jit(f, **options)
    with pytest.raises(ValueError, match="static_argn"):
        dx.jit(f, **options)


def test_jit_negative_static_argnums_and_varargs() -> None:
    assert float(dx.jit(lambda x, n: x * n, static_argnums=-1)(2.0, 3)) == 6.0
    assert float(dx.jit(lambda *a: a[0] * a[2], static_argnums=2)(1.5, 0.0, 2)) == 3.0


def test_jit_of_a_non_callable_fails_at_once() -> None:
    with pytest.raises(TypeError, match="callable"):
        jax.jit(cast(Any, 3))
    with pytest.raises(TypeError, match="callable"):
        dx.jit(cast(Any, 3))


@pytest.mark.parametrize("x", [0.0, -0.0, 2.0, -3.0])
def test_grad_of_abs_as_jax(x: float) -> None:
    assert float(dx.grad(dnp.abs)(x)) == float(jax.grad(jnp.abs)(x))


@pytest.mark.parametrize(
    "call",
    [
        lambda np_: np_.sin([0.5, 1.0]),
        lambda np_: np_.add((1.0, 2.0), 1.0),
        lambda np_: np_.sum([1, 2]),
        lambda np_: np_.add(np_.ones(2), [1.0, 2.0]),
        lambda np_: operator.add(np_.ones(2), [1.0, 2.0]),
    ],
)
def test_lists_are_not_arrays_outside_asarray(call: Callable[[Any], Any]) -> None:
    with pytest.raises(TypeError):
        call(jnp)
    with pytest.raises(TypeError):
        call(dnp)
    np.testing.assert_array_equal(np.asarray(dnp.asarray([1.0, 2.0])), [1.0, 2.0])


def test_list_error_names_the_function_and_line() -> None:
    with pytest.raises(TypeError, match=r"sin requires ndarray.*test_reliability\.py"):
        dnp.sin([0.5, 1.0])


@pytest.mark.parametrize(
    "call",
    [
        lambda np_: np_.dot(np.ones((2, 3)), np.ones((2, 3))),
        lambda np_: np_.matmul(np.ones((2, 3)), np.ones((2, 3))),
        lambda np_: (
            jax.lax.dot_general(np.ones((2, 3)), np.ones((2, 4)), (((1,), (1,)), ((), ())))
            if np_ is jnp
            else dx.lax.dot_general(np.ones((2, 3)), np.ones((2, 4)), (((1,), (1,)), ((), ())))
        ),
    ],
)
def test_contraction_mismatch_is_a_type_error(call: Callable[[Any], Any]) -> None:
    with pytest.raises(TypeError):
        call(jnp)
    with pytest.raises(TypeError, match="test_reliability"):
        call(dnp)


def test_lax_pad_takes_a_python_scalar_padding_value() -> None:
    # API.md: a weak (Python) scalar takes its partner's dtype in didax.lax;
    # JAX 0.10.2's lax.pad refuses a float32 operand with 0.0 here.
    x = np.arange(3, dtype=np.float32)
    got = dx.lax.pad(x, 0.0, [(1, 2, 1)])
    want = jax.lax.pad(x, np.float32(0.0), [(1, 2, 1)])
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize(
    "call",
    [
        lambda np_: np_.asarray(2**70),
        lambda np_: np_.asarray([1, 2**70]),
        lambda np_: np_.array(2**63),
        lambda np_: np_.zeros(3) + 2**70,
    ],
)
def test_python_ints_beyond_the_default_int_overflow_as_jax(call: Callable[[Any], Any]) -> None:
    with pytest.raises(OverflowError):
        call(jnp)
    with pytest.raises(OverflowError, match="too large"):
        call(dnp)


def test_python_ints_within_range_and_explicit_wide_dtypes_are_fine() -> None:
    assert int(dnp.asarray(-(2**63))) == -(2**63)
    assert int(dnp.asarray(2**64 - 1, dtype=dnp.uint64)) == 2**64 - 1
    with dx.enable_x64(False), pytest.raises(OverflowError, match="int32"):
        dnp.asarray(2**40)


def _located(e: BaseException) -> str:
    return str(e) + " ".join(getattr(e, "__notes__", ()))


@pytest.mark.parametrize(
    "call",
    [
        lambda: dnp.reshape(dnp.ones(6), (4, 2)),
        lambda: dnp.concatenate([dnp.ones(2), dnp.ones((2, 2))]),
        lambda: dnp.sum(dnp.ones(2), axis=3),
        lambda: dnp.dot(dnp.ones(2), dnp.ones(3)),
        lambda: dnp.matmul(dnp.ones((2, 3)), dnp.ones((2, 3))),
        lambda: dnp.transpose(dnp.ones((2, 3)), (0, 0)),
        lambda: dnp.einsum("ij,jk", dnp.ones((2, 3)), dnp.ones((4, 5))),
        lambda: dx.vmap(dnp.sin, in_axes=2)(dnp.ones(3)),
        lambda: dx.vmap(dnp.sin)(dnp.ones(3), dnp.ones(4)),
        lambda: dx.grad(lambda x: x)(dnp.ones(3)),
        lambda: dx.jvp(dnp.sin, (1.0,), (1.0, 2.0)),
        lambda: dx.vjp(dnp.sin, 1.0)[1](dnp.ones(3)),
        lambda: dx.linearize(dnp.sin, 1.0)[1](dnp.ones(3)),
        lambda: dx.jacfwd(dnp.sin, argnums=3)(1.0),
        lambda: dx.jacrev(dnp.sin, argnums=3)(1.0),
    ],
)
def test_argument_errors_name_the_users_line(call: Callable[[], Any]) -> None:
    with pytest.raises((TypeError, ValueError, IndexError)) as info:
        call()
    assert "test_reliability.py" in _located(info.value)


@pytest.mark.parametrize(
    "loop",
    [
        lambda L: L.while_loop(lambda c: c < 3, lambda c: c * 1.0 + 1, 0),
        lambda L: L.fori_loop(0, 3, lambda i, c: c + 0.5, 1),
        lambda L: L.scan(lambda c, x: (c * np.float32(2), x), 1, np.ones(2))[0],
    ],
    ids=["while", "fori", "scan"],
)
def test_a_weak_int_carry_the_body_makes_float_is_promoted_as_jax(loop: Any) -> None:
    got, want = loop(dx.lax), loop(jax.lax)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert got.weak_type == want.weak_type
    np.testing.assert_array_equal(got, want)


def test_a_strong_carry_the_body_changes_is_still_refused() -> None:
    def body(c: Any) -> Any:
        return (c * 1.0).astype(np.float32)

    with pytest.raises(TypeError):
        jax.lax.while_loop(lambda c: c < 3, body, np.int32(0))
    with pytest.raises(TypeError, match=r"while_loop.*i32\[\].*f32\[\].*test_reliability\.py"):
        dx.lax.while_loop(lambda c: c < 3, body, np.int32(0))
