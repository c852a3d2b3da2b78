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
import os
import threading
from collections.abc import Callable, Hashable, Iterator
from typing import Any, Final, final

import attrs


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
    )
}


class _Overrides(threading.local):
    def __init__(self) -> None:
        self.values: dict[str, object] = {}


_overrides: Final = _Overrides()


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

    def _option(self, name: str) -> Option:
        option = OPTIONS.get(name)
        if option is None:
            raise AttributeError(f"Unrecognized config option: {name}")
        return option

    def update(self, name: str, value: object) -> None:
        """Sets option ``name`` for the whole process (``jax.config.update``)."""
        option = self._option(name)
        self._values[name] = option.validate(name, value)
        _GLOBAL_DISPATCH[0] = _dispatch_mode(self._values)

    def read(self, name: str) -> Any:
        """The value of option ``name`` in this thread (a context manager's, if one is active)."""
        self._option(name)
        return _overrides.values.get(name, self._values[name])

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self.read(name)

    @property
    def values(self) -> dict[str, Any]:
        """Every option's value in this thread."""
        return {name: self.read(name) for name in OPTIONS}

    @contextlib.contextmanager
    def override(self, name: str, value: object) -> Iterator[None]:
        """Sets option ``name`` for this thread until the block ends."""
        option = self._option(name)
        new = option.validate(name, value)
        missing = object()
        old = _overrides.values.get(name, missing)
        _overrides.values[name] = new
        try:
            yield
        finally:
            if old is missing:
                del _overrides.values[name]
            else:
                _overrides.values[name] = old


config: Final = Config()


def _trace_mode(values: dict[str, object]) -> Hashable:
    """What of ``values`` changes what tracing produces, as a trace cache key.

    The x64 mode, a bool, when ``jax_default_matmul_precision`` is unset
    (the common case, and the cheapest key); else both, as a pair.
    """
    x64 = values["jax_enable_x64"] is True
    precision = values["jax_default_matmul_precision"]
    return x64 if precision is None else (x64, precision)


def _dispatch_mode(values: dict[str, object]) -> Hashable | None:
    if values["jax_disable_jit"] is True or values["jax_debug_nans"] is True:
        return None
    return _trace_mode(values)


# The process-wide options' dispatch mode, recomputed by ``Config.update``.
_GLOBAL_DISPATCH: Final[list[Hashable | None]] = [_dispatch_mode(config._values)]


def dispatch_mode() -> Hashable | None:
    """For the jit cache-hit path, one read of the options it depends on.

    None when a jitted call cannot take the plain path (``jax_disable_jit``
    or ``jax_debug_nans`` is on in this thread); otherwise ``trace_mode()``,
    which keys what tracing produced.
    """
    overrides = _overrides.values
    if not overrides:
        return _GLOBAL_DISPATCH[0]
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
