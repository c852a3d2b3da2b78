"""One of two processes of ``test_distributed.py``: 2 processes x 4 host devices on loopback.

``python distributed_checks.py PROCESS_ID PORT`` joins the run (jaxlib's
coordination service, gloo CPU collectives), lays a global array out over a
mesh of all 8 devices from this process's block, runs a jitted reduction and
a shard_map with a psum as one program across both processes, and prints a
JSON report (``RESULTS {...}``) of what it computed.
"""

from __future__ import annotations

import json
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import numpy as np

import didax as dx
from didax.sharding import Mesh, NamedSharding
from didax.sharding import PartitionSpec as P


def main() -> None:
    pid, port = int(sys.argv[1]), int(sys.argv[2])
    dx.config.update("jax_cpu_collectives_implementation", "gloo")
    dx.distributed.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=pid)
    mesh = Mesh(np.array(dx.devices()), ("i",))
    rows = NamedSharding(mesh, P("i"))
    local = np.arange(8.0).reshape(4, 2) + 8.0 * pid  # this process's 4 rows
    x = dx.make_array_from_process_local_data(rows, local)
    total = dx.jit(lambda v: (v * v).sum(), out_shardings=NamedSharding(mesh, P()))(x)
    summed = dx.jit(
        dx.shard_map(
            lambda v: dx.lax.psum(v.sum(0), "i"), mesh=mesh, in_specs=P("i"), out_specs=P()
        )
    )(x)
    report = {
        "process_index": dx.process_index(),
        "process_count": dx.process_count(),
        "device_count": dx.device_count(),
        "local_device_count": dx.local_device_count(),
        "global_shape": list(x.shape),
        "local_shards": sorted([s.index[0].start, s.index[0].stop] for s in x.addressable_shards),
        "total": float(total),
        "summed": np.asarray(summed).tolist(),
    }
    print("RESULTS " + json.dumps(report), flush=True)
    dx.distributed.shutdown()


if __name__ == "__main__":
    main()
