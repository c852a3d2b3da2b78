"""jit's hit path taken apart on issue 29's ``norm.logpdf`` workload, each layer against JAX's call.

Run: ``python bench/hit_path.py [--trials N] [--rounds N]``. The workload
is ``bench_stats``'s: a jitted ``scipy.stats.norm.logpdf`` of 10^6 float32
values on the device, each result waited for. Each variant below is timed
in alternating rounds with JAX's call (as ``paired.py`` times a workload),
in a process of its own (one process per variant and trial: a third
function timed in the same process moves both figures), and the table
gives, per variant, the median over the trials of didax/JAX:

- ``dispatch``: didax's compiled program called through jaxlib's C++
  dispatch on the Array's device buffer, the result buffer waited for (no
  didax object: what is left of didax is the program XLA compiled);
- ``+ Array``: that result made an ``Array`` (in place, as the hit path
  does) and waited for through ``Array.block_until_ready``;
- ``+ frame``: the same inside a ``__call__`` that only compares the
  argument's key, the least a Python hit path can do;
- ``jit (Python)``: jit's hit path in Python (``api.hit_path.PyHitPath``,
  the trace and option checks, any number of arguments and constants, the
  hit count) and ``Array.block_until_ready``'s Python method;
- ``jit``: the call as a user makes it: the same two in C where the
  extension ``didax.core._native`` is built (else the same as the above).

After a program over megabytes each Python call on the path costs
microseconds (docs/performance.md, "Dispatch internals"); JAX's call makes
none, nor does the C path. Timings are reported, never asserted; each
variant's result is first checked against JAX's.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench.bench_stats, as a script

VARIANTS = ("dispatch", "+ Array", "+ frame", "jit (Python)", "jit")


def variant_call(name: str) -> Callable[[], Any]:
    """One call of ``name`` (see the module's docstring), its result waited for."""
    from bench import bench_stats as bs

    import didax
    import didax.numpy as dnp
    import didax.scipy.stats
    from didax.api.hit_path import PyHitPath
    from didax.core.array import PY_BLOCK_UNTIL_READY, Array

    fn = didax.jit(lambda x: didax.scipy.stats.norm.logpdf(x, 0.5, 2.0))
    x = dnp.asarray(bs.data())
    fn(x).block_until_ready()
    if name == "jit":
        return lambda: fn(x).block_until_ready()
    if name == "jit (Python)":

        class Reference(PyHitPath):
            _cache = fn._cache
            _miss = staticmethod(fn._miss)

        reference = Reference()
        return lambda: PY_BLOCK_UNTIL_READY(reference(x))
    recent = fn._cache.recent
    assert recent is not None
    key: Any = recent[0]  # (mode, the argument's signature)
    hot = recent[1].hot
    assert hot is not None
    assert not hot.const_buffers  # the program's one parameter is the argument
    call, aval = hot.call, hot.out_aval
    array: Any = x

    def wrapped(buffer: Any) -> Array:
        (result,) = call(buffer)
        out = object.__new__(Array)
        out._aval = out._key = aval
        out._host = None
        out._buffer = result
        return out

    class Frame:
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            (a,) = args
            if type(a) is Array and a._key is key[1]:
                return wrapped(a._buffer)
            raise AssertionError("not the traced signature")

    frame = Frame()
    if name == "dispatch":
        return lambda: call(array._buffer)[0].block_until_ready()
    if name == "+ Array":
        return lambda: wrapped(array._buffer).block_until_ready()
    assert name == "+ frame", name
    return lambda: frame(x).block_until_ready()


def ratio(name: str, rounds: int, calls: int = 20) -> float:
    """Median seconds per call of ``name`` over JAX's, in ``rounds`` alternating rounds."""
    from bench import bench_stats as bs
    from bench.paired import median_seconds

    ours, theirs = variant_call(name), bs.workload("jax")
    np.testing.assert_allclose(np.asarray(ours()), np.asarray(theirs()), rtol=1e-6, atol=1e-6)
    didax_s, jax_s = median_seconds(ours, theirs, rounds, calls)
    return didax_s / jax_s


def _option(name: str, default: int) -> int:
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def main() -> None:
    rounds = _option("--rounds", 61)
    if "--variant" in sys.argv:  # one trial, in this process
        print(ratio(sys.argv[sys.argv.index("--variant") + 1], rounds))
        return
    found: dict[str, list[float]] = {v: [] for v in VARIANTS}
    for _ in range(_option("--trials", 5)):
        for v in VARIANTS:  # interleaved, so that a drift in the load spreads over all
            run = [sys.executable, __file__, "--variant", v, "--rounds", str(rounds)]
            out = subprocess.run(run, check=True, capture_output=True, text=True).stdout
            found[v].append(float(out.split()[-1]))
    print(f"{'variant':14s} {'median didax/JAX':>17s}   trials")
    for v, ratios in found.items():
        trials = " ".join(f"{r:.3f}" for r in sorted(ratios))
        print(f"{v:14s} {statistics.median(ratios):17.3f}   {trials}")


if __name__ == "__main__":
    main()
