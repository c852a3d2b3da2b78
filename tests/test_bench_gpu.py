"""``bench/gpu.py``, the GPU benchmark, on a CPU: it runs nothing, and its workloads are right.

CI has no GPU: there the script must say so in one line and exit 0. Its
workloads are checked here at small sizes against JAX, in both libraries'
default 32-bit mode (the mode the script runs them in), and one is run end
to end with ``--tiny`` (any platform), first call in fresh processes included.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

import jax
import pytest

ROOT: Final = Path(__file__).resolve().parent.parent
SCRIPT: Final = ROOT / "bench" / "gpu.py"


def _load() -> Any:
    spec = importlib.util.spec_from_file_location("didax_bench_gpu", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


gpu: Any = _load()
WORKLOADS: Final = {w.name: w for w in gpu.workloads(tiny=True)}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("JAX_ENABLE_X64", None)  # tests/conftest.py sets it; the script runs in the default
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_without_a_gpu_the_script_says_so_and_runs_nothing() -> None:
    if jax.devices()[0].platform != "cpu":
        pytest.skip("this machine has an accelerator")
    done = _run("--quick")
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.splitlines() == [
        "bench/gpu.py: no GPU found (JAX's first device is cpu, didax's cpu); nothing was run."
    ]


@pytest.mark.x64_off
@pytest.mark.parametrize("name", list(WORKLOADS))
def test_workload_matches_jax(name: str) -> None:
    workload = WORKLOADS[name]
    result, calls = gpu.check(workload)
    assert result.status == "ok"
    assert set(calls) == {"didax", "jax"}
    # The calls the benchmark times are the ones after the first (cache hits):
    # a second call of each agrees too.
    again = {lib: call() for lib, call in calls.items() if call is not None}
    assert workload.compare(again["didax"], again["jax"]) is None


@pytest.mark.x64_off
def test_a_wrong_result_is_a_failure() -> None:
    w = WORKLOADS["jit hit f32[3]"]

    def build(lib: str) -> Any:
        call = w.build(lib)
        return lambda: call() + (1.0 if lib == "didax" else 0.0)

    wrong = gpu.Workload(w.name, build, w.compare)
    result, _ = gpu.check(wrong)
    assert result.status.startswith("FAIL: result 0 (3,): relative error")


@pytest.mark.x64_off
def test_a_didax_error_is_reported_and_jax_still_timed() -> None:
    def build(lib: str) -> Any:
        if lib == "didax":
            raise NotImplementedError("no rule\nsecond line")
        return WORKLOADS["jit hit f32[3]"].build(lib)

    w = gpu.Workload("broken", build, gpu.leaves_close(0.0))
    result, calls = gpu.check(w)
    assert result.status == "didax error: NotImplementedError: no rule"
    seconds = gpu.alternate(calls, 2, 0.0)
    assert set(seconds) == {"jax"}
    assert seconds["jax"] > 0


def test_tiny_end_to_end_with_first_calls_in_fresh_processes() -> None:
    done = _run("--tiny", "--rounds", "2", "--first-calls", "1", "--only", "jit hit")
    assert done.returncode == 0, done.stdout + done.stderr[-4000:]
    rows = {
        cells[0]: cells
        for line in done.stdout.splitlines()
        if len(cells := [c.strip() for c in line.split("|")]) == 6
    }
    assert set(rows) == {"workload", "jit hit f32[3]", "first call: jit hit f32[3]"}, done.stdout
    for name in ("jit hit f32[3]", "first call: jit hit f32[3]"):
        _, didax_time, jax_time, ratio, _, status = rows[name]
        assert status == "ok"
        assert didax_time != "-"
        assert jax_time != "-"
        assert float(ratio) > 0
    assert rows["first call: jit hit f32[3]"][4].startswith("<= 1 ")
