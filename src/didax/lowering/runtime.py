"""The runtime's queries beyond compiling: backends, live buffers, the profiler, the environment.

Design rules:
- Like ``xla``, this is adapter code over jaxlib (only the lowering layer
  may import it); the api layer (``api.devices``, ``api.profiler``) gives
  the calls JAX's names and signatures.
- The profiler is jaxlib's own (``jaxlib._profiler``, the TensorFlow
  profiler's session): a trace it exports is the ``.xplane.pb`` that
  TensorBoard's profile plugin and Perfetto open, as JAX's
  ``jax.profiler.trace`` writes.
- One trace at a time per process, as in JAX: a second start is a
  ``RuntimeError``, and so is a stop with none started.
"""

from __future__ import annotations

import gzip
import platform as _platform
import sys
import threading
from collections.abc import Sequence
from importlib.metadata import version as installed_version
from typing import Any, Final, final

import attrs
import jax
import numpy as np
from jax.extend import backend as jax_backend
from jaxlib import _jax as _jaxlib
from jaxlib import _profiler

from didax.lowering import xla

TraceMe = _profiler.TraceMe  # an event on the trace's timeline while its block runs


def _client() -> _jaxlib.Client:
    client: _jaxlib.Client = jax_backend.get_backend()
    return client


def backend_platform() -> str:
    """The default backend's platform as jaxlib names it: ``"cpu"``, ``"gpu"``, ``"tpu"``."""
    return _client().platform


def live_buffers() -> list[xla.Buffer]:
    """Every device buffer the backend holds that has not been freed."""
    return [b for b in _client().live_arrays() if not b.is_deleted()]


def assemble(
    shape: tuple[int, ...], sharding: xla.JaxNamedSharding, pieces: Sequence[xla.Buffer]
) -> xla.Buffer:
    """One array laid out as ``sharding`` says from each device's buffer, without copies."""
    # 64-bit pieces stay 64-bit whatever the user's JAX mode (see xla.to_devices).
    make: Any = jax.make_array_from_single_device_arrays  # typed over jax's Array, not jaxlib's
    with jax.enable_x64(True):
        out: xla.Buffer = make(shape, sharding, list(pieces))
    return out


def heap_profile() -> bytes:
    """The device memory in use, as a gzipped ``pprof`` protocol buffer (JAX's format)."""
    return gzip.compress(_client().heap_profile())


@final
@attrs.define
class _TraceState:
    session: _profiler.ProfilerSession | None = None
    log_dir: str = ""


_TRACE: Final = _TraceState()
_TRACE_LOCK: Final = threading.Lock()


def start_trace(log_dir: str) -> None:
    """Starts the process's profiler session; ``stop_trace`` writes it under ``log_dir``."""
    with _TRACE_LOCK:
        if _TRACE.session is not None:
            raise RuntimeError(
                "start_trace: a profile has already been started; only one may run at a time"
            )
        # The backend starts first, so that its device tracers join the session.
        _client()
        _profiler.clear_metadata()
        _profiler.set_metadata("jax_version", installed_version("jax"))
        _profiler.set_metadata("jaxlib_version", installed_version("jaxlib"))
        _TRACE.session = _profiler.ProfilerSession(_profiler.ProfileOptions())
        _TRACE.log_dir = log_dir


def stop_trace() -> None:
    """Stops the profiler session and exports it (``plugins/profile/<run>/*.xplane.pb``)."""
    with _TRACE_LOCK:
        session = _TRACE.session
        if session is None:
            raise RuntimeError("stop_trace: no profile started")
        try:
            session.stop_and_export(_TRACE.log_dir)
        finally:
            _TRACE.session = None
            _profiler.clear_metadata()


def environment_lines() -> list[str]:
    """What ``print_environment_info`` prints: versions, the platform, the devices."""
    client = _client()
    return [
        f"didax:    {installed_version('didax')}",
        f"jax:      {installed_version('jax')}",
        f"jaxlib:   {installed_version('jaxlib')}",
        f"numpy:    {np.__version__}",
        f"python:   {sys.version}",
        f"device info: {client.platform}, {len(client.devices())} local devices",
        f"process_count: {xla.process_count()}",
        f"platform: {_platform.uname()}",
    ]
