"""Control flow: an RNN trained with scan, and a scalar while loop, against JAX.

Each workload runs for didax and for JAX in the same process, with the
arguments made as a user makes them (``dnp.asarray`` / ``jnp.asarray``):
- ``jit(value_and_grad(loss))`` of an Elman RNN over 50 steps with ``scan``
  (hidden 128, 16 features, batch 16, float32): the forward scan, the
  stacked residuals and the reverse scan of the backward pass all run in
  one XLA program;
- a jitted ``while_loop`` of 1000 scalar iterations, per call (XLA's loop
  overhead plus dispatch).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

import didax as dx
import didax.numpy as dnp
from didax import lax as dlax

if TYPE_CHECKING:  # conftest.py is pytest's to import; only its types are needed here
    from bench.conftest import Impl, Record

HIDDEN, FEATURES, BATCH, STEPS = 128, 16, 16, 50


def _rnn_loss(np_: Any, lax_: Any) -> Callable[..., Any]:
    def loss(params: Any, xs: Any, targets: Any) -> Any:
        w_h, w_x, b, w_o = params

        def step(h: Any, x: Any) -> Any:
            h = np_.tanh(h @ w_h + x @ w_x + b)
            return h, h @ w_o

        h0 = np_.zeros((BATCH, HIDDEN), dtype=np_.float32)
        _, outs = lax_.scan(step, h0, xs)
        return np_.mean((outs - targets) ** 2)

    return loss


def _rnn_data() -> tuple[list[np.ndarray[Any, Any]], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    r = np.random.default_rng(0)
    params = [
        (r.normal(size=(HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)).astype(np.float32),
        (r.normal(size=(FEATURES, HIDDEN)) / np.sqrt(FEATURES)).astype(np.float32),
        np.zeros(HIDDEN, np.float32),
        (r.normal(size=(HIDDEN, 4)) / np.sqrt(HIDDEN)).astype(np.float32),
    ]
    xs = r.normal(size=(STEPS, BATCH, FEATURES)).astype(np.float32)
    targets = r.normal(size=(STEPS, BATCH, 4)).astype(np.float32)
    return params, xs, targets


@pytest.mark.benchmark(group="RNN scan value_and_grad", warmup=True)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_rnn_value_and_grad(benchmark: BenchmarkFixture, record: Record, impl: Impl) -> None:
    params, xs, targets = _rnn_data()
    step: Any
    if impl == "didax":
        step = dx.jit(dx.value_and_grad(_rnn_loss(dnp, dlax)))
        args: Any = ([dnp.asarray(p) for p in params], dnp.asarray(xs), dnp.asarray(targets))
    else:
        step = jax.jit(jax.value_and_grad(_rnn_loss(jnp, jax.lax)))
        args = ([jnp.asarray(p) for p in params], jnp.asarray(xs), jnp.asarray(targets))

    def call() -> Any:
        loss, grads = step(*args)
        jax.block_until_ready(grads[0]) if impl == "jax" else grads[0].block_until_ready()
        return loss, grads

    call()  # trace and compile outside the timing
    loss, grads = benchmark(call)
    record(
        benchmark,
        workload=f"jit(value_and_grad) RNN scan, {STEPS} steps, hidden {HIDDEN}, batch {BATCH}",
        impl=impl,
    )
    expected_loss, expected_grads = jax.jit(jax.value_and_grad(_rnn_loss(jnp, jax.lax)))(
        [jnp.asarray(p) for p in params], jnp.asarray(xs), jnp.asarray(targets)
    )
    np.testing.assert_allclose(float(loss), float(expected_loss), rtol=1e-4)
    for g, e in zip(grads, expected_grads, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=2e-3, atol=2e-5)


@pytest.mark.benchmark(group="while_loop 1000 iterations", warmup=True)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_while_loop(benchmark: BenchmarkFixture, record: Record, impl: Impl) -> None:
    def make(lax_: Any) -> Callable[[Any], Any]:
        def f(x: Any) -> Any:
            def body(c: Any) -> Any:
                i, v = c
                return i + 1, v * 0.999 + 1.0

            return lax_.while_loop(lambda c: c[0] < 1000, body, (0, x))[1]

        return f

    f: Any = dx.jit(make(dlax)) if impl == "didax" else jax.jit(make(jax.lax))
    x = np.float32(1.0)
    f(x)  # trace and compile outside the timing
    out = benchmark(lambda: f(x).block_until_ready())
    record(benchmark, workload="jit while_loop, 1000 scalar iterations", impl=impl)
    v = np.float32(1.0)
    for _ in range(1000):
        v = v * np.float32(0.999) + np.float32(1.0)
    np.testing.assert_allclose(float(out), float(v), rtol=1e-4)
