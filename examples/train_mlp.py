"""Train a small neural network with didax: a multi-layer perceptron on spirals.

Run it from the repository root after installing didax:

    python3 -m pip install . && python3 examples/train_mlp.py

The data set is generated with NumPy: three interleaved spiral arms in the
plane, one class per arm, split into a training and a test set. The model is
an MLP (2 -> 64 -> 64 -> 3, tanh) with a softmax cross-entropy loss, and
training is full-batch Adam:

- ``dx.jit(dx.value_and_grad(loss))`` computes the loss and its gradient
  with respect to every parameter (a pytree: a list of ``(w, b)`` pairs)
  in one compiled XLA program;
- the Adam update is written with ``didax.numpy`` and
  ``didax.tree_util.tree_map`` over the parameter pytree, and jitted too.

A progress bar shows the running loss (redrawn in place with ``\\r`` on a
terminal; a few plain lines when the output is a file or a pipe). The script
prints the test accuracy and, when matplotlib is installed
(``pip install '.[plot]'``), writes the loss curve to a PNG.

Options: ``--steps N`` (default 1000), ``--seed S``, ``--plot PATH``
(default ``train_mlp_loss.png``), ``--no-plot``, ``--min-accuracy A`` (exit
with an error below it; default 0.9).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

import didax as dx
import didax.numpy as dnp
from didax.tree_util import tree_map

# A parameter pytree: one (weights, bias) pair per layer.
Params = list[tuple[Any, Any]]

NUM_CLASSES = 3
HIDDEN = (64, 64)


# --- the data ------------------------------------------------------------------------------


def spirals(
    points_per_class: int, rng: np.random.Generator, turns: float = 1.0, noise: float = 0.05
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Points on ``NUM_CLASSES`` interleaved spiral arms, and each point's arm (its label).

    Each arm winds ``turns`` times around the origin; Gaussian noise of
    standard deviation ``noise`` blurs the points, so neighbouring arms
    overlap a little and no classifier is perfect on the test set.
    """
    xs, labels = [], []
    for k in range(NUM_CLASSES):
        radius = rng.uniform(0.05, 1.0, points_per_class)
        angle = 2 * np.pi * (turns * radius + k / NUM_CLASSES)
        arm = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
        xs.append(arm + rng.normal(0.0, noise, arm.shape))
        labels.append(np.full(points_per_class, k))
    return np.concatenate(xs).astype(np.float32), np.concatenate(labels)


def one_hot(labels: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    hot: np.ndarray[Any, Any] = (labels[:, None] == np.arange(NUM_CLASSES)).astype(np.float32)
    return hot


# --- the model -----------------------------------------------------------------------------


def init_params(sizes: Sequence[int], rng: np.random.Generator) -> Params:
    """Glorot-scaled random weights and zero biases, float32."""
    return [
        (
            rng.normal(0.0, np.sqrt(2.0 / (m + n)), (m, n)).astype(np.float32),
            np.zeros(n, np.float32),
        )
        for m, n in itertools.pairwise(sizes)
    ]


def predict(params: Params, x: Any) -> Any:
    """The logits: ``tanh`` hidden layers, then a linear output layer."""
    *hidden, (w_out, b_out) = params
    for w, b in hidden:
        x = dnp.tanh(x @ w + b)
    return x @ w_out + b_out


def loss(params: Params, x: Any, y_one_hot: Any) -> Any:
    """Mean softmax cross-entropy (log-softmax with the max subtracted, for stability)."""
    logits = predict(params, x)
    shifted = logits - dnp.max(logits, axis=1, keepdims=True)
    log_probs = shifted - dnp.log(dnp.sum(dnp.exp(shifted), axis=1, keepdims=True))
    return -dnp.mean(dnp.sum(y_one_hot * log_probs, axis=1))


# --- the optimiser -------------------------------------------------------------------------

# Adam's state: the step count and the running first and second moments of the gradient.
AdamState = tuple[Any, Params, Params]


def adam_init(params: Params) -> AdamState:
    zeros = tree_map(np.zeros_like, params)
    return np.zeros((), np.float32), zeros, zeros


def adam_update(
    params: Params,
    grads: Params,
    state: AdamState,
    lr: float = 1e-2,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
) -> tuple[Params, AdamState]:
    """One Adam step (Kingma and Ba), written with ``didax.numpy`` over the pytrees."""
    step, m, v = state
    step = step + 1
    m = tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
    v = tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
    # Bias correction: the moments start at zero.
    scale = lr * dnp.sqrt(1 - b2**step) / (1 - b1**step)
    params = tree_map(lambda p, m, v: p - scale * m / (dnp.sqrt(v) + eps), params, m, v)
    return params, (step, m, v)


# --- the progress bar ----------------------------------------------------------------------


class Progress:
    """A progress bar with the running loss.

    On a terminal it is redrawn in place (``\\r``); otherwise (a file, a pipe,
    a test's captured output) it prints a line at each quarter, so logs stay
    short.
    """

    def __init__(self, total: int, stream: TextIO = sys.stderr, width: int = 30) -> None:
        self.total = total
        self.stream = stream
        self.width = width
        self.interactive = stream.isatty()
        self.start = time.perf_counter()
        self._next_line = 0  # the step of the next plain line
        self._last_draw = -1.0  # when the bar was last redrawn

    def update(self, step: int, running_loss: float) -> None:
        done = step / self.total
        elapsed = time.perf_counter() - self.start
        text = f"step {step:>{len(str(self.total))}}/{self.total}  loss {running_loss:.4f}"
        text += f"  {elapsed:5.1f}s"
        if self.interactive:
            if step < self.total and elapsed - self._last_draw < 0.05:
                return  # redrawing at every step would cost more than the step
            self._last_draw = elapsed
            filled = int(self.width * done)
            bar = "#" * filled + "-" * (self.width - filled)
            self.stream.write(f"\r[{bar}] {text}")
            if step == self.total:
                self.stream.write("\n")
            self.stream.flush()
        elif step >= self._next_line or step == self.total:
            self.stream.write(text + "\n")
            self.stream.flush()
            self._next_line = step + max(self.total // 4, 1)


# --- training ------------------------------------------------------------------------------


def accuracy(params: Params, x: np.ndarray[Any, Any], labels: np.ndarray[Any, Any]) -> float:
    logits = np.asarray(dx.jit(predict)(params, x))
    return float(np.mean(np.argmax(logits, axis=1) == labels))


def save_loss_curve(losses: Sequence[float], path: str) -> bool:
    """Writes the loss curve to ``path`` if matplotlib is installed; says whether it did."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(np.arange(1, len(losses) + 1), losses)
    ax.set_xlabel("step")
    ax.set_ylabel("training loss")
    ax.set_yscale("log")
    ax.set_title("MLP on spirals, trained with didax")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--steps", type=int, default=1000, help="Adam steps (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data and weights")
    parser.add_argument("--plot", default="train_mlp_loss.png", help="where the loss curve goes")
    parser.add_argument("--no-plot", action="store_true", help="do not write the loss curve")
    parser.add_argument(
        "--min-accuracy",
        type=float,
        default=0.9,
        help="exit with an error if the test accuracy is below this (default 0.9)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    rng = np.random.default_rng(args.seed)
    x, labels = spirals(400, rng)
    order = rng.permutation(len(x))
    train, test = order[: len(x) // 2], order[len(x) // 2 :]
    x_train, y_train = x[train], one_hot(labels[train])
    print(f"spirals: {len(train)} training and {len(test)} test points, {NUM_CLASSES} classes")

    params = init_params((2, *HIDDEN, NUM_CLASSES), rng)
    state = adam_init(params)
    loss_and_grad = dx.jit(dx.value_and_grad(loss))
    update = dx.jit(adam_update)

    losses: list[float] = []
    running = None
    progress = Progress(args.steps)
    for step in range(1, args.steps + 1):
        value, grads = loss_and_grad(params, x_train, y_train)
        params, state = update(params, grads, state)
        losses.append(float(value))
        # An exponential moving average: the bar's loss does not jump around.
        running = losses[-1] if running is None else 0.95 * running + 0.05 * losses[-1]
        progress.update(step, running)

    acc = accuracy(params, x[test], labels[test])
    print(f"final training loss {losses[-1]:.4f}, test accuracy {acc:.1%}")
    if not args.no_plot:
        if save_loss_curve(losses, args.plot):
            print(f"loss curve written to {args.plot}")
        else:
            print("matplotlib is not installed: no loss curve (pip install '.[plot]')")
    if acc < args.min_accuracy:
        print(f"test accuracy {acc:.1%} is below {args.min_accuracy:.0%}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
