"""Compiled programs and the compile cache: a jaxpr compiled once, then run on any arguments.

Design rules:
- One process-wide compile cache, an ``LRUCache`` keyed by the jaxpr's
  structural fingerprint (which includes its input types), never by object
  identity: re-creating ``jit(f)``, or transforming it again, finds the
  executable compiled before.
- A key is compiled once even when many threads ask for it at once.
- One dispatch path: ``Compiled.run`` executes every single-device
  program, whether the api's jit cache-hit path, a nested eager jit call,
  or any primitive applied eagerly by the compiled route (``eager``).
  How its arguments reach it is ``host_arguments``' concern; results come
  back as Arrays.
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
- A program the device has no memory for fails with XLA's own error (a
  ``RuntimeError``, RESOURCE_EXHAUSTED, naming the bytes of the allocation
  that failed), as JAX's; a note adds the program's name and its results'
  types and bytes, which XLA's message does not say. The program stays
  cached (it is a valid one) and the failed call leaves nothing else
  behind: the next call runs as usual. (An intermediate that fails once
  the call has returned surfaces where the result is read, with XLA's
  message alone.)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Final, NamedTuple, final

import attrs
from jaxlib.mlir import ir

from didax.core.abstract import ShapedArray
from didax.core.array import Array
from didax.core.cache import CacheInfo, LRUCache
from didax.core.config import flag
from didax.core.sharding import NamedSharding
from didax.core.transfer_guard import GUARDS_IN_FORCE
from didax.core.values import as_array, guard_host_data
from didax.ir.fingerprint import fingerprint
from didax.ir.jaxpr import Jaxpr
from didax.lowering import persistent_cache, xla
from didax.lowering.array import BACKEND
from didax.lowering.host_arguments import HostArguments, call_values, to_buffer
from didax.lowering.mlir import SpmdAnnotations, lower_with_callbacks
from didax.lowering.sharding import (
    SpmdLayout,
    device_order,
    named_from_hlo,
    put,
    sharded_result_handlers,
)


class _Inspectable:
    """What both kinds of compiled program show: the module's text, XLA's costs and HLO."""

    executable: xla.Executable
    module: ir.Module
    out_avals: tuple[ShapedArray, ...]

    def note_out_of_memory(self, error: BaseException) -> None:
        """Adds the program's name and results to XLA's out-of-memory error, which lacks them."""
        if not xla.is_out_of_memory(error):
            return
        with self.module.context:
            name = ir.StringAttr(self.module.operation.attributes["sym_name"]).value
        nbytes = sum(a.size * a.dtype.itemsize for a in self.out_avals)
        types = ", ".join(a.str_short() for a in self.out_avals)
        error.add_note(
            f"didax: out of device memory running the program {name!r}, whose results "
            f"({types}) take {nbytes} bytes ({nbytes / 2**30:.1f} GiB), besides its "
            "intermediates"
        )

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


class HotCall(NamedTuple):
    """A one-result, one-device program as jit's hit path runs it: on Arrays' buffers alone.

    ``call`` is jaxlib's C++ dispatch on device buffers (``FastDispatch.on_device``),
    given ``const_buffers`` then the arguments' buffers; its one result is an
    Array of ``out_aval``. ``program`` notes an out-of-memory error. (The C
    hit path, ``didax/core/_native.c``, reads the fields by position.)
    """

    call: xla.FastCall
    const_buffers: tuple[xla.Buffer, ...]
    out_aval: ShapedArray
    program: Compiled


@final
@attrs.frozen(eq=False)
class Compiled(_Inspectable):
    """An executable with the types of its parameters and results, and its module.

    Arrays pass their device buffers. A call with NumPy arguments runs
    through jaxlib's C++ dispatch (``xla.fast_dispatch``), which moves them
    to the device (``HostArguments.call`` says when it may read them); a
    call on device buffers alone takes the same dispatch (calling the
    executable from Python instead leaks native memory a call).
    """

    executable: xla.Executable
    in_avals: tuple[ShapedArray, ...]
    out_avals: tuple[ShapedArray, ...]
    module: ir.Module
    handlers: list[xla.ResultHandler] = attrs.field(init=False)
    fast: xla.FastDispatch = attrs.field(init=False)
    # How calls on NumPy arguments run: host copies, whether a call waits.
    host_arguments: HostArguments = attrs.field(init=False)

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
        sizes = [a.size * a.dtype.itemsize for a in self.out_avals]
        object.__setattr__(self, "handlers", handlers)
        object.__setattr__(self, "fast", fast)
        object.__setattr__(self, "host_arguments", HostArguments(sizes))

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
        outs = self._execute(*call_values(const_buffers, args))
        wrap = Array.from_buffer
        return [wrap(b, a) for b, a in zip(outs, self.out_avals, strict=True)]

    def run_single(self, const_buffers: Sequence[xla.Buffer], args: Sequence[Any]) -> Array:
        """``run`` for a program with one result (the jit hit path's common case).

        ``_execute`` written out: after a program over megabytes the
        interpreter's own data has left the CPU's caches, and each Python
        call on this path then costs microseconds, not tenths
        (docs/performance.md, "Dispatch internals").
        """
        values, host = call_values(const_buffers, args)
        try:
            if host:
                (out,) = self.host_arguments.call(self.fast.with_x64, values)
            else:
                (out,) = self.fast.on_device(*values)
        except RuntimeError as e:
            self.note_out_of_memory(e)
            raise
        return Array.from_buffer(out, self.out_avals[0])

    def _execute(self, values: list[Any], host: bool) -> list[xla.Buffer]:
        try:  # (free on the hit path: a try costs nothing until it catches)
            if not host:
                # Device buffers too go through jaxlib's C++ dispatch, not
                # ``execute_sharded`` from Python: each call of that keeps a few
                # bytes of native memory, which a long training loop's resident
                # set shows (bench/soak.py); the C++ path keeps none.
                return self.fast.on_device(*values)
            return self.host_arguments.call(self.fast.with_x64, values)
        except RuntimeError as e:
            self.note_out_of_memory(e)
            raise

    def _run_donating(
        self, const_buffers: Sequence[xla.Buffer], args: Sequence[Any], donated: frozenset[int]
    ) -> list[Array]:
        buffers = list(const_buffers)
        for i, x in enumerate(args):
            if GUARDS_IN_FORCE[0] and type(x) is not Array:
                guard_host_data(x)
            if i in donated and type(x) is not Array:
                buffers.append(xla.to_device(as_array(x), copy=True))
            else:
                buffers.append(to_buffer(x))
        try:
            outs = xla.execute(self.executable, buffers, self.handlers)
        except RuntimeError as e:
            self.note_out_of_memory(e)
            raise
        for i in donated:
            x = args[i]
            if type(x) is Array and buffers[len(const_buffers) + i].is_deleted():
                x.delete()
        wrap = Array.from_buffer
        return [wrap(b, a) for b, a in zip(outs, self.out_avals, strict=True)]

    def place_consts(self, consts: Sequence[Any]) -> tuple[xla.Buffer, ...]:
        """The constants' device buffers, made once per traced program."""
        return tuple(map(to_buffer, consts))

    def hot_call(self, const_buffers: tuple[xla.Buffer, ...]) -> HotCall | None:
        """This program's call for jit's hit path, or None if it has several results."""
        if len(self.out_avals) != 1:
            return None
        return HotCall(self.fast.on_device, const_buffers, self.out_avals[0], self)


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

    def hot_call(self, const_buffers: tuple[xla.Buffer, ...]) -> None:
        """None: its arguments are laid out first (``run``), which jit's hit path does not do."""
        return None

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
        try:
            outs = xla.execute(self.executable, buffers, self.handlers)
            if BACKEND.host_is_device:
                for b in outs:
                    b.block_until_ready()
        except RuntimeError as e:
            self.note_out_of_memory(e)
            raise
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


def spmd_annotations(jaxpr: Jaxpr, layout: SpmdLayout) -> SpmdAnnotations:
    return SpmdAnnotations(
        layout.num_partitions,
        tuple(layout.in_texts(jaxpr.in_avals)),
        tuple(layout.out_texts(jaxpr.out_avals)),
    )


logger: Final = logging.getLogger(__name__)


def _logged(name: str, jaxpr: Jaxpr, build: Callable[[], AnyCompiled]) -> AnyCompiled:
    """``build()``, logged as JAX logs a compile: at WARNING under ``log_compiles``, else DEBUG."""
    level = logging.WARNING if flag("jax_log_compiles") else logging.DEBUG
    if not logger.isEnabledFor(level):
        return build()
    types = [a.str_short() for a in jaxpr.in_avals]
    logger.log(level, "Compiling %s with global shapes and types %s.", name, types)
    start = time.perf_counter()
    compiled = build()
    took = time.perf_counter() - start
    logger.log(level, "Finished XLA compilation of jit(%s) in %.6f sec", name, took)
    return compiled


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
            spmd = spmd_annotations(jaxpr, layout)
            module, callbacks = lower_with_callbacks(jaxpr, name, spmd=spmd)
            if callbacks:
                raise NotImplementedError(
                    "host callbacks (debug.print, pure_callback, io_callback) in a program "
                    "sharded over a mesh: didax calls them from single-device programs only"
                )
            choose = [s is None for s in layout.out_shardings]
            executable = xla.compile_spmd(module, device_order(layout.mesh), choose)
            return ShardedCompiled(executable, jaxpr.out_avals, module, layout)

        return COMPILE_CACHE.get_or_create(
            (fingerprint(jaxpr), layout), lambda: _logged(name, jaxpr, build_spmd)
        )

    def build() -> AnyCompiled:
        module, callbacks = lower_with_callbacks(jaxpr, name, donated)
        if callbacks:
            executable = xla.compile_with_callbacks(module, callbacks)
        else:
            executable = persistent_cache.compile_module(module)
        return Compiled(executable, jaxpr.in_avals, jaxpr.out_avals, module)

    key: Hashable = (fingerprint(jaxpr), donated) if donated else fingerprint(jaxpr)
    return COMPILE_CACHE.get_or_create(key, lambda: _logged(name, jaxpr, build))
