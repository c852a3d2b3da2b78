"""Soak: long runs whose resident memory must level off (``nox -s soak``, not in CI).

Two phases, one process:

1. **training**: ``examples/train_mlp.py``'s jitted ``value_and_grad`` and
   Adam update, ``--steps`` steps (default 100,000) on its spirals;
2. **new shapes**: ``--shapes`` calls (default 50,000) of one jitted
   function on arrays of a shape not seen before (so each is a trace, a
   lowering and an XLA compile, and the bounded caches evict), with a few
   eager operations on each result.

The resident set size (``/proc/self/statm``) is sampled along the way. The
script prints, for each phase, the RSS after warm-up (the first tenth of
the phase) and at the end, and the growth between them, and exits 1 when a
growth reaches ``--max-growth`` (default 5%). With matplotlib installed (the
``plot`` extra) it writes the curve to ``--plot`` (default
``soak_rss.png``); the samples go to ``--samples`` (CSV, default
``soak_rss.csv``). ``--steps 2000 --shapes 500`` is a quick look.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

import didax as dx
import didax.numpy as dnp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import train_mlp

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mib() -> float:
    """The process's resident set size now, in MiB (Linux's /proc/self/statm)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE / 2**20


def run_phase(
    name: str, total: int, step: Callable[[int], object], samples: list[tuple[str, int, float]]
) -> tuple[float, float]:
    """Runs ``step(i)`` for i < total, sampling RSS 200 times; (RSS after warm-up, at the end)."""
    every = max(total // 200, 1)
    warm_at = max(total // 10, 1)
    warm = float("nan")
    start = time.perf_counter()
    for i in range(total):
        step(i)
        if (i + 1) % every == 0 or i + 1 == total:
            samples.append((name, i + 1, rss_mib()))
        if i + 1 == warm_at:
            warm = rss_mib()
    end = rss_mib()
    seconds = time.perf_counter() - start
    growth = (end - warm) / warm
    print(
        f"{name}: {total} iterations in {seconds:.0f} s; RSS {warm:.1f} MiB after warm-up, "
        f"{end:.1f} MiB at the end ({growth:+.2%})"
    )
    return warm, end


def training(steps: int) -> Callable[[int], object]:
    rng = np.random.default_rng(0)
    x, labels = train_mlp.spirals(400, rng)
    x_train, y_train = dnp.asarray(x), dnp.asarray(train_mlp.one_hot(labels))
    state = [train_mlp.init_params((2, *train_mlp.HIDDEN, train_mlp.NUM_CLASSES), rng)]
    opt = [train_mlp.adam_init(state[0])]
    loss_and_grad = dx.jit(dx.value_and_grad(train_mlp.loss))
    update = dx.jit(train_mlp.adam_update)

    def step(i: int) -> object:
        value, grads = loss_and_grad(state[0], x_train, y_train)
        state[0], opt[0] = update(state[0], grads, opt[0])
        return float(value) if i % 100 == 0 else value

    return step


def new_shapes() -> Callable[[int], object]:
    f = dx.jit(lambda a: dnp.tanh(a) * 2.0 + a.sum())

    def step(i: int) -> object:
        # Shapes (1 + i % 97, 1 + i // 97): 50,000 of them are all distinct.
        # The argument comes from NumPy and the result goes back to it, so
        # each call compiles one program (the jitted one), no eager ones.
        a = dnp.asarray(np.ones((1 + i % 97, 1 + i // 97), np.float32))
        return float(np.asarray(f(a))[0, 0])

    return step


def save_plot(samples: list[tuple[str, int, float]], path: str) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    for ax, phase in zip(axes, ("training", "new shapes"), strict=True):
        pts = [(i, r) for name, i, r in samples if name == phase]
        ax.plot([i for i, _ in pts], [r for _, r in pts])
        ax.set_title(phase)
        ax.set_xlabel("iteration")
        ax.set_ylabel("RSS (MiB)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--shapes", type=int, default=50_000)
    parser.add_argument("--max-growth", type=float, default=0.05)
    parser.add_argument("--plot", default="soak_rss.png")
    parser.add_argument("--samples", default="soak_rss.csv", help="the samples, as CSV")
    args = parser.parse_args(argv)
    samples: list[tuple[str, int, float]] = []
    growths: dict[str, float] = {}
    for name, total, step in (
        ("training", args.steps, training(args.steps)),
        ("new shapes", args.shapes, new_shapes()),
    ):
        warm, end = run_phase(name, total, step, samples)
        growths[name] = (end - warm) / warm
    with open(args.samples, "w") as f:
        f.write("phase,iteration,rss_mib\n")
        f.writelines(f"{name},{i},{r:.2f}\n" for name, i, r in samples)
    if save_plot(samples, args.plot):
        print(f"RSS curve written to {args.plot}")
    failed = {k: g for k, g in growths.items() if g >= args.max_growth}
    for k, g in failed.items():
        print(f"{k}: RSS grew {g:.2%} after warm-up (limit {args.max_growth:.0%})", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
