"""lowering.dispatch: the compile cache, Compiled.run, eager evaluation's compiled route."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import didax as dx
from didax.core import dtypes
from didax.core import lax as core_lax
from didax.core.abstract import ShapedArray
from didax.core.array import Array
from didax.core.lax.cond import cond_p
from didax.core.lax.jit import jit_p
from didax.interpreters.evaluation import IMPL_RULES
from didax.ir.fingerprint import fingerprint
from didax.lowering import dispatch
from didax.lowering.dispatch import (
    COMPILE_CACHE,
    Compiled,
    compile_cache_info,
    compile_jaxpr,
    to_buffer,
)

# Every test compiles programs no other test compiles (a fresh literal), so
# that the first compile is a miss whatever ran before.
_fresh = itertools.count(1)


def _unique_constant() -> float:
    return 1.0 + next(_fresh) / 7919.0


def test_compile_cache_info_is_the_compile_cache() -> None:
    assert compile_cache_info() == COMPILE_CACHE.info()


def test_compile_jaxpr_is_cached_by_fingerprint() -> None:
    k = _unique_constant()

    def f(x: Any) -> Any:
        return core_lax.mul(core_lax.sin(x), k)

    j1 = dx.make_jaxpr(f)(np.ones(3)).jaxpr
    j2 = dx.make_jaxpr(f)(np.zeros(3)).jaxpr
    assert j1 is not j2
    assert fingerprint(j1) == fingerprint(j2)
    before = compile_cache_info()
    c1 = compile_jaxpr(j1)
    middle = compile_cache_info()
    assert middle.misses == before.misses + 1
    assert middle.currsize == min(before.currsize + 1, before.maxsize)
    c2 = compile_jaxpr(j2)
    after = compile_cache_info()
    assert c2 is c1
    assert after.hits == middle.hits + 1
    assert after.misses == middle.misses
    assert isinstance(c1, Compiled)


def test_different_programs_compile_separately() -> None:
    k = _unique_constant()
    c1 = compile_jaxpr(dx.make_jaxpr(lambda x: core_lax.add(x, k))(1.0).jaxpr)
    c2 = compile_jaxpr(dx.make_jaxpr(lambda x: core_lax.sub(x, k))(1.0).jaxpr)
    c3 = compile_jaxpr(dx.make_jaxpr(lambda x: core_lax.add(x, k))(np.float32(1.0)).jaxpr)
    assert len({id(c1), id(c2), id(c3)}) == 3
    assert c3.out_avals == (ShapedArray((), dtypes.float32),)


def test_compiled_text_is_stablehlo() -> None:
    k = _unique_constant()
    compiled = compile_jaxpr(dx.make_jaxpr(lambda x: core_lax.exp(x))(np.ones(2) * k).jaxpr)
    assert "func.func public @main" in compiled.text
    assert "stablehlo.exponential" in compiled.text


# --- Compiled.run -----------------------------------------------------------------------------


def test_run_with_const_buffers() -> None:
    c = np.arange(3.0) + _unique_constant()
    closed = dx.make_jaxpr(lambda x: core_lax.mul(core_lax.add(x, 1.0), c))(np.ones(3))
    assert len(closed.consts) == 1
    compiled = compile_jaxpr(closed.jaxpr)
    const_buffers = [to_buffer(v) for v in closed.consts]
    x = np.array([1.0, 2.0, 3.0])
    (out,) = compiled.run(const_buffers, [x])
    np.testing.assert_allclose(np.asarray(out), (x + 1.0) * c)
    # The same constants, other arguments: nothing is compiled again.
    misses = compile_cache_info().misses
    (out2,) = compiled.run(const_buffers, [dx.device_put(np.zeros(3))])
    np.testing.assert_allclose(np.asarray(out2), c)
    assert compile_cache_info().misses == misses


def test_results_are_arrays_with_the_right_avals() -> None:
    k = _unique_constant()

    def f(x: Any, n: Any) -> Any:
        return (
            core_lax.mul(x, k),
            core_lax.lt(x, k),
            core_lax.reduce_sum(n, 0),
        )

    x, n = np.ones((2, 3), np.float32), np.arange(4, dtype=np.int16)
    closed = dx.make_jaxpr(f)(x, n)
    outs = compile_jaxpr(closed.jaxpr).run([], [x, n])
    assert all(isinstance(o, Array) for o in outs)
    assert all(isinstance(o, dx.Array) for o in outs)
    assert [o.aval for o in outs] == [
        ShapedArray((2, 3), dtypes.float32),
        ShapedArray((2, 3), dtypes.bool_),
        ShapedArray((), dtypes.int16),
    ]
    assert [o.aval for o in outs] == list(closed.out_avals)
    np.testing.assert_allclose(np.asarray(outs[0]), np.full((2, 3), k, np.float32), rtol=1e-6)
    assert np.asarray(outs[2]) == 6
    assert np.asarray(outs[2]).dtype == np.int16


def test_run_accepts_python_scalars_and_device_arrays() -> None:
    k = _unique_constant()
    compiled = compile_jaxpr(dx.make_jaxpr(lambda x, y: core_lax.add(x, y))(k, np.float64(k)).jaxpr)
    (out,) = compiled.run([], [1.5, dx.device_put(np.float64(2.0))])
    assert float(out) == 3.5


# --- impls registered here --------------------------------------------------------------------


def test_jit_and_control_flow_impls_run_compiled() -> None:
    # No host impl: eager evaluation takes the compiled route.
    assert jit_p not in IMPL_RULES
    assert cond_p not in IMPL_RULES
    k = _unique_constant()
    body = dx.make_jaxpr(lambda x: core_lax.mul(x, k))(np.ones(2)).jaxpr
    (out,) = jit_p.bind(np.array([1.0, 2.0]), jaxpr=body, name="scale")
    assert isinstance(out, Array)
    np.testing.assert_allclose(np.asarray(out), [k, 2 * k])


def test_apply_primitive_compiles_a_one_equation_program_once() -> None:
    k = _unique_constant()
    body = dx.make_jaxpr(lambda x: core_lax.add(x, k))(np.ones(2)).jaxpr
    misses = compile_cache_info().misses
    (out,) = dispatch.apply_primitive(jit_p, np.ones(2), jaxpr=body, name="once")
    assert compile_cache_info().misses == misses + 1
    (again,) = dispatch.apply_primitive(jit_p, np.zeros(2), jaxpr=body, name="once")
    assert compile_cache_info().misses == misses + 1
    np.testing.assert_allclose(np.asarray(out), np.ones(2) + k)
    np.testing.assert_allclose(np.asarray(again), np.zeros(2) + k)


@pytest.mark.parametrize(
    "only",
    [
        # CI builds and checks the cheap rows; every row is the slow session's.
        "eager lax",
        pytest.param("", marks=pytest.mark.slow, id="every-workload"),
    ],
)
def test_paired_benchmark_script_runs(only: str) -> None:
    """``bench/paired.py`` checks each workload against JAX, then prints a ratio per workload."""
    out = _run_bench_script("paired", "--rounds", "1", "--calls", "1", "--only", only)
    rows = out.splitlines()[1:]
    paired = _bench_module("paired")
    assert len(rows) == sum(only in name for name, _, _ in paired.WORKLOADS), out
    assert rows
    assert all(float(r.split()[-1]) > 0 for r in rows)


def _bench_script(name: str) -> Any:
    import pathlib

    return pathlib.Path(__file__).resolve().parent.parent.parent / "bench" / f"{name}.py"


def _bench_module(name: str) -> Any:
    """``bench/<name>.py``, imported."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"didax_bench_{name}", _bench_script(name))
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_bench_script(name: str, *args: str) -> str:
    """``python bench/<name>.py args`` in the default (32-bit) mode, from src; its stdout."""
    import os
    import subprocess
    import sys

    script = _bench_script(name)
    env = dict(os.environ)
    env.pop("JAX_ENABLE_X64", None)  # the benchmarks run in the default (32-bit) mode
    src = str(script.parent.parent / "src")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, str(script), *args], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


def test_hit_path_script_times_each_layer_after_checking_it() -> None:
    """``bench/hit_path.py``: each variant of the hit path gives JAX's values, and is timed."""
    hit_path = _bench_module("hit_path")
    for variant in hit_path.VARIANTS:
        assert hit_path.ratio(variant, rounds=1, calls=1) > 0


@pytest.mark.slow
def test_hit_path_script_runs() -> None:
    rows = _run_bench_script("hit_path", "--trials", "1", "--rounds", "1").splitlines()[1:]
    assert [r.split()[0] for r in rows] == ["dispatch", "+", "+", "jit", "jit"]
