"""The adapter over jax/jaxlib: every call into their MLIR context, compiler and transfers.

Design rules:
- This is the only module of didax that touches jaxlib's compile and
  transfer functions (import-linter enforces that only ``didax.lowering``
  imports jaxlib). JAX's own Autodidax broke on these APIs five times
  between 2023 and 2026; when they change again, this file changes and
  nothing else.
- It is tested with one jax/jaxlib range (``versions.TESTED_JAX_RANGE``,
  the range ``pyproject.toml`` installs); outside it ``check_version``
  warns at import, naming the range, instead of refusing: GPU images ship
  other versions, and the adapter's calls often still work there.
  ``tests/lowering/test_xla_adapter.py`` is the smoke test.
- Programs over several devices are compiled for XLA's SPMD partitioner
  (``compile_spmd``): one program, ``num_partitions`` = the number of
  devices, the device assignment in the mesh's order, shardings read from
  the module's ``mhlo.sharding`` attributes (GSPMD's form; see
  ``USE_SHARDY``).
- float64 and int64 round-trip exactly without touching the user's global
  JAX configuration: transfers run inside ``jax.enable_x64(True)``, which is
  scoped to the call (and to the thread).
"""

from __future__ import annotations

import functools
import io
import operator
import os
from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple, TypeAlias

import jax
import numpy as np

# Private JAX modules, used here only: the MLIR context needs JAX's dialects
# registered (func, stablehlo, chlo...), which only JAX's helper does
# exactly; the jax-side aval is what jaxlib's batched transfer takes.
from jax._src import config as _jax_config
from jax._src import core as _jax_core
from jax._src import tree_util as _jax_tree_util
from jax._src import xla_bridge as _xla_bridge
from jax._src.interpreters import mlir as _jax_mlir
from jax._src.interpreters import pxla as _pxla
from jax.extend import backend as jax_backend
from jax.sharding import SingleDeviceSharding
from jaxlib import _jax as _jaxlib
from jaxlib import xla_client
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo, stablehlo

from didax.core.config import UPDATE_HOOKS
from didax.lowering.host_memory import note_compile
from didax.lowering.versions import check_version

# jaxlib's own types, declared for mypy in typings/jaxlib/_jax.pyi.
Buffer: TypeAlias = _jaxlib.ArrayImpl  # a single-device jax Array
Executable: TypeAlias = _jaxlib.LoadedExecutable
Device: TypeAlias = _jaxlib.Device
JaxNamedSharding: TypeAlias = jax.sharding.NamedSharding  # jax's, for transfers
HloSharding: TypeAlias = xla_client.HloSharding
ResultHandler: TypeAlias = Callable[[Sequence[Buffer]], Any]  # makes an output buffer an Array
# Runs one executable on buffers, NumPy arrays and Python scalars (``fast_dispatch``).
FastCall: TypeAlias = Callable[..., list[Buffer]]


check_version()


# The dialects didax's modules use besides stablehlo and chlo, loaded into
# each context: an op built from Python needs its dialect loaded (the
# registry's others load only when text is parsed).
_LOADED_DIALECTS: Final = ("func",)


def make_ir_context() -> ir.Context:
    """A fresh MLIR context with the dialects StableHLO programs use.

    JAX's registry (``upstream_dialects``), its stablehlo and chlo dialects
    and its process-wide MLIR thread pool, as ``jax``'s own
    ``make_ir_context``, without loading every registered dialect first:
    that load is most of what JAX's helper costs, paid on every first call
    (the figures are in docs/performance.md). A test checks that modules
    print the same as in JAX's context. The shared
    pool matters: a context of its own starts threads of its own to verify
    a module of several functions, and the compile cache keeps each
    module's context alive (two more threads per cached program).
    """
    context = ir.Context()
    context.enable_multithreading(False)  # drops the pool of its own: JAX's instead
    context.set_thread_pool(_jax_mlir.global_thread_pool)
    context.append_dialect_registry(_jax_mlir.upstream_dialects)
    stablehlo.register_dialect(context)  # registered and loaded
    chlo.register_dialect(context)
    for name in _LOADED_DIALECTS:
        context.dialects[name]  # indexing loads the dialect
    return context


def ir_context() -> ir.Context:
    """A fresh MLIR context for one module, as JAX makes one per lowering.

    A context interns every type and attribute made in it (a new
    ``tensor<Nxf64>`` per new shape) and frees them only with itself, so a
    long-lived context grows with every new shape compiled. One per module
    costs little and dies with the module (when the compile cache evicts
    it); a shared context held far more memory per new shape, and sharing
    one among a few modules was worse still (docs/performance.md, "Dispatch
    internals"; tests/lowering/test_memory.py bounds it).
    """
    return make_ir_context()


# Called with the platform's name when the backend starts (on first use, not
# at import: several processes must call ``distributed_initialize`` first).
_ON_START: Final[list[Callable[[str], None]]] = []


def on_backend_start(hook: Callable[[str], None]) -> None:
    """Runs ``hook(platform)`` when the backend starts (now, if it has)."""
    _ON_START.append(hook)
    if backend_started():
        hook(_backend().platform)


def backend_started() -> bool:
    return _backend.cache_info().currsize > 0


@functools.cache
def _backend() -> _jaxlib.Client:
    # jax annotates it with an alias mypy cannot resolve; the stub says what it is.
    backend: _jaxlib.Client = jax_backend.get_backend()
    for hook in _ON_START:
        hook(backend.platform)
    return backend


def distributed_initialize(
    coordinator_address: str,
    num_processes: int,
    process_id: int,
    cpu_collectives: str | None,
    local_device_ids: Sequence[int] | None = None,
) -> None:
    """Joins this process to a multi-process run (jaxlib's coordination service).

    Must come before the backend starts; ``cpu_collectives`` ("gloo", "mpi")
    is the CPU client's cross-process collectives, as JAX's
    ``jax_cpu_collectives_implementation``.
    """
    if backend_started():
        raise RuntimeError("distributed.initialize must be called before anything runs on a device")
    if cpu_collectives is not None:
        update: Any = jax.config.update  # untyped in jax
        update("jax_cpu_collectives_implementation", cpu_collectives)
    jax.distributed.initialize(
        coordinator_address, num_processes, process_id, local_device_ids=local_device_ids
    )


def distributed_shutdown() -> None:
    jax.distributed.shutdown()  # type: ignore[no-untyped-call]


def process_index() -> int:
    index: int = _backend().process_index()
    return index


def process_count() -> int:
    return int(jax.process_count())


def local_devices() -> list[_jaxlib.Device]:
    """The devices this process drives."""
    return list(_backend().local_devices())


@functools.cache
def device() -> _jaxlib.Device:
    """The device didax computes on: the default backend's first device."""
    return _backend().devices()[0]


def devices() -> list[_jaxlib.Device]:
    """Every device of the default backend, in id order."""
    return list(_backend().devices())


@functools.cache
def platform() -> str:
    """The backend's platform as lowering rules name it: ``"cpu"``, ``"cuda"``, ``"rocm"``...

    jaxlib's client calls both GPU platforms ``"gpu"``; JAX's own
    ``canonicalize_platform`` says which one is present, as JAX asks it
    before lowering.
    """
    name: str = _xla_bridge.canonicalize_platform(_backend().platform)
    return name


def module_bytecode(module: ir.Module) -> bytes:
    """The module as MLIR bytecode: what XLA parses fastest, and what the disk cache keys on."""
    out = io.BytesIO()
    module.operation.write_bytecode(file=out)
    return out.getvalue()


def compile_options() -> Any:
    """The options every program is compiled with (SPMD ones add their partitioning).

    XLA's defaults, passed explicitly: without them XLA's CPU compiler uses
    fast min/max, which drops NaNs. Not its older CPU loop emitters
    (``xla_cpu_use_fusion_emitters=False``), though they compile small
    programs in two thirds of the time and run some faster: they miscompile
    a ``scatter_add`` with int8 indices (JAX's own program too), and round
    ``tan``, ``atan`` and ``cbrt`` differently from JAX.
    """
    options: Any = xla_client.CompileOptions()  # its setters are not in jaxlib's stubs
    return options


def compile(module: ir.Module | str | bytes) -> Executable:  # noqa: A001 - the adapter's verb
    """Compiles a StableHLO module (its text, or its bytecode) for ``device()``.

    A module goes to XLA as MLIR bytecode, which parses faster than text;
    the options are ``compile_options()``.
    """
    note_compile()
    program = module_bytecode(module) if isinstance(module, ir.Module) else module
    return _backend().compile_and_load(program, [device()], compile_options())


# XLA reads the mhlo.sharding attributes either way; with Shardy off it runs
# GSPMD, the partitioner those attributes (and JAX's custom calls for manual
# sharding) were designed for.
USE_SHARDY: Final = False


def compile_with_callbacks(
    module: ir.Module, host_callbacks: Sequence[Callable[..., Any]]
) -> Executable:
    """Compiles ``module`` whose Python-callback custom calls name ``host_callbacks`` by index.

    jaxlib takes the callbacks with the module object (not its bytecode), as
    JAX's ``backend_compile_and_load`` passes them; such a program is never
    kept on disk, since its callbacks live in this process.
    """
    note_compile()
    devices = _jaxlib.DeviceList((device(),))
    # This overload (a module object, a DeviceList, callbacks) is missing from jaxlib's stubs.
    compile_and_load: Any = _backend().compile_and_load
    executable: Executable = compile_and_load(
        module, devices, compile_options(), host_callbacks=list(host_callbacks)
    )
    return executable


def spmd_compile_options(device_ids: Sequence[int], choose_outputs: Sequence[bool]) -> Any:
    """Options for one SPMD program over these devices (by id), as JAX's ``get_compile_options``.

    ``choose_outputs[i]`` lets XLA choose result ``i``'s layout (one not asked for).
    """
    options = compile_options()
    options.num_replicas = 1
    options.num_partitions = len(device_ids)
    build = options.executable_build_options
    build.use_spmd_partitioning = True
    build.use_shardy_partitioner = USE_SHARDY
    # Results without a requested sharding take the one XLA's propagation
    # gives them (read back with ``output_shardings``); the others keep theirs.
    build.allow_spmd_sharding_propagation_to_output = list(choose_outputs)
    options.device_assignment = xla_client.DeviceAssignment.create(
        np.asarray(device_ids, dtype=np.int64).reshape(1, len(device_ids))
    )
    return options


def compile_spmd(
    module: ir.Module | str | bytes,
    program_devices: Sequence[_jaxlib.Device],
    choose_outputs: Sequence[bool],
) -> Executable:
    """Compiles a module annotated with shardings for all of ``program_devices`` (in order)."""
    note_compile()
    program = module_bytecode(module) if isinstance(module, ir.Module) else module
    options = spmd_compile_options([d.id for d in program_devices], choose_outputs)
    return _backend().compile_and_load(program, list(program_devices), options)


def output_shardings(executable: Executable) -> list[Any]:
    """The shardings XLA chose for a program's results (``HloSharding`` each)."""
    protos = executable.get_output_shardings() or []
    return [xla_client.HloSharding.from_proto(p) for p in protos]


def hlo_sharding(text: str) -> HloSharding:
    """XLA's ``HloSharding`` parsed from its text (what ``mhlo.sharding`` holds)."""
    return xla_client.HloSharding.from_string(text)


def optimized_hlo(executable: Executable) -> str:
    """The HLO XLA compiled (after its passes: for an SPMD program, the partitioned one)."""
    text: str = executable.hlo_modules()[0].to_string()
    return text


def serialize(executable: Executable) -> bytes:
    """The executable as bytes that ``deserialize`` loads (in a process of the same build)."""
    return executable.serialize()


def deserialize(payload: bytes) -> Executable:
    """Loads an executable ``serialize`` wrote, for ``device()``.

    Loading one runs code of its making: only ever pass bytes didax wrote
    (the disk cache checks a checksum, in an owner-only directory). Raises
    XLA's runtime error on bytes it cannot parse.
    """
    devices = _jaxlib.DeviceList((device(),))
    return _backend().deserialize_executable(payload, devices, compile_options())


def compiler_identity() -> bytes:
    """What besides the program decides an executable: versions, device and compile options.

    jax and jaxlib versions, the platform and its version, the device
    kind, XLA's flags from the environment and the compile options, so a
    disk cache entry is used only by the build that can run it.
    """
    from importlib.metadata import version as installed_version

    parts = (
        installed_version("jax"),
        installed_version("jaxlib"),
        platform(),
        _backend().platform_version,
        device().device_kind,
        os.environ.get("XLA_FLAGS", ""),
    )
    options: bytes = compile_options().SerializeAsString()
    return "\0".join(parts).encode() + b"\0" + options


def _numeric(analysis: dict[str, Any]) -> dict[str, float]:
    return {
        k: float(v)
        for k, v in analysis.items()
        if isinstance(v, (int, float)) and not isinstance(v, bool)
    }


def refine_shapes(module: ir.Module) -> bytes:
    """The module's shape-polymorphic parts made static from ``main``'s static argument types.

    jaxlib's shape refinement, as JAX runs it before compiling a call of a
    polymorphic export: dimension values computed from the arguments'
    shapes propagate through the program, and its shape assertions are
    checked (a failed one raises). Returns the refined module's bytecode.
    """
    refined: bytes = _jaxlib.mlir.refine_polymorphic_shapes(
        mlir_module=module_bytecode(module),
        enable_shape_assertions=True,
        validate_static_shapes=True,
        enable_shardy=False,
    )
    return refined


def memory_analysis(executable: Executable) -> Any:
    """jaxlib's ``CompiledMemoryStats`` of an executable (a method its stubs leave out)."""
    loaded: Any = executable
    return loaded.get_compiled_memory_stats()


def cost_analysis(executable: Executable) -> dict[str, float]:
    """XLA's cost analysis of a compiled executable, as ``jax.stages.Compiled.cost_analysis``.

    The numeric entries of jaxlib's ``LoadedExecutable.cost_analysis()``:
    ``"flops"`` and ``"transcendentals"`` (absent when zero), ``"bytes
    accessed"``, per-operand entries. XLA computes it over the optimized
    HLO (fused, simplified), counting the body of a loop once.
    """
    return _numeric(executable.cost_analysis())


def lowered_cost_analysis(module: ir.Module | str) -> dict[str, float]:
    """XLA's cost analysis of a StableHLO module as lowered, before XLA's optimization passes.

    JAX's ``Lowered.cost_analysis()``: the module is converted to an HLO
    module and analysed by jaxlib's ``hlo_module_cost_analysis``. Only
    clients that are not PJRT C API plugins (the CPU client) can do it;
    others raise ``NotImplementedError``, as JAX's does.
    """
    backend = _backend()
    if "PJRT C API" in backend.platform_version:
        raise NotImplementedError(
            f"XLA cannot analyse a lowered module on {platform()}: "
            "use the compiled executable's cost analysis"
        )
    text = module if isinstance(module, str) else _module_text(module)
    computation = _jaxlib.mlir.mlir_module_to_xla_computation(text, use_tuple_args=False)
    analysis: dict[str, Any] = _jaxlib.hlo_module_cost_analysis(
        backend, computation.get_hlo_module()
    )
    return _numeric(analysis)


def _module_text(module: ir.Module) -> str:
    with module.context:
        return str(module)


def result_handlers(
    outs: Sequence[tuple[tuple[int, ...], np.dtype[Any]]], shardings: Sequence[Any] | None = None
) -> list[ResultHandler]:
    """Handlers for outputs of these shapes and dtypes, made once per executable.

    They wrap XLA's output buffers in C++, as JAX's own dispatch does; the
    alternatives (``execute``, or ``disassemble_into_single_device_arrays``)
    cost about twice as much per call. ``shardings`` (jax shardings, from
    ``jax_sharding``) lay results over several devices; by default each is
    on ``device()``.
    """
    if shardings is None:
        shardings = [_sharding()] * len(outs)
    return [
        _pxla.global_aval_to_result_handler(_jax_aval(shape, dtype), s, True)
        for (shape, dtype), s in zip(outs, shardings, strict=True)
    ]


def jax_named_sharding(
    devices_flat: tuple[_jaxlib.Device, ...],
    axis_sizes: tuple[int, ...],
    axis_names: tuple[str, ...],
    parts: tuple[Any, ...],
) -> JaxNamedSharding:
    """jax's ``NamedSharding`` for a layout didax describes (for transfers and result handlers)."""
    return _jax_named_sharding(devices_flat, axis_sizes, axis_names, parts)


@functools.lru_cache(maxsize=1024)
def _jax_named_sharding(
    devices_flat: tuple[_jaxlib.Device, ...],
    axis_sizes: tuple[int, ...],
    axis_names: tuple[str, ...],
    parts: tuple[Any, ...],
) -> JaxNamedSharding:
    grid = np.empty(len(devices_flat), dtype=object)
    grid[:] = devices_flat
    mesh = jax.sharding.Mesh(grid.reshape(axis_sizes), axis_names)
    spec: Any = jax.sharding.PartitionSpec(*parts)  # type: ignore[no-untyped-call]
    return jax.sharding.NamedSharding(mesh, spec)


def to_devices(
    pieces: Sequence[np.ndarray[Any, Any]],
    piece_devices: Sequence[_jaxlib.Device],
    shape: tuple[int, ...],
    sharding: jax.sharding.Sharding,
) -> Buffer:
    """One array laid out as the jax ``sharding`` says, from each device's piece (in order).

    The pieces are copied first: they are often views of the caller's
    array, which a buffer would alias (see ``to_device``; jaxlib's copying
    semantics fail on several devices with ``bad_function_call``).
    """
    dtype = pieces[0].dtype
    return _jaxlib.batched_device_put(
        _jax_aval(shape, dtype),
        sharding,
        [p.copy() for p in pieces],
        list(piece_devices),
        True,
        enable_x64=True,
    )


def shards(buffer: Buffer) -> list[tuple[_jaxlib.Device, Buffer]]:
    """A multi-device buffer's pieces, (device, single-device buffer) each."""
    return [(s.device, s.data) for s in buffer.addressable_shards]


def execute(
    executable: Executable, buffers: Sequence[Buffer], handlers: Sequence[ResultHandler]
) -> list[Buffer]:
    """Runs ``executable`` on device buffers; returns its result buffers."""
    return executable.execute_sharded(buffers).consume_with_handlers(handlers)


def is_out_of_memory(error: BaseException) -> bool:
    """Whether ``error`` is XLA's failure to allocate device memory (its RESOURCE_EXHAUSTED)."""
    return isinstance(error, RuntimeError) and str(error).startswith("RESOURCE_EXHAUSTED")


_X64: Final = _jax_config.enable_x64  # thread-local when set with ``swap_local``


class FastDispatch(NamedTuple):
    """An executable's two C++ entries: ``with_x64(x64, *args)``, and ``on_device(*buffers)``.

    Only host values depend on the x64 mode (it gives a Python scalar or a
    NumPy array its type); a call on device buffers alone skips setting it.
    """

    with_x64: FastCall
    on_device: FastCall


def fast_dispatch(
    executable: Executable,
    n_in: int,
    out_types: Sequence[tuple[tuple[int, ...], np.dtype[Any]]],
    slow: FastCall,
) -> FastDispatch:
    """jaxlib's C++ dispatch (JAX's own jit hit path) for one single-device executable.

    The returned function takes the x64 mode, then the program's arguments
    as device buffers, NumPy arrays or Python scalars, and returns its
    result buffers. NumPy arrays go to the device in C++, with the launch,
    which costs far less than transfers made from Python one by one
    (docs/performance.md, "Dispatch internals"). jaxlib reads a NumPy
    array's memory after the call has returned (it aliases a 64-byte-aligned one and
    copies others on a worker thread): pass only arrays nobody writes to
    until the results are ready.

    The first call with each argument signature (dtypes, shapes, weak
    types, placement) goes through ``slow(*args)``, which must run the
    program itself; jaxlib then keeps the signature's fast path. Host
    values are converted under JAX's x64 mode set to the one given (for
    this thread, for the call), which must be didax's: then they get the
    types didax's own conversion gave them when the program was traced.
    A value of another type makes XLA raise, never compute.
    """
    sharding = _sharding()
    n_out = len(out_types)
    out_avals = [_jax_aval(shape, dtype) for shape, dtype in out_types]
    fastpath = _pxla.MeshExecutableFastpathData(
        executable,
        _jax_tree_util.tree_structure([0] * n_out),  # results come back as a flat list
        [sharding] * n_in,
        [sharding] * n_out,
        out_avals,
        [True] * n_out,  # committed, as result_handlers makes them
        [True] * n_in,  # every parameter is kept
        [None] * n_in,  # default layouts
        [],  # no constants of its own: they are arguments
    )

    def cache_miss(*args: Any) -> tuple[list[Buffer], Any, bool]:
        return slow(*args), fastpath, False

    # A cache of its own: its entries go with this executable.
    call: FastCall = _jaxlib.pjit(
        "didax_program",
        None,
        cache_miss,
        [],
        [],
        _pxla.JitGlobalCppCacheKeys(),
        _jax_tree_util.dispatch_registry,
        _pxla.cc_shard_arg,
        _jaxlib.PjitFunctionCache(capacity=8),
    )

    def run(x64: bool, *args: Any) -> list[Buffer]:
        previous = _X64.swap_local(x64)
        try:
            return call(*args)
        finally:
            _X64.set_local(previous)

    return FastDispatch(run, call)


@functools.cache
def _sharding() -> SingleDeviceSharding:
    return SingleDeviceSharding(device())


# Small: an executable's fast path keeps its own avals; this only saves
# building them again for the shapes a program sees most.
@functools.lru_cache(maxsize=256)
def _jax_aval(shape: tuple[int, ...], dtype: np.dtype[Any]) -> _jax_core.ShapedArray:
    return _jax_core.ShapedArray(shape, dtype)


# jaxlib aliases (does not copy) a C-contiguous host array aligned to this.
_ALIAS_ALIGNMENT: Final = 64


def aliasable_host_array(shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
    """An empty C-contiguous array that jaxlib's transfers alias rather than copy.

    Aligned as jaxlib's CPU client wants its buffers: a buffer over it is
    made without a copy, and XLA reads it when a program runs.
    """
    size = int(np.prod(shape)) * dtype.itemsize
    raw = np.empty(size + _ALIAS_ALIGNMENT, np.uint8)
    start = -raw.ctypes.data % _ALIAS_ALIGNMENT
    return raw[start : start + size].view(dtype).reshape(shape)


def aliased_on_transfer(x: np.ndarray[Any, Any]) -> bool:
    """Whether jaxlib's CPU transfer would alias ``x`` (C-contiguous and aligned), not copy it."""
    return x.ctypes.data % _ALIAS_ALIGNMENT == 0 and x.flags.c_contiguous


# Host data copied during the transfer, never aliased by the buffer.
_COPY: Final = _jaxlib.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL


def to_device(x: np.ndarray[Any, Any], copy: bool = False) -> Buffer:
    """Copies a NumPy array to ``device()``, keeping 64-bit dtypes.

    Goes straight to jaxlib's batched transfer: ``jax.device_put`` costs
    many times more per call in Python overhead. On a CPU the buffer may
    alias ``x``'s memory (read when a program runs, maybe after the call
    has returned) unless ``copy``: only data nobody writes to may be
    aliased (an Array's own host data).
    """
    semantics = _COPY if copy else _jaxlib.HostBufferSemantics.ZERO_COPY
    return _jaxlib.batched_device_put(
        _jax_aval(x.shape, x.dtype),
        _sharding(),
        [x],
        [device()],
        True,
        host_buffer_semantics=semantics,
        enable_x64=True,
    )


def to_host(buffer: Buffer) -> np.ndarray[Any, Any]:
    """The buffer's contents as a NumPy array (no copy where the platform allows)."""
    return np.asarray(buffer)


def is_buffer(x: object) -> bool:
    return isinstance(x, jax.Array)


# ``block_until_ready(buffer)`` waits for the buffer: a C-level caller of its
# method, so that waiting for a jitted call's result adds no Python frame
# (each costs microseconds after a large program: docs/performance.md).
block_until_ready: Final[Callable[[Buffer], None]] = operator.methodcaller("block_until_ready")


# JAX's options that configure the backend JAX creates: didax's devices are
# that backend's, so ``didax.config.update`` forwards these to ``jax.config``,
# where they take effect (or fail) as in a JAX program: ``jax_num_cpu_devices``
# before the backend starts, say. Their environment variables JAX reads itself.
BACKEND_OPTIONS: Final = frozenset(
    {
        "jax_num_cpu_devices",
        "jax_platforms",
        "jax_platform_name",
        "jax_cuda_visible_devices",
        "jax_rocm_visible_devices",
        "jax_cpu_enable_async_dispatch",
    }
)


def _forward_backend_option(name: str, value: object) -> None:
    if name in BACKEND_OPTIONS:
        jax.config.update(name, value)  # type: ignore[no-untyped-call]


UPDATE_HOOKS.append(_forward_backend_option)
