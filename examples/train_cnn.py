"""Train a small convolutional network with didax: shapes in generated images.

Run it from the repository root after installing didax:

    python3 -m pip install . && python3 examples/train_cnn.py

The data set is generated with NumPy: 16x16 grey images, each holding one
of three shapes (a horizontal bar, a vertical bar, a hollow square) drawn at
a random place and size, on a noisy background; the shape is the label. The
model is a small CNN:

- two blocks of a 3x3 convolution (``lax.conv_general_dilated``, NHWC
  images and HWIO kernels), ReLU and a 2x2 max-pool
  (``lax.reduce_window`` with ``lax.max``), 8 then 16 channels;
- a dense layer from the pooled 4x4x16 features to the three classes;

with a softmax cross-entropy loss, trained by full-batch Adam as in
``train_mlp.py``, whose progress bar and optimiser it reuses.

Options: ``--steps N`` (default 200), ``--seed S``, ``--min-accuracy A``
(exit with an error below it; default 0.9).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

import didax as dx
import didax.numpy as dnp
from didax import lax
from train_mlp import Progress, adam_init, adam_update

NUM_CLASSES = 3
SIZE = 16  # images are SIZE x SIZE, one channel
CHANNELS = (8, 16)

# (kernel, bias) for each convolution, then (weights, bias) of the dense layer.
Params = list[tuple[Any, Any]]


# --- the data ------------------------------------------------------------------------------


def draw(label: int, rng: np.random.Generator) -> np.ndarray[Any, Any]:
    """One image of the shape ``label`` (0: horizontal bar, 1: vertical bar, 2: square)."""
    image = rng.normal(0.0, 0.3, (SIZE, SIZE))
    length = int(rng.integers(6, 12))
    top, left = rng.integers(0, SIZE - length, 2)
    if label == 0:
        image[top, left : left + length] += 1.0
    elif label == 1:
        image[top : top + length, left] += 1.0
    else:
        side = length // 2 + 2
        image[top, left : left + side] += 1.0
        image[top + side - 1, left : left + side] += 1.0
        image[top : top + side, left] += 1.0
        image[top : top + side, left + side - 1] += 1.0
    return image


def shapes(
    count: int, rng: np.random.Generator
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """``count`` images, NHWC float32, and their labels."""
    labels = rng.integers(0, NUM_CLASSES, count)
    images = np.stack([draw(int(label), rng) for label in labels])
    return images[..., None].astype(np.float32), labels


# --- the model -----------------------------------------------------------------------------


def init_params(rng: np.random.Generator) -> Params:
    """He-scaled random kernels and weights, zero biases, float32."""
    params: Params = []
    c_in = 1
    for c_out in CHANNELS:
        kernel = rng.normal(0.0, np.sqrt(2.0 / (9 * c_in)), (3, 3, c_in, c_out))
        params.append((kernel.astype(np.float32), np.zeros(c_out, np.float32)))
        c_in = c_out
    features = (SIZE // 4) ** 2 * c_in
    dense = rng.normal(0.0, np.sqrt(1.0 / features), (features, NUM_CLASSES))
    params.append((dense.astype(np.float32), np.zeros(NUM_CLASSES, np.float32)))
    return params


def max_pool(x: Any) -> Any:
    """2x2 max-pool with stride 2 over the H and W axes of an NHWC batch."""
    return lax.reduce_window(x, -dnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def predict(params: Params, images: Any) -> Any:
    """The logits: (conv 3x3 'SAME', ReLU, max-pool) twice, then a dense layer."""
    *convs, (w_out, b_out) = params
    x = images
    for kernel, bias in convs:
        x = lax.conv_general_dilated(
            x, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        x = max_pool(dnp.maximum(x + bias, 0.0))
    return x.reshape(x.shape[0], -1) @ w_out + b_out


def loss(params: Params, images: Any, y_one_hot: Any) -> Any:
    """Mean softmax cross-entropy (log-softmax with the max subtracted, for stability)."""
    logits = predict(params, images)
    shifted = logits - dnp.max(logits, axis=1, keepdims=True)
    log_probs = shifted - dnp.log(dnp.sum(dnp.exp(shifted), axis=1, keepdims=True))
    return -dnp.mean(dnp.sum(y_one_hot * log_probs, axis=1))


# --- training ------------------------------------------------------------------------------


def accuracy(params: Params, images: np.ndarray[Any, Any], labels: np.ndarray[Any, Any]) -> float:
    logits = np.asarray(dx.jit(predict)(params, images))
    return float(np.mean(np.argmax(logits, axis=1) == labels))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--steps", type=int, default=200, help="Adam steps (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data and weights")
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
    images, labels = shapes(1200, rng)
    train, test = slice(0, 800), slice(800, None)
    x_train = dnp.asarray(images[train])
    y_train = dnp.asarray(np.eye(NUM_CLASSES, dtype=np.float32)[labels[train]])
    print(f"shapes: {len(labels[train])} training and {len(labels[test])} test images")

    params = init_params(rng)
    state = adam_init(params)
    loss_and_grad = dx.jit(dx.value_and_grad(loss))
    update = dx.jit(adam_update)

    running = last = float("nan")
    progress = Progress(args.steps)
    for step in range(1, args.steps + 1):
        value, grads = loss_and_grad(params, x_train, y_train)
        params, state = update(params, grads, state)
        last = float(value)
        # An exponential moving average: the bar's loss does not jump around.
        running = last if step == 1 else 0.95 * running + 0.05 * last
        progress.update(step, running)

    acc = accuracy(params, images[test], labels[test])
    print(f"final training loss {last:.4f}, test accuracy {acc:.1%}")
    if acc < args.min_accuracy:
        print(f"test accuracy {acc:.1%} is below {args.min_accuracy:.0%}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
