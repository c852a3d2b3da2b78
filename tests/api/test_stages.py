"""``jit(f).trace/lower/compile``, ``didax.stages``, ``log_compiles`` and ``explain_cache_misses``.

Against JAX's stages on the same function: the traced results' shapes and
dtypes, the compiled program's numbers, and the logs' first lines.
"""

from __future__ import annotations

import logging
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp


def _f(np_: Any, x: Any, y: Any) -> Any:
    return {"s": (x * 2.0 + y).sum(axis=0), "p": [x, np_.tanh(y)]}


SPECS = [((3, 2), np.float32), ((4,), np.float64), ((2, 2), np.int32)]


@pytest.mark.parametrize(("shape", "dtype"), SPECS)
def test_trace_lower_compile_match_jax(shape: tuple[int, ...], dtype: type) -> None:
    def dfun(x: object, y: object) -> object:
        return _f(dnp, x, y)

    def jfun(x: object, y: object) -> object:
        return _f(jnp, x, y)

    x: Any = np.arange(np.prod(shape), dtype=dtype).reshape(shape)
    y: Any = np.ones(shape[-1], dtype)
    dspecs = (dx.ShapeDtypeStruct(shape, dtype), dx.ShapeDtypeStruct(y.shape, dtype))
    jspecs = (jax.ShapeDtypeStruct(shape, dtype), jax.ShapeDtypeStruct(y.shape, dtype))
    traced = dx.jit(dfun).trace(*dspecs)
    jtraced = jax.jit(jfun).trace(*jspecs)
    assert isinstance(traced, dx.stages.Traced)
    assert isinstance(dx.jit(dfun), dx.stages.Wrapped)
    info = jax.tree_util.tree_map(lambda s: (s.shape, s.dtype), traced.out_info)
    jinfo = jax.tree_util.tree_map(lambda s: (s.shape, s.dtype), jtraced.out_info)
    assert info == jinfo
    assert len(traced.jaxpr.in_avals) == 2
    lowered = traced.lower()
    jlowered = jtraced.lower()
    assert isinstance(lowered, dx.stages.Lowered)
    assert lowered.in_tree == jlowered.in_tree
    assert "func.func public @main" in lowered.as_text()
    assert "stablehlo" in str(lowered.compiler_ir("stablehlo"))
    compiled = lowered.compile()
    assert isinstance(compiled, dx.stages.Compiled)
    assert compiled.in_tree == jlowered.in_tree
    got = compiled(x, y)
    want = jlowered.compile()(x, y)
    jax.tree_util.tree_map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-6), got, want)
    stats = compiled.memory_analysis()
    assert stats.argument_size_in_bytes == x.nbytes + y.nbytes
    assert "flops" in lowered.cost_analysis() or dtype is np.int32
    assert compiled.as_text().startswith("module")


def test_lower_mixes_arrays_and_structs_and_checks_calls() -> None:
    spec = dx.ShapeDtypeStruct((3,), "float64")
    lowered = dx.jit(lambda x, y: x @ y).lower(np.ones((2, 3)), spec)
    compiled = lowered.compile()
    np.testing.assert_allclose(compiled(np.ones((2, 3)), np.arange(3.0)), [3.0, 3.0])
    with pytest.raises(TypeError, match="compiled for"):
        compiled(np.ones((2, 3)), np.ones(4))
    with pytest.raises(ValueError, match="compiler_ir"):
        lowered.compiler_ir("hlo-proto")
    # A struct's sharding lays its argument out, as an Array's would.
    mesh = dx.sharding.Mesh(np.array(dx.devices()[:1]), ("a",))
    laid = dx.ShapeDtypeStruct(
        (4,), np.float32, sharding=dx.sharding.NamedSharding(mesh, dx.P("a"))
    )
    assert "sharding=" in repr(laid)
    text = dx.jit(lambda x: x * 2).lower(laid).as_text()
    assert "mhlo.sharding" in text


def test_log_compiles(caplog: pytest.LogCaptureFixture) -> None:
    def fresh_for_log(x: Any) -> Any:
        return x * 3.0 - 1.25

    with caplog.at_level(logging.DEBUG), dx.log_compiles():
        dx.jit(fresh_for_log)(np.ones(7))
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(m.startswith("Compiling fresh_for_log with global shapes") for m in warnings)
    assert any("f64[7]" in m for m in warnings)
    assert any(m.startswith("Finished XLA compilation of jit(fresh_for_log)") for m in warnings)


def test_explain_cache_misses(caplog: pytest.LogCaptureFixture) -> None:
    def g(x: Any, y: Any) -> Any:
        return x["a"] + y if isinstance(x, dict) else x + y

    gj = dx.jit(g)
    with caplog.at_level(logging.WARNING), dx.explain_cache_misses():
        gj(np.ones(3), 1.0)
        gj(np.ones(3), 1.0)  # a hit: nothing logged
        gj(np.ones(4), 1.0)
        gj({"a": np.ones(4)}, 1.0)
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 3
    assert all(m.startswith("TRACING CACHE MISS at ") for m in messages)
    assert "never seen function:" in messages[0]
    assert "different input types:\n  * at x, now f64[4] and before f64[3]" in messages[1]
    assert "different input pytree:" in messages[2]


def test_args_info_says_types_and_donation_as_jax() -> None:
    def h(a: Any, b: Any) -> Any:
        return a["u"] + b

    args = ({"u": np.ones(3, np.float32)}, np.ones(3, np.float32))
    mine = dx.jit(h, donate_argnums=1).lower(*args).args_info
    theirs = jax.jit(h, donate_argnums=1).lower(*args).args_info
    as_tuples = lambda t: jax.tree_util.tree_map(  # noqa: E731
        lambda i: (i.shape, np.dtype(i.dtype), i.donated), t
    )
    assert as_tuples(mine) == as_tuples(theirs)
    assert isinstance(jax.tree_util.tree_leaves(mine)[0], dx.stages.ArgInfo)
