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
the phase; for new shapes at least 4 times the compile cache's size, up
to half the phase) and at the end, and the growth between them, and exits 1 when a
growth reaches ``--max-growth`` (default 5%). It writes the curve to ``--plot`` (default
``soak_rss.png``; with matplotlib, the ``plot`` extra, if installed, else a
plainer chart drawn here with zlib alone); the samples go to ``--samples`` (CSV, default
``soak_rss.csv``). ``--steps 2000 --shapes 500`` is a quick look.
"""

from __future__ import annotations

import argparse
import itertools
import os
import struct
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

import didax as dx
import didax.numpy as dnp
from didax.lowering.dispatch import COMPILE_CACHE

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import train_mlp

PAGE = os.sysconf("SC_PAGE_SIZE")
PHASES = ("training", "new shapes")


def rss_mib() -> float:
    """The process's resident set size now, in MiB (Linux's /proc/self/statm)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE / 2**20


def run_phase(
    name: str,
    total: int,
    step: Callable[[int], object],
    samples: list[tuple[str, int, float]],
    warm_at: int,
    verbose: bool = False,
) -> tuple[float, float]:
    """Runs ``step(i)`` for i < total, sampling RSS 200 times; (RSS after warm_at, at the end)."""
    every = max(total // 200, 1)
    warm = float("nan")
    start = time.perf_counter()
    for i in range(total):
        step(i)
        if (i + 1) % every == 0 or i + 1 == total:
            samples.append((name, i + 1, rss_mib()))
            if verbose:  # the curve so far, for a run that may be stopped
                print(f"{name},{i + 1},{samples[-1][2]:.2f}", flush=True)
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


# --- a PNG without matplotlib: frames, polylines, a 3 x 5 font of digits ---
# Rows of 3 bits, top to bottom, for each character drawn.
_FONT: dict[str, tuple[int, ...]] = {
    "0": (7, 5, 5, 5, 7),
    "1": (2, 6, 2, 2, 7),
    "2": (7, 1, 7, 4, 7),
    "3": (7, 1, 7, 1, 7),
    "4": (5, 5, 7, 1, 1),
    "5": (7, 4, 7, 1, 7),
    "6": (7, 4, 7, 5, 7),
    "7": (7, 1, 1, 1, 1),
    "8": (7, 5, 7, 5, 7),
    "9": (7, 5, 7, 1, 7),
    ".": (0, 0, 0, 0, 2),
    ",": (0, 0, 0, 2, 4),
    " ": (0, 0, 0, 0, 0),
}
_SCALE = 2  # each font pixel is 2 x 2
_BLACK = (0, 0, 0)
_GREY = (170, 170, 170)
_BLUE = (31, 119, 180)


class _Canvas:
    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.pixels = bytearray(b"\xff" * (width * height * 3))

    def dot(self, x: int, y: int, color: tuple[int, int, int]) -> None:
        if 0 <= x < self.width and 0 <= y < self.height:
            i = (y * self.width + x) * 3
            self.pixels[i : i + 3] = bytes(color)

    def line(self, x0: int, y0: int, x1: int, y1: int, color: tuple[int, int, int]) -> None:
        steps = max(abs(x1 - x0), abs(y1 - y0), 1)
        for k in range(steps + 1):
            self.dot(x0 + (x1 - x0) * k // steps, y0 + (y1 - y0) * k // steps, color)

    def text(self, x: int, y: int, s: str) -> None:
        for c in s:
            for row, bits in enumerate(_FONT.get(c, _FONT[" "])):
                for col in range(3):
                    if bits >> (2 - col) & 1:
                        for dx in range(_SCALE):
                            for dy in range(_SCALE):
                                self.dot(x + col * _SCALE + dx, y + row * _SCALE + dy, _BLACK)
            x += 4 * _SCALE

    def png(self) -> bytes:
        raw = b"".join(
            b"\x00" + bytes(self.pixels[r * self.width * 3 : (r + 1) * self.width * 3])
            for r in range(self.height)
        )

        def chunk(kind: bytes, data: bytes) -> bytes:
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (
            b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b"")
        )


def write_panels(
    path: str,
    panels: Sequence[Sequence[tuple[float, float]]],
    panel_size: tuple[int, int] = (420, 260),
) -> None:
    """Writes one panel per series of (x, y) points, side by side, to ``path`` as a PNG."""
    w, h = panel_size
    canvas = _Canvas(w * len(panels), h)
    margin_left, margin = 60, 16
    for p, points in enumerate(panels):
        x0, x1 = p * w + margin_left, (p + 1) * w - margin
        y0, y1 = margin, h - 2 * margin
        for a, b, c, d in ((x0, y0, x1, y0), (x0, y1, x1, y1), (x0, y0, x0, y1), (x1, y0, x1, y1)):
            canvas.line(a, b, c, d, _GREY)
        if not points:
            continue
        xs, ys = [x for x, _ in points], [y for _, y in points]
        # The y axis spans at least a tenth of the highest value: noise of a
        # few MiB must not look like growth.
        hi = max(ys)
        lo = min(min(ys), 0.9 * hi)
        span_x, span_y = (max(xs) or 1), (hi - lo) or 1.0
        coords = [
            (x0 + round((x / span_x) * (x1 - x0)), y1 - round((y - lo) / span_y * (y1 - y0)))
            for x, y in points
        ]
        for (a, b), (c, d) in itertools.pairwise(coords):
            canvas.line(a, b, c, d, _BLUE)
        canvas.text(p * w + 4, y0, f"{hi:.1f}")
        canvas.text(p * w + 4, y1 - 5 * _SCALE, f"{lo:.1f}")
        canvas.text(x1 - 8 * _SCALE * len(str(int(max(xs)))) // 2, y1 + 6, f"{int(max(xs))}")
    with open(path, "wb") as f:
        f.write(canvas.png())


def save_plot(samples: list[tuple[str, int, float]], path: str) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        # Without matplotlib, the same two panels with the standard library:
        # each panel's RSS range (MiB) and last iteration written in digits.
        panels = [[(i, r) for name, i, r in samples if name == p] for p in PHASES]
        write_panels(path, panels)
        return True
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    for ax, phase in zip(axes, PHASES, strict=True):
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
    parser.add_argument("--verbose", action="store_true", help="print each sample as taken")
    args = parser.parse_args(argv)
    samples: list[tuple[str, int, float]] = []
    growths: dict[str, float] = {}
    for name, total, step in (
        ("training", args.steps, training(args.steps)),
        ("new shapes", args.shapes, new_shapes()),
    ):
        if total == 0:  # a phase may be skipped (``--steps 0``)
            continue
        warm_at = max(total // 10, 1)
        if name == "new shapes":
            # Warm once the compile cache is full and glibc's per-thread
            # malloc arenas have grown to their working size (when the run is
            # long enough): until then executables fill the cache, which is
            # not growth. The arenas level off after about 4 cache-fulls
            # (docs/performance.md, "Soak").
            warm_at = min(max(warm_at, 4 * COMPILE_CACHE.maxsize), max(total // 2, 1))
        warm, end = run_phase(name, total, step, samples, warm_at, args.verbose)
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
