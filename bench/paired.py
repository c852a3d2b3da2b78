"""The dispatch and compile workloads of the performance issue, timed in alternating rounds.

Run: ``python bench/paired.py [--rounds N] [--calls N] [--only TEXT] [--compiled-eager]``
(the last: every eager primitive compiled, the design docs/values.md
compares with the CPU's NumPy fast path). ``nox -s bench`` times each
workload for didax, then for JAX; on a small shared machine the load drifts
between the two (its ratios move by 20% from run to run). Here each round
times didax, then JAX, on the same workload, and the table gives the median
of each over the rounds and their ratio: drifts slower than a round cancel.
Results are checked against JAX before any timing; timings are reported,
never asserted. The eager workloads of issue 26 (``dot``, an elementwise
expression, ``grad`` of a 50-op chain, and whole runs of JAX's
``mnist_classifier_fromscratch.py`` example on synthetic data) print the
issue's target for didax/JAX beside their ratio. Both libraries run in
their default mode (32-bit, unless ``JAX_ENABLE_X64`` is set).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np

import didax as dx
import didax.numpy as dnp
import didax.scipy.special
from didax import lax
from didax.interpreters.evaluation import compiled_route

Call = Callable[[], Any]

# The repository root, so that ``bench.bench_conv`` and ``bench.bench_windows``
# (whose workloads issue 28's rows reuse) import when this runs as a script.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _ready(tree: Any) -> Any:
    for leaf in jax.tree_util.tree_leaves(tree):
        leaf.block_until_ready()
    return tree


def median_seconds(ours: Call, theirs: Call, rounds: int, calls: int) -> tuple[float, float]:
    """Median seconds per call of each, timed in alternating rounds of ``calls`` calls."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for fn, out in ((ours, times[0]), (theirs, times[1])):
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            out.append((time.perf_counter() - t0) / calls)
    return statistics.median(times[0]), statistics.median(times[1])


def _checked(ours: Call, theirs: Call, rtol: float = 1e-5, atol: float = 1e-6) -> tuple[Call, Call]:
    """Runs both once (tracing and compiling), checks they agree, returns them."""
    for a, b in zip(
        jax.tree_util.tree_leaves(ours()), jax.tree_util.tree_leaves(theirs()), strict=True
    ):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)
    return ours, theirs


def cache_hit_arrays() -> tuple[Call, Call]:
    x, y = np.ones(3), np.full(3, 3.0)
    f, jf = dx.jit(lambda a, b: a * b + a), jax.jit(lambda a, b: a * b + a)
    args = (dnp.asarray(x), dnp.asarray(y))  # f32[3]: both libraries' default mode
    jargs = (jnp.asarray(x), jnp.asarray(y))
    return _checked(lambda: f(*args).block_until_ready(), lambda: jf(*jargs).block_until_ready())


def cache_hit_scalars() -> tuple[Call, Call]:
    f, jf = dx.jit(lambda a, b: a * b + a), jax.jit(lambda a, b: a * b + a)
    return _checked(
        lambda: f(2.0, 3.0).block_until_ready(), lambda: jf(2.0, 3.0).block_until_ready()
    )


def _square_plus_one(x: Any) -> Any:
    return x * x + 1.0


def recreated_jit() -> tuple[Call, Call]:
    x = np.arange(4.0, dtype=np.float32)
    return _checked(
        lambda: dx.jit(_square_plus_one)(x).block_until_ready(),
        lambda: jax.jit(_square_plus_one)(x).block_until_ready(),
    )


def _at_alignment(x: np.ndarray[Any, Any], offset: int) -> np.ndarray[Any, Any]:
    """A copy of ``x`` whose data starts ``offset`` bytes past a 64-byte boundary."""
    raw = np.empty(x.nbytes + 128, np.uint8)
    start = (-raw.ctypes.data) % 64 + offset
    out: np.ndarray[Any, Any] = raw[start : start + x.nbytes].view(x.dtype).reshape(x.shape)
    out[...] = x
    return out


def per_example(
    numpy_args: bool, offset: int = 0, refill: bool = False
) -> Callable[[], tuple[Call, Call]]:
    """Per-example gradients; NumPy arguments start ``offset`` bytes past a 64-byte boundary.

    On a CPU jaxlib aliases a 64-byte-aligned NumPy array (no copy, and
    reads it after the call has returned) and copies others; didax passes
    them as they are to a short program (this one) or an aligned one to
    any, and returns once the program has run, and copies others into
    reused aligned host arrays (see ``didax.lowering.host_arguments``).
    Where a NumPy array lands is up to the allocator, so both cases are
    timed. With ``refill`` each call
    first writes the next of two batches into the argument arrays, as a
    loader reusing its buffers does (safe for JAX too: the call before
    was waited for).
    """

    def make() -> tuple[Call, Call]:
        rng = np.random.default_rng(1)

        def batch() -> tuple[np.ndarray[Any, Any], ...]:
            return (
                rng.normal(size=64).astype(np.float32),
                rng.normal(size=(256, 64)).astype(np.float32),
                rng.normal(size=256).astype(np.float32),
            )

        host = tuple(_at_alignment(a, offset) for a in batch())
        f = dx.jit(dx.vmap(dx.grad(lambda w, x, y: (dnp.dot(x, w) - y) ** 2), (None, 0, 0)))
        jf = jax.jit(jax.vmap(jax.grad(lambda w, x, y: (jnp.dot(x, w) - y) ** 2), (None, 0, 0)))
        args = host if numpy_args else tuple(dnp.asarray(a) for a in host)
        jargs = host if numpy_args else tuple(jnp.asarray(a) for a in host)
        if not refill:
            return _checked(
                lambda: f(*args).block_until_ready(), lambda: jf(*jargs).block_until_ready(), 1e-4
            )
        pair = (tuple(a.copy() for a in host), batch())

        def filled(call: Callable[..., Any], arrays: tuple[Any, ...]) -> Call:
            batches = itertools.cycle(pair)  # each side fills the same sequence

            def run() -> Any:
                for dst, src in zip(host, next(batches), strict=True):
                    np.copyto(dst, src)
                return call(*arrays).block_until_ready()

            return run

        return _checked(filled(f, args), filled(jf, jargs), 1e-4)

    return make


def mlp_step() -> tuple[Call, Call]:
    rng = np.random.default_rng(0)
    sizes = (784, 512, 512, 10)
    params = [
        (
            (rng.normal(size=(m, n)) / np.sqrt(m)).astype(np.float32),
            rng.normal(size=n).astype(np.float32),
        )
        for m, n in itertools.pairwise(sizes)
    ]
    x = rng.normal(size=(128, 784)).astype(np.float32)
    y = rng.normal(size=(128, 10)).astype(np.float32)

    def loss(np_: Any) -> Callable[..., Any]:
        def fn(params: Any, x: Any, y: Any) -> Any:
            for w, b in params[:-1]:
                x = np_.tanh(x @ w + b)
            w, b = params[-1]
            return np_.mean((x @ w + b - y) ** 2)

        return fn

    step, jstep = dx.jit(dx.value_and_grad(loss(dnp))), jax.jit(jax.value_and_grad(loss(jnp)))
    args = ([(dnp.asarray(w), dnp.asarray(b)) for w, b in params], dnp.asarray(x), dnp.asarray(y))
    jargs = ([(jnp.asarray(w), jnp.asarray(b)) for w, b in params], jnp.asarray(x), jnp.asarray(y))
    return _checked(lambda: _ready(step(*args)), lambda: _ready(jstep(*jargs)), 1e-3)


_fresh = itertools.count()


def first_call() -> tuple[Call, Call]:
    x = np.ones(8, np.float32)

    def chain(sin: Callable[[Any], Any]) -> Callable[[Any], Any]:
        c = 1.0 + next(_fresh) * 1e-6  # a new program every call: no cache can answer

        def f(v: Any) -> Any:
            for i in range(25):
                v = sin(v) if i % 2 else v * c
                v = v + c
            return v

        return f

    return (
        lambda: dx.jit(chain(dnp.sin))(x).block_until_ready(),
        lambda: jax.jit(chain(jnp.sin))(x).block_until_ready(),
    )


def eager(op: str) -> Callable[[], tuple[Call, Call]]:
    def make() -> tuple[Call, Call]:
        x = np.arange(3.0, dtype=np.float32)
        a, ja = dnp.asarray(x), jnp.asarray(x)
        if op == "add":
            return _checked(lambda: lax.add(a, a), lambda: jax.lax.add(ja, ja).block_until_ready())
        return _checked(lambda: lax.sin(a), lambda: jax.lax.sin(ja).block_until_ready())

    return make


def eager_dot() -> tuple[Call, Call]:
    """Eager ``dot`` f32[2000, 784] @ f32[784, 1024], operands made with ``asarray``."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2000, 784), np.float32)
    w = rng.standard_normal((784, 1024), np.float32)
    a, b, ja, jb = dnp.asarray(x), dnp.asarray(w), jnp.asarray(x), jnp.asarray(w)
    return _checked(
        lambda: dnp.dot(a, b).block_until_ready(),
        lambda: jnp.dot(ja, jb).block_until_ready(),
        1e-4,
        1e-3,  # sums of 784 products of order 1, in another order
    )


def eager_elementwise() -> tuple[Call, Call]:
    """Eager ``tanh(x) * 2 + x`` on f32[2048, 2048] made with ``asarray``."""
    x = np.random.default_rng(3).standard_normal((2048, 2048), np.float32)
    a, ja = dnp.asarray(x), jnp.asarray(x)
    return _checked(
        lambda: (dnp.tanh(a) * 2 + a).block_until_ready(),
        lambda: (jnp.tanh(ja) * 2 + ja).block_until_ready(),
    )


def eager_grad_chain() -> tuple[Call, Call]:
    """Eager ``grad`` of a 50-op chain (25 times ``sin`` or ``* c``, then ``+ c``), f32 scalar."""

    def chain(sin: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def f(v: Any) -> Any:
            for i in range(25):
                v = sin(v) if i % 2 else v * 1.01
                v = v + 0.01
            return v

        return f

    x = np.float32(0.3)
    f, jf = dx.grad(chain(dnp.sin)), jax.grad(chain(jnp.sin))
    a, ja = dnp.asarray(x), jnp.asarray(x)
    return _checked(lambda: f(a).block_until_ready(), lambda: jf(ja).block_until_ready())


@functools.cache
def _mnist_like() -> tuple[np.ndarray[Any, Any], ...]:
    """Synthetic data shaped as MNIST's: 8192 train and 2048 test images in [0, 1), one-hot labels.

    (No network here.) A label is the argmax of a fixed random linear teacher.
    """
    rng = np.random.RandomState(1)
    teacher = rng.randn(784, 10)

    def split(n: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        images = rng.rand(n, 784).astype(np.float32)
        labels = np.eye(10, dtype=np.float32)[np.argmax((images - 0.5) @ teacher, axis=1)]
        return images, labels

    return (*split(8192), *split(2048))


def mnist_fromscratch(epochs: int = 2) -> tuple[Call, Call]:
    """JAX's ``examples/mnist_classifier_fromscratch.py``, whole runs, on synthetic data.

    Layers 784-1024-1024-10, ``init_random_params`` from ``RandomState(0)``
    (float64 NumPy, which both libraries take as float32), a jitted SGD
    ``update`` on NumPy batches of 128 from ``data_stream``, and after each
    epoch the accuracy on the whole train and test sets, computed eagerly.
    A call is one run: initialisation, ``epochs`` epochs and the accuracies.
    ``update`` is jitted once per library, so the runs after the first
    (which ``_checked`` makes) time no compilation.
    """
    train_images, train_labels, test_images, test_labels = _mnist_like()
    layer_sizes, param_scale, step_size, batch_size = [784, 1024, 1024, 10], 0.1, 0.001, 128
    num_train = train_images.shape[0]
    num_complete_batches, leftover = divmod(num_train, batch_size)
    num_batches = num_complete_batches + bool(leftover)

    def init_random_params(scale: float, sizes: list[int], rng: Any) -> Any:
        return [
            (scale * rng.randn(m, n), scale * rng.randn(n)) for m, n in itertools.pairwise(sizes)
        ]

    def data_stream() -> Any:
        rng = np.random.RandomState(0)
        while True:
            perm = rng.permutation(num_train)
            for i in range(num_batches):
                batch_idx = perm[i * batch_size : (i + 1) * batch_size]
                yield train_images[batch_idx], train_labels[batch_idx]

    def program(np_: Any, jit: Any, grad: Any, logsumexp: Any) -> Call:
        def predict(params: Any, inputs: Any) -> Any:
            activations = inputs
            for w, b in params[:-1]:
                outputs = np_.dot(activations, w) + b
                activations = np_.tanh(outputs)
            final_w, final_b = params[-1]
            logits = np_.dot(activations, final_w) + final_b
            return logits - logsumexp(logits, axis=1, keepdims=True)

        def loss(params: Any, batch: Any) -> Any:
            inputs, targets = batch
            preds = predict(params, inputs)
            return -np_.mean(np_.sum(preds * targets, axis=1))

        def accuracy(params: Any, batch: Any) -> Any:
            inputs, targets = batch
            target_class = np_.argmax(targets, axis=1)
            predicted_class = np_.argmax(predict(params, inputs), axis=1)
            return np_.mean(predicted_class == target_class)

        @jit
        def update(params: Any, batch: Any) -> Any:
            grads = grad(loss)(params, batch)
            return [
                (w - step_size * dw, b - step_size * db)
                for (w, b), (dw, db) in zip(params, grads, strict=True)
            ]

        def run() -> Any:
            params = init_random_params(param_scale, layer_sizes, np.random.RandomState(0))
            batches = data_stream()
            accuracies = []
            for _ in range(epochs):
                for _ in range(num_batches):
                    params = update(params, next(batches))
                train_acc = accuracy(params, (train_images, train_labels))
                test_acc = accuracy(params, (test_images, test_labels))
                accuracies += [float(train_acc), float(test_acc)]  # the example prints them
            return accuracies, params

        return run

    return _checked(
        program(dnp, dx.jit, dx.grad, didax.scipy.special.logsumexp),
        program(jnp, jax.jit, jax.grad, jax.scipy.special.logsumexp),
        1e-3,
    )


def conv_forward() -> tuple[Call, Call]:
    """Issue 28's jitted convolution (bench_conv.py's workload), didax's and JAX's."""
    from bench import bench_conv as bc

    images, _, _ = bc._data()
    kernel = np.random.default_rng(1).normal(size=(3, 3, 3, 32)).astype(np.float32)

    def make(np_: Any, lax_: Any, jit: Any) -> Call:
        f = jit(
            lambda x, k: lax_.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=bc.NHWC)
        )
        x, k = np_.asarray(images), np_.asarray(kernel)
        return lambda: _ready(f(x, k))

    return _checked(make(dnp, lax, dx.jit), make(jnp, jax.lax, jax.jit), 1e-5, 1e-5)


def cnn_step() -> tuple[Call, Call]:
    """Issue 28's ``jit(value_and_grad)`` of a 3-layer CNN (bench_conv.py's workload)."""
    from bench import bench_conv as bc

    images, params, labels = bc._data()

    def make(np_: Any, loss: Any, top: Any) -> Call:
        step = top.jit(top.value_and_grad(loss))
        args = ([np_.asarray(p) for p in params], np_.asarray(images), np_.asarray(labels))
        return lambda: _ready(step(*args))

    return _checked(make(dnp, bc.didax_loss, dx), make(jnp, bc.jax_loss, jax), 1e-3, 1e-5)


def max_pool(backward: bool) -> Callable[[], tuple[Call, Call]]:
    """Issue 28's jitted 2x2 max-pool, forward or its gradient (bench_windows.py's workload)."""

    def make() -> tuple[Call, Call]:
        from bench import bench_windows as bw

        return _checked(bw._workload("didax", backward), bw._workload("jax", backward))

    return make


def gamma_draws() -> tuple[Call, Call]:
    """Issue 29's jitted ``random.gamma``, 10**6 alphas (bench_random_gamma.py's workload)."""
    from bench import bench_random_gamma as brg

    return _checked(brg.workload("didax"), brg.workload("jax"), 0.0, 0.0)


def attention(backward: bool) -> Callable[[], tuple[Call, Call]]:
    """Issue 29's jitted dot_product_attention, forward or its grad (bench_attention.py)."""

    def make() -> tuple[Call, Call]:
        from bench import bench_attention as ba

        return _checked(ba.workload("didax", backward), ba.workload("jax", backward), 1e-4, 1e-4)

    return make


def norm_logpdf() -> tuple[Call, Call]:
    """Issue 29's jitted ``scipy.stats.norm.logpdf`` of 10^6 float32 values (bench_stats.py's)."""
    from bench import bench_stats as bs

    return _checked(bs.workload("didax"), bs.workload("jax"))


def callback_in_scan() -> tuple[Call, Call]:
    """Issue 30's jitted ``debug.callback`` in a 100-step ``scan`` (bench_callbacks.py's)."""
    from bench import bench_callbacks as bc

    return _checked(bc.workload("didax"), bc.workload("jax"))


# (name, make, calls per round)
WORKLOADS: list[tuple[str, Callable[[], tuple[Call, Call]], int]] = [
    ("jit cache hit, f32[3] Arrays", cache_hit_arrays, 400),
    ("jit cache hit, Python scalars", cache_hit_scalars, 400),
    ("re-created jit(f), per call", recreated_jit, 200),
    ("per-example grads, dnp.asarray Arrays", per_example(False), 100),
    ("per-example grads, NumPy arguments, unaligned", per_example(True, 16), 100),
    ("per-example grads, NumPy arguments, 64B-aligned", per_example(True, 0), 100),
    ("per-example grads, NumPy, 64B-aligned, refilled", per_example(True, 0, True), 100),
    ("jit(value_and_grad) MLP 784-512-512-10 step", mlp_step, 5),
    ("first call, 50-op function", first_call, 1),
    ("eager lax.add f32[3]", eager("add"), 400),
    ("eager lax.sin f32[3]", eager("sin"), 400),
    ("eager dnp.dot f32 2000x784 @ 784x1024", eager_dot, 10),
    ("eager tanh(x) * 2 + x f32[2048, 2048]", eager_elementwise, 10),
    ("eager grad, 50-op chain", eager_grad_chain, 20),
    ("MNIST from scratch, 2 epochs, eager accuracy", mnist_fromscratch, 1),
    ("jit conv 64x32x32x3 * 3x3x3x32 SAME", conv_forward, 10),
    ("jit(value_and_grad) 3-layer CNN, batch 64", cnn_step, 5),
    ("jit max-pool 2x2 f32[64,32,32,16]", max_pool(False), 20),
    ("jit grad of max-pool 2x2 f32[64,32,32,16]", max_pool(True), 10),
    ("jit random.gamma f32[1e6], alpha array", gamma_draws, 1),
    ("jit attention f32[8,512,8,64]", attention(False), 5),
    ("jit grad of attention f32[8,512,8,64]", attention(True), 2),
    ("jit scipy.stats.norm.logpdf f32[1e6]", norm_logpdf, 20),
    ("jit debug.callback in a 100-step scan", callback_in_scan, 20),
]


# Issues 26's and 28's targets for didax/JAX, printed beside the ratio (reported, never asserted).
TARGETS: dict[str, float] = {
    "eager lax.add f32[3]": 0.5,
    "eager dnp.dot f32 2000x784 @ 784x1024": 1.0,
    "eager tanh(x) * 2 + x f32[2048, 2048]": 1.0,
    "eager grad, 50-op chain": 0.5,
    "MNIST from scratch, 2 epochs, eager accuracy": 1.1,
    # Issue 28's.
    "jit conv 64x32x32x3 * 3x3x3x32 SAME": 1.05,
    "jit(value_and_grad) 3-layer CNN, batch 64": 1.05,
    "jit max-pool 2x2 f32[64,32,32,16]": 1.05,
    "jit grad of max-pool 2x2 f32[64,32,32,16]": 1.05,
    # Issue 29's.
    "jit random.gamma f32[1e6], alpha array": 1.1,
    "jit attention f32[8,512,8,64]": 1.1,
    "jit grad of attention f32[8,512,8,64]": 1.1,
    "jit scipy.stats.norm.logpdf f32[1e6]": 1.1,
    # Issue 30's.
    "jit debug.callback in a 100-step scan": 1.2,
}

# Workloads whose round takes seconds run fewer rounds.
MAX_ROUNDS: dict[str, int] = {"MNIST from scratch, 2 epochs, eager accuracy": 7}


def _fmt(seconds: float) -> str:
    if seconds >= 1.0:
        return f"{seconds:.3f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f}ms"
    return f"{seconds * 1e6:.1f}µs"


def main() -> None:
    # --rounds N: fewer alternating rounds (the tests run it with 1, to check it works).
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 21
    # --only TEXT: just the workloads whose name contains TEXT.
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else ""
    # --calls N: at most N calls a round (the tests run it with 1: every workload
    # is still built and checked against JAX, but timed only once).
    most = int(sys.argv[sys.argv.index("--calls") + 1]) if "--calls" in sys.argv else None
    # --compiled-eager: every eager primitive takes eager evaluation's compiled
    # route (its one-equation XLA program, as on an accelerator and as JAX's
    # apply_primitive), not the CPU's NumPy fast path: the other design,
    # measured on the same workloads (docs/values.md).
    route = compiled_route if "--compiled-eager" in sys.argv else contextlib.nullcontext
    print(
        f"{'workload (median of alternating rounds)':48s} {'didax':>11s} {'jax':>11s}"
        f" {'target':>7s} {'ratio':>6s}"
    )
    for name, make, calls in WORKLOADS:
        if only not in name:
            continue
        with route():
            ours, theirs = make()
            n_rounds = min(rounds, MAX_ROUNDS.get(name, rounds))
            a, b = median_seconds(ours, theirs, n_rounds, min(calls, most or calls))
        target = f"<={TARGETS[name]:g}" if name in TARGETS else ""
        print(f"{name:48s} {_fmt(a):>11s} {_fmt(b):>11s} {target:>7s} {a / b:6.2f}")


if __name__ == "__main__":
    main()
