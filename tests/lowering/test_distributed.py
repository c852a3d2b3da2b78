"""Two processes x 4 host devices on loopback run one SPMD program (``didax.distributed``).

As JAX 0.10.2 does with ``jax_cpu_collectives_implementation="gloo"``: each
process (``distributed_checks.py``) joins through jaxlib's coordination
service, contributes its block of a global array, and both run a jitted
reduction and a shard_map psum over all 8 devices; each reports what it
computed, checked here against NumPy on the whole array.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

import numpy as np

HERE: Final = Path(__file__).parent
SRC: Final = HERE.parent.parent / "src"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_two_processes_one_program() -> None:
    env = dict(os.environ)
    env.pop("XLA_FLAGS", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH", "")]))
    port = _free_port()
    procs = [
        subprocess.Popen(
            [sys.executable, str(HERE / "distributed_checks.py"), str(pid), str(port)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for pid in (0, 1)
    ]
    reports: list[dict[str, Any]] = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=240)
            lines = [ln for ln in out.splitlines() if ln.startswith("RESULTS ")]
            assert lines, f"a process did not report (exit {p.returncode}):\n{err[-4000:]}"
            reports.append(json.loads(lines[-1][len("RESULTS ") :]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    whole = np.concatenate([np.arange(8.0).reshape(4, 2) + 8.0 * pid for pid in (0, 1)])
    for pid, r in enumerate(reports):
        assert r["process_index"] == pid
        assert r["process_count"] == 2
        assert r["device_count"] == 8
        assert r["local_device_count"] == 4
        assert r["global_shape"] == [8, 2]
        assert r["local_shards"] == [[4 * pid + k, 4 * pid + k + 1] for k in range(4)]
        assert r["total"] == float((whole * whole).sum())
        assert r["summed"] == whole.sum(0).tolist()
