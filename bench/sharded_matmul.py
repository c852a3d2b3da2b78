"""A sharded jitted matmul + reduction on 8 host devices, beside JAX (issue 14's benchmark).

Run: ``python bench/sharded_matmul.py`` (it sets
``XLA_FLAGS=--xla_force_host_platform_device_count=8`` itself, before any
backend starts). Prints, for a 1-D mesh (8) and a 2-D mesh (4x2), the
median time of ``jit(lambda x, w: (x @ w).sum(0))`` on an ``x`` split by
rows and a replicated ``w`` (large: the program's run time; small: the
cache-hit dispatch), for didax and JAX, and their ratio. Both results are
checked against NumPy first. Timings are reported, never asserted: they
depend on the machine (the CPU "devices" share its cores).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

FLAG = "--xla_force_host_platform_device_count=8"
if FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + FLAG).strip()

import jax  # noqa: E402
import numpy as np  # noqa: E402

import didax as dx  # noqa: E402
from didax.sharding import Mesh, NamedSharding, PartitionSpec  # noqa: E402


def median_seconds(
    ours: Callable[[], Any], theirs: Callable[[], Any], rounds: int = 30, calls: int = 5
) -> tuple[float, float]:
    """Median seconds per call of each, timed in alternating rounds (load drifts cancel)."""
    ours()
    theirs()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for fn, out in ((ours, times[0]), (theirs, times[1])):
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            out.append((time.perf_counter() - t0) / calls)
    return statistics.median(times[0]), statistics.median(times[1])


def workloads(rows: int, cols: int, shape: tuple[int, ...], names: tuple[str, ...]) -> Any:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((rows, cols)).astype(np.float32)
    w = rng.standard_normal((cols, cols)).astype(np.float32)
    spec = (names,) if len(names) > 1 else names

    mesh = Mesh(np.array(dx.devices()).reshape(shape), names)
    x = dx.device_put(a, NamedSharding(mesh, PartitionSpec(*spec)))
    wd = dx.device_put(w, NamedSharding(mesh, PartitionSpec()))
    f = dx.jit(lambda x, w: (x @ w).sum(0))

    jmesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(shape), names)
    jx = jax.device_put(a, jax.sharding.NamedSharding(jmesh, jax.sharding.PartitionSpec(*spec)))
    jw = jax.device_put(w, jax.sharding.NamedSharding(jmesh, jax.sharding.PartitionSpec()))
    jf = jax.jit(lambda x, w: (x @ w).sum(0))

    expected = (a.astype(np.float64) @ w).sum(0)
    tol = 1e-3 * float(np.abs(expected).max()) + 1e-3
    np.testing.assert_allclose(np.asarray(f(x, wd)), expected, atol=tol)
    np.testing.assert_allclose(np.asarray(jf(jx, jw)), expected, atol=tol)
    return (lambda: f(x, wd).block_until_ready()), (lambda: jf(jx, jw).block_until_ready())


def main() -> None:
    # --rounds N: fewer alternating rounds (the tests run it with 1, to check it works).
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 30
    assert dx.device_count() == 8, "XLA_FLAGS must be set before the backend starts"
    print(f"{'workload':44s} {'didax':>10s} {'jax':>10s} {'ratio':>6s}")
    for shape, names in (((8,), ("i",)), ((4, 2), ("x", "y"))):
        for label, rows, cols in (
            ("matmul+sum 4096x512 @ 512x512", 4096, 512),
            ("cache-hit dispatch 8x8 @ 8x8", 8, 8),
        ):
            ours, theirs = workloads(rows, cols, shape, names)
            t_d, t_j = median_seconds(ours, theirs, rounds)
            name = f"{label}, mesh {'x'.join(map(str, shape))}"
            print(f"{name:44s} {t_d * 1e6:8.1f}us {t_j * 1e6:8.1f}us {t_d / t_j:6.2f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
