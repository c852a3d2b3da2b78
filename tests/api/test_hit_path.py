"""jit's hit path: the C extension is built, and takes its Python reference's decisions.

``didax.core._native.HitPath`` translates ``api.hit_path.PyHitPath`` (and
``Array.block_until_ready`` its Python method). Each scenario below runs
through a twin of one jitted function per implementation, recording for
each call whether it reached the general path (``_miss``), what it returned
or raised, and how many hits the cache counted: the records must agree, and
the hits must be where a repeat call on Arrays is.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax.api.hit_path import PyHitPath
from didax.api.jit import Jitted
from didax.core import array as array_module
from didax.core.config import GLOBAL_DISPATCH
from didax.lowering.compiled import HotCall

NATIVE = array_module.NATIVE
IMPLEMENTATIONS: list[type[Any]] = [PyHitPath] + ([NATIVE.HitPath] if NATIVE else [])
needs_native = pytest.mark.skipif(NATIVE is None, reason="the C extension is not in use")


def test_the_c_extension_is_built_and_in_use() -> None:
    if os.environ.get("DIDAX_NO_NATIVE", "") not in ("", "0"):
        pytest.skip("DIDAX_NO_NATIVE is set: the Python reference runs")
    assert NATIVE is not None, "didax.core._native was not built: is a C compiler installed?"
    assert Jitted.__mro__[1] is NATIVE.HitPath
    assert array_module.Array.block_until_ready is not array_module.PY_BLOCK_UNTIL_READY


def twin(base: type[Any], jitted: Any) -> Any:
    """A callable on ``jitted``'s trace cache taking ``base``'s hit path, counting misses."""

    class Twin(base):  # type: ignore[misc]
        def __init__(self) -> None:
            self._cache = jitted._cache
            self.misses = 0

        def _miss(self, *args: Any, **kwargs: Any) -> Any:
            self.misses += 1
            return jitted._miss(*args, **kwargs)

    return Twin()


def record(call: Any, cache: Any, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
    """(reached the general path, the value or the error, hits counted) for one call."""
    misses, hits = getattr(call, "misses", 0), cache.hits
    try:
        out: Any = call(*args, **kwargs)
        got: Any = (type(out).__name__, np.asarray(out).tolist())
    except Exception as e:  # the error is part of the record
        got = (type(e).__name__, str(e))
    return getattr(call, "misses", 0) > misses, got, cache.hits - hits


def run_scenario(base: type[Any]) -> list[tuple[Any, ...]]:
    """One jitted function's calls through ``base``'s twin; one record per call."""
    weights = np.linspace(0.0, 1.0, 64 * 64).reshape(64, 64)  # a constant on the device

    def fun(x: Any, y: Any) -> Any:
        return dnp.tanh(x @ weights) * 2 + y

    f = twin(base, dx.jit(fun))
    cache = f._cache
    x = dnp.asarray(np.arange(64.0).reshape(1, 64) / 64)  # on the host until a jitted call
    y = dnp.ones((1, 64))
    other = dnp.ones((2, 64))
    out = []

    def step(*args: Any, **kwargs: Any) -> None:
        out.append(record(f, cache, *args, **kwargs))

    step(x, y)  # 0: the first call traces
    step(x, y)  # 1: a repeat on Arrays (x now on the device): a hit
    step(x, y=y)  # 2: a keyword argument
    step(x, np.ones((1, 64)))  # 3: a NumPy argument
    step(x, 2.0)  # 4: a Python scalar
    step(other, other)  # 5: another signature
    step(x, y)  # 6: the first again, no longer the most recent
    step(x, y)  # 7: and now a hit again
    with dx.default_matmul_precision("highest"):
        step(x, y)  # 8: an option overridden in this thread (another trace mode)
    step(x, y)  # 9: the most recent entry is the override's
    step(x, y)  # 10: a hit
    grads = dx.grad(lambda a: f(a, y).sum())(x)  # 11: under a transformation
    out.append(("grad", np.asarray(grads).tolist()))
    step(x)  # 12: too few arguments
    step(x, y, y)  # 13: too many
    gone = x + 0.0
    step(gone, y)  # 14: a fresh Array, on the host
    gone.delete()
    step(gone, y)  # 15: a deleted Array
    return out


def test_both_implementations_take_the_same_decisions() -> None:
    records = [run_scenario(base) for base in IMPLEMENTATIONS]
    first = records[0]
    for other in records[1:]:
        assert other == first
    misses = [i for i, r in enumerate(first) if r[0] is True]
    assert misses == [0, 2, 3, 4, 5, 6, 8, 9, 12, 13, 14, 15]
    assert [first[i][2] for i in (1, 7, 10)] == [1, 1, 1]  # each hit counted once
    assert first[15][1][0] == "RuntimeError"
    assert "deleted" in first[15][1][1]
    assert first[12][1][0] == "TypeError"


def test_many_arguments_take_the_hit_path() -> None:
    # 20 arguments and a constant: more than the C path's buffers on the stack.
    rows = dnp.asarray(np.arange(8.0))
    args = [dnp.asarray(np.full(3, float(i))) for i in range(20)]
    jitted = dx.jit(lambda *xs: sum(xs) * rows.sum())
    expected = sum(np.full(3, float(i)) for i in range(20)) * 28.0
    for base in IMPLEMENTATIONS:
        f = twin(base, jitted)
        f(*args)
        misses, hits = f.misses, f._cache.hits
        np.testing.assert_allclose(np.asarray(f(*args)), expected)
        assert (f.misses, f._cache.hits) == (misses, hits + 1)


class FakeProgram:
    """A ``HotCall.program``: records the errors it is given to note."""

    def __init__(self) -> None:
        self.noted: list[BaseException] = []

    def note_out_of_memory(self, error: BaseException) -> None:
        self.noted.append(error)
        error.add_note("noted")


def fake_call(results: Callable[..., Any]) -> tuple[Any, Any, FakeProgram]:
    """A twin per implementation whose cache's recent entry calls ``results``."""
    x = dx.jit(lambda a: a + 1)(dnp.ones(3))  # an Array on the device
    program = FakeProgram()
    hot = HotCall(results, (), x.aval, program)  # type: ignore[arg-type]
    cache = SimpleNamespace(recent=((GLOBAL_DISPATCH[0], x._key), SimpleNamespace(hot=hot)), hits=0)
    return x, cache, program


@pytest.mark.parametrize("base", IMPLEMENTATIONS)
def test_an_error_from_xla_is_noted_and_raised(base: type[Any]) -> None:
    def failing(*buffers: Any) -> Any:
        raise RuntimeError("RESOURCE_EXHAUSTED: out of memory")

    x, cache, program = fake_call(failing)
    f = twin(base, SimpleNamespace(_cache=cache))
    with pytest.raises(RuntimeError, match="RESOURCE_EXHAUSTED") as info:
        f(x)
    assert program.noted == [info.value]
    assert info.value.__notes__ == ["noted"]
    assert (cache.hits, f.misses) == (1, 0)


@pytest.mark.parametrize("results", [[], ["a", "b"]])
def test_a_program_without_one_result_is_an_error_in_both(results: list[Any]) -> None:
    errors = []
    for base in IMPLEMENTATIONS:
        x, cache, _ = fake_call(lambda *buffers: results)
        with pytest.raises(ValueError, match="values to unpack") as info:
            twin(base, SimpleNamespace(_cache=cache))(x)
        errors.append(str(info.value))
    assert all("values to unpack (expected 1" in e for e in errors), errors


@needs_native
def test_the_c_hit_path_keeps_no_reference() -> None:
    f = dx.jit(lambda a, b: a * b + 1.0)
    a: Any = dnp.asarray(np.ones(16))
    b: Any = dnp.asarray(np.ones(16))

    def calls() -> None:
        f(a, b)  # the general path (the keyword call's entry is the most recent)
        f(a, b)  # a hit
        f(a, b=b)  # the general path: a keyword
        with pytest.raises(TypeError):
            f(a)

    calls()
    recent: Any = f._cache.recent
    hot = recent[1].hot
    watched = [a._buffer, b._buffer, a._key, hot.out_aval, hot.call, hot]

    def counts_after_calls() -> list[int]:
        hits = f._cache.hits
        for _ in range(200):
            calls()
        assert f._cache.hits > hits + 200
        gc.collect()  # the errors' frames, in cycles, hold keys until a collection
        return [sys.getrefcount(o) for o in watched]

    # A reference kept per call would add 200; the first round may fill a cache.
    assert counts_after_calls() == counts_after_calls()


@pytest.mark.parametrize(
    "wait", [array_module.PY_BLOCK_UNTIL_READY, array_module.Array.block_until_ready]
)
def test_block_until_ready_returns_the_array_or_says_it_was_deleted(wait: Any) -> None:
    on_device = dx.jit(lambda a: a * 2)(dnp.ones(4))
    on_host = dnp.asarray(np.ones(4))
    assert wait(on_device) is on_device
    assert wait(on_host) is on_host
    on_device.delete()
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=f64\[4\]"):
        wait(on_device)


def test_the_python_reference_runs_where_the_extension_is_turned_off() -> None:
    script = (
        "import didax as dx, didax.numpy as dnp\n"
        "from didax.api.hit_path import NATIVE, PyHitPath\n"
        "from didax.api.jit import Jitted\n"
        "from didax.core import array\n"
        "assert not NATIVE and Jitted.__mro__[1] is PyHitPath\n"
        "assert array.Array.block_until_ready is array.PY_BLOCK_UNTIL_READY\n"
        "f = dx.jit(lambda a: a + 1); a = dx.jit(lambda a: a)(dnp.ones(3))\n"
        "f(a); hits = f._cache.hits; f(a).block_until_ready()\n"
        "assert f._cache.hits == hits + 1\n"
    )
    env = {**os.environ, "DIDAX_NO_NATIVE": "1"}
    subprocess.run([sys.executable, "-c", script], check=True, env=env, timeout=120)
