"""jit: cache-hit dispatch, XLA execution, first-call time, re-created jit.

Each workload runs for didax and for JAX in the same process:
- cache-hit dispatch of a jitted ``x * y + x`` on scalars and on f32[3]
  Arrays made with ``dnp.asarray``/``jnp.asarray`` (the trace cache hit plus
  one XLA call; an Array is transferred on its first call only; both wait
  for the result);
- XLA execution of an MLP forward pass (784-512-512-10, tanh, batch 128,
  float32) on device-resident parameters;
- first call (trace + lower + compile) of a 50-op element-wise function,
  made new every round with a different constant so no cache can answer;
- 100 calls of a freshly re-created ``jit(f)`` of the same ``f``: didax's
  compile cache is keyed by fingerprint, so it compiles once in total (the
  test asserts it).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

import didax as dx
import didax.numpy as dnp

if TYPE_CHECKING:  # conftest.py is pytest's to import; only its types are needed here
    from bench.conftest import Impl, Record


# --- cache-hit dispatch --------------------------------------------------------


def _hit(impl: Impl, scalar: bool) -> tuple[Callable[[], Any], Any]:
    f: Any
    if impl == "didax":
        f = dx.jit(lambda x, y: x * y + x)
        args: tuple[Any, Any] = (
            (2.0, 3.0) if scalar else (dnp.asarray(np.ones(3)), dnp.asarray(np.full(3, 3.0)))
        )
    else:
        f = jax.jit(lambda x, y: x * y + x)
        args = (2.0, 3.0) if scalar else (jnp.asarray(np.ones(3)), jnp.asarray(np.full(3, 3.0)))
    f(*args)  # trace and compile outside the timing
    return (lambda: f(*args).block_until_ready()), args


@pytest.mark.benchmark(group="jit cache hit", warmup=True)
@pytest.mark.parametrize("scalar", [True, False], ids=["scalars", "f32[3]"])
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_cache_hit(benchmark: BenchmarkFixture, record: Record, impl: Impl, scalar: bool) -> None:
    call, args = _hit(impl, scalar)
    out = benchmark(call)
    what = "scalars" if scalar else "f32[3] Arrays"
    record(benchmark, workload=f"jit cache hit, {what}", impl=impl)
    x, y = (np.asarray(a, np.float32) for a in args)
    assert np.asarray(out).dtype == np.float32  # the default mode, as JAX's
    np.testing.assert_allclose(np.asarray(out), x * y + x)


# --- MLP forward execution ---------------------------------------------------------

SIZES = (784, 512, 512, 10)
BATCH = 128


def _mlp_params() -> tuple[list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]], Any]:
    rng = np.random.default_rng(0)
    params = [
        (
            (rng.normal(size=(m, n)) / np.sqrt(m)).astype(np.float32),
            rng.normal(size=n).astype(np.float32),
        )
        for m, n in itertools.pairwise(SIZES)
    ]
    x = rng.normal(size=(BATCH, SIZES[0])).astype(np.float32)
    return params, x


def didax_mlp(params: Any, x: Any) -> Any:
    for w, b in params[:-1]:
        x = dnp.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def jax_mlp(params: Any, x: Any) -> Any:
    for w, b in params[:-1]:
        x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


@pytest.mark.benchmark(group="jit MLP forward", warmup=True)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_mlp_forward(benchmark: BenchmarkFixture, record: Record, impl: Impl) -> None:
    params, x = _mlp_params()
    if impl == "didax":
        f: Any = dx.jit(didax_mlp)
        dev_params = [(dx.device_put(w), dx.device_put(b)) for w, b in params]
        dev_x: Any = dx.device_put(x)
    else:
        f = jax.jit(jax_mlp)
        dev_params = [(jax.device_put(w), jax.device_put(b)) for w, b in params]
        dev_x = jax.device_put(x)
    f(dev_params, dev_x).block_until_ready()
    out = benchmark(lambda: f(dev_params, dev_x).block_until_ready())
    record(benchmark, workload="jit MLP 784-512-512-10 f32, batch 128", impl=impl)
    expected = np.asarray(jax.jit(jax_mlp)(params, x))
    assert np.asarray(out).dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-4, atol=1e-4)


# --- first call: trace + lower + compile ----------------------------------------------

N_OPS = 50
_fresh = itertools.count()


def _chain(sin: Callable[[Any], Any], c: float) -> Callable[[Any], Any]:
    def f(x: Any) -> Any:
        for i in range(N_OPS // 2):
            x = sin(x) if i % 2 else x * c
            x = x + c
        return x

    return f


@pytest.mark.benchmark(group="jit first call", warmup=False)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_first_call(benchmark: BenchmarkFixture, record: Record, impl: Impl) -> None:
    x = np.ones(8, np.float32)

    def first_call() -> Any:
        c = 1.0 + next(_fresh) * 1e-6  # a new program every round: no cache can answer
        if impl == "didax":
            return dx.jit(_chain(dnp.sin, c))(x).block_until_ready()
        return jax.jit(_chain(jnp.sin, c))(x).block_until_ready()

    out = benchmark.pedantic(first_call, rounds=10, iterations=1)
    record(benchmark, workload=f"jit first call, {N_OPS}-op function", impl=impl)
    assert np.asarray(out).shape == (8,)
    assert np.all(np.isfinite(np.asarray(out)))


# --- re-created jit -------------------------------------------------------------------


def _square_plus_one(x: Any) -> Any:
    return x * x + 1.0


@pytest.mark.benchmark(group="jit re-created 100x", warmup=True)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_recreated_jit(benchmark: BenchmarkFixture, record: Record, impl: Impl) -> None:
    x = np.arange(4.0, dtype=np.float32)
    jit: Callable[[Callable[..., Any]], Any] = dx.jit if impl == "didax" else jax.jit

    def hundred_calls() -> Any:
        out = None
        for _ in range(100):
            out = jit(_square_plus_one)(x)
        return out

    before = dx.compile_cache_info()
    out = benchmark(hundred_calls)
    record(benchmark, workload="re-created jit(f), 100 calls", impl=impl, per=100, unit="call")
    np.testing.assert_allclose(np.asarray(out), x * x + 1.0)
    if impl == "didax":
        after = dx.compile_cache_info()
        # one compilation in total: the first round's (or none, if an earlier test compiled it)
        assert after.misses - before.misses <= 1
