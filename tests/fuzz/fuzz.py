"""A differential fuzzer: random programs run on didax and on JAX, under every transformation.

A program is a list of steps over a list of values, each value an array of
one square shape ``(N, N)``, float64 (or float32: a program is drawn in
32-bit mode a third of the time, both libraries' ``enable_x64`` off). Every
step reads earlier values (by position, modulo how many there are) and
appends one; the steps come in families (``fuzz_steps.py``: element-wise,
reductions and cumulative ops, shapes and ``dot``, gathers, scatters and
``.at`` at constant and traced indices, linear algebra, FFTs, complex
intermediates, float32/float16/bfloat16, convolutions, ``reduce_window``
windows, random draws at fixed keys, and control flow -- ``cond``,
``switch``, ``fori_loop``, ``while_loop``, ``scan`` -- whose bodies are
other steps). Since every step accepts any earlier value, every
subsequence of a program is a program, which is what makes shrinking a
failure simple: drop steps while it still fails.

The program is written once against a namespace (``didax`` or ``jax``) and
run under eval, jit, jvp, vmap, grad, vjp, linearize, jit(grad),
vmap(grad) and grad(grad); shapes and dtypes must be equal and values
within a tolerance (float64 round-off, or what the program's 16-bit steps
or 32-bit mode allow). Where JAX raises, didax must raise too, an error of
the same kind (``compare``); where didax returns instead, the pair (JAX's
error, didax's result) is a mismatch. didax runs each transformation as a
user would (eagerly, or jitted where the transformation says so); JAX, the
reference, runs all ten in one ``jax.jit`` (one compile per program instead
of an eager dispatch, and a compile, per operation -- the same values to
round-off), computing what several share once (``_DERIVED``); a
transformation that raises is traced on its own so only it raises.

Use: ``python tests/fuzz/fuzz.py --seconds 60 --seed 0`` (``nox -s fuzz --
--seconds 60``) prints the number of program x transformation pairs run and,
for a mismatch, the shrunk program, which it appends to
``tests/fuzz/regressions.json`` (replayed by the test suite). ``--jobs K``
searches in K processes at once (most of the time goes to XLA compiling
each new program, so the rate grows with the cores given). XLA compiles
as fast as it can (``FAST_COMPILE``) unless ``--optimized`` is given.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
import numpy.typing as npt

import didax
import didax.numpy as dnp

if __package__ in (None, ""):  # run as a script: the steps' module is found from the root
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.fuzz.fuzz_steps import N, eager_only, random_op, rtol_of, step_fn

BATCH: Final = 2  # vmap's batch size
X64_SHARE: Final = 2 / 3  # the share of programs in 64-bit mode; the rest are float32
RTOL_32: Final = 2e-4  # the relative tolerance of a program in 32-bit mode, at least
REGRESSIONS: Final = Path(__file__).with_name("regressions.json")
# Most of the time is XLA compiling each new program, both libraries' the
# same way, so the search compiles without LLVM's optimisations (faster: the
# figures are in docs/performance.md): that changes how the code is
# generated, for didax's programs and JAX's alike, not what they mean --
# except where XLA's CPU compiler gets it wrong at -O0 (the eager float32
# jvp of ``truncated_normal``, left out of the steps). Not also with XLA's
# older CPU emitters (``--xla_cpu_use_fusion_emitters=false``), though the
# two together compile faster still: together they get that jvp wrong in
# float64 too. ``--optimized`` searches with XLA's defaults.
FAST_COMPILE: Final = "--xla_backend_optimization_level=0"

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
    custom_vjp=jax.custom_vjp,
    random=jax.random,
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
    custom_vjp=didax.custom_vjp,
    random=didax.random,
)

Step = tuple[str, tuple[int, ...]]  # (operation, which earlier values it reads)


def _apply(ns: Any, op: str, a: Any, b: Any) -> Any:
    """One step: ``op`` of earlier values ``a`` and ``b`` (both (N, N)), giving (N, N)."""
    return step_fn(op)(ns, a, b)


N_INPUTS: Final = 2


def program(ns: Any, steps: Sequence[Step]) -> Callable[..., Any]:
    """The program as a function of ``N_INPUTS`` arrays, returning a scalar."""

    def run(*inputs: Any) -> Any:
        values = list(inputs)
        for op, (i, j) in steps:
            values.append(_apply(ns, op, values[i % len(values)], values[j % len(values)]))
        return ns.np.sum(values[-1] * values[-1]) / (N * N) + ns.np.sum(values[-1]) * 0.1

    return run


Arrays = Sequence[Any]


def _transformations(
    ns: Any, f: Callable[..., Any], xs: Arrays, t: Arrays, batched: Arrays
) -> dict[str, Callable[[], Any]]:
    """Each transformation of ``f`` at the inputs ``xs`` (tangents ``t``, a batch ``batched``)."""

    def grad_of_grad() -> Any:
        g = ns.grad(f)
        return ns.grad(lambda x0: ns.np.sum(g(x0, *xs[1:]) * xs[1]))(xs[0])

    def linearized() -> Any:
        out, f_lin = ns.linearize(f, *xs)
        return out, f_lin(*t)

    def vjp() -> Any:
        out, f_vjp = ns.vjp(f, *xs)
        return out, f_vjp(ns.np.ones_like(out))

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


def inputs(seed: int, x64: bool = True) -> list[Any]:
    """The program's inputs, then their tangents, then their batches (NumPy arrays)."""
    rng = np.random.default_rng(seed)
    dtype = np.float64 if x64 else np.float32
    xs: list[npt.NDArray[np.floating[Any]]] = [
        rng.normal(size=(N, N)).astype(dtype) for _ in range(N_INPUTS)
    ]
    t = [x * 0.3 + 0.1 for x in xs]
    batched = [np.stack([x, x * -0.5 + 0.2]) for x in xs]
    return xs + t + batched


def _split(arrays: Arrays) -> tuple[Arrays, Arrays, Arrays]:
    return arrays[:N_INPUTS], arrays[N_INPUTS : 2 * N_INPUTS], arrays[2 * N_INPUTS :]


Outcome = tuple[Any, Exception | None]  # a result, or the error raised instead


# JAX's reference computes each distinct computation once: inside its one
# ``jax.jit``, ``jit(f)`` is ``f`` traced again and ``jit(grad(f))`` is the
# first of ``grad(f, argnums=(0, 1))``; ``vjp`` at a ones cotangent is
# ``(f, grad(f, argnums=(0, 1)))`` (JAX's ``grad`` is its ``vjp``). Tracing
# and lowering the copies cost as much as the rest, and XLA would merge them.
# Where anything raises, each is computed on its own (``jax_outcomes``).
_DERIVED: Final[dict[str, tuple[tuple[str, ...], Callable[..., Any]]]] = {
    "jit": (("eval",), lambda out: out),
    "jit(grad)": (("grad",), lambda grads: grads[0]),
    "vjp": (("eval", "grad"), lambda out, grads: (out, grads)),
}


def _bases(names: Sequence[str]) -> list[str]:
    """The distinct computations that give ``names``' references, in ``TRANSFORMATIONS``' order."""
    needed = {b for n in names for b in _DERIVED.get(n, ((n,), None))[0]}
    return [n for n in TRANSFORMATIONS if n in needed]


def _derive(names: Sequence[str], results: dict[str, Any]) -> dict[str, Any]:
    """Each of ``names``' results from the distinct computations' ``results``."""
    out = {}
    for name in names:
        bases, derive = _DERIVED.get(name, ((name,), lambda r: r))
        out[name] = derive(*(results[b] for b in bases))
    return out


def jax_outcomes(
    steps: Sequence[Step], seed: int, x64: bool, names: Sequence[str] = TRANSFORMATIONS
) -> dict[str, Outcome]:
    """JAX's result (or error) for each transformation in ``names``, jitted together.

    The inputs are the jitted function's arguments, not constants, so XLA
    cannot fold the program at compile time (its constant folder's
    ``tanh`` is not the compiled one). Where the one program raises, each
    transformation is traced on its own (cheap: no compile) to find those
    that raise, and the others are compiled together again.
    """
    f = program(JAX_NS, steps)

    def run(which: Sequence[str]) -> Callable[..., dict[str, Any]]:
        def all_of(*arrays: Any) -> dict[str, Any]:
            thunks = _transformations(JAX_NS, f, *_split(arrays))
            return {name: thunks[name]() for name in which}

        return all_of

    def fetched(which: Sequence[str], jitted: bool) -> dict[str, Any]:
        # On the host inside the ``try``: XLA reports a failure when the result is read.
        results = (jax.jit(run(which)) if jitted else run(which))(*arrays)
        host: dict[str, Any] = jax.tree_util.tree_map(np.asarray, results)
        return host

    def traced_error(name: str) -> Exception | None:
        try:
            jax.jit(run([name])).trace(*arrays)
        except Exception as e:
            return e
        return None

    arrays = inputs(seed, x64)
    # Where a step's error shows only when run (a custom_vjp under jvp: JAX
    # raises eagerly even for an unused step, while jit drops it with the dead
    # code), forward mode's transformations run eagerly; the others give
    # the same outcome jitted, which costs one compile instead of a dispatch
    # (and a compile) per operation.
    forward = ("jvp", "linearize")
    eager = [n for n in names if n in forward and any(eager_only(op) for op, _ in steps)]
    with jax.enable_x64(x64):
        outcomes = {name: _eager(partial(fetched, [name], False), name, False) for name in eager}
        together = [n for n in names if n not in eager]
        bases = _bases(together)
        try:
            shared = fetched(bases, True)
            return outcomes | {k: (v, None) for k, v in _derive(together, shared).items()}
        except Exception:
            pass  # one of them raises: those that trace, together again
        # Each on its own now (``jit(grad)`` differentiates in fewer inputs
        # than ``grad``, so it may not raise where ``grad`` does).
        failed = {name: traced_error(name) for name in together}
        results: dict[str, Any] = {}
        try:
            results = fetched([n for n in together if failed[n] is None], True)
        except Exception:  # XLA's failure, when run: each on its own
            for name in together:
                if failed[name] is None:
                    try:
                        results[name] = fetched([name], True)[name]
                    except Exception as e:
                        failed[name] = e
        for name in together:
            error = failed[name]
            if error is None:
                outcomes[name] = (results[name], None)
                continue
            outcomes[name] = (None, error)
            # Under jit XLA's failure is the reference (didax's jit meets it
            # too); an eager transformation is compared with JAX's eager one.
            compile_failed = isinstance(error, jax.errors.JaxRuntimeError)
            if not name.startswith("jit"):
                outcomes[name] = _eager(partial(fetched, [name], False), name, compile_failed)
        return outcomes


def _eager(fetch: Callable[[], dict[str, Any]], name: str, without_jit: bool) -> Outcome:
    """JAX's outcome run eagerly: the reference where its jitted run raised.

    Eagerly JAX may accept what it refuses traced: a loop bound computed
    from the inputs is concrete there, so a fori_loop is a scan and has a
    gradient; that is the reference for didax's eager transformation. And
    where XLA itself failed on JAX's program (a ``JaxRuntimeError``: the CPU
    FFT thunk rejects some layouts JAX's lowering gives it), JAX runs it
    op by op, jit disabled, for the value the program means.
    """
    try:
        if without_jit:
            with jax.disable_jit():
                return fetch()[name], None
        return fetch()[name], None
    except Exception as e:
        return None, e


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


def tolerance(steps: Sequence[Step], x64: bool) -> float:
    """The relative tolerance of a program: its least precise step's, or 32-bit mode's."""
    return max([rtol_of(op) for op, _ in steps] + [1e-7 if x64 else RTOL_32])


def _differs(got: Any, want: Any, rtol: float) -> str | None:
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    if len(got_leaves) != len(want_leaves):
        return f"{len(got_leaves)} results, JAX {len(want_leaves)}"
    for g, w in zip(got_leaves, want_leaves, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"result {g.dtype}{list(g.shape)}, JAX {w.dtype}{list(w.shape)}"
        # Absolute slack in proportion to the result's size: round-off is the
        # intermediates', and a small entry can be a difference of large ones.
        scale = float(np.max(np.abs(w), initial=1.0, where=np.isfinite(w)))
        # 16-bit steps round intermediates at rtol: an entry's error is rtol of the largest.
        slack = rtol * scale * (1.0 if rtol >= 1e-2 else 1e-2)
        if not np.allclose(g, w, rtol=rtol, atol=slack, equal_nan=True):
            return f"values differ:\n{g}\nJAX:\n{w}"
    return None


def compare(
    steps: Sequence[Step],
    seed: int,
    transformation: str,
    x64: bool = True,
    want: Outcome | None = None,
) -> str | None:
    """None if didax agrees with JAX on this program and transformation, else what differs.

    ``want`` is JAX's outcome where already known (``jax_outcomes``). Where
    JAX raises, didax agrees only by raising an error of the same kind
    (``error_kind``: the nearest builtin exception class, so that a caller's
    ``except TypeError`` catches both or neither); the message and the
    library's own class may differ, as they do between JAX versions.
    """
    want_value, jax_error = want or jax_outcomes(steps, seed, x64, [transformation])[transformation]
    thunks = _transformations(DIDAX_NS, program(DIDAX_NS, steps), *_split(inputs(seed, x64)))
    try:
        with didax.enable_x64(x64):  # read on the host here, where an error is caught
            got = jax.tree_util.tree_map(np.asarray, thunks[transformation]())
    except Exception as e:
        if jax_error is None:
            return "didax raised:\n" + traceback.format_exc(limit=3)
        if error_kind(e) is error_kind(jax_error):
            return None
        return f"JAX raised {_describe(jax_error)}; didax raised {_describe(e)}"
    if jax_error is not None:
        return f"JAX raised {_describe(jax_error)}; didax returned {_summary(got)}"
    return _differs(got, want_value, tolerance(steps, x64))


def random_program(rng: np.random.Generator, length: int) -> list[Step]:
    return [
        (random_op(rng), (int(rng.integers(0, 64)), int(rng.integers(0, 64))))
        for _ in range(length)
    ]


def shrink(steps: list[Step], seed: int, transformation: str, x64: bool = True) -> list[Step]:
    """Drops steps (a later step reads whatever comes to its positions) while it still fails."""
    changed = True
    while changed:
        changed = False
        for k in range(len(steps)):
            candidate = steps[:k] + steps[k + 1 :]
            if candidate and compare(candidate, seed, transformation, x64) is not None:
                steps, changed = candidate, True
                break
    return steps


def load_regressions() -> list[dict[str, Any]]:
    if not REGRESSIONS.exists():
        return []
    cases: list[dict[str, Any]] = json.loads(REGRESSIONS.read_text())
    return cases


def _case(steps: list[Step], seed: int, transformation: str, x64: bool) -> dict[str, Any]:
    return {
        "steps": [[op, list(ix)] for op, ix in steps],
        "seed": seed,
        "transformation": transformation,
        "x64": x64,
    }


def _record(case: dict[str, Any]) -> None:
    cases = load_regressions()
    if case not in cases:
        cases.append(case)
        REGRESSIONS.write_text(json.dumps(cases, indent=1) + "\n")


def steps_of(case: dict[str, Any]) -> list[Step]:
    return [(str(op), (int(ix[0]), int(ix[1]))) for op, ix in case["steps"]]


Found = list[tuple[dict[str, Any], str]]  # (the shrunk case, its report) per failure


def _search(
    seconds: float, seed: int, max_length: int, programs: int | None, verbose: bool
) -> tuple[int, Found]:
    rng = np.random.default_rng(seed)
    deadline = time.monotonic() + seconds
    pairs, found, made = 0, [], 0
    while (made < programs) if programs is not None else (time.monotonic() < deadline):
        made += 1
        steps = random_program(rng, int(rng.integers(1, max_length + 1)))
        input_seed = int(rng.integers(0, 2**31))
        x64 = bool(rng.random() < X64_SHARE)
        outcomes = jax_outcomes(steps, input_seed, x64)
        for transformation in TRANSFORMATIONS:
            pairs += 1
            why = compare(steps, input_seed, transformation, x64, outcomes[transformation])
            if why is None:
                continue
            small = shrink(steps, input_seed, transformation, x64)
            report = (
                f"{transformation} of {small} (inputs seed {input_seed}, x64 {x64}): "
                f"{compare(small, input_seed, transformation, x64) or why}"
            )
            if verbose:
                print("MISMATCH", report, flush=True)
            found.append((_case(small, input_seed, transformation, x64), report))
    return pairs, found


def _search_job(args: tuple[float, int, int]) -> tuple[int, Found]:
    seconds, seed, max_length = args
    return _search(seconds, seed, max_length, None, verbose=True)


def fuzz(
    seconds: float,
    seed: int,
    max_length: int = 8,
    record: bool = True,
    programs: int | None = None,
    jobs: int = 1,
    verbose: bool = False,
) -> tuple[int, list[str]]:
    """Runs random programs for ``seconds`` (or ``programs`` of them, whatever the time).

    Returns the number of program x transformation pairs run and a report
    per failure; ``record`` appends each failure's shrunk program to the
    regressions. ``jobs`` processes search at once (for ``seconds``), job
    ``k`` from seed ``seed + k * 1_000_003``: job 0's programs are those of
    a single-process run.
    """
    if jobs == 1:
        pairs, found = _search(seconds, seed, max_length, programs, verbose)
    else:
        # Spawned, not forked: a fork of a process running XLA's threads can deadlock.
        context = multiprocessing.get_context("spawn")
        tasks = [(seconds, seed + k * 1_000_003, max_length) for k in range(jobs)]
        with context.Pool(jobs) as pool:
            results = pool.map(_search_job, tasks)
        pairs = sum(n for n, _ in results)
        found = [f for _, fs in results for f in fs]
    if record:
        for case, _ in found:
            _record(case)
    return pairs, [report for _, report in found]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-length", type=int, default=8)
    parser.add_argument("--jobs", type=int, default=1, help="processes searching at once")
    parser.add_argument(
        "--optimized",
        action="store_true",
        help="XLA's default compiler, not its fastest to compile",
    )
    args = parser.parse_args(argv)
    if not args.optimized:
        # Set before either library starts its backend; spawned jobs inherit it.
        flags = os.environ.get("XLA_FLAGS", "")
        os.environ["XLA_FLAGS"] = f"{flags} {FAST_COMPILE}".strip()
    start = time.monotonic()
    pairs, failures = fuzz(args.seconds, args.seed, args.max_length, jobs=args.jobs, verbose=True)
    elapsed = time.monotonic() - start
    # CPU seconds too (this process's and its finished jobs'): on a shared
    # machine the wall-clock rate says as much about the other load.
    cpu = sum(os.times()[:4])
    print(
        f"{pairs} program x transformation pairs in {elapsed:.0f} s "
        f"({math.ceil(pairs / len(TRANSFORMATIONS))} programs, "
        f"{pairs / elapsed:.1f} pairs/s, {args.jobs} job(s), {cpu:.0f} CPU s), "
        f"{len(failures)} mismatches"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
