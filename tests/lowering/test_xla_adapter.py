"""Smoke test of the one adapter over jax/jaxlib's compiler and transfers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.lowering import versions, xla


def test_installed_versions_are_in_the_tested_range() -> None:
    versions.check_version()  # warnings are errors here
    assert versions.untested_versions() == []
    low, high = versions.TESTED_JAX_RANGE
    assert low < high


def test_an_untested_version_warns_naming_the_range(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    real = importlib.metadata.version
    monkeypatch.setattr(
        importlib.metadata, "version", lambda name: "0.11.2" if name == "jaxlib" else real(name)
    )
    assert versions.untested_versions() == ["jaxlib 0.11.2"]
    with pytest.warns(
        versions.UntestedJaxWarning, match=r"in \[0\.10\.2, 0\.11\.0\), found jaxlib 0\.11\.2"
    ):
        versions.check_version()


def test_version_parsing() -> None:
    assert versions._version_tuple("0.10.2") == (0, 10, 2)
    assert versions._version_tuple("0.10.2.dev20260101") == (0, 10, 2)


def _add_module(dtype_type: ir.Type, shape: tuple[int, ...]) -> str:
    with xla.make_ir_context(), ir.Location.unknown():
        module = ir.Module.create()
        t = ir.RankedTensorType.get(shape, dtype_type)
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("main", ir.FunctionType.get([t, t], [t]))
            fn.attributes["sym_visibility"] = ir.StringAttr.get("public")
            entry = fn.add_entry_block()  # type: ignore[attr-defined]
            with ir.InsertionPoint(entry):
                func.ReturnOp([hlo.add(entry.arguments[0], entry.arguments[1])])
        return str(module)


@pytest.mark.parametrize("dtype", ["float64", "int64", "float32"])
def test_compile_transfer_execute_round_trip(dtype: str) -> None:
    with xla.make_ir_context():
        elem = {
            "float64": ir.F64Type.get(),
            "float32": ir.F32Type.get(),
            "int64": ir.IntegerType.get_signless(64),
        }[dtype]
        text = _add_module(elem, (3,))
    exe = xla.compile(text)
    big = np.array([2**62 + 1, -3, 5]) if dtype == "int64" else np.array([1 + 2.0**-40, 2, 3])
    x: np.ndarray[Any, Any] = big.astype(dtype)
    buf = xla.to_device(x)
    assert xla.is_buffer(buf)
    np.testing.assert_array_equal(xla.to_host(buf), x)  # 64-bit values survive the transfer
    (out,) = xla.execute(exe, [buf, buf], xla.result_handlers([(x.shape, x.dtype)]))
    xla.block_until_ready(out)
    result = xla.to_host(out)
    assert result.dtype == dtype
    np.testing.assert_array_equal(result, x + x)
    assert xla.platform() in ("cpu", "gpu", "cuda", "rocm", "tpu")


def _programs() -> list[tuple[str, Any, tuple[Any, ...]]]:
    """Functions whose modules use each dialect and construct didax emits."""
    import didax as dx
    import didax.numpy as dnp
    from didax import lax

    x = np.linspace(0.1, 0.9, 16).reshape(4, 4)

    def control(v: Any) -> Any:
        v = lax.cond(v.sum() > 0, dnp.sin, dnp.cos, v)  # stablehlo.case
        v = lax.fori_loop(0, 3, lambda i, c: c * 1.5, v)  # stablehlo.while
        return dx.jit(lambda u: lax.cumsum(u, 0))(v)  # func.call of a private function

    return [
        ("elementwise and constants", lambda v: dnp.tanh(v) * 2.0 + (v > 0.5), (x,)),
        ("chlo special functions", lambda v: dx.scipy.special.erf(v) + lax.lgamma(v), (x,)),
        ("control flow and nested jit", control, (x,)),
        ("LAPACK custom call", lambda v: dnp.linalg.eigh(v + v.T)[0], (x,)),
        ("gather and scatter", lambda v: v[np.array([0, 2])].sum() + v.at[1].add(1.0), (x,)),
        ("complex", lambda v: dnp.fft.fft(v).real, (x,)),
    ]


@pytest.mark.parametrize("name", [name for name, _, _ in _programs()])
def test_lean_context_lowers_as_jaxs_context_and_its_module_runs(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The adapter's lean context (few dialects loaded) gives JAX's context's module, which runs."""
    from jax._src.interpreters.mlir import make_ir_context as jax_make_ir_context

    import didax as dx

    fun, args = next((f, a) for n, f, a in _programs() if n == name)
    lean = dx.jit(fun).lower(*args).as_text()
    with monkeypatch.context() as m:
        m.setattr(xla, "ir_context", jax_make_ir_context)
        full = dx.jit(fun).lower(*args).as_text()
    assert lean == full
    # The lean module compiles, and runs to the jitted result (bit for bit:
    # the same program) and to the eager one (computed on the host, without
    # this module, to float64 round-off). Its first arguments are the
    # program's hoisted constants, the consts of its jaxpr.
    jitted = dx.jit(fun)(*args)
    eager = fun(*(dx.numpy.asarray(a) for a in args))
    operands = [*dx.make_jaxpr(fun)(*args).consts, *args]
    handlers = xla.result_handlers([(jitted.shape, jitted.dtype)])
    (buf,) = xla.execute(
        xla.compile(lean), [xla.to_device(np.asarray(a)) for a in operands], handlers
    )
    ran = xla.to_host(buf)
    assert (ran.shape, ran.dtype) == (jitted.shape, jitted.dtype)
    np.testing.assert_array_equal(ran, np.asarray(jitted))
    np.testing.assert_allclose(ran, np.asarray(eager), rtol=1e-12, atol=1e-12)


def test_contexts_share_one_mlir_thread_pool() -> None:
    """Verifying a module of several functions starts no threads per context.

    The compile cache keeps each module (and its context) alive: a context
    with a thread pool of its own would hold two more threads per program.
    """
    import os

    import didax as dx
    import didax.numpy as dnp

    def threads() -> int:
        return len(os.listdir("/proc/self/task"))

    def program(k: int) -> Any:
        def f(v: Any) -> Any:
            for j in range(4):  # nested jits: private functions in one module
                v = dx.jit(lambda u, j=j: dnp.sin(u) * (j + k + 0.25))(v)
            return v

        return dx.jit(f)

    x = np.ones(3)
    program(0)(x)  # the shared pool and XLA's threads start here
    before = threads()
    for k in range(1, 8):
        program(k)(x)
    assert threads() - before < 4, (before, threads())
