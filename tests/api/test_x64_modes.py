"""The same programs with x64 on and off give JAX's dtypes, weak types, warnings and values.

Each program is written once against a module triple (``jax``/``jax.numpy``/
``jax.lax`` or didax's) and run by both libraries in both modes; didax's
default is x64 on, and ``enable_x64(False)`` gives JAX's 32-bit defaults.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

import didax as dx
import didax.numpy as dnp
from didax import lax as dlax

Program = Callable[[ModuleType, Any, Any], Any]


def _mlp(m: ModuleType, mnp: Any, mlax: Any) -> Any:
    rng = np.random.RandomState(0)
    w1, w2, x = rng.randn(4, 8), rng.randn(8, 2), rng.randn(5, 4)
    params = [mnp.asarray(w1), mnp.asarray(w2)]

    def loss(p: Any, x: Any) -> Any:
        h = mnp.tanh(mnp.dot(x, p[0]))
        return mnp.mean(mnp.dot(h, p[1]) ** 2)

    g = m.jit(m.grad(loss))(params, mnp.asarray(x))
    per_example = m.vmap(m.grad(loss), in_axes=(None, 0))(params, mnp.asarray(x)[:, None, :])
    return g, per_example


def _adam(m: ModuleType, mnp: Any, mlax: Any) -> Any:
    x, m1, v = mnp.asarray([1.0, -2.0]), mnp.zeros(2), mnp.zeros(2)

    def f(x: Any) -> Any:
        return mnp.sum((x - 3.0) ** 2)

    for t in range(1, 4):
        g = m.grad(f)(x)
        m1 = 0.9 * m1 + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        x = x - 0.1 * (m1 / (1 - 0.9**t)) / (mnp.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return x


PROGRAMS: dict[str, Program] = {
    "zeros": lambda m, mnp, mlax: mnp.zeros(3),
    "zeros_float64": lambda m, mnp, mlax: mnp.zeros(3, dtype=mnp.float64),
    "ones_int": lambda m, mnp, mlax: mnp.ones(3, dtype=int),
    "arange": lambda m, mnp, mlax: mnp.arange(5),
    "arange_float": lambda m, mnp, mlax: mnp.arange(0.0, 1.0, 0.25),
    "linspace": lambda m, mnp, mlax: mnp.linspace(0, 1, 5),
    "eye": lambda m, mnp, mlax: mnp.eye(2),
    "full_weak": lambda m, mnp, mlax: mnp.full((2,), 3),
    "full_float": lambda m, mnp, mlax: mnp.full((2,), 3.0),
    "zeros_like_weak": lambda m, mnp, mlax: mnp.zeros_like(2.0),
    "asarray_numpy64": lambda m, mnp, mlax: mnp.asarray(np.arange(3.0)),
    "asarray_list": lambda m, mnp, mlax: mnp.asarray([1, 2, 3]),
    "asarray_float_list": lambda m, mnp, mlax: mnp.asarray([1.0, 2.5]),
    "asarray_scalar": lambda m, mnp, mlax: mnp.asarray(2.5),
    "asarray_int": lambda m, mnp, mlax: mnp.asarray(7),
    "array_uint64": lambda m, mnp, mlax: mnp.array(np.arange(3, dtype=np.uint64)),
    "int_div": lambda m, mnp, mlax: mnp.arange(4) / 2,
    "int_plus_float": lambda m, mnp, mlax: mnp.arange(4) + 1.5,
    "sum_int": lambda m, mnp, mlax: mnp.sum(mnp.arange(4)),
    "mean_int": lambda m, mnp, mlax: mnp.mean(mnp.arange(4)),
    "argmax": lambda m, mnp, mlax: mnp.argmax(mnp.asarray([1.0, 3.0, 2.0])),
    "astype_float64": lambda m, mnp, mlax: mnp.arange(3).astype(mnp.float64),
    "exp_int": lambda m, mnp, mlax: mnp.exp(mnp.arange(3)),
    "dot_bool": lambda m, mnp, mlax: mnp.dot(mnp.asarray([True, False]), mnp.asarray([True, True])),
    "cumsum": lambda m, mnp, mlax: mnp.cumsum(mnp.arange(4)),
    "where": lambda m, mnp, mlax: mnp.where(mnp.arange(3) > 0, 1.0, 0),
    "iota": lambda m, mnp, mlax: mlax.iota(mnp.int32, 3),
    "broadcast_scalar": lambda m, mnp, mlax: mlax.broadcast_in_dim(2.0, (3,), ()),
    "grad_scalar": lambda m, mnp, mlax: m.grad(lambda x: x * x)(3.0),
    "grad_array": lambda m, mnp, mlax: m.grad(lambda x: mnp.sum(mnp.sin(x)))(mnp.arange(3.0)),
    "jit_float": lambda m, mnp, mlax: m.jit(lambda x: x * 2)(3.0),
    "jit_int": lambda m, mnp, mlax: m.jit(lambda x: x * 2)(3),
    "jit_numpy_scalar": lambda m, mnp, mlax: m.jit(lambda x: x * 2)(np.float64(3.0)),
    "jit_numpy64": lambda m, mnp, mlax: m.jit(lambda x: x * 2)(np.arange(3.0)),
    "jit_mixed": lambda m, mnp, mlax: m.jit(lambda x, y: x + y)(
        np.arange(3), np.ones(3, np.float32)
    ),
    "vmap_dynamic_slice": lambda m, mnp, mlax: m.vmap(
        lambda i: mlax.dynamic_slice(mnp.arange(10.0), (i,), (3,))
    )(mnp.arange(3)),
    "vmap_dynamic_update_slice": lambda m, mnp, mlax: m.vmap(
        lambda i: mlax.dynamic_update_slice(mnp.zeros(5), mnp.ones(2), (i,))
    )(mnp.arange(3)),
    "vmap_weak": lambda m, mnp, mlax: m.vmap(lambda x: x * 2.0)(mnp.arange(3)),
    "jacfwd": lambda m, mnp, mlax: m.jacfwd(lambda x: mnp.sin(x) * x)(mnp.arange(3.0)),
    "jacrev": lambda m, mnp, mlax: m.jacrev(lambda x: mnp.sin(x) * x)(mnp.arange(3.0)),
    "fori_int": lambda m, mnp, mlax: mlax.fori_loop(0, 5, lambda i, c: c + i, 0),
    "fori_float": lambda m, mnp, mlax: mlax.fori_loop(0, 5, lambda i, c: c * 1.5, 1.0),
    "scan": lambda m, mnp, mlax: mlax.scan(lambda c, x: (c + x, c * x), 0.0, mnp.arange(4.0)),
    "while": lambda m, mnp, mlax: mlax.while_loop(lambda c: c < 10, lambda c: c * 2, 1),
    "cond": lambda m, mnp, mlax: mlax.cond(True, lambda x: x + 1, lambda x: x - 1, 2.0),
    "jit_scan": lambda m, mnp, mlax: m.jit(lambda xs: mlax.scan(lambda c, x: (c + x, c), 0, xs))(
        mnp.arange(4)
    ),
    "linearize": lambda m, mnp, mlax: m.linearize(mnp.sin, 1.0)[1](1.0),
    "vjp": lambda m, mnp, mlax: m.vjp(mnp.sin, 1.0)[1](1.0),
    "jvp": lambda m, mnp, mlax: m.jvp(lambda x: mnp.sin(x) * 2, (1.0,), (1.0,)),
    "mlp": _mlp,
    "adam": _adam,
}


def _run(
    program: Program, m: ModuleType, mnp: Any, mlax: Any
) -> tuple[list[np.ndarray[Any, Any]], list[tuple[str, bool]], int]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        leaves = jax.tree_util.tree_leaves(program(m, mnp, mlax))
    types = [(str(leaf.dtype), bool(getattr(leaf, "weak_type", False))) for leaf in leaves]
    for leaf in leaves:
        assert not isinstance(leaf, np.ndarray) or m is jax, f"a bare ndarray: {leaf!r}"
    return [np.asarray(leaf) for leaf in leaves], types, len(caught)


@pytest.mark.parametrize("x64", [True, False], ids=["x64", "x32"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_jax(name: str, x64: bool) -> None:
    program = PROGRAMS[name]
    with jax.enable_x64(x64):
        want, want_types, want_warnings = _run(program, jax, jnp, jlax)
    with dx.enable_x64(x64):
        got, got_types, got_warnings = _run(program, dx, dnp, dlax)
    assert got_types == want_types
    assert (got_warnings > 0) == (want_warnings > 0), "a truncation warning differs"
    for g, w in zip(got, want, strict=True):
        tol = 1e-12 if x64 else 1e-5
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * max(1.0, float(np.abs(w).max())))


def test_config_update_switches_modes_and_jit_retraces() -> None:
    f = dx.jit(lambda x: x + 1)
    assert f(1.0).dtype == np.float64
    dx.config.update("jax_enable_x64", False)
    try:
        assert dx.config.read("jax_enable_x64") is False
        assert f(1.0).dtype == np.float32
        assert dnp.arange(3).dtype == np.int32
    finally:
        dx.config.update("jax_enable_x64", True)
    assert f(1.0).dtype == np.float64
    assert f.cache_info().currsize == 2


def test_python_int_out_of_range_without_x64_overflows_as_jax() -> None:
    with dx.enable_x64(False), pytest.raises(OverflowError):
        dnp.asarray(2**40)
