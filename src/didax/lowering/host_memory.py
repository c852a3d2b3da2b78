"""Giving the host memory that compiles free back to the operating system.

Design rules:
- A process that compiles without end (a new shape at every step) keeps
  its compile caches bounded: each new program evicts an old one, and
  each compile's working memory is freed when it ends. glibc's allocator
  keeps what is freed in its per-thread arenas (XLA compiles on threads of
  its own) instead of returning it, and the arenas fragment, so the
  resident set creeps up long after the caches are full although nothing
  is held (docs/performance.md, "Soak").
- So every ``TRIM_EVERY`` XLA compiles didax asks glibc to return its free
  pages (``malloc_trim(0)``, which walks every arena). A compile costs tens
  of milliseconds and a trim a few, once per ``TRIM_EVERY`` compiles; a
  program that compiles a few times never trims.
- Only where the C library has ``malloc_trim`` (glibc; not musl, macOS or
  Windows): elsewhere ``note_compile`` does nothing.
"""

from __future__ import annotations

import ctypes
import itertools
import sys
from collections.abc import Callable
from typing import Final

# Compiles between two trims. A module attribute, so a test can lower it.
TRIM_EVERY = 256


def _find_malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)  # the C library the process already runs on
    except OSError:
        return None
    trim = getattr(libc, "malloc_trim", None)  # glibc's; musl has none
    if trim is None:
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    found: Callable[[int], int] = trim
    return found


_MALLOC_TRIM: Final = _find_malloc_trim()
_COMPILES: Final = itertools.count(1)  # next() is atomic under the GIL


def release_free_memory() -> bool:
    """Returns the allocator's free pages to the OS now; False where it cannot."""
    if _MALLOC_TRIM is None:
        return False
    _MALLOC_TRIM(0)
    return True


def note_compile() -> None:
    """Counts one XLA compile; every ``TRIM_EVERY``-th releases the free memory."""
    if next(_COMPILES) % TRIM_EVERY == 0:
        release_free_memory()
