"""``didax.profiler``: traces for TensorBoard and Perfetto, and device memory profiles.

Design rules:
- The profiler is jaxlib's (``lowering.runtime``): ``trace(log_dir)``
  writes ``log_dir/plugins/profile/<run>/<host>.xplane.pb``, the layout
  TensorBoard's profile plugin reads, with the host's Python and runtime
  events and the devices' activity, as ``jax.profiler.trace`` does.
- ``TraceAnnotation`` is jaxlib's ``TraceMe``: a named event on the
  timeline, free when no trace is running.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterator
from typing import Any, ParamSpec, TypeVar

from didax.lowering import runtime

__all__ = [
    "trace",
    "start_trace",
    "stop_trace",
    "TraceAnnotation",
    "StepTraceAnnotation",
    "annotate_function",
    "device_memory_profile",
    "save_device_memory_profile",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")

TraceAnnotation = runtime.TraceMe


def _refuse_perfetto(fn: str, create_perfetto_link: bool, create_perfetto_trace: bool) -> None:
    if create_perfetto_link or create_perfetto_trace:
        raise NotImplementedError(
            f"{fn}: didax writes the .xplane.pb trace only (Perfetto and TensorBoard open it); "
            "create_perfetto_link and create_perfetto_trace must be False"
        )


def start_trace(
    log_dir: str | os.PathLike[str],
    create_perfetto_link: bool = False,
    create_perfetto_trace: bool = False,
) -> None:
    """Starts the profiler; ``stop_trace`` writes its trace under ``log_dir`` (JAX's).

    One trace runs at a time: starting another is a ``RuntimeError``.
    """
    _refuse_perfetto("start_trace", create_perfetto_link, create_perfetto_trace)
    runtime.start_trace(os.fspath(log_dir))


def stop_trace() -> None:
    """Stops the running trace and writes it (``jax.profiler.stop_trace``)."""
    runtime.stop_trace()


@contextlib.contextmanager
def trace(
    log_dir: str | os.PathLike[str],
    create_perfetto_link: bool = False,
    create_perfetto_trace: bool = False,
) -> Iterator[None]:
    """Profiles the block, writing a trace under ``log_dir`` (``jax.profiler.trace``).

    >>> import tempfile, pathlib
    >>> import didax as dx
    >>> with tempfile.TemporaryDirectory() as d:
    ...     with dx.profiler.trace(d):
    ...         _ = dx.jit(lambda x: x * 2)(1.0).block_until_ready()
    ...     [p.suffixes for p in pathlib.Path(d).rglob("*.xplane.pb")]
    [['.xplane', '.pb']]
    """
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace)
    try:
        yield
    finally:
        stop_trace()


class StepTraceAnnotation(runtime.TraceMe):
    """A training step's event (JAX's ``StepTraceAnnotation``): ``step_num=`` names the step."""

    def __init__(self, name: str, **kwargs: Any) -> None:
        # ``_r=1`` marks the event as a step for the profiler's step analysis (JAX's).
        super().__init__(name, _r=1, **kwargs)


def annotate_function(
    func: Callable[_P, _R], name: str | None = None, **decorator_kwargs: Any
) -> Callable[_P, _R]:
    """``func`` with each call an event named ``name`` (its qualified name by default)."""
    label = name or getattr(func, "__qualname__", None) or func.__name__

    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with runtime.TraceMe(label, **decorator_kwargs):
            return func(*args, **kwargs)

    return wrapper


def _one_backend(backend: str | None) -> None:
    if backend is not None and backend != runtime.backend_platform():
        raise ValueError(
            f"device_memory_profile: didax runs on one backend, {runtime.backend_platform()!r}; "
            f"got {backend!r}"
        )


def device_memory_profile(backend: str | None = None) -> bytes:
    """The device memory in use, as a gzipped ``pprof`` profile (as JAX's)."""
    _one_backend(backend)
    return runtime.heap_profile()


def save_device_memory_profile(
    filename: str | os.PathLike[str], backend: str | None = None
) -> None:
    """Writes ``device_memory_profile()`` to ``filename``."""
    profile = device_memory_profile(backend)
    with open(filename, "wb") as f:
        f.write(profile)
