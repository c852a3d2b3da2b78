"""``didax.config``: the options JAX programs set, with JAX's names.

Design rules:
- One registry of options (``OPTIONS``), each with its default, the
  environment variable that sets it at import (JAX's: ``JAX_ENABLE_X64``...)
  and a validator. ``config.update(name, value)`` changes the process-wide
  value; an unknown name is an ``AttributeError`` as in JAX.
- Context managers (``enable_x64``, ``default_matmul_precision``,
  ``disable_jit``) override an option for
  the current thread only, as JAX's do, so a test or a library can scope a
  mode without touching the user's global choice.
- Reads are on hot paths (every Python scalar's dtype asks whether x64 is
  on), so an option's value is one attribute lookup on a thread-local plus a
  dict lookup; nothing is recomputed.
- Everything that depends on an option (default dtypes, canonicalization,
  trace caches) reads it when it runs; ``state_key`` is the part of the
  configuration that changes what a trace produces, for caches to key on.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import threading
from collections.abc import Callable, Hashable, Iterator
from types import ModuleType
from typing import Any, Final, final

import attrs

from didax.core.config_inert import INERT_OPTIONS


def _as_bool(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    truthy, falsy = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
    if isinstance(value, str) and value.lower() in truthy + falsy:
        return value.lower() in truthy
    raise ValueError(f"config option {name} takes a bool, got {value!r}")


def _as_optional_path(name: str, value: object) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise ValueError(f"config option {name} takes a path or None, got {value!r}")


@final
@attrs.frozen
class Option:
    """A configuration option: its name, default, environment variable and validator."""

    name: str
    default: object
    env: str
    validate: Callable[[str, object], object]
    doc: str
    # Whether the option changes what tracing a function produces (and so
    # must key trace caches).
    affects_tracing: bool = False


def _as_collectives(name: str, value: object) -> object:
    if value in (None, "", "none"):
        return None
    if value not in ("gloo", "mpi"):
        raise ValueError(f"{name} must be 'gloo', 'mpi' or None, got {value!r}")
    return value


# The values JAX's ``jax_default_matmul_precision`` takes (bar its dot
# algorithm presets), in JAX's order.
MATMUL_PRECISIONS: Final = ("default", "high", "highest", "bfloat16", "tensorfloat32", "float32")

# The names of JAX's ``DotAlgorithmPreset`` members, which JAX also takes
# as precisions (the option's values and ``precision=`` strings): the
# option refuses them by name; ``dot_general`` takes them (core.lax.precision).
DOT_ALGORITHM_PRESETS: Final = frozenset(
    {
        "DEFAULT",
        "ANY_F8_ANY_F8_F32",
        "ANY_F8_ANY_F8_F32_FAST_ACCUM",
        "ANY_F8_ANY_F8_ANY",
        "ANY_F8_ANY_F8_ANY_FAST_ACCUM",
        "F16_F16_F16",
        "F16_F16_F32",
        "BF16_BF16_BF16",
        "BF16_BF16_F32",
        "BF16_BF16_F32_X3",
        "BF16_BF16_F32_X6",
        "BF16_BF16_F32_X9",
        "TF32_TF32_F32",
        "TF32_TF32_F32_X3",
        "F32_F32_F32",
        "F64_F64_F64",
    }
)


def _as_matmul_precision(name: str, value: object) -> object:
    if value is None or value == "":  # (an empty environment variable: unset)
        return None
    if value in MATMUL_PRECISIONS:
        return value
    if isinstance(value, str) and value in DOT_ALGORITHM_PRESETS:
        raise NotImplementedError(
            f"{name}: didax does not implement JAX's dot algorithm presets, got {value!r}; "
            f"use None or one of {list(MATMUL_PRECISIONS)}"
        )
    raise ValueError(
        f"{name}: new enum value must be None or in {list(MATMUL_PRECISIONS)}, "
        f"got {value} of type {type(value)}."
    )


def _one_of(*choices: object) -> Callable[[str, object], object]:
    """A validator of an enum option: ``choices`` (an empty environment variable is the first)."""

    def validate(name: str, value: object) -> object:
        if value == "" and isinstance(value, str):
            return choices[0]
        if value not in choices:
            raise ValueError(f"config option {name} takes one of {list(choices)}, got {value!r}")
        return value

    return validate


def _only(honoured: tuple[object, ...], *others: object) -> Callable[[str, object], object]:
    """A validator of an option didax honours only at ``honoured`` values (JAX's default first).

    JAX's other values (``others``) are a ``NotImplementedError`` naming the
    option, so that a program relying on them fails where it sets them.
    """
    as_bool = isinstance(honoured[0], bool)

    def validate(name: str, value: object) -> object:
        v = _as_bool(name, value) if as_bool else (honoured[0] if value == "" else value)
        if v in honoured:
            return v
        if as_bool or v in others:
            raise NotImplementedError(
                f"config option {name}: didax implements only {list(honoured)}, got {v!r}"
            )
        raise ValueError(f"config option {name} takes one of {[*honoured, *others]}, got {value!r}")

    return validate


# JAX's transfer guard levels (None: unset, which is ``'allow'``).
TRANSFER_LEVELS: Final = (None, "allow", "log", "disallow", "log_explicit", "disallow_explicit")
TRANSFER_GUARD_OPTIONS: Final = tuple(
    f"jax_transfer_guard_{way}" for way in ("host_to_device", "device_to_host", "device_to_device")
)


def _flag_option(
    name: str, default: object, validate: Callable[[str, object], object], doc: str
) -> Option:
    return Option(name, default, name.upper(), validate, doc)


def _as_inert(default: object) -> Callable[[str, object], object]:
    """An inert option's validator: any value, an environment string read as the default's type."""

    def validate(name: str, value: object) -> object:
        if not isinstance(value, str) or isinstance(default, str) or default is None:
            return value
        if isinstance(default, bool):
            return _as_bool(name, value)
        convert: Callable[[str], object] = type(default)
        try:
            return convert(value)
        except ValueError:
            return value  # stored as given: the option has no effect

    return validate


def _inert_option(name: str, default: object) -> Option:
    """JAX's option ``name``, accepted and stored with no effect (``config_inert``)."""
    return Option(name, default, name.upper(), _as_inert(default), "JAX's; no effect in didax")


# The options JAX exposes as top-level context managers (``jax.debug_infs``...),
# read through ``didax.api.config_flags``.
FLAG_OPTIONS: Final = (
    _flag_option(
        "jax_debug_infs",
        False,
        _as_bool,
        "raise FloatingPointError at the first primitive that produces an inf",
    ),
    Option(
        "jax_numpy_dtype_promotion",
        "standard",
        "JAX_NUMPY_DTYPE_PROMOTION",
        _one_of("standard", "strict"),
        "'strict' refuses implicit promotion between different dtypes (weak scalars aside)",
        affects_tracing=True,
    ),
    Option(
        "jax_numpy_rank_promotion",
        "allow",
        "JAX_NUMPY_RANK_PROMOTION",
        _one_of("allow", "warn", "raise"),
        "what didax.numpy does when operands of different ranks broadcast together",
        affects_tracing=True,
    ),
    _flag_option(
        "jax_default_device",
        None,
        lambda _, v: v,
        "the device arrays go to without one named (None: the backend's first)",
    ),
    _flag_option(
        "jax_transfer_guard",
        None,
        _one_of(*TRANSFER_LEVELS),
        "the guard on all transfers; config.update sets the three directions' (JAX's)",
    ),
    *(
        _flag_option(
            f"jax_transfer_guard_{way}",
            None,
            _one_of(*TRANSFER_LEVELS),
            f"the guard on {way.replace('_', ' ')} transfers",
        )
        for way in ("host_to_device", "device_to_host", "device_to_device")
    ),
    _flag_option("jax_check_tracer_leaks", False, _only((False,)), "check for leaked tracers"),
    _flag_option("jax_enable_checks", False, _only((False,)), "JAX's internal consistency checks"),
    _flag_option(
        "jax_default_prng_impl",
        "threefry2x32",
        _only(("threefry2x32",), "rbg", "unsafe_rbg"),
        "the PRNG of new keys",
    ),
    _flag_option(
        "jax_threefry_partitionable",
        True,
        _only((True,)),
        "threefry's bits as JAX's partitionable scheme (JAX's default, which didax's are)",
    ),
    _flag_option("jax_enable_custom_prng", False, _only((False,)), "custom PRNG implementations"),
    _flag_option(
        "jax_legacy_prng_key",
        "allow",
        _only(("allow",), "warn", "error"),
        "whether raw uint32 keys are accepted",
    ),
    _flag_option("jax_debug_key_reuse", False, _only((False,)), "check that keys are used once"),
    _flag_option(
        "jax_array_garbage_collection_guard",
        None,
        _only((None, "allow"), "log", "fatal"),
        "what happens when an Array is collected in a reference cycle",
    ),
    _flag_option(
        "jax_allow_f16_reductions", True, _only((True,)), "reductions over float16 operands"
    ),
    _flag_option("jax_no_tracing", False, _only((False,)), "refuse to trace"),
    _flag_option("jax_no_execution", False, _only((False,)), "refuse to execute"),
    _flag_option("jax_thread_guard", False, _only((False,)), "refuse multi-threaded use"),
    _flag_option(
        "jax_auto_pcast",
        True,
        _only((True,)),
        "shard_map's implicit casts between varying and invariant values (didax: on only)",
    ),
    _flag_option(
        "jax_remove_size_one_mesh_axis_from_type",
        False,
        _only((False,)),
        "dropping size-one mesh axes from sharding types (didax: off only)",
    ),
    _flag_option(
        "jax_softmax_custom_jvp", False, _only((False,)), "JAX's transient softmax JVP rule"
    ),
    _flag_option(
        "jax2tf_associative_scan_reductions",
        False,
        _as_bool,
        "jax2tf's lowering of cumulative reductions: no effect on a didax program "
        "(as on a JAX program that jax2tf does not convert)",
    ),
)


OPTIONS: Final[dict[str, Option]] = {
    o.name: o
    for o in (
        Option(
            "jax_enable_x64",
            False,
            "JAX_ENABLE_X64",
            _as_bool,
            "64-bit defaults (float64, int64); off by default, as in JAX: 32-bit defaults",
            affects_tracing=True,
        ),
        Option(
            "jax_default_matmul_precision",
            None,
            "JAX_DEFAULT_MATMUL_PRECISION",
            _as_matmul_precision,
            "the precision of matrix products given none (precision=None): None is the "
            "backend's DEFAULT; 'tensorfloat32' or 'high' is HIGH; 'float32' or 'highest' "
            "is HIGHEST",
            affects_tracing=True,
        ),
        Option(
            "jax_disable_jit",
            False,
            "JAX_DISABLE_JIT",
            _as_bool,
            "jitted functions run eagerly, op by op (for debugging)",
        ),
        Option(
            "jax_debug_nans",
            False,
            "JAX_DEBUG_NANS",
            _as_bool,
            "raise FloatingPointError at the first primitive that produces a NaN",
        ),
        Option(
            "jax_log_compiles",
            False,
            "JAX_LOG_COMPILES",
            _as_bool,
            "log each program compiled, at WARNING level (else DEBUG)",
        ),
        Option(
            "jax_explain_cache_misses",
            False,
            "JAX_EXPLAIN_CACHE_MISSES",
            _as_bool,
            "log why each jitted call that misses its trace cache traces again",
        ),
        Option(
            "jax_cpu_collectives_implementation",
            None,
            "JAX_CPU_COLLECTIVES_IMPLEMENTATION",
            _as_collectives,
            "the CPU client's collectives across processes ('gloo' or 'mpi'), "
            "read by distributed.initialize",
        ),
        Option(
            "jax_compilation_cache_dir",
            None,
            "JAX_COMPILATION_CACHE_DIR",
            _as_optional_path,
            "a directory where compiled programs persist between processes",
        ),
        *FLAG_OPTIONS,
        *(_inert_option(name, default) for name, default in INERT_OPTIONS.items()),
    )
}


# Called with each process-wide update's option name and value, before it is
# stored: the lowering layer forwards the options that configure the device
# backend, which is JAX's, to JAX's own configuration (``xla.BACKEND_OPTIONS``).
UPDATE_HOOKS: Final[list[Callable[[str, object], None]]] = []


# How many transfer guard settings are in force anywhere: the process-wide
# ones not ``'allow'``, and the threads' open blocks. While none is, a
# transfer point skips its guard on reading this one slot (``transfer_guard``).
GUARDS_IN_FORCE: Final = [0]
_GUARDS_LOCK: Final = threading.Lock()


def _count_guards(change: int) -> None:
    with _GUARDS_LOCK:
        GUARDS_IN_FORCE[0] += change


class _Overrides(threading.local):
    def __init__(self) -> None:
        self.values: dict[str, object] = {}


_overrides: Final = _Overrides()
# This thread's overrides, for jit's hit path: while ``THREAD_OVERRIDES.values``
# is empty, ``GLOBAL_DISPATCH[0]`` is the dispatch mode (``dispatch_mode``), read
# without a call.
THREAD_OVERRIDES: Final = _overrides


def _initial(option: Option) -> object:
    env = os.environ.get(option.env)
    return option.default if env is None else option.validate(option.name, env)


@final
class Config:
    """The process-wide options (``didax.config``), as ``jax.config``.

    >>> config.read("jax_enable_x64")
    False
    >>> config.jax_disable_jit
    False
    """

    def __init__(self) -> None:
        self._values: dict[str, object] = {name: _initial(o) for name, o in OPTIONS.items()}
        self._absl_parsed = False  # parse_flags_with_absl runs once, as JAX's
        self.use_absl = False  # whether config_with_absl registered the flags
        every = self._values["jax_transfer_guard"]
        for n in TRANSFER_GUARD_OPTIONS:  # JAX_TRANSFER_GUARD, where a direction's is unset
            if every is not None and self._values[n] is None:
                self._values[n] = every
        _count_guards(sum(self._values[n] not in (None, "allow") for n in TRANSFER_GUARD_OPTIONS))

    def _option(self, name: str) -> Option:
        option = OPTIONS.get(name)
        if option is None:
            raise AttributeError(f"Unrecognized config option: {name}")
        return option

    def update(self, name: str, value: object) -> None:
        """Sets option ``name`` for the whole process (``jax.config.update``)."""
        option = self._option(name)
        new = option.validate(name, value)
        for hook in UPDATE_HOOKS:  # before storing: a hook's error leaves the value as it was
            hook(name, new)
        if name in TRANSFER_GUARD_OPTIONS:
            _count_guards(
                (new not in (None, "allow")) - (self._values[name] not in (None, "allow"))
            )
        self._values[name] = new
        GLOBAL_DISPATCH[0] = _dispatch_mode(self._values)
        if name == "jax_transfer_guard":  # set-only, as JAX's: it sets each direction
            for each in TRANSFER_GUARD_OPTIONS:
                self.update(each, new)

    def read(self, name: str) -> Any:
        """The value of option ``name`` in this thread (a context manager's, if one is active)."""
        self._option(name)
        return _overrides.values.get(name, self._values[name])

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self.read(name)

    @property
    def x64_enabled(self) -> bool:
        """Whether ``jax_enable_x64`` is on in this thread (JAX's ``config.x64_enabled``)."""
        return bool(self.read("jax_enable_x64"))

    @property
    def values(self) -> dict[str, Any]:
        """Every option's value in this thread."""
        return {name: self.read(name) for name in OPTIONS}

    def config_with_absl(self) -> None:
        """Registers an absl flag per option, read when ``absl.app`` starts (as JAX's).

        For a program run with ``app.run(main)``: ``--jax_enable_x64`` and
        the like on its command line then set the options. Needs absl-py.
        """
        from absl import app, flags

        define: dict[type, Callable[..., object]] = {
            bool: flags.DEFINE_bool,
            int: flags.DEFINE_integer,
            float: flags.DEFINE_float,
        }
        for name, option in OPTIONS.items():
            if name in flags.FLAGS:
                continue  # defined already (by an earlier call, or by JAX's)
            default = self._values[name]
            kind: Callable[..., object] = define.get(type(default), flags.DEFINE_string)
            text = default if type(default) in define or default is None else str(default)
            kind(name, text, option.doc)
        self.use_absl = True
        app.call_after_init(lambda: self.complete_absl_config(flags))

    def complete_absl_config(self, flags: ModuleType) -> None:
        """Sets each option whose absl flag was given (``config_with_absl``'s second half)."""
        for name in OPTIONS:
            try:
                flag = flags.FLAGS[name]
            except KeyError:  # an option added after config_with_absl ran
                continue
            if flag.present:
                self.update(name, flag.value)

    def parse_flags_with_absl(self) -> None:
        """Sets options from the ``--jax...`` arguments of ``sys.argv`` (before ``--``), once.

        As JAX's: for programs that do not start through ``absl.app``.
        """
        if self._absl_parsed:
            return
        from absl import flags

        argv = itertools.takewhile(lambda a: a != "--", sys.argv)
        self.config_with_absl()
        flags.FLAGS(["", *(a for a in argv if a.startswith("--jax"))], known_only=True)
        self.complete_absl_config(flags)
        self._absl_parsed = True

    @contextlib.contextmanager
    def override(self, name: str, value: object) -> Iterator[None]:
        """Sets option ``name`` for this thread until the block ends."""
        option = self._option(name)
        new = option.validate(name, value)
        missing = object()
        old = _overrides.values.get(name, missing)
        _overrides.values[name] = new
        guard = name in TRANSFER_GUARD_OPTIONS
        if guard:
            _count_guards(1)
        try:
            yield
        finally:
            if guard:
                _count_guards(-1)
            if old is missing:
                del _overrides.values[name]
            else:
                _overrides.values[name] = old


config: Final = Config()


def _trace_mode(values: dict[str, object]) -> Hashable:
    """What of ``values`` changes what tracing produces, as a trace cache key.

    The x64 mode, a bool, when ``jax_default_matmul_precision`` is unset
    (the common case, and the cheapest key); else both, as a pair, and the
    numpy promotion modes and the values of the user's contexts
    (``add_user_context``) too when any of them is not its default.
    """
    x64 = values["jax_enable_x64"] is True
    precision = values["jax_default_matmul_precision"]
    promotion = (values["jax_numpy_dtype_promotion"], values["jax_numpy_rank_promotion"])
    users_default = all(values[n] == OPTIONS[n].default for n in USER_CONTEXTS)
    if not users_default or promotion != ("standard", "allow"):
        return (x64, precision, *promotion, *(values[n] for n in USER_CONTEXTS))
    return x64 if precision is None else (x64, precision)


def _dispatch_mode(values: dict[str, object]) -> Hashable | None:
    if any(values[n] is True for n in ("jax_disable_jit", "jax_debug_nans", "jax_debug_infs")):
        return None
    return _trace_mode(values)


# The options ``make_user_context`` added, in order: their values key traces.
USER_CONTEXTS: Final[list[str]] = []


def add_user_context(default: Hashable) -> str:
    """A new option keying jit's caches, for ``make_user_context``; returns its name."""
    name = f"user_context_{len(USER_CONTEXTS)}"
    OPTIONS[name] = Option(
        name,
        default,
        "",
        lambda _, v: v,
        "a user context (make_user_context)",
        affects_tracing=True,
    )
    config._values[name] = default
    USER_CONTEXTS.append(name)
    GLOBAL_DISPATCH[0] = _dispatch_mode(config._values)
    return name


# The process-wide options' dispatch mode, recomputed by ``Config.update``.
GLOBAL_DISPATCH: Final[list[Hashable | None]] = [_dispatch_mode(config._values)]


def dispatch_mode() -> Hashable | None:
    """For the jit cache-hit path, one read of the options it depends on.

    None when a jitted call cannot take the plain path (``jax_disable_jit``,
    ``jax_debug_nans`` or ``jax_debug_infs`` is on in this thread); otherwise ``trace_mode()``,
    which keys what tracing produced.
    """
    overrides = _overrides.values
    if not overrides:
        return GLOBAL_DISPATCH[0]
    return _dispatch_mode({**config._values, **overrides})


def trace_mode() -> Hashable:
    """The options that change what tracing produces, in this thread, as a cache key.

    The x64 mode, paired with ``jax_default_matmul_precision`` when that
    is set: jit's trace caches key on it (``dispatch_mode`` gives the same
    value on the hit path).
    """
    overrides = _overrides.values
    return _trace_mode({**config._values, **overrides} if overrides else config._values)


def flag(name: str) -> bool:
    """A boolean option's value in this thread, for hot paths (no validation of ``name``)."""
    value = _overrides.values.get(name)
    if value is None:
        value = config._values[name]
    return value is True


def strict_promotion() -> bool:
    """Whether ``jax_numpy_dtype_promotion`` is ``'strict'`` in this thread."""
    value = _overrides.values.get("jax_numpy_dtype_promotion")
    if value is None:
        value = config._values["jax_numpy_dtype_promotion"]
    return value == "strict"


def x64_enabled() -> bool:
    """Whether 64-bit defaults are on (``jax_enable_x64``)."""
    return flag("jax_enable_x64")


def state_key() -> tuple[object, ...]:
    """The options that change what tracing produces, for trace caches to key on."""
    return tuple(config.read(name) for name, o in OPTIONS.items() if o.affects_tracing)


@contextlib.contextmanager
def log_compiles(enable: bool = True) -> Iterator[None]:
    """Logs each program compiled, in this thread until the block ends (``jax.log_compiles``)."""
    with config.override("jax_log_compiles", enable):
        yield


@contextlib.contextmanager
def explain_cache_misses(enable: bool = True) -> Iterator[None]:
    """Logs why jitted calls trace again, in this thread until the block ends (JAX's)."""
    with config.override("jax_explain_cache_misses", enable):
        yield


@contextlib.contextmanager
def enable_x64(new_val: bool = True) -> Iterator[None]:
    """64-bit mode on (or off) for this thread until the block ends (``jax.enable_x64``).

    >>> with enable_x64(True):
    ...     x64_enabled()
    True
    """
    with config.override("jax_enable_x64", new_val):
        yield


@contextlib.contextmanager
def default_matmul_precision(precision: str | None) -> Iterator[None]:
    """Matrix products given no precision use ``precision`` in this thread until the block ends.

    JAX's ``jax.default_matmul_precision``: ``precision`` is None or one of
    ``'default'``, ``'high'``, ``'highest'``, ``'bfloat16'``,
    ``'tensorfloat32'``, ``'float32'`` (see ``lax.Precision``); the
    ``precision=`` of a call still wins. Also a decorator.

    >>> with default_matmul_precision("float32"):
    ...     config.jax_default_matmul_precision
    'float32'
    """
    with config.override("jax_default_matmul_precision", precision):
        yield


@contextlib.contextmanager
def disable_jit(disable: bool = True) -> Iterator[None]:
    """Jitted functions run eagerly in this thread until the block ends (``jax.disable_jit``)."""
    with config.override("jax_disable_jit", disable):
        yield
