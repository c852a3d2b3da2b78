"""A host callback in a 100-step ``scan`` under jit, didax beside JAX (issue 30's target).

``didax.debug.callback`` inside the body of ``didax.lax.scan`` of 100
steps, jitted, against the same program of ``jax.debug.callback`` in
``jax.lax.scan``: each step calls back into Python with the carry (a
``f32[16]``) through jaxlib's Python-callback custom call, so the time is
dominated by the 100 round trips from XLA to Python and back, which both
libraries make with the same jaxlib target. The benchmark also checks
that the callback ran 100 times a call and the results equal JAX's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import jax
import numpy as np
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

import didax
import didax.numpy as dnp

if TYPE_CHECKING:  # conftest.py is pytest's to import; only its types are needed here
    from bench.conftest import Impl, Record

STEPS = 100


def workload(impl: Impl, calls: list[int] | None = None) -> Callable[[], Any]:
    """One call of the jitted scan for ``impl``, waited for; each callback appends to ``calls``."""
    seen = calls if calls is not None else []

    def note(x: Any) -> None:
        seen.append(1)

    lib: Any = didax if impl == "didax" else jax

    def f(x: Any) -> Any:
        def body(c: Any, _: Any) -> tuple[Any, None]:
            lib.debug.callback(note, c)
            return c * 0.5 + 1.0, None

        return lib.lax.scan(body, x, None, length=STEPS)[0]

    fn = lib.jit(f)
    x0 = np.linspace(0.0, 1.0, 16, dtype=np.float32)
    x = dnp.asarray(x0) if impl == "didax" else jax.numpy.asarray(x0)
    return lambda: fn(x).block_until_ready()


@pytest.mark.benchmark(group="debug.callback in a 100-step scan under jit", warmup=True)
@pytest.mark.parametrize("impl", ["didax", "jax"])
def bench_callback_in_scan(benchmark: BenchmarkFixture, record: Record, impl: Impl) -> None:
    calls: list[int] = []
    run = workload(impl, calls)
    run()  # compiled outside the timing
    assert len(calls) == STEPS
    result = benchmark(run)
    record(
        benchmark,
        workload="jit debug.callback in a 100-step scan",
        impl=impl,
        per=1,
        unit="call",
    )
    expected = np.asarray(workload("jax")())
    np.testing.assert_allclose(np.asarray(result), expected, rtol=1e-6)
