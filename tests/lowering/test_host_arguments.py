"""lowering.host_arguments: NumPy arguments of a compiled program, never read after the call."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import didax as dx
from didax.lowering import host_arguments, xla
from didax.lowering.array import BACKEND
from didax.lowering.compiled import Compiled
from didax.lowering.host_arguments import to_buffer

# Every test compiles programs no other test compiles (a fresh literal, apart
# from those of tests/lowering/test_dispatch.py), so that the first compile is
# a miss whatever ran before.
_fresh = itertools.count(1)


def _unique_constant() -> float:
    return 2.0 + next(_fresh) / 7919.0


# --- NumPy arguments: jaxlib's C++ dispatch, never aliasing the caller's memory ----------------


def _at_alignment(offset: int, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """A float32 array whose data starts ``offset`` bytes past a 64-byte boundary.

    jaxlib aliases a 64-byte-aligned array's memory, and copies others on a
    worker thread after the call has returned: both read the caller's
    memory late.
    """
    n = int(np.prod(shape)) * 4
    raw = np.empty(n + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + offset
    out = raw[start : start + n].view(np.float32).reshape(shape)
    out[...] = 1.0
    return out


def _busy(x: Any) -> Any:
    # Long enough that the program still runs when the call has returned.
    w = dx.numpy.full((256, 256), 1e-3, np.float32)
    for _ in range(12):
        x = dx.numpy.sin(x) @ w + x
    return x


@pytest.fixture(params=["short", "long"])
def taken_as(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every program taken as short (run synchronously), or as long, however long its runs take.

    Which a program is depends on timing (see ``host_arguments._RunTime``): the
    tests of either path choose it.
    """
    if request.param == "short":
        monkeypatch.setattr(host_arguments, "SHORT_RUN_S", float("inf"))
    else:
        monkeypatch.setattr(host_arguments, "SHORT_RUN_S", 0.0)
        monkeypatch.setattr(host_arguments, "_TIMED_RUNS", 0)
        monkeypatch.setattr(host_arguments, "_RETIMED_EVERY", 1 << 30)
    return str(request.param)


@pytest.fixture
def long_programs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every program taken as long: its unaligned NumPy arguments are copied."""
    monkeypatch.setattr(host_arguments, "SHORT_RUN_S", 0.0)
    monkeypatch.setattr(host_arguments, "_TIMED_RUNS", 0)
    monkeypatch.setattr(host_arguments, "_RETIMED_EVERY", 1 << 30)


@pytest.mark.parametrize("offset", [0, 16])
@pytest.mark.parametrize("outputs", [1, 2])
def test_numpy_argument_written_after_the_call_does_not_change_the_result(
    offset: int, outputs: int, taken_as: str
) -> None:
    """A caller refilling its NumPy buffer right after a call (a data loader's pattern).

    JAX's own jit gets this wrong on a CPU (its transfer reads the buffer
    late); didax copies a NumPy argument before the call returns. Both the
    one-result hit path and the general one.
    """
    f = dx.jit(_busy if outputs == 1 else lambda x: (_busy(x), x.sum()))
    want = np.asarray(dx.tree_util.tree_leaves(f(_at_alignment(offset, (256, 256))))[0])
    for _ in range(8):
        x = _at_alignment(offset, (256, 256))
        out = dx.tree_util.tree_leaves(f(x))[0]
        x[...] = 7.0
        np.testing.assert_array_equal(np.asarray(out), want)


@pytest.mark.parametrize("x64", [True, False])
@pytest.mark.parametrize(
    "dtype",
    [np.float64, np.float32, np.float16, np.int64, np.uint64, np.int8, np.bool_, np.complex128],
)
def test_numpy_arguments_take_the_types_didax_gives_them(x64: bool, dtype: Any) -> None:
    """A jitted call's NumPy arguments get didax's types (64-bit ones narrowed without x64).

    They go through jaxlib's C++ dispatch, which converts them under JAX's
    x64 mode: it is set to didax's for the call, whatever JAX's own is.
    """
    import jax

    rng = np.random.default_rng(0)
    host = (rng.normal(size=(3, 4)) * 10).astype(dtype)
    f = dx.jit(lambda a, b: (a, b[::-1]))
    jax_x64 = jax.config.read("jax_enable_x64")
    with dx.config.override("jax_enable_x64", x64):
        for _ in range(2):  # the first call fills jaxlib's cache, the second takes its fast path
            a, b = f(host, host)
            want = dx.numpy.asarray(host)
            assert a.dtype == want.dtype
            assert b.dtype == want.dtype
            np.testing.assert_array_equal(np.asarray(a), np.asarray(want))
            np.testing.assert_array_equal(np.asarray(b), np.asarray(want)[::-1])
    assert jax.config.read("jax_enable_x64") == jax_x64  # JAX's own mode is untouched


def test_numpy_arguments_of_any_layout() -> None:
    """Non-contiguous, Fortran-ordered, zero-size and 0-d NumPy arguments, twice each."""
    f = dx.jit(lambda a: a + 1)
    base = np.arange(24.0).reshape(4, 6)
    for x in (base[:, ::2], np.asfortranarray(base), np.zeros((0, 3)), np.array(2.5)):
        for _ in range(2):
            np.testing.assert_array_equal(np.asarray(f(x)), x + 1)


def test_numpy_and_device_arguments_mix() -> None:
    f = dx.jit(lambda a, b, c: a * b + c)
    a, b = np.arange(3.0), dx.numpy.asarray(np.full(3, 2.0))
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(f(a, b, 1.0)), a * 2 + 1)
        np.testing.assert_array_equal(np.asarray(f(b, a, 1.0)), a * 2 + 1)


def test_a_compiled_program_with_its_fast_path_is_freed_with_the_caches() -> None:
    """jaxlib's C++ function of a program (and its cache) does not keep the program alive."""
    import gc
    import weakref

    f = dx.jit(lambda x: x * _unique_constant() + 1.0)
    f(np.ones(3))
    f(np.ones(3))  # jaxlib's fast path now holds its entry
    (entry,) = f._cache._data.values()
    compiled = weakref.ref(entry.compiled)
    del entry
    dx.clear_caches()
    gc.collect()
    assert compiled() is None


def test_calls_not_waited_for_each_read_their_own_arguments(taken_as: str) -> None:
    """Calls made one after another, none waited for, each compute on their own argument.

    Unaligned arrays are copied into host arrays reused once the program
    that read them has run; calls still in flight get other ones.
    """
    f = dx.jit(_busy)
    for offset in (16, 0):
        xs = [_at_alignment(offset, (256, 256)) * float(i) for i in range(6)]
        wants = [np.asarray(f(x)) for x in xs]
        for _ in range(3):
            outs = [f(x) for x in xs]  # none waited for
            for out, want in zip(outs, wants, strict=True):
                np.testing.assert_array_equal(np.asarray(out), want)


@pytest.mark.parametrize("offset", [0, 16])
def test_on_a_cpu_a_long_program_waits_only_for_an_aligned_numpy_argument(
    offset: int, long_programs: None
) -> None:
    """jaxlib aliases an aligned array: its program must have read it when the call returns.

    An unaligned one is copied into the program's own host memory, and
    the call returns at once, as a call on Arrays does.
    """
    f = dx.jit(_busy)
    x = _at_alignment(offset, (256, 256))
    ready = []
    for _ in range(8):
        out = f(x)
        ready.append(out.buffer.is_ready())
        out.block_until_ready()
    if offset == 0:
        assert all(ready)
    else:
        assert not all(ready)  # dispatch stays asynchronous
    assert not all(f(dx.numpy.asarray(x)).buffer.is_ready() for _ in range(8))  # Arrays


@pytest.mark.parametrize("offset", [0, 16])
def test_on_a_cpu_a_short_program_passes_numpy_arguments_and_waits(
    offset: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its arguments are not copied (no stage), and its results are ready when the call returns."""
    monkeypatch.setattr(host_arguments, "SHORT_RUN_S", 1.0)  # short, even on a busy machine
    k = _unique_constant()
    f = dx.jit(lambda x: x * k)
    for _ in range(host_arguments._TIMED_RUNS + 4):
        x = _at_alignment(offset, (64, 64))
        out = f(x)
        assert out.buffer.is_ready()
        x[...] = 7.0
        np.testing.assert_array_equal(np.asarray(out), np.full((64, 64), k, np.float32))
    (entry,) = f._cache._data.values()
    compiled = entry.compiled
    assert isinstance(compiled, Compiled)
    assert compiled.host_arguments.run_time.short()
    assert compiled.host_arguments.stages == []


class _Clock:
    """Stands for the ``time`` module: each reading is ``run`` seconds past the one before."""

    def __init__(self, run: float) -> None:
        self.now = 0.0
        self.run = run

    def perf_counter(self) -> float:
        self.now += self.run
        return self.now


def test_a_program_is_timed_and_only_a_short_one_runs_synchronously(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Timed runs decide; a long program is timed again now and then, and may turn out short."""
    clock = _Clock(1e-3)  # a run takes 1 ms: long
    monkeypatch.setattr(host_arguments, "time", clock)
    k = _unique_constant()
    f = dx.jit(lambda x: x * k)
    x = _at_alignment(16, (8,))
    for _ in range(host_arguments._TIMED_RUNS):
        assert f(x).buffer.is_ready()  # timed: synchronous
    (entry,) = f._cache._data.values()
    compiled = entry.compiled
    assert isinstance(compiled, Compiled)
    run_time = compiled.host_arguments.run_time
    assert run_time.runs == host_arguments._TIMED_RUNS
    assert run_time.shortest == pytest.approx(1e-3)
    for _ in range(host_arguments._RETIMED_EVERY - 1):
        np.testing.assert_array_equal(np.asarray(f(x)), x * k)  # copied: not timed
    assert run_time.runs == host_arguments._TIMED_RUNS
    assert len(compiled.host_arguments.stages) == 1
    clock.run = 10e-6  # its first runs were slow only for a busy machine
    f(x)
    assert run_time.runs == host_arguments._TIMED_RUNS + 1
    assert run_time.shortest == pytest.approx(10e-6)
    assert run_time.short()
    f(x)
    assert run_time.runs == host_arguments._TIMED_RUNS + 1  # short for good: no longer timed


def test_whether_an_argument_is_aligned_is_read_again_for_a_new_array_with_a_freed_ones_id(
    monkeypatch: pytest.MonkeyPatch, long_programs: None
) -> None:
    """The per-position alignment hint holds its array weakly, not by ``id``.

    CPython gives a new view the id of one just freed: with the id as the
    key, an unaligned array would have been taken for the aligned one
    before it (the call then waiting for its program, which is safe but
    costs the asynchronous dispatch).
    """
    import gc

    f = dx.jit(lambda x: x * 2.0)
    raw = np.zeros(1024 + 32, np.float32)
    start = (-raw.ctypes.data) % 64 // 4

    def view(offset: int) -> np.ndarray[Any, Any]:
        return raw[start + offset // 4 : start + offset // 4 + 1024]

    read: list[int] = []

    def spy(v: np.ndarray[Any, Any]) -> bool:
        read.append(v.ctypes.data % 64)
        return bool(aliased(v))

    aliased = xla.aliased_on_transfer
    monkeypatch.setattr(xla, "aliased_on_transfer", spy)
    x = view(0)
    f(x).block_until_ready()
    f(x).block_until_ready()  # the same array: its alignment is remembered
    freed = id(x)
    del x
    gc.collect()  # jaxlib lets go of an array it aliased only then
    # Views that did not get the freed id are kept alive, so that the next ones might.
    kept: list[np.ndarray[Any, Any]] = []
    y = view(16)
    while id(y) != freed and len(kept) < 10_000:
        kept.append(y)
        y = view(16)
    assert id(y) == freed  # the case this test is about (CPython reuses the freed object)
    y[...] = 3.0
    np.testing.assert_array_equal(np.asarray(f(y)), np.full(1024, 6.0, np.float32))
    assert read == [0, 16]


def test_host_copies_are_reused_once_their_program_ran(long_programs: None) -> None:
    k = _unique_constant()
    f = dx.jit(lambda x: x * k)
    x = _at_alignment(16, (2, 3))
    f(x).block_until_ready()
    (entry,) = f._cache._data.values()
    compiled = entry.compiled
    assert isinstance(compiled, Compiled)
    (stage,) = compiled.host_arguments.stages
    held = stage.arrays[0]
    assert held.ctypes.data % 64 == 0  # aliased by jaxlib, not copied again
    for i in range(3):
        y = _at_alignment(16, (2, 3)) + i
        np.testing.assert_array_equal(np.asarray(f(y)), y * k)
    assert compiled.host_arguments.stages[0].arrays[0] is held


def test_a_call_that_waits_for_an_aligned_argument_reuses_its_copies_of_the_others(
    long_programs: None,
) -> None:
    k = _unique_constant()
    f = dx.jit(lambda x, y: x + y * k)
    x, y = _at_alignment(0, (2, 3)), _at_alignment(16, (2, 3))  # passed, copied
    f(x, y).block_until_ready()
    (entry,) = f._cache._data.values()
    compiled = entry.compiled
    assert isinstance(compiled, Compiled)
    (stage,) = compiled.host_arguments.stages
    held = stage.arrays[1]
    assert 0 not in stage.arrays  # the aligned one is not copied
    for i in range(3):
        y[...] = float(i)
        np.testing.assert_array_equal(np.asarray(f(x, y)), x + y * k)
    (again,) = compiled.host_arguments.stages
    assert again.arrays[1] is held


def test_host_copies_kept_by_all_programs_stay_within_their_budget(
    monkeypatch: pytest.MonkeyPatch, long_programs: None
) -> None:
    import gc

    dx.clear_caches()  # earlier tests' programs release their copies now, not during this one
    gc.collect()
    memory = host_arguments.STAGE_MEMORY
    monkeypatch.setattr(memory, "limit", memory.kept + 3 * 80_000)
    k = _unique_constant()
    fs = [dx.jit(lambda x, i=i: x * k + i) for i in range(6)]
    x = _at_alignment(16, (20_000,))  # 80 KB, copied
    x[...] = np.linspace(0.0, 1.0, 20_000)
    kept_before = memory.kept
    for i, f in enumerate(fs):
        for _ in range(2):  # the second call reuses the stage, or copies afresh
            np.testing.assert_allclose(np.asarray(f(x)), x * k + i, rtol=1e-6)
    assert memory.kept == kept_before + 3 * 80_000  # three programs keep copies, not six
    del fs, f
    dx.clear_caches()
    gc.collect()
    assert memory.kept == kept_before  # released with the programs


def test_aligned_and_unaligned_arrays_in_turn_at_one_position(taken_as: str) -> None:
    """How an array is passed is decided per array object (a hint kept by position): any is safe."""
    f = dx.jit(lambda x, y: _busy(x) + y)
    for _ in range(3):
        for offset in (0, 16, 0, 0, 16, 16):
            x, y = _at_alignment(offset, (256, 256)), _at_alignment(16 - offset, (256, 256))
            want = np.asarray(f(x.copy(), y.copy()))
            out = f(x, y)
            x[...] = 7.0
            y[...] = 7.0
            np.testing.assert_array_equal(np.asarray(out), want)


@pytest.mark.parametrize("offset", [0, 16])
def test_off_a_cpu_numpy_arguments_are_copied_and_the_call_does_not_wait(
    monkeypatch: pytest.MonkeyPatch, offset: int
) -> None:
    """The accelerators' path, taken on this CPU: each array is copied before the call returns."""
    monkeypatch.setattr(BACKEND, "host_is_device", False)
    f = dx.jit(_busy)
    want = np.asarray(f(_at_alignment(offset, (256, 256))))
    outs, ready = [], []
    for _ in range(8):
        x = _at_alignment(offset, (256, 256))
        outs.append(f(x))
        x[...] = 7.0  # at once: the program may not have run yet
        ready.append(outs[-1].buffer.is_ready())
    assert not all(ready)  # dispatch stays asynchronous
    for out in outs:
        np.testing.assert_array_equal(np.asarray(out), want)


def test_a_program_without_results_takes_numpy_arguments() -> None:
    f = dx.jit(lambda x: ())
    assert f(np.ones(3)) == ()
    assert f(np.ones(3)) == ()  # the hit path


def test_threads_calling_with_numpy_arguments_each_get_their_own_results() -> None:
    import threading

    k = _unique_constant()
    f = dx.jit(lambda x: dx.numpy.sin(x) * k)
    xs = [np.full((64, 64), float(i)) for i in range(8)]
    wants = [np.sin(x) * k for x in xs]
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            for _ in range(50):
                np.testing.assert_allclose(np.asarray(f(xs[i])), wants[i], rtol=1e-12)
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_a_rank0_numpy_argument_passes_a_kept_copy_of_its_value() -> None:
    # As a NumPy scalar does (x * 2's weak scalar is one): keyed by its bytes,
    # so writing to the caller's array afterwards changes neither the kept
    # copy nor the next call's value.
    f = dx.jit(lambda x, s: x * s)
    s = np.array(2.0, np.float32)
    x = dx.device_put(np.ones(3, np.float32))
    first = f(x, s)
    s[()] = 5.0
    np.testing.assert_array_equal(np.asarray(first), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(np.asarray(f(x, s)), [5.0, 5.0, 5.0])
    assert to_buffer(np.float32(2.0)) is to_buffer(np.float32(2.0))
