"""The Fourier transform: jitted ``dnp.fft.fft`` / ``jnp.fft.fft`` of complex64[2^20].

The issue's workload, as a user writes it: the operand made with
``dnp.asarray``/``jnp.asarray``, each function compiled before timing, so a
time is a cache hit plus XLA's CPU FFT (one ``stablehlo.fft`` in both
libraries), waited for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

import didax
import didax.numpy as dnp

if TYPE_CHECKING:  # conftest.py is pytest's to import; only its types are needed here
    from bench.conftest import Impl, Record

N = 1 << 20
RNG = np.random.default_rng(0)
Z = (RNG.normal(size=N) + 1j * RNG.normal(size=N)).astype(np.complex64)


def _workload(impl: Impl) -> Callable[[], Any]:
    if impl == "didax":
        x = dnp.asarray(Z)
        f = didax.jit(dnp.fft.fft)
        f(x).block_until_ready()  # compiled before timing
        return lambda: f(x).block_until_ready()
    jx = jnp.asarray(Z)
    jf = jax.jit(jnp.fft.fft)
    jf(jx).block_until_ready()
    return lambda: jf(jx).block_until_ready()


@pytest.mark.benchmark(group="fft under jit", warmup=True)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_fft_jit(benchmark: BenchmarkFixture, record: Record, impl: Impl) -> None:
    result = benchmark(_workload(impl))
    record(benchmark, workload="jit fft complex64[2^20]", impl=impl)
    out = np.asarray(result)
    assert out.dtype == np.complex64
    # Spot-check a few frequencies against NumPy's float64 transform.
    want = np.fft.fft(Z.astype(np.complex128))[:: N // 16]
    np.testing.assert_allclose(out[:: N // 16], want, rtol=0, atol=0.05)
