"""How arguments reach a compiled program: device buffers, kept scalars, and NumPy arrays.

Design rules:
- Arrays pass their device buffers as they are; scalars (rank-0 NumPy
  arrays too: the weak scalars of ``x * 2``) their kept device copies
  (``scalars``); other NumPy arrays go to the device with the call,
  through jaxlib's C++ dispatch (``xla.fast_dispatch``), which moves them
  with the launch as JAX's jit does.
- A caller may write to its NumPy array as soon as the call returns, so
  the program must not read it later (JAX's jit on a CPU reads it late,
  and gets such a call wrong). jaxlib reads a NumPy argument after the
  call has returned: on a CPU it aliases an aligned array, and copies
  others on a worker thread.
- On a CPU, a short program's arguments are passed as they are and the
  call returns once its program has run, polling for its results
  (``_RunTime``); so is an array jaxlib aliases (an aligned one), since
  copying it costs the program more than the copy (``_Stage``). Any other
  is first copied into host memory of the program's (a stage), which
  nobody else writes to, and the call returns at once. Off a CPU every
  NumPy argument is copied and the call never waits.
- Stages are reused from call to call, a few per program, once the
  program that read them has run; all programs' stages together keep at
  most ``STAGE_MEMORY.limit`` bytes (each program in the compile cache
  would otherwise keep a copy of its last arguments); past it a call's
  copies are fresh and go with the call.
- The per-program state (stages, arrays seen, run times) is not locked:
  threads racing on it only copy or time a run more or less, and a stage
  is taken by an atomic ``list.pop``.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Sequence
from typing import Any, Final, final

import numpy as np

from didax.core.array import Array
from didax.core.config import x64_enabled
from didax.core.transfer_guard import GUARDS_IN_FORCE
from didax.core.values import as_array, guard_host_data
from didax.lowering import xla
from didax.lowering.array import BACKEND
from didax.lowering.scalars import numpy_scalar_buffer, scalar_buffer


def to_buffer(x: Any) -> xla.Buffer:
    """``x``'s device buffer: an Array's own (transferred at most once), else a fresh copy."""
    t = type(x)
    if t is Array:
        buffer: xla.Buffer = x.buffer
        return buffer
    if t is float or t is int or t is bool or t is complex:
        return scalar_buffer(x)
    if isinstance(x, np.generic):
        return numpy_scalar_buffer(x)
    return xla.to_device(as_array(x), copy=True)  # never aliasing the caller's memory


def call_values(const_buffers: Sequence[xla.Buffer], args: Sequence[Any]) -> tuple[list[Any], bool]:
    """The values a program's fast call takes, and whether one is a NumPy array.

    Arrays give their device buffers, scalars their kept device copies;
    other NumPy arrays stay as they are (see ``HostArguments.call``).
    """
    values: list[Any] = list(const_buffers)
    host = False
    for x in args:  # a loop: cheaper than a comprehension here
        if type(x) is Array:
            values.append(x.buffer)
            continue
        if GUARDS_IN_FORCE[0]:  # host data: an implicit transfer
            guard_host_data(x)
        if type(x) is np.ndarray:
            if x.ndim == 0:
                values.append(numpy_scalar_buffer(x))
            else:
                values.append(x)
                host = True
        else:
            values.append(to_buffer(x))
    return values, host


# NumPy arguments up to this size are copied into reused host arrays; larger
# ones into fresh copies (whose cost then dwarfs a fresh buffer's).
_STAGED_BYTES: Final = 1 << 20
_STAGES: Final = 4  # reused sets of host arrays kept per program


@final
class _KeptBytes:
    """The host memory all programs' stages keep, within a limit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = 0
        self._lock = threading.Lock()

    def reserve(self, n: int) -> bool:
        with self._lock:
            if self.kept + n > self.limit:
                return False
            self.kept += n
            return True

    def release(self, n: int) -> None:
        with self._lock:
            self.kept -= n


STAGE_MEMORY: Final = _KeptBytes(64 << 20)

# A program whose runs take this long or less (launch to results) is run
# synchronously on a CPU: see ``_RunTime``.
SHORT_RUN_S = 100e-6
_TIMED_RUNS: Final = 4  # runs timed before a program may be taken as long
_RETIMED_EVERY: Final = 64  # a long program's calls on NumPy arguments per timed run
_SPINS: Final = 400  # polls of a short program's results before blocking


@final
class _RunTime:
    """How long a program's runs take on a CPU (launch to results), and running it synchronously.

    A short program's call on NumPy arguments is cheaper made synchronous,
    the arguments passed as they are (jaxlib copies or aliases them) and
    the caller polling until the results are ready, than with its
    arguments copied and the program left to run on an XLA worker thread
    (docs/performance.md, "Dispatch internals"). Blocking instead of
    polling gives most of it back: the caller's thread sleeps, and waking
    it costs more than such a program. A long program keeps asynchronous
    dispatch (its unaligned NumPy arguments are copied), so that the
    caller's Python overlaps it as in JAX. A program is short until
    ``_TIMED_RUNS`` runs have been timed, then while its shortest run
    took ``SHORT_RUN_S`` or less: the shortest only decreases, so a
    program found short stays short and is no longer timed. A long one
    is timed again every ``_RETIMED_EVERY`` calls.
    """

    __slots__ = ("runs", "shortest", "untimed")

    def __init__(self) -> None:
        self.runs = 0
        self.shortest = float("inf")
        self.untimed = 0  # a long program's calls since its last timed run

    def short(self) -> bool:
        if self.runs < _TIMED_RUNS or self.shortest <= SHORT_RUN_S:
            return True
        # A long program is run and timed again now and then: its first runs
        # may have been slow only for a busy machine or a cold cache.
        self.untimed += 1
        if self.untimed < _RETIMED_EVERY:
            return False
        self.untimed = 0
        return True

    def run(self, fast: xla.FastCall, values: list[Any], short: bool) -> list[xla.Buffer]:
        """Calls ``fast`` on ``values``, returning once the results are ready.

        The results of a program taken as ``short`` are polled for first.
        """
        timed = self.runs < _TIMED_RUNS or self.shortest > SHORT_RUN_S
        launched = time.perf_counter() if timed else 0.0
        outs: list[xla.Buffer] = fast(x64_enabled(), *values)
        if short and outs:
            first = outs[0]
            for _ in range(_SPINS):
                if first.is_ready():
                    break
        for b in outs:
            b.block_until_ready()
        if timed:
            self.runs += 1
            self.shortest = min(self.shortest, time.perf_counter() - launched)
        return outs


@final
class _Stage:
    """One call's host copies of a program's NumPy arguments, by parameter position.

    Copying into aligned host arrays reused from call to call costs less
    than a fresh copy each call, which jaxlib then copies again. For a long
    program it also costs less than letting jaxlib copy the caller's array
    and blocking until the program has run. A stage is reused once
    ``last``, a result of the call that read it, is ready: the program has
    run. The arrays it keeps count against ``STAGE_MEMORY``.

    An aligned array is not copied on a CPU: the program runs on an XLA
    worker thread, most likely on another core, and reading lines the
    caller's core has just written made it slower by far more than the
    copy (docs/performance.md, "Dispatch internals").
    """

    __slots__ = ("arrays", "last")

    def __init__(self) -> None:
        self.arrays: dict[int, np.ndarray[Any, Any]] = {}
        self.last: xla.Buffer | None = None

    def free(self) -> bool:
        last = self.last
        # A deleted result (donated since) no longer says whether its program ran.
        return last is None or (not last.is_deleted() and last.is_ready())

    def copy(self, i: int, x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        held = self.arrays.get(i)
        if held is None or held.shape != x.shape or held.dtype != x.dtype:
            if x.nbytes > _STAGED_BYTES or not STAGE_MEMORY.reserve(x.nbytes):
                return x.copy()
            if held is not None:
                STAGE_MEMORY.release(held.nbytes)
            held = self.arrays[i] = xla.aliasable_host_array(x.shape, x.dtype)
        np.copyto(held, x)
        return held

    def __del__(self, memory: _KeptBytes = STAGE_MEMORY) -> None:
        # ``memory`` is bound here: at exit the module's globals may be gone first.
        memory.release(sum(a.nbytes for a in self.arrays.values()))


@final
class HostArguments:
    """One program's calls on NumPy arguments: its stages, the arrays it has seen, its run time."""

    __slots__ = ("has_results", "run_time", "seen", "smallest_out", "stages")

    def __init__(self, out_sizes: Sequence[int]) -> None:
        self.has_results = bool(out_sizes)
        # The result whose readiness tells a stage is free (the smallest one: it is kept).
        self.smallest_out = out_sizes.index(min(out_sizes)) if out_sizes else 0
        # Host copies of NumPy arguments, reused once the program that read them ran.
        self.stages: list[_Stage] = []
        # By argument position, the last NumPy array (a weak reference: an id could
        # be reused by another array once that one is freed) and whether jaxlib aliases it.
        self.seen: dict[int, tuple[weakref.ref[np.ndarray[Any, Any]], bool]] = {}
        # On a CPU, how long the program's runs take: whether a call waits.
        self.run_time = _RunTime()

    def call(self, fast: xla.FastCall, values: list[Any]) -> list[xla.Buffer]:
        """``fast`` on ``values`` (``call_values``'), none of whose NumPy arrays it reads later."""
        alias = BACKEND.host_is_device and self.has_results
        if alias and self.run_time.short():
            return self.run_time.run(fast, values, short=True)
        wait = False
        stage: _Stage | None = None
        seen = self.seen
        for i, v in enumerate(values):
            if type(v) is not np.ndarray:
                continue
            passed = False
            if alias:
                last = seen.get(i)
                if last is not None and last[0]() is v:
                    passed = last[1]
                else:  # reading the address is not free: once per array object
                    passed = xla.aliased_on_transfer(v)
                    seen[i] = (weakref.ref(v), passed)
            if passed:
                wait = True
            else:
                if stage is None:
                    stage = self._stage()
                values[i] = stage.copy(i, v)
        if wait:
            outs = self.run_time.run(fast, values, short=False)
        else:
            outs = fast(x64_enabled(), *values)
        if stage is not None and outs and len(self.stages) < _STAGES:
            stage.last = outs[self.smallest_out]
            self.stages.append(stage)
        return outs

    def _stage(self) -> _Stage:
        """A free stage of this program's (one whose program has run), or a new one."""
        try:
            stage = self.stages.pop()  # atomic: another thread gets another stage
        except IndexError:
            return _Stage()
        return stage if stage.free() else _Stage()
