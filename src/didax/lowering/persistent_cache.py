"""The persistent compile cache: executables kept on disk between processes, as JAX's.

``didax.config.update("jax_compilation_cache_dir", path)`` (or the
``JAX_COMPILATION_CACHE_DIR`` environment variable) turns it on: a program
compiled once is loaded, not compiled, by every later process.

Design rules:
- An entry's key is the SHA-256 of the StableHLO module's bytecode (lowered
  without source locations, so the same program gives the same bytes in
  every process) and of ``xla.compiler_identity()``: the jax and jaxlib
  versions, the platform, the device kind, ``XLA_FLAGS`` and the compile
  options. An entry is only ever read by the build that can run it.
- Every program is kept, however quick its compile (JAX keeps only those
  taking over a second by default): a second process compiles nothing.
- An entry is one file: a header, the SHA-256 of the payload, then the
  payload (the serialized executable). Reading checks all three; an entry
  that fails (truncated, corrupted, unreadable, or one XLA cannot load) is
  counted in ``info().rejected``, compiled again and overwritten: a broken
  cache never fails a program.
- Writes are atomic: a temporary file in the same directory, flushed to
  disk, then renamed over the entry. Processes sharing a directory at
  most compile a program twice; a reader sees a whole entry or none.
- A write that fails (a full disk, a read-only directory) is skipped: the
  program runs, its temporary file is removed, and one warning per
  directory and process says so (a full disk fails every program's
  write alike: one warning each would drown the user's output).
- The directory is created owner-only (0o700) and entries are written
  0o600: a cached executable is code that will run.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Final, NamedTuple

from jaxlib.mlir import ir

from didax.core.config import config
from didax.lowering import xla

_HEADER: Final = b"didax-xla-executable 1\n"
_DIGEST: Final = 32  # bytes of a SHA-256


class PersistentCacheInfo(NamedTuple):
    hits: int  # executables loaded from disk
    misses: int  # programs compiled and written
    rejected: int  # entries found unreadable or corrupt, and rebuilt


_lock: Final = threading.Lock()
_counts: Final = {"hits": 0, "misses": 0, "rejected": 0}
_warned: Final[set[Path]] = set()  # directories whose failed write was warned of


def info() -> PersistentCacheInfo:
    """This process's counts of disk cache hits, misses and rejected entries."""
    with _lock:
        return PersistentCacheInfo(**_counts)


def _count(what: str) -> None:
    with _lock:
        _counts[what] += 1


def directory() -> Path | None:
    """The cache directory the configuration names, or None when the cache is off."""
    path = config.read("jax_compilation_cache_dir")
    return None if path is None else Path(path)


@functools.cache
def _identity() -> bytes:
    return xla.compiler_identity()


def entry_path(cache_dir: Path, bytecode: bytes) -> Path:
    """Where the executable of the module with this bytecode is kept."""
    key = hashlib.sha256(_identity() + b"\0" + bytecode).hexdigest()
    return cache_dir / f"{key}.xla"


def compile_module(module: ir.Module) -> xla.Executable:
    """``xla.compile(module)``, through the disk cache when one is configured."""
    cache_dir = directory()
    if cache_dir is None:
        return xla.compile(module)
    bytecode = xla.module_bytecode(module)
    path = entry_path(cache_dir, bytecode)
    executable = _load(path)
    if executable is not None:
        _count("hits")
        return executable
    executable = xla.compile(bytecode)
    _count("misses")
    _store(cache_dir, path, xla.serialize(executable))
    return executable


def _load(path: Path) -> xla.Executable | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError:
        _count("rejected")
        return None
    start = len(_HEADER) + _DIGEST
    payload = data[start:]
    if (
        not data.startswith(_HEADER)
        or len(data) <= start
        or hashlib.sha256(payload).digest() != data[len(_HEADER) : start]
    ):
        _count("rejected")
        return None
    try:
        return xla.deserialize(payload)
    except Exception:  # whatever XLA says of it, the entry is rebuilt
        _count("rejected")
        return None


def _store(cache_dir: Path, path: Path, payload: bytes) -> None:
    """Writes an entry atomically; a cache that cannot be written is skipped, not an error."""
    try:
        _make_directory(cache_dir)
        fd, tmp = tempfile.mkstemp(dir=cache_dir, prefix=".tmp-", suffix=".xla")  # mode 0o600
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(_HEADER + hashlib.sha256(payload).digest() + payload)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as e:
        _warn_once(cache_dir, e)


def _warn_once(cache_dir: Path, error: OSError) -> None:
    with _lock:
        if cache_dir in _warned:
            return
        _warned.add(cache_dir)
    warnings.warn(
        f"didax: the persistent compile cache cannot be written in {cache_dir} ({error}); "
        "programs still run but are not kept on disk (warned once per directory)",
        stacklevel=2,
    )


def _make_directory(cache_dir: Path) -> None:
    if cache_dir.is_dir():
        return
    cache_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(cache_dir, 0o700)  # whatever the umask
