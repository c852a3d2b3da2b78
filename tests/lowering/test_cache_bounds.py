"""A stream of new shapes keeps only what the bounded caches hold (issue 31's soak, in small).

Each new shape is a trace, a compile and a jaxlib fast path; once the
per-function trace cache and the process-wide compile cache evict a
program, nothing else may keep it: not a closure, not jaxlib's C++
dispatch, not a cycle through either.
"""

from __future__ import annotations

import gc
import platform
import sys
import weakref
from collections.abc import Callable

import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax.lowering import host_memory
from didax.lowering.compiled import COMPILE_CACHE, Compiled

_KEPT = 3
_SHAPES = 10


def _newest_compiled() -> Compiled:
    program = COMPILE_CACHE.get(COMPILE_CACHE.keys()[-1])
    assert isinstance(program, Compiled)
    return program


def test_programs_evicted_from_both_caches_are_freed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(COMPILE_CACHE, "maxsize", _KEPT)
    scale = 1.0 + 1 / 7919  # a program no other test compiles
    f = dx.jit(lambda a: dnp.tanh(a) * scale + a.sum())
    f._cache.maxsize = _KEPT
    refs: list[tuple[weakref.ref[Compiled], weakref.ref[Callable[..., object]]]] = []
    for n in range(1, _SHAPES + 1):
        x = np.ones(n, np.float32)
        np.testing.assert_allclose(np.asarray(f(x)), np.tanh(x) * scale + n, rtol=1e-6)
        program = _newest_compiled()
        refs.append((weakref.ref(program), weakref.ref(program.fast.on_device)))
        del program
    gc.collect()
    alive = [(p() is not None, d() is not None) for p, d in refs]
    # The last _KEPT programs stay cached; every older one, with its C++ fast path, is gone.
    assert alive == [(False, False)] * (_SHAPES - _KEPT) + [(True, True)] * _KEPT


def test_every_nth_compile_returns_free_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    # glibc keeps what compiles free in its arenas; didax trims them every
    # TRIM_EVERY compiles (host_memory), whichever path compiles.
    trims: list[int] = []

    def release() -> bool:
        trims.append(1)
        return True

    monkeypatch.setattr(host_memory, "TRIM_EVERY", 2)
    monkeypatch.setattr(host_memory, "release_free_memory", release)
    scale = 1.0 + 1 / 7907  # programs no other test compiles
    f = dx.jit(lambda a: a * scale)
    for n in range(1, 5):
        np.testing.assert_allclose(np.asarray(f(np.ones(n, np.float32))), scale, rtol=1e-6)
    assert len(trims) == 2


def test_the_trim_runs_where_glibc_is() -> None:
    # This suite runs on glibc Linux (CI's images): the trim must be found there.
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        pytest.skip("malloc_trim is glibc's")
    assert host_memory.release_free_memory()
