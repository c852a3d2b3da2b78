"""The persistent compile cache: a second process compiles nothing; broken entries are rebuilt."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.slicing import slice_params

import didax as dx
import didax.numpy as dnp
from didax.lowering import persistent_cache

# A user's program: a few jitted functions, a gradient and a loop. It prints
# its results and this process's disk cache and compile counts.
PROGRAM = """
import json, sys
import numpy as np
import didax as dx, didax.numpy as dnp
from didax.lowering import persistent_cache

f = dx.jit(lambda x: dnp.sin(x) * 2.0 + x)
g = dx.jit(dx.grad(lambda w, x: dnp.sum(dnp.tanh(x @ w))))
h = dx.jit(lambda n: dx.lax.fori_loop(0, n, lambda i, c: c * 1.5 + i, 1.0))
x = dnp.asarray(np.linspace(0.0, 1.0, 6))
w = dnp.asarray(np.arange(12.0).reshape(6, 2) / 10)
out = [np.asarray(f(x)).tolist(), np.asarray(g(w, x[None])).tolist(), float(h(7))]
print(json.dumps({"out": out, "cache": persistent_cache.info()._asdict(),
                  "compiled": dx.compile_cache_info().misses}))
"""


def _run(cache_dir: Path) -> dict[str, Any]:
    env = {**os.environ, "JAX_COMPILATION_CACHE_DIR": str(cache_dir)}
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _entries(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.glob("*.xla"))


def test_a_second_process_compiles_nothing(tmp_path: Path) -> None:
    cache_dir = tmp_path / "made" / "cache"  # made by didax, parents too
    first = _run(cache_dir)
    assert first["cache"]["misses"] == first["compiled"] >= 3
    assert first["cache"]["hits"] == 0
    assert len(_entries(cache_dir)) == first["compiled"]

    second = _run(cache_dir)
    assert second["cache"] == {"hits": first["compiled"], "misses": 0, "rejected": 0}
    assert second["out"] == first["out"]

    # Owner-only: a cached executable is code that will run.
    assert stat.S_IMODE(cache_dir.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in _entries(cache_dir))
    assert not list(cache_dir.glob(".tmp-*"))  # no temporary file left behind


# Each row is three processes. The slice's two fail the entry's two checks
# (the checksum, the header); a flipped bit and an empty file fail them again.
@pytest.mark.parametrize(
    "damage",
    slice_params(["truncate", "flip", "garbage", "empty"], lambda d: d in ("truncate", "garbage")),
)
def test_a_corrupted_entry_is_rebuilt(tmp_path: Path, damage: str) -> None:
    first = _run(tmp_path)
    victim = _entries(tmp_path)[0]
    data = victim.read_bytes()
    if damage == "truncate":  # as a process killed mid-write would leave it, without rename
        victim.write_bytes(data[: len(data) // 2])
    elif damage == "flip":  # one bit of the payload: only the checksum can tell
        i = len(data) - 100
        victim.write_bytes(data[:i] + bytes([data[i] ^ 1]) + data[i + 1 :])
    elif damage == "garbage":
        victim.write_bytes(b"not an executable")
    else:
        victim.write_bytes(b"")

    second = _run(tmp_path)
    assert second["cache"] == {"hits": first["compiled"] - 1, "misses": 1, "rejected": 1}
    assert second["out"] == first["out"]
    rebuilt = victim.read_bytes()  # rewritten whole (an executable's bytes vary by build)
    assert rebuilt.startswith(b"didax-xla-executable")
    assert len(rebuilt) > len(data) // 2

    third = _run(tmp_path)
    assert third["cache"] == {"hits": first["compiled"], "misses": 0, "rejected": 0}


def test_processes_sharing_a_directory_at_once(tmp_path: Path) -> None:
    env = {**os.environ, "JAX_COMPILATION_CACHE_DIR": str(tmp_path)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", PROGRAM], env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(3)
    ]
    outs = [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert all(o["out"] == outs[0]["out"] for o in outs)
    assert all(o["cache"]["rejected"] == 0 for o in outs)  # nobody read half an entry
    after = _run(tmp_path)
    assert after["cache"]["misses"] == 0


@pytest.fixture
def cache_in(tmp_path: Path) -> Iterator[Path]:
    """The cache on in this process, in ``tmp_path``; off again after the test."""
    dx.config.update("jax_compilation_cache_dir", tmp_path)
    dx.clear_caches()
    try:
        yield tmp_path
    finally:
        dx.config.update("jax_compilation_cache_dir", None)
        dx.clear_caches()


def test_in_process_hits_after_the_caches_are_cleared(cache_in: Path) -> None:
    f = dx.jit(lambda x: dnp.cos(x) * 3.0)
    x = dnp.asarray(np.arange(4.0))
    before = persistent_cache.info()
    expected = np.cos(np.arange(4.0)) * 3.0
    np.testing.assert_allclose(np.asarray(f(x)), expected)
    dx.clear_caches()  # the compile cache forgets it; the disk does not
    np.testing.assert_allclose(np.asarray(f(x)), expected)
    after = persistent_cache.info()
    assert (after.misses - before.misses, after.hits - before.hits) == (1, 1)
    assert len(_entries(cache_in)) == 1


def test_an_unwritable_directory_is_skipped(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the directory should be")
    dx.config.update("jax_compilation_cache_dir", blocked / "cache")
    try:
        dx.clear_caches()
        with pytest.warns(UserWarning, match="cannot be written"):
            np.testing.assert_allclose(np.asarray(dx.jit(lambda x: x + 1.0)(2.0)), 3.0)
    finally:
        dx.config.update("jax_compilation_cache_dir", None)
        dx.clear_caches()
