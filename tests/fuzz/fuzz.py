"""A differential fuzzer: random programs run on didax and on JAX, under every transformation.

A program is a list of steps over a list of values, each value a float64
array of one square shape ``(N, N)``. Every step reads earlier values (by
position, modulo how many there are) and appends one: element-wise
functions, broadcasting arithmetic, reductions broadcast back, shape
operations that return to the square shape, ``dot``, gathers and
scatter-adds at constant indices, a round trip through float32,
cumulative sums and maxima, control flow (``cond``, ``fori_loop``,
``scan``) and ``custom_jvp``. Since every step accepts any earlier value,
every subsequence of a program is a program, which is what makes shrinking
a failure simple: drop steps while it still fails.

The program is written once against a namespace (``didax`` or ``jax``) and
run under eval, jit, jvp, vmap, grad, vjp, linearize, jit(grad),
vmap(grad) and grad(grad); shapes and dtypes must be equal and values
within a tolerance for float64 round-off. Where JAX raises, didax must
raise too, an error of the same kind (``compare``); where didax returns
instead, the pair (JAX's error, didax's result) is a mismatch.

Use: ``python tests/fuzz/fuzz.py --seconds 60 --seed 0`` (``nox -s fuzz --
--seconds 60``) prints the number of program x transformation pairs run and,
for a mismatch, the shrunk program, which it appends to
``tests/fuzz/regressions.json`` (replayed by the test suite).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np

import didax
import didax.numpy as dnp

# Both libraries in 64 bits (neither's default): the programs are float64.
jax.config.update("jax_enable_x64", True)
didax.config.update("jax_enable_x64", True)

N: Final = 3  # the side of every value's square shape
BATCH: Final = 2  # vmap's batch size
REGRESSIONS: Final = Path(__file__).with_name("regressions.json")

JAX_NS: Final = SimpleNamespace(
    np=jnp,
    lax=jax.lax,
    jit=jax.jit,
    grad=jax.grad,
    jvp=jax.jvp,
    vjp=jax.vjp,
    vmap=jax.vmap,
    linearize=jax.linearize,
    custom_jvp=jax.custom_jvp,
)
DIDAX_NS: Final = SimpleNamespace(
    np=dnp,
    lax=didax.lax,
    jit=didax.jit,
    grad=didax.grad,
    jvp=didax.jvp,
    vjp=didax.vjp,
    vmap=didax.vmap,
    linearize=didax.linearize,
    custom_jvp=didax.custom_jvp,
)

Step = tuple[str, tuple[int, ...]]  # (operation, which earlier values it reads)


def _softplus_like(ns: Any) -> Any:
    """A function with a custom JVP (the same derivative as its definition), per namespace."""

    @ns.custom_jvp
    def f(x: Any) -> Any:
        return ns.np.log1p(ns.np.exp(-ns.np.abs(x))) + ns.np.maximum(x, 0.0)

    @f.defjvp
    def f_jvp(primals: Any, tangents: Any) -> Any:
        (x,), (t,) = primals, tangents
        return f(x), t / (1.0 + ns.np.exp(-x))

    return f


_IDX: Final = np.array([2, 0, 2])  # gathered rows (with a repeat), in bounds for N = 3


def _apply(ns: Any, op: str, a: Any, b: Any) -> Any:
    """One step: ``op`` of earlier values ``a`` and ``b`` (both (N, N)), giving (N, N)."""
    np_, lax = ns.np, ns.lax
    match op:
        case "sin" | "cos" | "tanh":
            return getattr(np_, op)(a)
        case "exp":
            return np_.exp(np_.clip(a, -3.0, 3.0))
        case "log1p_abs":
            return np_.log1p(np_.abs(a))
        case "sqrt":
            return np_.sqrt(a * a + 1.0)
        case "square":
            return np_.square(a) * 0.5
        case "add" | "subtract" | "multiply" | "maximum" | "minimum":
            return getattr(np_, op)(a, b)
        case "divide":
            return a / (b * b + 1.0)
        case "where":
            return np_.where(a > b, a, b * 0.5)
        case "scalar":
            return a * 1.5 - 0.25
        case "row_broadcast":
            return a + b[0]
        case "sum":
            return np_.broadcast_to(np_.sum(a, axis=0, keepdims=True), (N, N))
        case "mean":
            return a - np_.mean(a, axis=1, keepdims=True)
        case "max":
            return np_.broadcast_to(np_.max(a, axis=1)[:, None], (N, N))
        case "transpose":
            return a.T
        case "reshape":
            return np_.reshape(np_.reshape(a, (N * N,))[::-1], (N, N))
        case "flip":
            return np_.flip(a, axis=0)
        case "slice_concat":
            return np_.concatenate([a[1:], b[:1]], axis=0)
        case "dot":
            return np_.dot(a, b) / N
        case "gather":
            return a[_IDX]
        case "scatter_add":
            # As an array of the namespace: an input is a NumPy array, which has no ``.at``.
            return np_.asarray(a).at[_IDX].add(b)
        case "f32":
            return a.astype(np_.float32).astype(np_.float64)
        case "cumsum":
            return np_.cumsum(a, axis=0)
        case "cummax":
            return lax.cummax(a, axis=1, reverse=True)
        case "cond":
            return lax.cond(np_.sum(b) > 0.0, np_.sin, np_.cos, a)
        case "fori":
            return lax.fori_loop(0, 3, lambda i, c: np_.tanh(c) + b * 0.1, a)
        case "scan":
            carry, ys = lax.scan(lambda c, x: (c * 0.5 + x, c + x), a[0], b)
            return ys + carry
        case "custom_jvp":
            return _softplus_like(ns)(a)
    raise ValueError(f"unknown operation {op!r}")


OPS: Final = [
    "sin",
    "cos",
    "tanh",
    "exp",
    "log1p_abs",
    "sqrt",
    "square",
    "add",
    "subtract",
    "multiply",
    "maximum",
    "minimum",
    "divide",
    "where",
    "scalar",
    "row_broadcast",
    "sum",
    "mean",
    "max",
    "transpose",
    "reshape",
    "flip",
    "slice_concat",
    "dot",
    "gather",
    "scatter_add",
    "f32",
    "cumsum",
    "cummax",
    "cond",
    "fori",
    "scan",
    "custom_jvp",
]
N_INPUTS: Final = 2


def program(ns: Any, steps: Sequence[Step]) -> Callable[..., Any]:
    """The program as a function of ``N_INPUTS`` arrays, returning a scalar."""

    def run(*inputs: Any) -> Any:
        values = list(inputs)
        for op, (i, j) in steps:
            values.append(_apply(ns, op, values[i % len(values)], values[j % len(values)]))
        return ns.np.sum(values[-1] * values[-1]) / (N * N) + ns.np.sum(values[-1]) * 0.1

    return run


def _transformations(ns: Any, f: Callable[..., Any], xs: list[Any]) -> dict[str, Callable[[], Any]]:
    t = [x * 0.3 + 0.1 for x in xs]
    batched = [np.stack([x, x * -0.5 + 0.2]) for x in xs]

    def grad_of_grad() -> Any:
        g = ns.grad(f)
        return ns.grad(lambda x0: ns.np.sum(g(x0, *xs[1:]) * xs[1]))(xs[0])

    def linearized() -> Any:
        out, f_lin = ns.linearize(f, *xs)
        return out, f_lin(*t)

    def vjp() -> Any:
        out, f_vjp = ns.vjp(f, *xs)
        return out, f_vjp(1.0)

    return {
        "eval": lambda: f(*xs),
        "jit": lambda: ns.jit(f)(*xs),
        "jvp": lambda: ns.jvp(f, tuple(xs), tuple(t)),
        "vmap": lambda: ns.vmap(f)(*batched),
        "grad": lambda: ns.grad(f, argnums=(0, 1))(*xs),
        "vjp": vjp,
        "linearize": linearized,
        "jit(grad)": lambda: ns.jit(ns.grad(f))(*xs),
        "vmap(grad)": lambda: ns.vmap(ns.grad(f))(*batched),
        "grad(grad)": grad_of_grad,
    }


TRANSFORMATIONS: Final = [
    "eval",
    "jit",
    "jvp",
    "vmap",
    "grad",
    "vjp",
    "linearize",
    "jit(grad)",
    "vmap(grad)",
    "grad(grad)",
]


def inputs(seed: int) -> list[Any]:
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(N, N)) for _ in range(N_INPUTS)]


def error_kind(error: BaseException) -> type[BaseException]:
    """The builtin exception class nearest ``error``'s own: what a caller's ``except`` sees.

    JAX's ``ConcretizationTypeError`` and didax's are both ``TypeError``;
    jaxlib's ``JaxRuntimeError`` is a ``RuntimeError``; a class that derives
    from ``Exception`` directly is ``Exception``.
    """
    return next(c for c in type(error).__mro__ if c.__module__ == "builtins")


def _describe(error: BaseException) -> str:
    first_line = (str(error).strip().splitlines() or [""])[0]
    kind = error_kind(error).__name__
    name = type(error).__name__
    return f"{kind} ({name}: {first_line})" if name != kind else f"{kind}: {first_line}"


def _summary(value: Any) -> str:
    leaves = jax.tree_util.tree_leaves(value)
    return ", ".join(f"{np.asarray(v).dtype}{list(np.shape(v))}" for v in leaves) or "no arrays"


def compare(steps: Sequence[Step], seed: int, transformation: str) -> str | None:
    """None if didax agrees with JAX on this program and transformation, else what differs.

    Where JAX raises, didax agrees only by raising an error of the same kind
    (``error_kind``: the nearest builtin exception class, so that a caller's
    ``except TypeError`` catches both or neither); the message and the
    library's own class may differ, as they do between JAX versions.
    """
    xs = inputs(seed)
    jax_error: Exception | None = None
    try:
        want = _transformations(JAX_NS, program(JAX_NS, steps), xs)[transformation]()
    except Exception as e:
        jax_error = e
    try:
        got = _transformations(DIDAX_NS, program(DIDAX_NS, steps), xs)[transformation]()
    except Exception as e:
        if jax_error is None:
            return "didax raised:\n" + traceback.format_exc(limit=3)
        if error_kind(e) is error_kind(jax_error):
            return None
        return f"JAX raised {_describe(jax_error)}; didax raised {_describe(e)}"
    if jax_error is not None:
        return f"JAX raised {_describe(jax_error)}; didax returned {_summary(got)}"
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    if len(got_leaves) != len(want_leaves):
        return f"{len(got_leaves)} results, JAX {len(want_leaves)}"
    for g, w in zip(got_leaves, want_leaves, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"result {g.dtype}{list(g.shape)}, JAX {w.dtype}{list(w.shape)}"
        if not np.allclose(g, w, rtol=1e-7, atol=1e-9, equal_nan=True):
            return f"values differ:\n{g}\nJAX:\n{w}"
    return None


def random_program(rng: np.random.Generator, length: int) -> list[Step]:
    return [
        (str(rng.choice(OPS)), (int(rng.integers(0, 64)), int(rng.integers(0, 64))))
        for _ in range(length)
    ]


def shrink(steps: list[Step], seed: int, transformation: str) -> list[Step]:
    """Drops steps (a later step reads whatever comes to its positions) while it still fails."""
    changed = True
    while changed:
        changed = False
        for k in range(len(steps)):
            candidate = steps[:k] + steps[k + 1 :]
            if candidate and compare(candidate, seed, transformation) is not None:
                steps, changed = candidate, True
                break
    return steps


def load_regressions() -> list[dict[str, Any]]:
    if not REGRESSIONS.exists():
        return []
    cases: list[dict[str, Any]] = json.loads(REGRESSIONS.read_text())
    return cases


def _record(steps: list[Step], seed: int, transformation: str) -> None:
    cases = load_regressions()
    case = {
        "steps": [[op, list(ix)] for op, ix in steps],
        "seed": seed,
        "transformation": transformation,
    }
    if case not in cases:
        cases.append(case)
        REGRESSIONS.write_text(json.dumps(cases, indent=1) + "\n")


def steps_of(case: dict[str, Any]) -> list[Step]:
    return [(str(op), (int(ix[0]), int(ix[1]))) for op, ix in case["steps"]]


def fuzz(
    seconds: float,
    seed: int,
    max_length: int = 8,
    record: bool = True,
    programs: int | None = None,
) -> tuple[int, list[str]]:
    """Runs random programs for ``seconds`` (or ``programs`` of them, whatever the time).

    Returns the number of program x transformation pairs run and a report per failure.
    """
    rng = np.random.default_rng(seed)
    deadline = time.monotonic() + seconds
    pairs, failures, made = 0, [], 0
    while (made < programs) if programs is not None else (time.monotonic() < deadline):
        made += 1
        steps = random_program(rng, int(rng.integers(1, max_length + 1)))
        input_seed = int(rng.integers(0, 2**31))
        for transformation in TRANSFORMATIONS:
            pairs += 1
            why = compare(steps, input_seed, transformation)
            if why is None:
                continue
            small = shrink(steps, input_seed, transformation)
            report = (
                f"{transformation} of {small} (inputs seed {input_seed}): "
                f"{compare(small, input_seed, transformation) or why}"
            )
            failures.append(report)
            if record:
                _record(small, input_seed, transformation)
    return pairs, failures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-length", type=int, default=8)
    args = parser.parse_args(argv)
    start = time.monotonic()
    pairs, failures = fuzz(args.seconds, args.seed, args.max_length)
    elapsed = time.monotonic() - start
    for report in failures:
        print("MISMATCH", report)
    print(
        f"{pairs} program x transformation pairs in {elapsed:.0f} s "
        f"({math.ceil(pairs / len(TRANSFORMATIONS))} programs), {len(failures)} mismatches"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
