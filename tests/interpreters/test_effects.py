"""Effects in the IR, and the host callbacks against JAX's.

The IR: an equation carries its effects (its primitive's, and its bodies'),
a jaxpr prints them, DCE keeps effectful equations, the verifier refuses an
equation that lost its body's effects, and the lowered program calls jaxlib's
Python callback with a token threaded through the ordered ones.
``pure_callback`` and ``io_callback`` are compared with JAX's on the same
functions: values, the calls the callback sees under vmap (each
``vmap_method``), and the errors of jvp and of vmap of an ordered callback.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import jax
import numpy as np
import pytest

import didax
import didax.export
from didax.core import effects
from didax.core.lax.callbacks import debug_callback_p
from didax.experimental import io_callback
from didax.ir.jaxpr import Jaxpr, JaxprEqn
from didax.ir.passes import dce_jaxpr
from didax.ir.typecheck import JaxprTypeError, typecheck_jaxpr


def _printing(x: Any) -> Any:
    didax.debug.print("x {}", x)
    didax.debug.print("o {}", x, ordered=True)
    return x


# --- the IR ---------------------------------------------------------------------------


def test_equations_and_jaxprs_carry_effects() -> None:
    def f(x: Any) -> Any:
        y = didax.lax.cond(x > 0, _printing, lambda v: v, x)
        return didax.lax.scan(lambda c, _: (_printing(c), None), y, None, length=2)[0]

    closed = didax.make_jaxpr(f)(1.0)
    assert closed.effects == {effects.DEBUG, effects.ORDERED_DEBUG}
    by_name = {e.primitive.name: e.effects for e in closed.eqns}
    assert by_name["cond"] == by_name["scan"] == {effects.DEBUG, effects.ORDERED_DEBUG}
    assert by_name["gt"] == effects.NO_EFFECTS
    text = str(closed)
    assert ": { Debug, OrderedDebug } }" in text
    assert "effect=OrderedDebug" in text
    typecheck_jaxpr(closed)


def test_dce_keeps_effectful_equations() -> None:
    def f(x: Any) -> Any:
        y = didax.numpy.sin(x)
        didax.debug.print("{}", y)
        didax.jit(_printing)(y)  # a nested call none of whose results is used
        return x * 2.0

    jaxpr = didax.make_jaxpr(f)(1.0).jaxpr
    pruned, used = dce_jaxpr(jaxpr, [False])
    assert [e.primitive.name for e in pruned.eqns] == ["sin", "debug_callback", "jit"]
    assert used == [True]
    pure = didax.make_jaxpr(lambda x: (_pure(x), x)[1])(np.float32(1.0)).jaxpr
    assert dce_jaxpr(pure)[0].eqns == ()  # a pure callback has no effect


def test_verifier_refuses_an_equation_that_lost_its_effects() -> None:
    closed = didax.make_jaxpr(lambda x: didax.jit(_printing)(x))(1.0)
    (eqn,) = closed.eqns
    bare = JaxprEqn(eqn.primitive, eqn.inputs, eqn.params, eqn.out_binders, effects.NO_EFFECTS)
    jaxpr = Jaxpr(closed.jaxpr.in_binders, (bare,), closed.jaxpr.outs)
    with pytest.raises(JaxprTypeError, match="missing"):
        typecheck_jaxpr(jaxpr)
    assert debug_callback_p.declared_in == "didax.core.lax.callbacks"


def test_lowered_program_calls_back_with_a_token() -> None:
    def f(x: Any) -> Any:
        def body(c: Any) -> Any:
            didax.debug.print("c {}", c, ordered=True)
            return c + 1

        return didax.lax.while_loop(lambda c: c < 3, body, _printing(x))

    text = didax.jit(f).lower(np.int32(0)).as_text()
    assert text.count("xla_ffi_python_cpu_callback") == 3
    assert "stablehlo.create_token" in text
    assert "!stablehlo.token" in text.split("stablehlo.while")[1]  # the loop carries it
    unordered = didax.jit(lambda x: didax.debug.print("{}", x)).lower(np.int32(0)).as_text()
    assert "token" not in unordered


# --- pure_callback and io_callback against JAX -------------------------------------------


def _pure(x: Any) -> Any:
    spec = didax.ShapeDtypeStruct(np.shape(x), np.float32)
    return didax.pure_callback(np.sin, spec, x)


def _recording(lib: Any, method: str | None) -> tuple[Callable[..., Any], list[tuple[int, ...]]]:
    """A function whose pure callback records the shapes it is called with."""
    seen: list[tuple[int, ...]] = []

    def cb(x: Any, y: Any) -> Any:
        seen.append((np.shape(x), np.shape(y)))
        return (np.asarray(x) * np.asarray(y)).astype(np.float32)

    def f(x: Any, y: Any) -> Any:
        shape = np.broadcast_shapes(np.shape(x), np.shape(y))
        spec = lib.ShapeDtypeStruct(shape, np.float32)
        return lib.pure_callback(cb, spec, x, y, vmap_method=method)

    return f, seen


X = np.arange(6, dtype=np.float32).reshape(3, 2)
Y = np.array([2.0, 3.0], np.float32)


@pytest.mark.parametrize(
    "method",
    ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all", "legacy_vectorized"],
)
def test_pure_callback_vmap_methods_as_jax(method: str) -> None:
    results = {}
    for lib in (jax, didax):
        f, seen = _recording(lib, method)
        out = lib.jit(lib.vmap(f, in_axes=(0, None)))(X, Y)
        results[lib.__name__] = (np.asarray(out), seen)
    np.testing.assert_array_equal(results["didax"][0], results["jax"][0])
    assert results["didax"][1] == results["jax"][1]


def test_pure_callback_values_and_errors_as_jax() -> None:
    for lib in (jax, didax):
        f, _ = _recording(lib, None)
        np.testing.assert_allclose(np.asarray(lib.jit(f)(X, Y)), X * Y)
        np.testing.assert_allclose(np.asarray(f(X, Y)), X * Y)
        with pytest.raises(NotImplementedError, match="vmap_method"):
            lib.vmap(f, in_axes=(0, None))(X, Y)
        with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
            lib.grad(lambda x, f=f: f(x, Y).sum())(X)


def test_pure_callback_result_checks() -> None:
    bad = didax.jit(
        lambda x: didax.pure_callback(lambda v: v[:1], didax.ShapeDtypeStruct((2,), np.float32), x)
    )
    with pytest.raises(Exception, match=r"(?i)incorrect output shape"):
        didax.block_until_ready(bad(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="must be callable"):
        didax.pure_callback(cast(Any, 3), didax.ShapeDtypeStruct((), np.float32))


def _io_program(lib: Any, io: Any, log: list[float], ordered: bool) -> Callable[..., Any]:
    def cb(x: Any) -> Any:
        log.append(float(x))
        return np.asarray(x, np.float32) + 1

    spec = lib.ShapeDtypeStruct((), np.float32)

    def f(x: Any) -> Any:
        def body(c: Any, _: Any) -> Any:
            return io(cb, spec, c, ordered=ordered), None

        return lib.lax.scan(body, x, None, length=3)[0]

    return f


@pytest.mark.parametrize("ordered", [True, False])
def test_io_callback_as_jax(ordered: bool) -> None:
    logs: dict[str, list[float]] = {}
    for lib, io in ((jax, jax.experimental.io_callback), (didax, io_callback)):
        log: list[float] = []
        f = _io_program(lib, io, log, ordered)
        assert float(lib.jit(f)(np.float32(1.0))) == 4.0
        if ordered:
            with pytest.raises(ValueError, match="Cannot `vmap` ordered IO callback"):
                lib.vmap(f)(np.ones(2, np.float32))
        else:
            lib.jit(lib.vmap(f))(np.array([10.0, 20.0], np.float32))
        with pytest.raises(ValueError, match="IO callbacks do not support JVP"):
            lib.grad(f)(np.float32(1.0))
        lib.effects_barrier()
        logs[lib.__name__] = log
    assert logs["didax"] == logs["jax"]


@pytest.mark.x64_off
def test_pure_callback_in_32_bit_mode_as_jax() -> None:
    outs = []
    for lib in (jax, didax):
        spec = lib.ShapeDtypeStruct((3,), "float32")
        f = lib.jit(lambda x: lib.pure_callback(lambda v: np.cos(v) * 2, spec, x) + x)  # noqa: B023
        outs.append(np.asarray(f(lib.numpy.arange(3.0))))
    assert outs[0].dtype == outs[1].dtype == np.float32
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6)


def test_export_refuses_host_callbacks_as_jax() -> None:
    for lib in (jax, didax):
        f = lib.jit(lambda x, lib=lib: (lib.debug.print("x {}", x), x * 2)[1])
        with pytest.raises(NotImplementedError, match="serialization of host_callbacks"):
            lib.export.export(f)(lib.ShapeDtypeStruct((), np.float32))
