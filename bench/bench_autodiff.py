"""Reverse mode: a compiled training step, and the cost of grad against the forward pass.

Each workload runs for didax and for JAX in the same process:
- per-example gradients, ``jit(vmap(grad(loss)))`` of a linear model over a
  batch of 256, with arguments made by ``asarray`` and as host NumPy arrays;
- ``jit(value_and_grad(loss))`` of the MLP of ``bench_jit.py`` (784-512-512-10,
  tanh, batch 128, float32, mean squared error against random targets) on
  device-resident parameters: one training step's forward and backward pass,
  compiled;
- Mini-JAX's hard case for reverse mode, ``z = a * (z + z)`` repeated ``n``
  times, eager (no jit), at n = 250, 1000, 4000: the forward pass and grad
  with respect to both ``a`` and ``z`` are recorded separately per ``n``, so
  the growth lines show whether each stays linear in ``n`` and grad time ÷
  forward time is read off the table. With ``a = 0.5`` every intermediate is
  ``z``, and the gradient, ``(2 n z, 1)``, is exact in float32.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax
from pytest_benchmark.fixture import BenchmarkFixture

import didax as dx
import didax.numpy as dnp
from didax import lax as dlax

if TYPE_CHECKING:  # conftest.py is pytest's to import; only its types are needed here
    from bench.conftest import Impl, Record


def _block(tree: Any) -> Any:
    """Waits for every device array of ``tree`` (eager didax computes NumPy arrays); returns it."""
    for leaf in jax.tree_util.tree_leaves(tree):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()
    return tree


# --- per-example gradients: jit(vmap(grad)) --------------------------------------

PE_BATCH, PE_DIM = 256, 64


# One set of arrays for both libraries: on a CPU their alignment (up to the
# allocator) decides how jaxlib transfers them.
@functools.cache
def _per_example_data() -> tuple[np.ndarray[Any, Any], ...]:
    rng = np.random.default_rng(1)
    w = rng.normal(size=PE_DIM).astype(np.float32)
    x = rng.normal(size=(PE_BATCH, PE_DIM)).astype(np.float32)
    y = rng.normal(size=PE_BATCH).astype(np.float32)
    return w, x, y


@pytest.mark.benchmark(group="per-example grads", warmup=True)
@pytest.mark.parametrize("args", ["asarray", "numpy"])
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_per_example_grads(
    benchmark: BenchmarkFixture, record: Record, impl: Impl, args: str
) -> None:
    """``jit(vmap(grad(loss), in_axes=(None, 0, 0)))`` of a linear model, batch 256.

    Arguments made with ``dnp.asarray``/``jnp.asarray`` (device Arrays), or
    passed as host NumPy arrays (66 KB, transferred at every call).
    """
    host = _per_example_data()
    if impl == "didax":
        f: Any = dx.jit(dx.vmap(dx.grad(lambda w, x, y: (dnp.dot(x, w) - y) ** 2), (None, 0, 0)))
        made: list[Any] = [dnp.asarray(a) for a in host] if args == "asarray" else list(host)
    else:
        f = jax.jit(jax.vmap(jax.grad(lambda w, x, y: (jnp.dot(x, w) - y) ** 2), (None, 0, 0)))
        made = [jnp.asarray(a) for a in host] if args == "asarray" else list(host)
    f(*made).block_until_ready()
    out = benchmark(lambda: f(*made).block_until_ready())
    what = "dnp.asarray Arrays" if args == "asarray" else "NumPy arguments (66 KB)"
    record(benchmark, workload=f"jit(vmap(grad)) per-example, batch 256, {what}", impl=impl)
    w, x, y = host
    expected = 2 * (x @ w - y)[:, None] * x
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-4, atol=1e-4)


# --- jit(value_and_grad(loss)) of an MLP ---------------------------------------------

SIZES = (784, 512, 512, 10)
BATCH = 128


def _mlp_data() -> tuple[list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]], Any, Any]:
    rng = np.random.default_rng(0)
    params = [
        (
            (rng.normal(size=(m, n)) / np.sqrt(m)).astype(np.float32),
            rng.normal(size=n).astype(np.float32),
        )
        for m, n in itertools.pairwise(SIZES)
    ]
    x = rng.normal(size=(BATCH, SIZES[0])).astype(np.float32)
    y = rng.normal(size=(BATCH, SIZES[-1])).astype(np.float32)
    return params, x, y


def didax_loss(params: Any, x: Any, y: Any) -> Any:
    for w, b in params[:-1]:
        x = dnp.tanh(x @ w + b)
    w, b = params[-1]
    return dnp.mean((x @ w + b - y) ** 2)


def jax_loss(params: Any, x: Any, y: Any) -> Any:
    for w, b in params[:-1]:
        x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    return jnp.mean((x @ w + b - y) ** 2)


@pytest.mark.benchmark(group="jit(value_and_grad) MLP step", warmup=True)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_mlp_value_and_grad(benchmark: BenchmarkFixture, record: Record, impl: Impl) -> None:
    params, x, y = _mlp_data()
    if impl == "didax":
        step: Any = dx.jit(dx.value_and_grad(didax_loss))
        put: Callable[[Any], Any] = dx.device_put
    else:
        step = jax.jit(jax.value_and_grad(jax_loss))
        put = jax.device_put
    dev_params = [(put(w), put(b)) for w, b in params]
    dev_x, dev_y = put(x), put(y)
    _block(step(dev_params, dev_x, dev_y))  # trace and compile outside the timing
    loss, grads = benchmark(lambda: _block(step(dev_params, dev_x, dev_y)))
    record(benchmark, workload="jit(value_and_grad) MLP 784-512-512-10 f32, batch 128", impl=impl)
    expected_loss, expected_grads = jax.jit(jax.value_and_grad(jax_loss))(params, x, y)
    assert np.asarray(loss).dtype == np.float32
    np.testing.assert_allclose(np.asarray(loss), np.asarray(expected_loss), rtol=1e-5)
    got, want = jax.tree_util.tree_leaves(grads), jax.tree_util.tree_leaves(expected_grads)
    assert len(got) == len(want) == 2 * (len(SIZES) - 1)
    for g, e in zip(got, want, strict=True):
        assert np.asarray(g).dtype == np.float32
        assert np.asarray(g).shape == np.asarray(e).shape
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=2e-3, atol=2e-6)


# --- z = a * (z + z), eager: forward and grad --------------------------------------

DEPTHS = (250, 1000, 4000)
A, Z0 = 0.5, 1.5  # every intermediate is Z0: values and gradients exact


def _chain(add: Callable[[Any, Any], Any], mul: Callable[[Any, Any], Any], n: int) -> Any:
    # lax calls, not operators: on NumPy scalars ``*`` and ``+`` would be NumPy's own.
    def f(a: Any, z: Any) -> Any:
        for _ in range(n):
            z = mul(a, add(z, z))
        return z

    return f


def _chain_call(impl: Impl, n: int, grad: bool) -> Callable[[], Any]:
    """The timed call; a two-link chain runs first, so JAX has compiled its per-op kernels."""
    transform: Callable[..., Any]
    add: Callable[[Any, Any], Any]
    mul: Callable[[Any, Any], Any]
    if impl == "didax":
        add, mul, transform = dlax.add, dlax.mul, dx.grad
        args: tuple[Any, Any] = (np.float32(A), np.float32(Z0))
    else:
        add, mul, transform = jlax.add, jlax.mul, jax.grad
        args = (jnp.asarray(A, jnp.float32), jnp.asarray(Z0, jnp.float32))

    def make(depth: int) -> Callable[..., Any]:
        f = _chain(add, mul, depth)
        return transform(f, argnums=(0, 1)) if grad else f

    _block(make(2)(*args))
    fun = make(n)
    return lambda: _block(fun(*args))


def _depth(benchmark: BenchmarkFixture, impl: Impl, n: int) -> int:
    # JAX's eager grad costs about 2.5 ms a link here (10 s at n=4000). Untimed
    # (--benchmark-disable, as in the test session) nothing is recorded, and
    # the JAX side runs the smallest chain only, to keep the suite fast.
    return DEPTHS[0] if benchmark.disabled and impl == "jax" else n


def _rounds(n: int) -> int:
    return max(3, 2_000 // n)


@pytest.mark.benchmark(group="eager chain z = a * (z + z)")
@pytest.mark.parametrize("n", DEPTHS)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_chain_forward(benchmark: BenchmarkFixture, record: Record, impl: Impl, n: int) -> None:
    n = _depth(benchmark, impl, n)
    call = _chain_call(impl, n, grad=False)
    out = benchmark.pedantic(call, rounds=_rounds(n), iterations=1)
    record(benchmark, workload=f"chain forward, n={n}", impl=impl, per=n, unit="link")
    assert np.asarray(out).dtype == np.float32
    assert float(np.asarray(out)) == Z0


@pytest.mark.benchmark(group="eager chain z = a * (z + z)")
@pytest.mark.parametrize("n", DEPTHS)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_chain_grad(benchmark: BenchmarkFixture, record: Record, impl: Impl, n: int) -> None:
    n = _depth(benchmark, impl, n)
    call = _chain_call(impl, n, grad=True)
    ga, gz = benchmark.pedantic(call, rounds=_rounds(n), iterations=1)
    record(benchmark, workload=f"chain grad, n={n}", impl=impl, per=n, unit="link")
    assert np.asarray(ga).dtype == np.asarray(gz).dtype == np.float32
    assert float(np.asarray(ga)) == 2 * n * Z0  # the sum over the links of (z + z) * 1
    assert float(np.asarray(gz)) == (2 * A) ** n
