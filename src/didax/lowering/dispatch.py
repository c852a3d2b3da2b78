"""Compiling and running jaxprs: the compile cache, and the impls of the higher-order primitives.

Design rules:
- One process-wide compile cache, an ``LRUCache`` keyed by the jaxpr's
  structural fingerprint (which includes its input types), never by object
  identity: re-creating ``jit(f)``, or transforming it again, finds the
  executable compiled before.
- A key is compiled once even when many threads ask for it at once.
- Arguments that are Arrays pass their buffers as they are; anything else
  goes to the device with the call. A caller may write to its NumPy array
  as soon as the call returns, so the program must not read it later
  (JAX's jit on a CPU reads it late, and gets such a call wrong): on a CPU
  the arrays of a short program, and an array jaxlib aliases, are passed
  as they are and the call returns once its program has run; any other
  is first copied into host memory of the program's. Such a call runs
  through jaxlib's C++ dispatch, which moves the arrays with the launch,
  as JAX's jit does. Results come back as Arrays.
- A program over several devices (sharded arguments, or shardings asked
  of jit) is a ``ShardedCompiled``: the same interface, compiled once for
  its ``SpmdLayout`` by XLA's SPMD partitioner; it lays each argument out
  as the program expects (an Array already laid out so passes its buffer).
  Single-device programs never see a sharded Array (its jit key differs),
  so ``Compiled``'s path has no sharding check.
- On the CPU host platform a sharded program is waited for before the call
  returns: its "devices" are threads of one process, and with programs
  with collectives still in flight on some of them, XLA's in-process
  rendezvous can deadlock (seen here with 8 host devices on 2 cores: a
  loop of 300 asynchronous data-parallel steps hangs after 50 to 100, in
  JAX 0.10.2 as in didax). The CPU does the work either way, so waiting
  costs little; accelerators keep asynchronous dispatch.
- One dispatch path: ``Compiled.run`` executes every program, whether the
  api's jit cache-hit path, a nested eager jit call, or any primitive
  applied eagerly by the compiled route (``apply_primitive``: eager
  evaluation's one route to XLA, see ``interpreters.evaluation``).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Hashable, Sequence
from typing import Any, Final, final

import attrs
import numpy as np
from jaxlib.mlir import ir

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import abstract_eval
from didax.core.array import Array
from didax.core.cache import CacheInfo, LRUCache
from didax.core.config import x64_enabled
from didax.core.primitive import Primitive
from didax.core.sharding import Mesh, NamedSharding
from didax.core.values import as_array, get_aval
from didax.interpreters.evaluation import set_compiled_evaluator
from didax.interpreters.jit import jit_p
from didax.interpreters.parallel import program_meshes
from didax.ir.fingerprint import fingerprint
from didax.ir.jaxpr import Jaxpr, JaxprEqn, Var
from didax.lowering import persistent_cache, xla
from didax.lowering.array import BACKEND
from didax.lowering.mlir import LOWERING_RULES, SpmdAnnotations, lower_to_module
from didax.lowering.sharding import (
    SpmdLayout,
    device_order,
    mesh_of,
    named_from_hlo,
    put,
    replicated,
    sharded_result_handlers,
)


class _Inspectable:
    """What both kinds of compiled program show: the module's text, XLA's costs and HLO."""

    executable: xla.Executable
    module: ir.Module

    @property
    def text(self) -> str:
        with self.module.context:
            return str(self.module)

    def cost_analysis(self) -> dict[str, float]:
        """XLA's cost estimates for this executable (``flops``, ``transcendentals``, bytes)."""
        return xla.cost_analysis(self.executable)

    def optimized_hlo(self) -> str:
        """The HLO XLA compiled (for one device of an SPMD program, collectives included)."""
        return xla.optimized_hlo(self.executable)


# NumPy arguments up to this size are copied into reused host arrays; larger
# ones into fresh copies (whose cost then dwarfs a fresh buffer's).
_STAGED_BYTES: Final = 1 << 20
_STAGES: Final = 4  # reused sets of host arrays kept per program


@final
class _KeptBytes:
    """The host memory all programs' stages keep, within a limit.

    Without one, each program in the compile cache (up to 1,024) would keep
    a copy of its last NumPy arguments: 180 programs called once each with
    1 MiB arguments grew the process by 434 MiB, JAX's by 263 MiB (measured
    once, RSS). Past the limit a call's copies are fresh and go with the call.
    """

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
_SPINS: Final = 400  # polls of a short program's results (~0.25 µs each) before blocking


@final
class _RunTime:
    """How long a program's runs take on a CPU (launch to results), and running it synchronously.

    A short program's call on NumPy arguments is cheaper made synchronous,
    the arguments passed as they are (jaxlib copies or aliases them) and
    the caller polling until the results are ready, than with its
    arguments copied and the program left to run on an XLA worker
    thread. Per-example gradients on 66 KB of NumPy arguments, each call
    waited for, alternating rounds: 31 µs a call against 69 µs
    (unaligned, copied) and JAX's 67 µs. Blocking instead of polling
    gives most of it back: the caller's thread sleeps, and waking it
    costs more than such a program. A long program keeps asynchronous
    dispatch (its unaligned NumPy arguments are copied), so that the
    caller's Python overlaps it as in JAX. A program is short until
    ``_TIMED_RUNS`` runs have been timed, then while its shortest run
    took ``SHORT_RUN_S`` or less: the shortest only decreases, so a
    program found short stays short and is no longer timed. A long one
    is timed again every ``_RETIMED_EVERY`` calls. The counts are not
    locked: threads racing on them only time a run more or less.
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

    jaxlib reads a NumPy argument after the call has returned (on a CPU it
    aliases an aligned array, and copies others on a worker thread), so a
    caller's array is copied first unless the call waits for its program.
    Copying into aligned host arrays reused from call to call costs less
    than a fresh copy each call, which jaxlib then copies again. For a long
    program it also costs less than letting jaxlib copy the caller's array
    and blocking until the program has run (a short program's call waits,
    polling: see ``_RunTime``). A stage is reused once ``last``, a
    result of the call that read it, is ready: the program has run. The
    arrays it keeps count against ``STAGE_MEMORY``.

    An aligned array is not copied on a CPU: the program runs on an XLA
    worker thread, most likely on the other core, and reading lines the
    caller's core has just written made it slower by far more than the
    copy (the same arguments aligned, in a tight loop: ~4.9x JAX's call
    with the copy, ~1.4x passing them and waiting).
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
@attrs.frozen(eq=False)
class Compiled(_Inspectable):
    """An executable with the types of its parameters and results, and its module.

    Arrays pass their device buffers. A call with NumPy arguments runs
    through jaxlib's C++ dispatch (``xla.fast_dispatch``), which moves them
    to the device (see ``_execute`` for when it may read them); a call on
    device buffers alone calls the executable directly,
    which costs less than that dispatch's signature checks (a jitted call
    on two f64[3] Arrays: 8.1 µs against 13.8 µs, measured in alternating
    rounds).
    """

    executable: xla.Executable
    in_avals: tuple[ShapedArray, ...]
    out_avals: tuple[ShapedArray, ...]
    module: ir.Module
    handlers: list[xla.ResultHandler] = attrs.field(init=False)
    fast: xla.FastCall = attrs.field(init=False)
    # Host copies of NumPy arguments, reused once the program that read them ran.
    stages: list[_Stage] = attrs.field(init=False, factory=list)
    # The result whose readiness tells a stage is free (the smallest one: it is kept).
    smallest_out: int = attrs.field(init=False, default=0)
    # By argument position, the last NumPy array (a weak reference: an id could
    # be reused by another array once that one is freed) and whether jaxlib aliases it.
    seen: dict[int, tuple[weakref.ref[np.ndarray[Any, Any]], bool]] = attrs.field(
        init=False, factory=dict
    )
    # On a CPU, how long the program's runs take: whether a call on NumPy arguments waits.
    run_time: _RunTime = attrs.field(init=False, factory=_RunTime)

    def __attrs_post_init__(self) -> None:
        outs = [(a.shape, a.dtype) for a in self.out_avals]
        handlers = xla.result_handlers(outs)
        executable = self.executable

        def slow(*args: Any) -> list[xla.Buffer]:
            # Not a method: the fast path must not hold this object (a cycle
            # through jaxlib's C++ function would outlive the compile cache).
            buffers = [x if xla.is_buffer(x) else to_buffer(x) for x in args]
            return xla.execute(executable, buffers, handlers)

        fast = xla.fast_dispatch(executable, len(self.in_avals), outs, slow)
        object.__setattr__(self, "handlers", handlers)
        object.__setattr__(self, "fast", fast)
        if self.out_avals:
            sizes = [a.size * a.dtype.itemsize for a in self.out_avals]
            object.__setattr__(self, "smallest_out", sizes.index(min(sizes)))

    def run(
        self,
        const_buffers: Sequence[xla.Buffer],
        args: Sequence[Any],
        donated: frozenset[int] = frozenset(),
    ) -> list[Array]:
        """Executes on constants already on the device, then ``args``.

        ``donated`` holds the positions (in ``args``) of arguments the program
        was compiled to donate: an Array whose buffer XLA took is deleted, as
        JAX's; other values are given fresh buffers, never a shared one.
        """
        if donated:
            return self._run_donating(const_buffers, args, donated)
        outs = self._execute(*_arguments(const_buffers, args))
        wrap = Array.from_buffer
        return [wrap(b, a) for b, a in zip(outs, self.out_avals, strict=True)]

    def run_single(self, const_buffers: Sequence[xla.Buffer], args: Sequence[Any]) -> Array:
        """``run`` for a program with one result (the jit hit path's common case)."""
        (out,) = self._execute(*_arguments(const_buffers, args))
        return Array.from_buffer(out, self.out_avals[0])

    def _execute(self, values: list[Any], host: bool) -> list[xla.Buffer]:
        if not host:
            return xla.execute(self.executable, values, self.handlers)
        # jaxlib reads a NumPy argument after the call has returned, while
        # its caller may write to it as soon as the call returns. On a CPU,
        # a short program's arguments are passed as they are and the call
        # returns once it has run (see ``_RunTime``). So is an array jaxlib
        # aliases (an aligned one): copying it would cost the program more
        # than the copy (see ``_Stage``). Any other is copied into a host
        # array of this program's, which nobody else writes to, and the
        # call returns at once.
        alias = BACKEND.host_is_device and bool(self.out_avals)
        if alias and self.run_time.short():
            return self.run_time.run(self.fast, values, short=True)
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
                else:  # reading the address costs ~1 µs: once per array object
                    passed = xla.aliased_on_transfer(v)
                    seen[i] = (weakref.ref(v), passed)
            if passed:
                wait = True
            else:
                if stage is None:
                    stage = self._stage()
                values[i] = stage.copy(i, v)
        if wait:
            outs = self.run_time.run(self.fast, values, short=False)
        else:
            outs = self.fast(x64_enabled(), *values)
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

    def _run_donating(
        self, const_buffers: Sequence[xla.Buffer], args: Sequence[Any], donated: frozenset[int]
    ) -> list[Array]:
        buffers = list(const_buffers)
        for i, x in enumerate(args):
            if i in donated and type(x) is not Array:
                buffers.append(xla.to_device(as_array(x), copy=True))
            else:
                buffers.append(to_buffer(x))
        outs = xla.execute(self.executable, buffers, self.handlers)
        for i in donated:
            x = args[i]
            if type(x) is Array and buffers[len(const_buffers) + i].is_deleted():
                x.delete()
        wrap = Array.from_buffer
        return [wrap(b, a) for b, a in zip(outs, self.out_avals, strict=True)]

    def place_consts(self, consts: Sequence[Any]) -> tuple[xla.Buffer, ...]:
        """The constants' device buffers, made once per traced program."""
        return tuple(map(to_buffer, consts))


@final
@attrs.frozen(eq=False)
class ShardedCompiled(_Inspectable):
    """An SPMD executable over a mesh: ``Compiled``'s interface; arguments laid out by ``layout``.

    Results whose layout was not asked for take XLA's choice, read back
    from the executable as ``NamedSharding``s on the program's mesh.
    """

    executable: xla.Executable
    out_avals: tuple[ShapedArray, ...]
    module: ir.Module
    layout: SpmdLayout
    out_shardings: tuple[NamedSharding, ...] = attrs.field(init=False)
    handlers: list[xla.ResultHandler] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        chosen = xla.output_shardings(self.executable)
        mesh = self.layout.mesh
        if len(chosen) != len(self.out_avals):
            # A one-device program reports no shardings: everything is whole.
            chosen = [None] * len(self.out_avals)
        outs = tuple(
            asked if asked is not None else named_from_hlo(mesh, a.ndim, c)
            for asked, a, c in zip(self.layout.out_shardings, self.out_avals, chosen, strict=True)
        )
        object.__setattr__(self, "out_shardings", outs)
        object.__setattr__(self, "handlers", sharded_result_handlers(self.out_avals, outs))

    def place_consts(self, consts: Sequence[Any]) -> tuple[xla.Buffer, ...]:
        return tuple(put(c, s) for c, s in zip(consts, self.layout.in_shardings, strict=False))

    def run(
        self,
        const_buffers: Sequence[xla.Buffer],
        args: Sequence[Any],
        donated: frozenset[int] = frozenset(),
    ) -> list[Array]:
        """Executes on constants already placed, then ``args`` (laid out as the program expects).

        Donation is a hint XLA may take; a sharded program does not take it.
        """
        buffers = list(const_buffers)
        shardings = self.layout.in_shardings[len(buffers) :]
        for x, s in zip(args, shardings, strict=True):
            buffers.append(put(x, s))
        outs = xla.execute(self.executable, buffers, self.handlers)
        if BACKEND.host_is_device:
            for b in outs:
                b.block_until_ready()
        wrap = Array.from_sharded
        return [
            wrap(b, a, s) for b, a, s in zip(outs, self.out_avals, self.out_shardings, strict=True)
        ]

    def run_single(self, const_buffers: Sequence[xla.Buffer], args: Sequence[Any]) -> Array:
        return self.run(const_buffers, args)[0]


AnyCompiled = Compiled | ShardedCompiled

COMPILE_CACHE: Final[LRUCache[AnyCompiled]] = LRUCache(maxsize=1024)


def compile_cache_info() -> CacheInfo:
    """Hits, misses and size of the process-wide cache of compiled executables."""
    return COMPILE_CACHE.info()


def clear_caches() -> None:
    """Empties the compile cache and the caches of device scalars and one-equation programs."""
    COMPILE_CACHE.clear()
    _EAGER_PROGRAMS.clear()
    _SCALAR_BUFFERS.clear()


def spmd_annotations(jaxpr: Jaxpr, layout: SpmdLayout) -> SpmdAnnotations:
    return SpmdAnnotations(
        layout.num_partitions,
        tuple(layout.in_texts(jaxpr.in_avals)),
        tuple(layout.out_texts(jaxpr.out_avals)),
    )


def compile_jaxpr(
    jaxpr: Jaxpr,
    name: str = "main",
    donated: frozenset[int] = frozenset(),
    layout: SpmdLayout | None = None,
) -> AnyCompiled:
    """The executable for ``jaxpr`` (constant-free), compiled at most once per program.

    Keyed by the fingerprint, which is computed once per jaxpr object: a
    nested eager jit call finds its executable with two dict lookups. The
    inputs at the positions in ``donated`` are donated to XLA. With a
    ``layout``, one SPMD program for its mesh (not kept on disk).
    """
    if layout is not None:

        def build_spmd() -> AnyCompiled:
            module = lower_to_module(jaxpr, name, spmd=spmd_annotations(jaxpr, layout))
            choose = [s is None for s in layout.out_shardings]
            executable = xla.compile_spmd(module, device_order(layout.mesh), choose)
            return ShardedCompiled(executable, jaxpr.out_avals, module, layout)

        return COMPILE_CACHE.get_or_create((fingerprint(jaxpr), layout), build_spmd)

    def build() -> AnyCompiled:
        module = lower_to_module(jaxpr, name, donated)
        executable = persistent_cache.compile_module(module)
        return Compiled(executable, jaxpr.in_avals, jaxpr.out_avals, module)

    key: Hashable = (fingerprint(jaxpr), donated) if donated else fingerprint(jaxpr)
    return COMPILE_CACHE.get_or_create(key, build)


def layout_for_args(
    args: Sequence[Any], n_outs: int, meshes: Sequence[Mesh] = ()
) -> SpmdLayout | None:
    """The layout a program takes from its arguments' shardings and the meshes it names.

    None when everything is on one device. Arguments laid out over a mesh
    keep their layout; the others are replicated over it; XLA chooses the
    results' layouts.
    """
    shardings = [x.committed_sharding if type(x) is Array else None for x in args]
    mesh = mesh_of([*shardings, *meshes])
    if mesh is None:
        return None
    ins = tuple(s if isinstance(s, NamedSharding) else replicated(mesh) for s in shardings)
    return SpmdLayout(mesh, ins, (None,) * n_outs)


def _compiled_for(jaxpr: Jaxpr, name: str, args: Sequence[Any]) -> AnyCompiled:
    """The program for ``jaxpr`` on these arguments: over a mesh if they or it name one."""
    meshes = program_meshes(jaxpr)
    if meshes or any(type(x) is Array and x.committed_sharding is not None for x in args):
        layout = layout_for_args(args, len(jaxpr.outs), meshes)
        if layout is not None:
            return compile_jaxpr(jaxpr, name, layout=layout)
    return compile_jaxpr(jaxpr, name)


def _arguments(const_buffers: Sequence[xla.Buffer], args: Sequence[Any]) -> tuple[list[Any], bool]:
    """The values ``Compiled.fast`` takes, and whether one is a NumPy array.

    Arrays give their device buffers, scalars (rank-0 NumPy arrays too: the
    weak scalars of ``x * 2``) their kept device copies (``to_buffer``);
    other NumPy arrays stay as they are (see ``Compiled._execute``).
    """
    values: list[Any] = list(const_buffers)
    host = False
    for x in args:  # a loop: cheaper than a comprehension here
        if type(x) is Array:
            values.append(x.buffer)
        elif type(x) is np.ndarray:
            if x.ndim == 0:
                values.append(_numpy_scalar_buffer(x))
            else:  # see ``Compiled._execute``
                values.append(x)
                host = True
        else:
            values.append(to_buffer(x))
    return values, host


def to_buffer(x: Any) -> xla.Buffer:
    """``x``'s device buffer: an Array's own (transferred at most once), else a fresh copy."""
    t = type(x)
    if t is Array:
        buffer: xla.Buffer = x.buffer
        return buffer
    if t is float or t is int or t is bool or t is complex:
        return _scalar_buffer(x)
    if isinstance(x, np.generic):
        return _numpy_scalar_buffer(x)
    return xla.to_device(as_array(x), copy=True)  # never aliasing the caller's memory


# Scalars are immutable and recur (step sizes, flags, loop bounds), so their
# device copies are kept and reused. A Python scalar's key tells 1 from 1.0
# from True, and -0.0 from 0.0 (a zero, inf or NaN float is keyed by its bits, a
# complex number by its parts' bits, as complex equality ignores zeros' signs); a
# NumPy scalar's is its dtype and bytes. Both hold the x64 mode, which
# decides the buffer's dtype (float64 or float32). A plain dict, emptied when
# full (its scalars then go to the device again): the jit hit path reads it
# with one lookup (two Python scalars' buffers: 0.8 µs a call, against 1.8 µs
# through an LRUCache, whose recency bookkeeping misses on alternating keys).
_SCALAR_BUFFERS: Final[dict[Hashable, xla.Buffer]] = {}
_SCALAR_BUFFERS_SIZE: Final = 256


def _scalar_buffer(x: bool | int | float | complex) -> xla.Buffer:
    value: object = x
    if type(x) is float:
        if not (x and x * 0.0 == 0.0):  # a zero, an inf or a NaN
            value = x.hex()
    elif type(x) is complex:
        value = (x.real.hex(), x.imag.hex())
    key = (type(x), value, x64_enabled())
    buffer = _SCALAR_BUFFERS.get(key)
    return buffer if buffer is not None else _keep_scalar(key, x)


def _numpy_scalar_buffer(x: np.generic | np.ndarray[Any, Any]) -> xla.Buffer:
    """A NumPy scalar's (or rank-0 array's) kept device copy, keyed by its dtype and bytes."""
    key = (x.dtype, x.tobytes(), x64_enabled())
    buffer = _SCALAR_BUFFERS.get(key)
    # np.array copies: the kept buffer must never alias the caller's memory.
    return buffer if buffer is not None else _keep_scalar(key, np.array(x))


def _keep_scalar(key: Hashable, x: Any) -> xla.Buffer:
    """``x``'s new device copy, kept under ``key``."""
    # Two threads may both make one; either is kept.
    if len(_SCALAR_BUFFERS) >= _SCALAR_BUFFERS_SIZE:
        _SCALAR_BUFFERS.clear()
    buffer = _SCALAR_BUFFERS[key] = xla.to_device(as_array(x))
    return buffer


# --- the compiled route of eager evaluation ---------------------------------------------

# A primitive applied eagerly runs as a one-equation program, as JAX's
# ``apply_primitive``: the program for a (primitive, operands' jit keys,
# params) is found with one dict lookup (the jit keys hold the operands'
# types and, for an Array laid out over several devices, its sharding).
# Bounded: cleared when full (the compile cache keeps the executables).
_EAGER_PROGRAMS: Final[dict[Hashable, AnyCompiled]] = {}
_EAGER_PROGRAMS_MAX: Final = 1024


def apply_primitive(prim: Primitive, *args: Any, **params: Any) -> list[Array]:
    """Runs ``prim`` on ``args`` now, compiled by XLA, where they live; results are device Arrays.

    A jit equation's program is its jaxpr itself (the one dispatch path:
    the api's cache-hit path runs ``Compiled.run`` too).
    """
    if prim is jit_p:
        return _compiled_for(params["jaxpr"], params["name"], args).run((), args)
    keys = [x.jit_key if type(x) is Array else get_aval(x) for x in args]
    try:
        key: Hashable = (prim, *keys, *params.items())
        program = _EAGER_PROGRAMS.get(key)
    except TypeError:  # an unhashable param: compiled (and found in the compile cache) each time
        key, program = None, None
    if program is None:
        avals = [k if isinstance(k, ShapedArray) else k[0] for k in keys]
        program = _compiled_for(_one_equation(prim, avals, params), prim.name, args)
        if key is not None:
            if len(_EAGER_PROGRAMS) >= _EAGER_PROGRAMS_MAX:
                _EAGER_PROGRAMS.clear()
            _EAGER_PROGRAMS[key] = program
    return program.run((), args)


def _one_equation(prim: Primitive, avals: Sequence[ShapedArray], params: dict[str, Any]) -> Jaxpr:
    ins = tuple(Var(a) for a in avals)
    outs = tuple(Var(a) for a in abstract_eval(prim, avals, params))
    return Jaxpr(ins, (JaxprEqn(prim, ins, params, outs),), outs)


@final
class _CompiledRoute:
    """Eager evaluation's compiled route (``interpreters.evaluation.CompiledEvaluator``)."""

    def run(self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> list[Any]:
        return apply_primitive(prim, *args, **params)

    def lowers(self, prim: Primitive) -> bool:
        return LOWERING_RULES.lowers_on(prim, xla.platform())

    def platform(self) -> str:
        return xla.platform()


set_compiled_evaluator(_CompiledRoute())
