"""didax against JAX on one GPU: the same workloads, checked against JAX, then timed.

Run from the repository root (didax need not be installed)::

    PYTHONPATH=src python bench/gpu.py            # 15 rounds, 3 processes per first call
    PYTHONPATH=src python bench/gpu.py --quick    # 5 rounds, 1 process per first call
    PYTHONPATH=src python bench/gpu.py --only mlp # the workloads whose name contains "mlp"

Options: ``--rounds N`` (alternating rounds, default 15, 5 with ``--quick``),
``--first-calls N`` (fresh processes per library per first call, default 3,
1 with ``--quick``, 0 to skip them), ``--tiny`` (small sizes, on any
platform: how the tests run the script on a CPU).

Each workload is built for didax and for JAX from the same NumPy data, as a
JAX user writes it (``dnp.asarray``/``jnp.asarray``, no ``precision=``), in
each library's default mode (32-bit unless ``JAX_ENABLE_X64`` is set). Its
first call's results are compared with JAX's (a ``FAIL`` line when they
differ); then didax and JAX are timed in alternating rounds (didax, JAX,
didax, JAX, ...: load that drifts slower than a round cancels), each round
a number of calls chosen so that it lasts about ``ROUND_SECONDS``, each call
waited for. The table gives the median time per call over the rounds and
didax/JAX. A first call (trace, compile and run, until ready) is timed in
fresh processes: this script with ``--first-call NAME --lib LIB`` imports
both libraries, starts the backend, builds the workload for LIB only, and
prints the seconds its first call took; the table gives the median over the
processes, run alternately for didax and JAX. A workload that raises on
didax shows the error in its row and the script goes on. Timings are
reported, never asserted. With no GPU (neither JAX's nor didax's first
device is one) the script prints one line and exits 0.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import itertools
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import jax
import jax.numpy as jnp
import jax.scipy.linalg
import numpy as np

import didax as dx
import didax.numpy as dnp
import didax.scipy.linalg

Lib = Literal["didax", "jax"]
LIBS: tuple[Lib, Lib] = ("didax", "jax")
Call = Callable[[], Any]
# Compares didax's results with JAX's: None when they agree, else what differs.
Compare = Callable[[Any, Any], str | None]

GPU_PLATFORMS = ("gpu", "cuda", "rocm")
FIRST_CALL_TAG = "first-call-seconds"


@dataclasses.dataclass(frozen=True)
class Api:
    """One library's names, so that a workload is written once for both."""

    top: Any  # didax or jax
    np: Any  # didax.numpy or jax.numpy
    sla: Any  # didax.scipy.linalg or jax.scipy.linalg


API: dict[Lib, Api] = {
    "didax": Api(dx, dnp, didax.scipy.linalg),
    "jax": Api(jax, jnp, jax.scipy.linalg),
}


# --- data: NumPy, the same for both libraries --------------------------------------


@functools.cache
def normal(seed: int, shape: tuple[int, ...], scale: float = 1.0) -> np.ndarray[Any, Any]:
    out: np.ndarray[Any, Any] = np.random.default_rng(seed).standard_normal(shape, np.float32)
    if scale != 1.0:
        out *= np.float32(scale)
    return out


@functools.cache
def uniform(seed: int, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    return np.random.default_rng(seed).random(shape, np.float32)


@functools.cache
def one_hot(seed: int, batch: int, classes: int) -> np.ndarray[Any, Any]:
    labels = np.random.default_rng(seed).integers(0, classes, batch)
    return np.eye(classes, dtype=np.float32)[labels]


@functools.cache
def well_conditioned(seed: int, n: int) -> np.ndarray[Any, Any]:
    """G / sqrt(n) + 3 I: singular values between about 1 and 5."""
    return normal(seed, (n, n), 1 / np.sqrt(n)) + 3 * np.eye(n, dtype=np.float32)


@functools.cache
def symmetric(seed: int, n: int) -> np.ndarray[Any, Any]:
    g = normal(seed, (n, n), 1 / np.sqrt(n))
    out: np.ndarray[Any, Any] = (g + g.T) / np.float32(2)
    return out


# --- workloads: each builder returns a call that runs once and waits for its results -----


def jit_hit(lib: Lib) -> Call:
    """A jitted ``a * b + a`` on f32[3] Arrays: the cache-hit dispatch."""
    L = API[lib]
    x, y = L.np.asarray(np.arange(3, dtype=np.float32)), L.np.asarray(np.ones(3, np.float32))
    f = L.top.jit(lambda a, b: a * b + a)
    return lambda: f(x, y).block_until_ready()


def matmul_tanh(lib: Lib, n: int, dtype: str) -> Call:
    """Jitted ``tanh(a @ b) @ b`` on n x n matrices of ``dtype`` (float32 or bfloat16)."""
    L = API[lib]
    a = L.np.asarray(normal(1, (n, n), 1 / np.sqrt(n)), dtype=getattr(L.np, dtype))
    b = L.np.asarray(normal(2, (n, n), 1 / np.sqrt(n)), dtype=getattr(L.np, dtype))
    f = L.top.jit(lambda a, b: L.np.tanh(a @ b) @ b)
    return lambda: f(a, b).block_until_ready()


def matmul_chain(lib: Lib, n: int, dtype: str, depth: int = 8) -> Call:
    """Jitted ``x @ w0 @ w1 @ ...``: ``depth`` matmuls through 4 n x n weights in turn."""
    L = API[lib]
    x = L.np.asarray(normal(3, (n, n)), dtype=getattr(L.np, dtype))
    ws = [
        L.np.asarray(normal(4 + i, (n, n), 1 / np.sqrt(n)), dtype=getattr(L.np, dtype))
        for i in range(4)
    ]

    def chain(x: Any, ws: list[Any]) -> Any:
        for i in range(depth):
            x = x @ ws[i % len(ws)]
        return x

    f = L.top.jit(chain)
    return lambda: f(x, ws).block_until_ready()


def mlp_step(lib: Lib, sizes: tuple[int, ...], batch: int, lr: float = 0.01) -> Call:
    """One SGD step of a tanh MLP, softmax cross-entropy: ``jit`` of ``value_and_grad`` + update.

    Parameters are a list of ``(w, b)`` tuples made with ``asarray`` from
    NumPy; each call trains on from the parameters the previous call made.
    """
    L = API[lib]

    def loss(params: Any, x: Any, y: Any) -> Any:
        for w, b in params[:-1]:
            x = L.np.tanh(x @ w + b)
        w, b = params[-1]
        return -L.np.mean(L.np.sum(L.top.nn.log_softmax(x @ w + b) * y, axis=-1))

    @L.top.jit
    def step(params: Any, x: Any, y: Any) -> Any:
        value, grads = L.top.value_and_grad(loss)(params, x, y)
        new = [(w - lr * dw, b - lr * db) for (w, b), (dw, db) in zip(params, grads, strict=True)]
        return value, new

    state = [
        [
            (
                L.np.asarray(normal(10 + i, (m, n), 1 / np.sqrt(m))),
                L.np.asarray(normal(20 + i, (n,))),
            )
            for i, (m, n) in enumerate(itertools.pairwise(sizes))
        ]
    ]
    x = L.np.asarray(normal(30, (batch, sizes[0])))
    y = L.np.asarray(one_hot(31, batch, sizes[-1]))

    def call() -> Any:
        value, state[0] = L.top.block_until_ready(step(state[0], x, y))
        return value, state[0]

    return call


def rnn(lib: Lib, hidden: int, batch: int, steps: int, features: int, outputs: int) -> Call:
    """``jit(value_and_grad(loss))`` of an Elman RNN run by ``lax.scan`` (mean squared error)."""
    L = API[lib]

    def loss(params: Any, xs: Any, targets: Any) -> Any:
        w_h, w_x, b, w_o = params

        def cell(h: Any, x: Any) -> Any:
            h = L.np.tanh(h @ w_h + x @ w_x + b)
            return h, h @ w_o

        _, outs = L.top.lax.scan(cell, L.np.zeros((batch, hidden), L.np.float32), xs)
        return L.np.mean((outs - targets) ** 2)

    params = [
        L.np.asarray(normal(40, (hidden, hidden), 1 / np.sqrt(hidden))),
        L.np.asarray(normal(41, (features, hidden), 1 / np.sqrt(features))),
        L.np.asarray(np.zeros(hidden, np.float32)),
        L.np.asarray(normal(42, (hidden, outputs), 1 / np.sqrt(hidden))),
    ]
    xs = L.np.asarray(normal(43, (steps, batch, features)))
    targets = L.np.asarray(normal(44, (steps, batch, outputs)))
    f = L.top.jit(L.top.value_and_grad(loss))
    return lambda: L.top.block_until_ready(f(params, xs, targets))


def cnn_step(lib: Lib, size: int, batch: int, channels: tuple[int, ...], lr: float = 0.01) -> Call:
    """One SGD step of a CNN: ``jit`` of ``value_and_grad`` + update, NHWC images.

    Each block is a 3x3 ``conv_general_dilated`` ('SAME'), ReLU and a 2x2
    max-pool (``lax.reduce_window`` with ``lax.max``); a dense layer gives
    ten classes' logits, scored by softmax cross-entropy.
    """
    L = API[lib]
    lax = L.top.lax

    def loss(params: Any, x: Any, y: Any) -> Any:
        *convs, (w, b) = params
        for kernel, bias in convs:
            x = lax.conv_general_dilated(
                x, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
            )
            x = L.np.maximum(x + bias, 0.0)
            x = lax.reduce_window(x, -L.np.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        logits = x.reshape(x.shape[0], -1) @ w + b
        return -L.np.mean(L.np.sum(L.top.nn.log_softmax(logits) * y, axis=-1))

    @L.top.jit
    def step(params: Any, x: Any, y: Any) -> Any:
        value, grads = L.top.value_and_grad(loss)(params, x, y)
        return value, [
            (p - lr * dp, q - lr * dq) for (p, q), (dp, dq) in zip(params, grads, strict=True)
        ]

    sizes = (3, *channels)
    params = [
        (
            L.np.asarray(normal(90 + i, (3, 3, c_in, c_out), 1 / np.sqrt(9 * c_in))),
            L.np.asarray(np.zeros(c_out, np.float32)),
        )
        for i, (c_in, c_out) in enumerate(itertools.pairwise(sizes))
    ]
    features = (size >> len(channels)) ** 2 * channels[-1]
    params.append(
        (
            L.np.asarray(normal(95, (features, 10), 1 / np.sqrt(features))),
            L.np.asarray(np.zeros(10, np.float32)),
        )
    )
    state = [params]
    x = L.np.asarray(normal(96, (batch, size, size, 3)))
    y = L.np.asarray(one_hot(97, batch, 10))

    def call() -> Any:
        value, state[0] = L.top.block_until_ready(step(state[0], x, y))
        return value, state[0]

    return call


def per_example_grads(lib: Lib, batch: int, features: int, hidden: int) -> Call:
    """``jit(vmap(grad(loss), in_axes=(None, 0, 0)))`` of a one-hidden-layer regression."""
    L = API[lib]

    def loss(params: Any, x: Any, y: Any) -> Any:
        w1, w2 = params
        return (L.np.tanh(x @ w1) @ w2 - y) ** 2

    params = (
        L.np.asarray(normal(50, (features, hidden), 1 / np.sqrt(features))),
        L.np.asarray(normal(51, (hidden,), 1 / np.sqrt(hidden))),
    )
    x = L.np.asarray(normal(52, (batch, features)))
    y = L.np.asarray(normal(53, (batch,)))
    f = L.top.jit(L.top.vmap(L.top.grad(loss), in_axes=(None, 0, 0)))
    return lambda: L.top.block_until_ready(f(params, x, y))


def reduction(lib: Lib, n: int, kind: str) -> Call:
    """Jitted ``x.sum()``, or the mean and variance over axis 0, of a uniform f32[n, n]."""
    L = API[lib]
    x = L.np.asarray(uniform(60, (n, n)))
    if kind == "sum":
        f = L.top.jit(lambda x: x.sum())
    else:
        f = L.top.jit(lambda x: (L.np.mean(x, axis=0), L.np.var(x, axis=0)))
    return lambda: L.top.block_until_ready(f(x))


def eager_elementwise(lib: Lib, n: int, source: str) -> Call:
    """Eager ``tanh(x) * 2 + x`` on f32[n, n].

    ``source="numpy"``: ``x = device_put(a NumPy array)``; ``"jit"``: ``x`` is
    a jitted function's result, its data only on the device.
    """
    L = API[lib]
    x = L.top.device_put(normal(70, (n, n)))
    if source == "jit":
        x = L.top.block_until_ready(L.top.jit(lambda v: v * 0.5)(x))
    return lambda: (L.np.tanh(x) * 2 + x).block_until_ready()


def linalg(lib: Lib, n: int, op: str) -> Call:
    """A jitted ``numpy.linalg`` (or ``scipy.linalg.solve_triangular``) function of n x n f32."""
    L = API[lib]
    a_np = symmetric(80, n) if op == "eigh" else well_conditioned(81, n)
    a, b = L.np.asarray(a_np), L.np.asarray(normal(82, (n,)))
    fns: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
        "solve": (L.np.linalg.solve, (a, b)),
        "eigh": (L.np.linalg.eigh, (a,)),
        "svd": (lambda m: L.np.linalg.svd(m, full_matrices=False), (a,)),
        "qr": (L.np.linalg.qr, (a,)),
        "inv": (L.np.linalg.inv, (a,)),
        "slogdet": (L.np.linalg.slogdet, (a,)),
        "solve_triangular": (
            lambda m, v: L.sla.solve_triangular(m, v, lower=True),
            (L.np.asarray(np.tril(a_np)), b),
        ),
    }
    fn, args = fns[op]
    f = L.top.jit(fn)
    return lambda: L.top.block_until_ready(f(*args))


# --- comparisons with JAX --------------------------------------------------------


def _host(x: Any) -> np.ndarray[Any, Any]:
    out: np.ndarray[Any, Any] = np.asarray(x).astype(np.float64)
    return out


def _rel(ours: Any, theirs: Any) -> float:
    """max |ours - theirs| / max |theirs| (1.0 where theirs is all zeros)."""
    o, t = _host(ours), _host(theirs)
    if o.shape != t.shape:
        return float("inf")
    scale = float(np.abs(t).max()) if t.size else 1.0
    return float(np.abs(o - t).max()) / (scale or 1.0) if t.size else 0.0


def leaves_close(tol: float) -> Compare:
    """Every leaf within ``tol`` of JAX's, relative to the largest magnitude of JAX's leaf."""

    def compare(ours: Any, theirs: Any) -> str | None:
        o, t = jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)
        if len(o) != len(t):
            return f"{len(o)} results, JAX has {len(t)}"
        for i, (a, b) in enumerate(zip(o, t, strict=True)):
            if np.dtype(a.dtype) != np.dtype(b.dtype):
                return f"result {i}: dtype {a.dtype}, JAX's {b.dtype}"
            err = _rel(a, b)
            if not err <= tol:
                return f"result {i} {tuple(b.shape)}: relative error {err:.3g} > {tol:g}"
        return None

    return compare


def factor_close(op: str, a: np.ndarray[Any, Any], tol: float) -> Compare:
    """Factorisations are unique only up to signs: compare what is determined."""

    def compare(ours: Any, theirs: Any) -> str | None:
        o = [_host(x) for x in jax.tree_util.tree_leaves(ours)]
        t = [_host(x) for x in jax.tree_util.tree_leaves(theirs)]
        a64 = a.astype(np.float64)
        checks: dict[str, float] = {}
        if op == "eigh":
            (w, v), (tw, _) = o, t
            checks["eigenvalues"] = _rel(w, tw)
            checks["A V - V diag(w)"] = _rel(a64 @ v, v * w)
            checks["V^T V - I"] = float(np.abs(v.T @ v - np.eye(len(w))).max())
        elif op == "svd":
            (u, s, vh), (_, ts, _) = o, t
            checks["singular values"] = _rel(s, ts)
            checks["U S Vh - A"] = _rel((u * s) @ vh, a64)
        elif op == "qr":
            (q, r), (_, tr) = o, t
            checks["|diag R|"] = _rel(np.abs(np.diag(r)), np.abs(np.diag(tr)))
            checks["Q R - A"] = _rel(q @ r, a64)
            checks["Q^T Q - I"] = float(np.abs(q.T @ q - np.eye(len(q))).max())
        for what, err in checks.items():
            if not err <= tol:
                return f"{what}: relative error {err:.3g} > {tol:g}"
        return None

    return compare


# --- the list --------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Workload:
    name: str
    build: Callable[[Lib], Call]
    compare: Compare
    target: float | None = None  # didax/JAX time per call, at most
    first_call: bool = False  # its first call is also timed, in fresh processes
    timed: bool = True  # False: checked against JAX only


FIRST_CALL_TARGET = 1.0


def workloads(tiny: bool = False) -> list[Workload]:
    """Every workload, at the sizes of the issue (or small ones, for the tests)."""
    n_mm = 64 if tiny else 4096
    big, big_batch = ((32, 48, 48, 10), 16) if tiny else ((784, 2048, 2048, 10), 1024)
    small, small_batch = ((16, 24, 24, 10), 8) if tiny else ((784, 512, 512, 10), 128)
    hidden, rnn_batch, steps = (16, 4, 6) if tiny else (512, 64, 200)
    pe_batch, pe_features, pe_hidden = (8, 12, 16) if tiny else (512, 256, 256)
    cnn_size, cnn_batch = (8, 4) if tiny else (32, 64)
    n_red = 128 if tiny else 8192
    n_eager = 64 if tiny else 4096
    n_la = 32 if tiny else 1024
    p = functools.partial
    out = [
        Workload("jit hit f32[3]", jit_hit, leaves_close(1e-6), first_call=True),
        Workload(
            f"tanh(a @ b) @ b f32 {n_mm}",
            p(matmul_tanh, n=n_mm, dtype="float32"),
            leaves_close(2e-2),
            first_call=True,
        ),
        Workload(
            f"tanh(a @ b) @ b bf16 {n_mm}",
            p(matmul_tanh, n=n_mm, dtype="bfloat16"),
            leaves_close(5e-2),
        ),
        Workload(
            f"8-matmul chain f32 {n_mm}",
            p(matmul_chain, n=n_mm, dtype="float32"),
            leaves_close(2e-2),
        ),
        Workload(
            f"8-matmul chain bf16 {n_mm}",
            p(matmul_chain, n=n_mm, dtype="bfloat16"),
            leaves_close(1e-1),
        ),
    ]
    for sizes, batch in ((big, big_batch), (small, small_batch)):
        out.append(
            Workload(
                f"MLP step {'-'.join(map(str, sizes))} batch {batch}",
                p(mlp_step, sizes=sizes, batch=batch),
                leaves_close(1e-2),
                target=1.05,
                first_call=True,
            )
        )
    out += [
        Workload(
            f"RNN scan value_and_grad h{hidden} b{rnn_batch} T{steps}",
            p(
                rnn,
                hidden=hidden,
                batch=rnn_batch,
                steps=steps,
                features=64 if not tiny else 8,
                outputs=16 if not tiny else 3,
            ),
            leaves_close(1e-2),
            target=1.05,
            first_call=True,
        ),
        Workload(
            f"CNN step {cnn_size}x{cnn_size}x3 batch {cnn_batch}",
            p(cnn_step, size=cnn_size, batch=cnn_batch, channels=(32, 64, 64)),
            leaves_close(1e-2),
            target=1.05,
            first_call=True,
        ),
        Workload(
            f"per-example grads b{pe_batch} {pe_features}-{pe_hidden}",
            p(per_example_grads, batch=pe_batch, features=pe_features, hidden=pe_hidden),
            leaves_close(1e-2),
            first_call=True,
        ),
        Workload(
            f"sum f32[{n_red},{n_red}]", p(reduction, n=n_red, kind="sum"), leaves_close(1e-4)
        ),
        Workload(
            f"mean+var axis 0 f32[{n_red},{n_red}]",
            p(reduction, n=n_red, kind="meanvar"),
            leaves_close(1e-4),
        ),
        Workload(
            f"eager tanh(x)*2+x f32 {n_eager}, x=device_put(NumPy)",
            p(eager_elementwise, n=n_eager, source="numpy"),
            leaves_close(1e-5),
            target=1.1,
        ),
        Workload(
            f"eager tanh(x)*2+x f32 {n_eager}, x=jit result",
            p(eager_elementwise, n=n_eager, source="jit"),
            leaves_close(1e-5),
        ),
        Workload(
            f"jit solve f32 {n_la}",
            p(linalg, n=n_la, op="solve"),
            leaves_close(1e-3),
            target=1.1,
            first_call=True,
        ),
        Workload(
            f"jit eigh f32 {n_la}",
            p(linalg, n=n_la, op="eigh"),
            factor_close("eigh", symmetric(80, n_la), 1e-3),
            target=1.1,
            first_call=True,
        ),
    ]
    for op in ("svd", "qr"):
        out.append(
            Workload(
                f"check jit {op} f32 {n_la}",
                p(linalg, n=n_la, op=op),
                factor_close(op, well_conditioned(81, n_la), 1e-3),
                timed=False,
            )
        )
    for op in ("inv", "slogdet", "solve_triangular"):
        out.append(
            Workload(
                f"check jit {op} f32 {n_la}",
                p(linalg, n=n_la, op=op),
                leaves_close(1e-3),
                timed=False,
            )
        )
    return out


# --- running them ----------------------------------------------------------------


def _error(e: BaseException) -> str:
    first = (str(e).strip().splitlines() or [""])[0]
    return f"{type(e).__name__}: {first[:200]}"


@dataclasses.dataclass
class Result:
    name: str
    status: str = "ok"  # "ok", "FAIL: ...", "didax error: ...", "JAX error: ..."
    seconds: dict[str, float | None] = dataclasses.field(default_factory=dict)
    target: float | None = None

    @property
    def ratio(self) -> float | None:
        d, j = self.seconds.get("didax"), self.seconds.get("jax")
        return d / j if d is not None and j else None


def check(w: Workload) -> tuple[Result, dict[Lib, Call | None]]:
    """Builds ``w`` for both libraries, runs each once, compares didax's results with JAX's."""
    result = Result(w.name, target=w.target)
    calls: dict[Lib, Call | None] = {}
    outs: dict[Lib, Any] = {}
    for lib in ("jax", "didax"):
        try:
            call = w.build(lib)
            outs[lib] = call()
            calls[lib] = call
        except Exception as e:
            calls[lib] = None
            who = "didax" if lib == "didax" else "JAX"
            result.status = f"{who} error: {_error(e)}"
    if result.status == "ok":
        try:
            problem = w.compare(outs["didax"], outs["jax"])
        except Exception as e:
            problem = f"comparison raised {_error(e)}"
        if problem is not None:
            result.status = f"FAIL: {problem}"
    return result, calls


def alternate(
    calls: dict[Lib, Call | None], rounds: int, round_seconds: float
) -> dict[str, float | None]:
    """Median seconds per call of each, timed in alternating rounds (didax, JAX, didax, ...)."""
    live = {lib: c for lib, c in calls.items() if c is not None}
    if not live:
        return {}
    slowest = 0.0
    for c in live.values():  # a second call each: how many calls make a round
        t0 = time.perf_counter()
        c()
        slowest = max(slowest, time.perf_counter() - t0)
    n = max(1, min(10_000, round(round_seconds / max(slowest, 1e-9))))
    times: dict[Lib, list[float]] = {lib: [] for lib in live}
    for _ in range(rounds):
        for lib in LIBS:
            if lib not in live:
                continue
            c = live[lib]
            t0 = time.perf_counter()
            for _ in range(n):
                c()
            times[lib].append((time.perf_counter() - t0) / n)
    return {lib: statistics.median(t) for lib, t in times.items()}


def child_env() -> dict[str, str]:
    """The environment of a first-call process: it finds this didax, and leaves the parent room."""
    env = dict(os.environ)
    src = str(Path(dx.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    # The parent's backend holds most of the GPU's memory (XLA preallocates 75%).
    env.setdefault("XLA_PYTHON_CLIENT_MEM_FRACTION", "0.1")
    return env


def first_call(name: str, lib: Lib, tiny: bool, timeout: float = 300) -> float | str:
    """Seconds of ``name``'s first call on ``lib`` in a fresh process, or what went wrong."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--first-call", name, "--lib", lib]
    try:
        done = subprocess.run(
            [*cmd, *(["--tiny"] if tiny else [])],
            env=child_env(),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout:g} s"
    for line in done.stdout.splitlines():
        if line.startswith(FIRST_CALL_TAG + " "):
            return float(line.split()[1])
    tail = (done.stderr.strip().splitlines() or done.stdout.strip().splitlines() or ["?"])[-1]
    return f"exit {done.returncode}: {tail[:200]}"


def run_child(name: str, lib: Lib, tiny: bool) -> int:
    """The first-call process: start the backend, build ``name`` for ``lib``, time one call."""
    jax.devices()
    dx.devices()
    (w,) = [w for w in workloads(tiny) if w.name == name]
    call = w.build(lib)
    t0 = time.perf_counter()
    call()
    print(FIRST_CALL_TAG, repr(time.perf_counter() - t0), flush=True)
    return 0


def first_calls(w: Workload, processes: int, tiny: bool) -> Result:
    result = Result(f"first call: {w.name}", target=FIRST_CALL_TARGET)
    got: dict[Lib, list[float]] = {"didax": [], "jax": []}
    for _ in range(processes):
        for lib in LIBS:
            out = first_call(w.name, lib, tiny)
            if isinstance(out, str):
                result.status = f"{'didax' if lib == 'didax' else 'JAX'} error: {out}"
            else:
                got[lib].append(out)
    result.seconds = {lib: statistics.median(t) if t else None for lib, t in got.items()}
    return result


def fmt_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    for scale, suffix in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {suffix}"
    return f"{seconds / 1e-9:.3g} ns"


def table(results: Sequence[Result]) -> list[str]:
    header = ("workload", "didax", "JAX", "ratio", "target", "check")
    rows = [header]
    for r in results:
        ratio = r.ratio
        target = ""
        if r.target is not None:
            met = ratio is not None and ratio <= r.target
            target = f"<= {r.target:g} {'met' if met else 'MISSED'}"
        rows.append(
            (
                r.name,
                fmt_seconds(r.seconds.get("didax")),
                fmt_seconds(r.seconds.get("jax")),
                "-" if ratio is None else f"{ratio:.2f}",
                target,
                r.status,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(5)]

    def line(row: tuple[str, ...]) -> str:
        cells = [
            row[0].ljust(widths[0]),
            *(c.rjust(w) for c, w in zip(row[1:5], widths[1:], strict=True)),
        ]
        return " | ".join([*cells, row[5]])

    return [line(rows[0]), "-+-".join("-" * w for w in widths) + "-+------", *map(line, rows[1:])]


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 rounds, 1 process per first call")
    parser.add_argument("--only", default="", help="the workloads whose name contains this")
    parser.add_argument("--rounds", type=int, help="alternating rounds (15; 5 with --quick)")
    parser.add_argument("--first-calls", type=int, help="processes per library per first call")
    parser.add_argument("--tiny", action="store_true", help="small sizes, on any platform")
    parser.add_argument("--first-call", help=argparse.SUPPRESS)  # the child's workload
    parser.add_argument("--lib", choices=LIBS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.first_call is not None:
        return run_child(args.first_call, args.lib, args.tiny)

    try:
        ours = dx.devices()[0].platform
    except Exception as e:  # reported as didax's platform: JAX's decides whether a GPU is here
        ours = f"unknown ({_error(e)})"
    platforms = jax.devices()[0].platform, ours
    if not args.tiny:
        on_gpu = [p in GPU_PLATFORMS for p in platforms]
        if not any(on_gpu):
            print(
                f"bench/gpu.py: no GPU found (JAX's first device is {platforms[0]}, didax's "
                f"{platforms[1]}); nothing was run."
            )
            return 0
        if not all(on_gpu):
            print(
                f"bench/gpu.py: JAX's first device is {platforms[0]} and didax's {platforms[1]}: "
                "not both a GPU; nothing was run."
            )
            return 1
    rounds = args.rounds or (5 if args.quick else 15)
    processes = args.first_calls if args.first_calls is not None else (1 if args.quick else 3)
    round_seconds = 0.05 if args.quick else 0.2
    print(
        f"{jax.devices()[0].device_kind} ({platforms[0]}); jax {jax.__version__}; "
        f"x64: didax {dx.config.jax_enable_x64}, JAX {jax.config.read('jax_enable_x64')}; "
        f"{rounds} alternating rounds of ~{round_seconds:g} s; first calls: median of "
        f"{processes} fresh process(es) each",
        flush=True,
    )
    start = time.perf_counter()
    results: list[Result] = []
    for w in workloads(args.tiny):
        if args.only.lower() not in w.name.lower():
            continue
        t0 = time.perf_counter()
        result, calls = check(w)
        if result.status.startswith("FAIL"):
            print(f"FAIL {w.name}: {result.status[6:]}", flush=True)
        if w.timed:
            result.seconds = alternate(calls, rounds, round_seconds)
        else:
            result.status = "checked " + result.status if result.status == "ok" else result.status
        results.append(result)
        if w.first_call and processes > 0:
            results.append(first_calls(w, processes, args.tiny))
        print(f"  [{time.perf_counter() - t0:5.1f} s] {w.name}: {result.status}", flush=True)
    print()
    for text in table(results):
        print(text)
    print(
        "ratio = didax / JAX, median seconds per call; < 1: didax is faster. "
        f"{time.perf_counter() - start:.0f} s in all."
    )
    bad = [r for r in results if r.status not in ("ok", "checked ok")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
