"""didax's defaults are JAX's: programs written as JAX users write them, in 32-bit mode.

The rest of the suite compares with JAX in 64 bits (``tests/conftest.py``);
this module runs with both libraries in their default mode (the ``x64_off``
marker), on whole programs whose arguments are made the way users make them:
float64 NumPy weights from ``np.random``, Python floats, ``dnp.asarray``.
Each result's dtype, weak type and value (to float32's tolerance) are
JAX's, and so are the truncation warnings. A fresh process checks the
defaults themselves and the ``JAX_ENABLE_X64`` variable.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
import didax.scipy.special as dsp

pytestmark = pytest.mark.x64_off

Lib = tuple[ModuleType, Any, Any]  # (didax or jax, its numpy, its scipy.special)
LIBS: dict[str, Lib] = {"jax": (jax, jnp, jsp), "didax": (dx, dnp, dsp)}


def _mlp_params() -> list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]]:
    """float64 NumPy weights, as ``init_random_params`` makes them in JAX's examples."""
    rng = np.random.RandomState(0)
    sizes = [6, 16, 16, 3]
    return [(0.1 * rng.randn(m, n), 0.1 * rng.randn(n)) for m, n in itertools.pairwise(sizes)]


def _batch() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    rng = np.random.RandomState(1)
    x = rng.rand(8, 6)  # float64, as NumPy makes it
    y = np.eye(3)[rng.randint(0, 3, 8)]
    return x, y


def _mlp_training(lib: Lib) -> Any:
    m, mnp, msp = lib

    def predict(params: Any, x: Any) -> Any:
        for w, b in params[:-1]:
            x = mnp.tanh(mnp.dot(x, w) + b)
        w, b = params[-1]
        logits = mnp.dot(x, w) + b
        return logits - msp.logsumexp(logits, axis=1, keepdims=True)

    def loss(params: Any, batch: Any) -> Any:
        x, y = batch
        return -mnp.mean(mnp.sum(predict(params, x) * y, axis=1))

    @m.jit
    def update(params: Any, batch: Any) -> Any:
        value, grads = m.value_and_grad(loss)(params, batch)
        new = [(w - 0.1 * dw, b - 0.1 * db) for (w, b), (dw, db) in zip(params, grads, strict=True)]
        return new, value

    params: Any = _mlp_params()
    values = []
    for _ in range(3):
        params, value = update(params, _batch())
        values.append(value)
    x, y = _batch()
    accuracy = mnp.mean(mnp.argmax(predict(params, x), axis=1) == mnp.argmax(y, axis=1))
    return params, values, accuracy


def _per_example_grads(lib: Lib) -> Any:
    m, mnp, _ = lib
    w = mnp.asarray(np.random.RandomState(2).randn(5, 2))

    def loss(w: Any, x: Any, y: Any) -> Any:
        return mnp.sum((mnp.dot(x, w) - y) ** 2)

    xs, ys = np.random.RandomState(3).randn(4, 5), np.random.RandomState(4).randn(4, 2)
    return m.jit(m.vmap(m.grad(loss), in_axes=(None, 0, 0)))(w, xs, ys)


def _rnn_scan(lib: Lib) -> Any:
    m, mnp, _ = lib
    rng = np.random.RandomState(5)
    wh, wx, xs = rng.randn(4, 4) * 0.5, rng.randn(3, 4), rng.randn(7, 2, 3)

    def loss(wh: Any) -> Any:
        def step(h: Any, x: Any) -> Any:
            h = mnp.tanh(mnp.dot(h, wh) + mnp.dot(x, wx))
            return h, mnp.sum(h)

        _, ys = m.lax.scan(step, mnp.zeros((2, 4)), xs)
        return mnp.sum(ys)

    return m.jit(m.value_and_grad(loss))(wh)


def _random(lib: Lib) -> Any:
    m, _, _ = lib
    key = m.random.PRNGKey(0)
    k1, k2 = m.random.split(key)
    return (
        m.random.uniform(k1, (3,)),
        m.random.normal(k2, (2, 2)),
        m.random.randint(k1, (4,), 0, 10),
        m.random.bits(k2, (2,)),
    )


def _scalars_and_control_flow(lib: Lib) -> Any:
    m, mnp, _ = lib
    f = m.jit(lambda x, n: m.lax.fori_loop(0, n, lambda i, c: c * x + i, 1.0), static_argnums=1)
    g = m.lax.cond(True, lambda x: x * 2, lambda x: x + 1, 3)
    h = m.lax.while_loop(lambda c: c < 100.0, lambda c: c * 1.5, 1.0)
    return f(1.5, 4), g, h, mnp.arange(5) / 2, mnp.linspace(0, 1, 4), 2.0 * mnp.ones(2)


def _linalg_fft_complex(lib: Lib) -> Any:
    m, mnp, _ = lib
    rng = np.random.RandomState(6)
    a = rng.randn(4, 4) + 4 * np.eye(4)
    b = rng.randn(4)
    return (
        m.jit(mnp.linalg.solve)(a, b),
        mnp.linalg.eigh(a + a.T)[0],
        mnp.fft.fft(b),
        mnp.asarray(b) * 1j,
        mnp.linalg.norm(a),
    )


def _explicit_64_bit_requests(lib: Lib) -> Any:
    _, mnp, _ = lib
    return mnp.zeros(2, dtype=mnp.float64), mnp.arange(3, dtype="int64")


PROGRAMS: dict[str, Callable[[Lib], Any]] = {
    "mlp_training": _mlp_training,
    "per_example_grads": _per_example_grads,
    "rnn_scan": _rnn_scan,
    "random": _random,
    "scalars_and_control_flow": _scalars_and_control_flow,
    "linalg_fft_complex": _linalg_fft_complex,
    "explicit_64_bit_requests": _explicit_64_bit_requests,
}


def _run(program: Callable[[Lib], Any], lib: Lib) -> tuple[list[Any], list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        leaves = jax.tree_util.tree_leaves(program(lib))
    return leaves, sorted({str(w.category.__name__) for w in caught})


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_gives_jax_types_and_values(name: str) -> None:
    assert not dx.config.jax_enable_x64
    want, want_warnings = _run(PROGRAMS[name], LIBS["jax"])
    got, got_warnings = _run(PROGRAMS[name], LIBS["didax"])
    assert got_warnings == want_warnings
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert isinstance(g, dx.Array)
        assert (g.dtype, g.shape, g.weak_type) == (w.dtype, w.shape, w.weak_type)
        assert g.dtype.itemsize <= 4 or g.dtype == np.complex64
        tol = 2e-5 * max(1.0, float(np.abs(np.asarray(w)).max()))
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=tol)


def test_float64_numpy_weights_become_float32_where_they_enter() -> None:
    params = _mlp_params()
    assert params[0][0].dtype == np.float64
    out = dx.jit(lambda p: [w * 2 for w, _ in p])(params)
    assert [o.dtype for o in out] == [np.float32] * 3
    assert dnp.asarray(params[0][0]).dtype == np.float32


_DEFAULTS_SCRIPT = """
import didax as dx, didax.numpy as dnp
print(dx.config.jax_enable_x64, dnp.asarray(1.0).dtype, dnp.arange(2).dtype,
      dx.jit(lambda x: x + 1)(2).dtype)
"""


@pytest.mark.parametrize(
    ("env_value", "expected"),
    [(None, "False float32 int32 int32"), ("1", "True float64 int64 int64")],
    ids=["default", "JAX_ENABLE_X64=1"],
)
def test_a_fresh_process_has_jax_defaults(env_value: str | None, expected: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    if env_value is not None:
        env["JAX_ENABLE_X64"] = env_value
    result = subprocess.run(
        [sys.executable, "-c", _DEFAULTS_SCRIPT],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == expected.split()
