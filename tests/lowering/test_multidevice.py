"""Sharding, SPMD jit, collectives and shard_map on 8 host devices, against JAX.

XLA fixes the number of host devices at backend start-up, so the checks
(``multidevice_checks.py``) run in one subprocess started with
``XLA_FLAGS=--xla_force_host_platform_device_count=8``; each check is then
reported as its own test here.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

import pytest

HERE: Final = Path(__file__).parent
SRC: Final = HERE.parent.parent / "src"
sys.path.insert(0, str(HERE))
# The checks' module, for their names (they run in the subprocess).
multidevice_checks: Any = importlib.import_module("multidevice_checks")


def run_checks(script: Path) -> dict[str, str | None]:
    """Runs a checks script on 8 host devices; its report (check name -> None or the failure)."""
    env = dict(os.environ)
    env["XLA_FLAGS"] = (
        env.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"
    ).strip()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, str(script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("RESULTS ")]
    assert lines, f"the checks did not report (exit {done.returncode}):\n{done.stderr[-5000:]}"
    parsed: dict[str, str | None] = json.loads(lines[-1][len("RESULTS ") :])
    return parsed


@pytest.fixture(scope="module")
def results() -> dict[str, str | None]:
    return run_checks(HERE / "multidevice_checks.py")


@pytest.mark.parametrize("name", list(multidevice_checks.CHECKS))
def test_multidevice(results: dict[str, str | None], name: str) -> None:
    assert name in results
    failure = results[name]
    assert failure is None, failure


def test_sharded_benchmark_script_runs() -> None:
    """``bench/sharded_matmul.py`` checks its results against NumPy, then prints its table."""
    env = dict(os.environ)
    env.pop("XLA_FLAGS", None)  # the script sets its own
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH", "")]))
    script = HERE.parent.parent / "bench" / "sharded_matmul.py"
    done = subprocess.run(
        [sys.executable, str(script), "--rounds", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    rows = [ln for ln in done.stdout.splitlines() if "mesh" in ln]
    assert len(rows) == 4, done.stdout
    assert all(float(r.split()[-1]) > 0 for r in rows)
