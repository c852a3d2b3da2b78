"""Faults a long-running program meets leave didax usable (issue 31).

Each test makes one fault happen, checks that the caller gets a clear
error (or, for the disk cache, a single warning and a working program),
that no cache holds a half-made entry and no trace state is left behind,
and that the next call in the same process gives the right answer:

- an allocation beyond the device's memory (in a subprocess, under an
  address-space limit: nothing is ever really allocated);
- a ``KeyboardInterrupt`` while tracing, lowering, compiling or writing
  the disk cache;
- the persistent cache on a full or read-only disk;
- an exception from user code inside every transformation;
- one thread raising inside its trace while others call the same jit.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import numpy as np
import pytest

import didax as dx
import didax.lax as lax
import didax.numpy as dnp
from didax.core import config as core_config
from didax.core.cache import LRUCache
from didax.core.lax import parallel as core_parallel
from didax.core.trace import Trace, Tracer, current_trace
from didax.errors import UnexpectedTracerError
from didax.interpreters import jaxpr_transforms
from didax.interpreters.evaluation import EVAL_TRACE, compiled_route
from didax.lowering import eager, mlir, persistent_cache, xla
from didax.lowering.compiled import COMPILE_CACHE

# --- shared checks -------------------------------------------------------------------------

_LRU_CACHES: Final[tuple[LRUCache[Any], ...]] = (
    COMPILE_CACHE,
    jaxpr_transforms._JVP,
    jaxpr_transforms._VMAP,
    jaxpr_transforms._PARTIAL_EVAL,
    jaxpr_transforms._TRANSPOSE,
)


def _assert_clean(*jitted: dx.Jitted) -> None:
    """No trace state is left in this thread, and no cache holds a key being built."""
    assert current_trace() is EVAL_TRACE
    assert not core_config._overrides.values
    assert not core_parallel._ENV.frames
    for cache in (*_LRU_CACHES, *(f._cache for f in jitted)):
        assert not cache._building


_counter = iter(range(1, 1 << 30))


def _fresh_program() -> tuple[Callable[[Any], Any], float]:
    """A function no other test has compiled (its constant is new), and that constant."""
    c = next(_counter) + 0.125
    return (lambda x: dnp.cos(x) * c + 1.0), c


# --- an allocation beyond the device's memory ----------------------------------------------

# Run under an address-space limit: an allocation past it fails at once, as
# one past the device's memory does, whatever the machine (the sizes asked,
# 256 GiB to 4 TiB, are past any; the limit keeps the test from ever
# touching the machine's memory, which others share). Each case is followed
# by a normal call, whose result is reported.
_OUT_OF_MEMORY = textwrap.dedent(
    """
    import json, resource
    limit = 16 * 2**30
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import numpy as np
    import didax as dx, didax.numpy as dnp

    big = (2**40,)  # 4 TiB of float32
    kept = dnp.arange(5.0) * 3.0  # made before: must come through intact
    donated = dnp.arange(4, dtype=dnp.float32)
    cases = {
        "eager": lambda: dnp.zeros(big, dnp.float32),
        "jit": lambda: dx.jit(lambda: dnp.ones(big, dnp.float32))(),
        # An intermediate of 1 TiB (the sort needs it whole), a small result.
        "jit intermediate": lambda: dx.jit(
            lambda x: dnp.sort(dnp.broadcast_to(x, (2**36, 4)).ravel())[:3]
        )(dnp.ones(4, dnp.float32)),
        "host copy": lambda: dnp.asarray(np.broadcast_to(np.float32(1), (2**36,))),
        # A failed call takes nothing: its donated argument is still there.
        "jit donating": lambda: dx.jit(
            lambda x: (x + 1.0, dnp.ones(big, dnp.float32) * x[0]), donate_argnums=0
        )(donated)[1],
    }
    f = dx.jit(lambda x: dnp.sin(x) * 2.0 + 1.0)
    report = {}
    for name, make in cases.items():
        try:
            np.asarray(make())
            error = None
        except Exception as e:
            error = {"type": type(e).__name__, "runtime": isinstance(e, RuntimeError),
                     "memory": isinstance(e, MemoryError),
                     "text": "\\n".join([str(e), *getattr(e, "__notes__", [])])}
        report[name] = {"error": error, "jit": np.asarray(f(np.arange(3.0))).tolist(),
                        "eager": np.asarray(dnp.exp(dnp.arange(3.0))).tolist(),
                        "kept": np.asarray(kept).tolist(),
                        "donated": np.asarray(donated).tolist()}
    print(json.dumps(report))
    """
)


@pytest.fixture(scope="module")
def out_of_memory() -> dict[str, Any]:
    # On the CPU: the limit covers host memory, and an accelerator's runtime
    # would not start under it.
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    done = subprocess.run(
        [sys.executable, "-c", _OUT_OF_MEMORY],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


@pytest.mark.parametrize(
    ("case", "says"),
    [
        # XLA's RESOURCE_EXHAUSTED (a RuntimeError, as JAX's) with the bytes it
        # could not allocate; didax's note adds the program and its results.
        ("eager", ["RESOURCE_EXHAUSTED", "4398046511104 bytes", "f32[1099511627776]"]),
        ("jit", ["RESOURCE_EXHAUSTED", "4398046511104 bytes", "f32[1099511627776]"]),
        # Fails once the call has returned, where the result is read: XLA's
        # message names the intermediate's bytes.
        ("jit intermediate", ["RESOURCE_EXHAUSTED", "1099511627776 bytes"]),
        # A NumPy argument too large to copy on the host: NumPy's MemoryError.
        ("host copy", ["256. GiB", "(68719476736,)"]),
        ("jit donating", ["RESOURCE_EXHAUSTED", "4398046511104 bytes", "f32[1099511627776]"]),
    ],
)
def test_an_allocation_beyond_memory_is_an_error_and_the_next_call_works(
    out_of_memory: dict[str, Any], case: str, says: list[str]
) -> None:
    result = out_of_memory[case]
    error = result["error"]
    assert error is not None, f"{case}: no error"
    assert error["memory"] if case == "host copy" else error["runtime"], error
    for words in says:
        assert words in error["text"], error["text"]
    np.testing.assert_allclose(result["jit"], np.sin(np.arange(3.0)) * 2.0 + 1.0, rtol=1e-6)
    np.testing.assert_allclose(result["eager"], np.exp(np.arange(3.0)), rtol=1e-6)
    assert result["kept"] == [0.0, 3.0, 6.0, 9.0, 12.0]
    assert result["donated"] == [0.0, 1.0, 2.0, 3.0]


# --- KeyboardInterrupt while tracing, lowering, compiling ----------------------------------


@pytest.fixture
def cache_dir(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path | None]:
    """The persistent cache off, or on in a fresh directory (checked to hold whole entries)."""
    if request.param == "no disk cache":
        yield None
        return
    dx.config.update("jax_compilation_cache_dir", tmp_path)
    try:
        yield tmp_path
    finally:
        dx.config.update("jax_compilation_cache_dir", None)


def _interrupt_once(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[int]:
    """Makes ``owner.name`` raise KeyboardInterrupt on its first call; returns its call count."""
    real = getattr(owner, name)
    calls: list[int] = []

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, interrupted)
    return calls


def _interrupt_lowering(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Interrupts lowering at its cos equation, half way through the module."""
    real = mlir.LOWERING_RULES.rule_for
    calls: list[int] = []

    def rule_for(prim: Any, *args: Any) -> Any:
        if prim is lax.cos_p and not calls:
            calls.append(1)
            raise KeyboardInterrupt
        return real(prim, *args)

    monkeypatch.setattr(mlir.LOWERING_RULES, "rule_for", rule_for)
    return calls


def _interrupt(stage: str, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    if stage == "lowering":
        return _interrupt_lowering(monkeypatch)
    if stage == "XLA compile":
        return _interrupt_once(monkeypatch, xla, "compile")
    return _interrupt_once(monkeypatch, os, "fsync")  # the disk cache's write


def _disk_entries(cache_dir: Path | None) -> list[str]:
    return [] if cache_dir is None else sorted(p.name for p in cache_dir.iterdir())


@pytest.mark.parametrize(
    ("stage", "cache_dir"),
    [
        *(
            (stage, disk)
            for stage in ("lowering", "XLA compile")
            for disk in ("no disk cache", "disk cache")
        ),
        ("disk write", "disk cache"),
    ],
    indirect=["cache_dir"],
)
def test_an_interrupt_while_compiling_a_jit_leaves_no_partial_entry(
    stage: str, cache_dir: Path | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    fun, c = _fresh_program()
    f = dx.jit(fun)
    x = np.linspace(0.0, 1.0, 5)
    compiled_before = COMPILE_CACHE.info().currsize
    calls = _interrupt(stage, monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        f(x)
    assert calls, f"the {stage} was not reached"
    _assert_clean(f)
    assert f.cache_info().currsize == 0
    assert COMPILE_CACHE.info().currsize == compiled_before
    assert _disk_entries(cache_dir) == []  # neither an entry nor a temporary file

    np.testing.assert_allclose(np.asarray(f(x)), np.cos(x) * c + 1.0, rtol=1e-12)
    assert f.cache_info().currsize == 1
    if cache_dir is not None:
        assert [Path(n).suffix for n in _disk_entries(cache_dir)] == [".xla"]


@pytest.mark.parametrize("stage", ["lowering", "XLA compile"])
def test_an_interrupt_while_compiling_an_eager_primitive_leaves_no_partial_entry(
    stage: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A shape no other test uses: the one-equation program is new.
    x = np.linspace(0.0, 1.0, 3 * next(_counter) + 11)
    with compiled_route():
        programs = dict(eager.EAGER_PROGRAMS)
        calls = _interrupt(stage, monkeypatch)
        with pytest.raises(KeyboardInterrupt):
            dnp.cos(x)
        assert calls
        _assert_clean()
        assert programs == eager.EAGER_PROGRAMS
        np.testing.assert_allclose(np.asarray(dnp.cos(x)), np.cos(x), rtol=1e-12)


def test_an_interrupt_while_tracing_leaves_no_partial_entry() -> None:
    traced: list[int] = []

    def fun(x: Any) -> Any:
        traced.append(1)
        if len(traced) == 1:
            raise KeyboardInterrupt
        return dnp.sin(x) * 2.0

    f = dx.jit(fun)
    g = dx.jit(dx.grad(lambda x: dnp.sum(f(x))))  # the interrupt reaches g's trace too
    x = np.linspace(0.0, 1.0, 4)
    with pytest.raises(KeyboardInterrupt):
        g(x)
    _assert_clean(f, g)
    assert (f.cache_info().currsize, g.cache_info().currsize) == (0, 0)
    np.testing.assert_allclose(np.asarray(g(x)), 2.0 * np.cos(x), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(f(x)), 2.0 * np.sin(x), rtol=1e-12)


# --- the persistent cache on a full or read-only disk --------------------------------------


@pytest.fixture
def disk_cache(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "cache"
    dx.config.update("jax_compilation_cache_dir", path)
    try:
        yield path
    finally:
        dx.config.update("jax_compilation_cache_dir", None)


class _FullDiskFile:
    """A file on a full disk: half of a write lands, then ENOSPC."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def __enter__(self) -> _FullDiskFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.real.close()

    def write(self, data: bytes) -> int:
        self.real.write(data[: len(data) // 2])
        self.real.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _run_new_programs(n: int) -> list[str]:
    """Runs ``n`` new programs, checking their results; returns the warnings they gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # a repeated warning would show each time
        for _ in range(n):
            fun, c = _fresh_program()
            x = np.arange(3.0)
            np.testing.assert_allclose(np.asarray(dx.jit(fun)(x)), np.cos(x) * c + 1.0)
    return [str(w.message) for w in caught]


def _assert_one_warning(messages: list[str], cache: Path, reason: str) -> None:
    assert len(messages) == 1, messages
    assert str(cache) in messages[0]
    assert reason in messages[0]


def test_a_full_disk_skips_writing_with_one_warning(
    disk_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_fdopen = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, mode: _FullDiskFile(real_fdopen(fd, mode)))
    messages = _run_new_programs(3)
    _assert_one_warning(messages, disk_cache, "No space left on device")
    assert list(disk_cache.iterdir()) == []  # the half-written files were removed

    monkeypatch.undo()  # space again: programs are kept, without a warning
    assert _run_new_programs(1) == []
    assert len(list(disk_cache.glob("*.xla"))) == 1


def test_a_read_only_directory_skips_writing_with_one_warning(
    disk_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As a read-only file system answers (EROFS), whoever runs the test.
    def read_only(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(tempfile, "mkstemp", read_only)  # as the disk cache calls it
    _assert_one_warning(_run_new_programs(3), disk_cache, "Read-only file system")


@pytest.mark.skipif(
    sys.platform == "win32" or os.geteuid() == 0, reason="permissions do not restrict root"
)
def test_a_read_only_directory_is_read_and_not_written_with_one_warning(
    disk_cache: Path,
) -> None:
    fun, c = _fresh_program()
    x = np.arange(3.0)
    dx.jit(fun)(x)  # written while the directory is writable
    disk_cache.chmod(0o500)
    try:
        dx.clear_caches()
        hits = persistent_cache.info().hits
        np.testing.assert_allclose(np.asarray(dx.jit(fun)(x)), np.cos(x) * c + 1.0)
        assert persistent_cache.info().hits == hits + 1  # read from the read-only directory
        _assert_one_warning(_run_new_programs(3), disk_cache, "Permission denied")
    finally:
        disk_cache.chmod(0o700)


# --- an exception from user code inside a transformation -----------------------------------


class _UserError(Exception):
    pass


def _with_custom_jvp(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    g = dx.custom_jvp(dnp.sin)
    g.defjvp(lambda p, t: (dnp.sin(p[0]), f(p[0]) * t[0]))
    return g


def _with_custom_vjp(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    g = dx.custom_vjp(dnp.sin)
    g.defvjp(lambda x: (dnp.sin(x), x), lambda x, ct: (f(x) * ct,))
    return g


def _total(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda x: dnp.sum(f(x))


# Each transformation of a function of a vector: applied to the user's body.
_TRANSFORMS: Final[dict[str, Callable[[Callable[[Any], Any], Any], Any]]] = {
    "jit": lambda f, x: dx.jit(f)(x),
    "grad": lambda f, x: dx.grad(_total(f))(x),
    "vmap": lambda f, x: dx.vmap(f)(x),
    "vmap with an axis name": lambda f, x: dx.vmap(f, axis_name="i")(x),
    "jvp": lambda f, x: dx.jvp(f, (x,), (x,)),
    "vjp": lambda f, x: dx.vjp(f, x)[1](x),
    "make_jaxpr": lambda f, x: str(dx.make_jaxpr(f)(x)),
    "scan": lambda f, x: lax.scan(lambda c, a: (f(c) * a, a), x[0], x),
    "cond": lambda f, x: lax.cond(x[0] < 1.0, f, dnp.cos, x),
    "while_loop": lambda f, x: lax.while_loop(
        lambda c: c[0] < 3, lambda c: (c[0] + 1, f(c[1])), (0, x)
    ),
    "fori_loop": lambda f, x: lax.fori_loop(0, 3, lambda i, c: f(c), x),
    "checkpoint": lambda f, x: dx.grad(_total(dx.checkpoint(f)))(x),
    # Under jit, so that the rules run on tracers (grad alone gives them values).
    "custom_jvp rule": lambda f, x: dx.jit(dx.grad(_total(_with_custom_jvp(f))))(x),
    "custom_vjp rule": lambda f, x: dx.jit(dx.grad(_total(_with_custom_vjp(f))))(x),
    "jit of grad of scan": lambda f, x: dx.jit(
        dx.grad(lambda x: lax.scan(lambda c, a: (f(c) * a, a), 0.5, x)[0])
    )(x),
    "jit of vmap of grad of cond": lambda f, x: dx.jit(
        dx.vmap(dx.grad(lambda y: lax.cond(y < 1.0, f, dnp.cos, y)))
    )(x),
}


@pytest.mark.parametrize("transform", list(_TRANSFORMS))
def test_a_user_exception_inside_a_transformation_leaves_no_trace_state(transform: str) -> None:
    apply = _TRANSFORMS[transform]
    x = np.linspace(0.1, 0.9, 3)

    def body(y: Any) -> Any:
        return dnp.sin(y) + 1.0

    expected = apply(body, x)
    seen: list[Any] = []

    def failing(y: Any) -> Any:
        seen.append(y)
        raise _UserError(transform)

    with pytest.raises(_UserError):
        apply(failing, x)
    _assert_clean()
    # Every trace the failure ran under has ended: a value kept from it is
    # caught by the leak checker, not silently used.
    tracers = [y for y in seen if isinstance(y, Tracer)]
    assert tracers, "the body ran on no tracer"
    for y in tracers:
        trace: Trace | None = y._trace
        while trace is not EVAL_TRACE and trace is not None:
            assert not trace.is_valid, f"{trace.name} still valid"
            trace = trace.parent
    with pytest.raises(UnexpectedTracerError):
        dnp.sin(tracers[-1])

    # The next transformation is clean: same answer as before the failure.
    again = apply(body, x)
    if isinstance(expected, str):  # a jaxpr's text
        assert again == expected
    else:
        leaves = dx.tree_util.tree_leaves
        for a, b in zip(leaves(again), leaves(expected), strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    _assert_clean()


# --- one thread raising inside its trace while others call the same jit --------------------


@pytest.mark.parametrize("wrap", ["jit", "jit of vmap of grad"])
def test_a_thread_raising_in_its_trace_leaves_the_other_threads_right(wrap: str) -> None:
    failing = threading.local()  # which thread's trace fails
    traced = threading.Event()
    traces: list[int] = []

    def fun(x: Any) -> Any:
        traces.append(1)
        if getattr(failing, "yes", False):
            traced.set()
            time.sleep(0.2)  # hold the trace while the other threads queue on it
            raise _UserError("this thread's trace")
        return dnp.sum(dnp.sin(x) * 2.0)

    f = dx.jit(fun) if wrap == "jit" else dx.jit(dx.vmap(dx.grad(fun)))
    x = np.linspace(0.0, 1.0, 12).reshape(3, 4)
    want = np.sum(np.sin(x) * 2.0) if wrap == "jit" else 2.0 * np.cos(x)
    n = 6
    start = threading.Barrier(n, timeout=60)
    results: dict[int, Any] = {}

    def worker(i: int) -> None:
        try:
            failing.yes = i == 0
            start.wait()
            if i != 0:
                traced.wait(timeout=60)
            results[i] = np.asarray(f(x))
            _assert_clean()
        except BaseException as e:  # reported below, not lost in the thread
            results[i] = e

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert isinstance(results[0], _UserError), results[0]
    for i in range(1, n):
        assert isinstance(results[i], np.ndarray), results[i]
        np.testing.assert_allclose(results[i], want, rtol=1e-12)
    assert len(traces) >= 2  # the failed trace, then one that every other thread shares
    _assert_clean(f)
    assert f.cache_info().currsize == 1
    np.testing.assert_allclose(np.asarray(f(x)), want, rtol=1e-12)
