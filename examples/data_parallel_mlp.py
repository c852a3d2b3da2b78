"""Data-parallel training over 8 host devices: the spirals MLP, one batch split across a mesh.

Run it from the repository root after installing didax:

    python3 examples/data_parallel_mlp.py

It asks XLA for 8 CPU "devices" (``XLA_FLAGS=--xla_force_host_platform_device_count=8``,
set here before anything starts XLA; on a machine with 8 GPUs the same code
runs on them). The model, loss and Adam update are ``examples/train_mlp.py``'s.
One training step is one SPMD program compiled by XLA for the whole mesh:

- the batch is laid out over a 1-d mesh ``("batch",)`` with
  ``dx.device_put(x, NamedSharding(mesh, P("batch")))``; the parameters and
  the optimiser state are replicated (``P()``);
- ``dx.shard_map`` runs the step on each device's eighth of the
  batch: it takes the gradient of the local loss and averages it across the
  mesh with ``dx.lax.pmean`` (an XLA all-reduce), so every device applies
  the same Adam update;
- ``dx.jit`` compiles it once; later steps are cache hits.

The same steps are then run on one device with the whole batch. In float32
the final losses agree closely but not exactly (8 devices sum in another
order than one, and Adam amplifies the roundings over hundreds of steps);
10 steps in float64 give the same parameters to 1e-9.
Options: ``--steps N`` (default 300), ``--seed S``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

_FLAG = "--xla_force_host_platform_device_count=8"
if _FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + _FLAG).strip()

import numpy as np  # noqa: E402

import didax as dx  # noqa: E402
from didax.sharding import Mesh, NamedSharding  # noqa: E402
from didax.sharding import PartitionSpec as P  # noqa: E402

# The script's own directory is on sys.path when it runs (and on mypy's path).
from train_mlp import (  # noqa: E402
    HIDDEN,
    NUM_CLASSES,
    adam_init,
    adam_update,
    init_params,
    loss,
    one_hot,
    spirals,
)


def make_step(mesh: Mesh | None) -> Any:
    """One Adam step on a batch; over ``mesh``, the batch is split and gradients averaged."""

    def local_step(params: Any, state: Any, x: Any, y: Any) -> Any:
        value, grads = dx.value_and_grad(loss)(params, x, y)
        if mesh is not None:
            value, grads = dx.lax.pmean((value, grads), "batch")
        params, state = adam_update(params, grads, state)
        return params, state, value

    if mesh is None:
        return dx.jit(local_step)
    return dx.jit(
        dx.shard_map(
            local_step,
            mesh=mesh,
            in_specs=(P(), P(), P("batch"), P("batch")),
            out_specs=(P(), P(), P()),
        )
    )


def train(step: Any, params: Any, x: Any, y: Any, steps: int) -> tuple[Any, float]:
    state = adam_init(params)
    value: Any = None
    for _ in range(steps):
        params, state, value = step(params, state, x, y)
    return params, float(value)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    devices = dx.devices()
    print(f"{len(devices)} devices: {devices[0].platform}")
    rng = np.random.default_rng(args.seed)
    x, labels = spirals(256, rng)  # 768 points: 96 per device
    y = one_hot(labels)
    params = init_params([2, *HIDDEN, NUM_CLASSES], rng)

    mesh = Mesh(np.array(devices), ("batch",))
    batch = NamedSharding(mesh, P("batch"))
    xs, ys = dx.device_put(x, batch), dx.device_put(y, batch)
    print(
        f"batch {x.shape} laid out as {xs.sharding.spec}: "
        f"{len(xs.addressable_shards)} pieces of {xs.addressable_shards[0].data.shape}"
    )

    _, sharded_loss = train(make_step(mesh), params, xs, ys, args.steps)
    _, single_loss = train(make_step(None), params, x, y, args.steps)
    print(
        f"after {args.steps} steps: loss {sharded_loss:.6f} over {len(devices)} devices, "
        f"{single_loss:.6f} on one"
    )
    # The same 10 steps in float64, where float32's rounding (in another order
    # on 8 devices than on one, then amplified by Adam) cannot hide a mistake.
    with dx.enable_x64(True):
        params64 = dx.tree_util.tree_map(lambda p: np.asarray(p, np.float64), params)
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        xs64, ys64 = dx.device_put(x64, batch), dx.device_put(y64, batch)
        p_sharded, _ = train(make_step(mesh), params64, xs64, ys64, 10)
        p_single, _ = train(make_step(None), params64, x64, y64, 10)
        gap = max(
            float(np.max(np.abs(np.asarray(a) - np.asarray(b))))
            for a, b in zip(
                dx.tree_util.tree_leaves(p_sharded),
                dx.tree_util.tree_leaves(p_single),
                strict=True,
            )
        )
    print(f"float64, 10 steps: largest parameter difference {gap:.1e}")
    if not np.isclose(sharded_loss, single_loss, rtol=1e-2) or gap > 1e-9:
        print("data-parallel and single-device training disagree", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
