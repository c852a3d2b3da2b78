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
round-off), computing what several share once (``DERIVED``); a
transformation that raises is traced on its own so only it raises.
Forward mode over a ``custom_vjp`` step is JAX's eager run (which raises
wherever it evaluates the step, used or not), decided by tracing it, not
running it (``_forward_outcomes``).

Programs are drawn ``--bundle`` at a time (16) and compiled together, per
mode: JAX's reference of all of them in one ``jax.jit``, didax's ``jit``
and ``jit(grad)`` of all of them in one ``didax.jit`` each. A bundle
returns each program's result separately, computed from that program's
own inputs (``transform(f_k)(*xs_k)``, never the transformation of a sum),
so a pair is still one program under one transformation, compared on its
own with JAX's. Where a bundle raises, each program runs alone (today's
path, ``jax_outcomes`` and ``compare``), and a pair that disagrees is
compared again alone before it counts as a mismatch, so attribution,
shrinking and "where JAX raises, didax must raise too" are as unbundled.

Use: ``python tests/fuzz/fuzz.py --seconds 60 --seed 0`` (``nox -s fuzz --
--seconds 60``) prints the number of program x transformation pairs run and,
for a mismatch, the shrunk program, which it appends to
``tests/fuzz/regressions.json`` (replayed by the test suite). ``--jobs K``
searches in K processes at once (most of the time goes to XLA compiling
each new program, so the rate grows with the cores given). XLA compiles
as fast as it can unless ``--optimized`` is given: without LLVM's
optimisation (``FAST_COMPILE``) and with its older CPU emitters
(``OLDER_EMITTERS``). At these flags XLA gets a few programs wrong, both
libraries' alike (at the older emitters its CPU FFT rejects the operand
layout of a few FFT programs; at ``-O0`` it miscomputes a few), so a
mismatch is confirmed by a process at XLA's defaults (``_XlaDefaults``)
before it counts.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import site
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, Final

import jax
import numpy as np

import didax

if __package__ in (None, ""):  # run as a script: the steps' module is found from the root
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.fuzz.fuzz_compare import (
    Step,
    _case,
    _describe,
    _differs,
    _record,
    _summary,
    error_kind,
    no_farther,
    tolerance,
)
from tests.fuzz.fuzz_reference import (
    DIDAX_NS,
    JAX_NS,
    TRANSFORMATIONS,
    Arrays,
    Outcome,
    bases,
    custom_lin_error,
    derive,
    has_fft,
    inputs,
    on_host,
    run_eagerly,
    runs_custom_lin,
    split_inputs,
    trace_raises,
)
from tests.fuzz.fuzz_steps import (
    N,
    bounded_by_value,
    eager_only,
    of_family,
    random_op,
    step_fn,
)

BATCH: Final = 2  # vmap's batch size
BUNDLE: Final = 16  # programs drawn at once, compiled together (per mode) where they agree
X64_SHARE: Final = 2 / 3  # the share of programs in 64-bit mode; the rest are float32
# Most of the time is XLA compiling each new program, both libraries' the
# same way, so the search compiles without LLVM's optimisations (figures in
# docs/performance.md): how the code is generated, not what it means --
# except where XLA gets it wrong at -O0 (the eager float32 jvp of
# ``truncated_normal``, left out of the steps; a mismatch is confirmed at
# XLA's defaults, ``_XlaDefaults``). ``--optimized``: XLA's defaults.
FAST_COMPILE: Final = "--xla_backend_optimization_level=0"
# XLA's older CPU emitters compile these small programs in about half the
# time (docs/performance.md, "The fuzzer's throughput"); not for FFTs (above).
OLDER_EMITTERS: Final = "--xla_cpu_use_fusion_emitters=false"
# JAX's bundled reference alone also compiles with XLA's older CPU emitters
# (about half the time): with -O0 they get that jvp wrong in float64 too, so
# a pair that disagrees is confirmed against the usual compile.
FAST_REFERENCE: dict[str, Any] = {"xla_cpu_use_fusion_emitters": False}


def _apply(ns: Any, op: str, a: Any, b: Any) -> Any:
    """One step: ``op`` of earlier values ``a`` and ``b`` (both (N, N)), giving (N, N)."""
    return step_fn(op)(ns, a, b)


def program(ns: Any, steps: Sequence[Step]) -> Callable[..., Any]:
    """The program as a function of ``N_INPUTS`` arrays, returning a scalar."""

    def run(*inputs: Any) -> Any:
        values = list(inputs)
        for op, (i, j) in steps:
            values.append(_apply(ns, op, values[i % len(values)], values[j % len(values)]))
        return ns.np.sum(values[-1] * values[-1]) / (N * N) + ns.np.sum(values[-1]) * 0.1

    return run


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


def _reference(
    steps: Sequence[Step], which: Sequence[str], failed: dict[str, Exception] | None = None
) -> Callable[..., dict[str, Any]]:
    """JAX's function of a program's inputs giving its transformations ``which``.

    With ``failed``, a transformation that raises is left out of the result
    and its error kept there, so the others still give theirs.
    """
    f = program(JAX_NS, steps)

    def all_of(*arrays: Any) -> dict[str, Any]:
        thunks = _transformations(JAX_NS, f, *split_inputs(arrays))
        if failed is None:
            return {name: thunks[name]() for name in which}
        results = {}
        for name in which:
            try:
                results[name] = thunks[name]()
            except Exception as e:
                failed[name] = e
        return results

    return all_of


# Where a step's error shows only when run (a custom_vjp under jvp: JAX
# raises eagerly even for an unused step, while jit drops it with the dead
# code), forward mode's reference is JAX's eager run, decided without
# running it (``_forward_outcomes``); the others give the same outcome jitted.
_FORWARD: Final = ("jvp", "linearize")


def _eager_names(steps: Sequence[Step], names: Sequence[str]) -> list[str]:
    """The transformations of ``names`` whose reference is JAX's eager run."""
    return [n for n in names if n in _FORWARD and any(eager_only(op) for op, _ in steps)]


def _forward_outcomes(
    steps: Sequence[Step], names: Sequence[str], arrays: Arrays
) -> tuple[dict[str, Outcome], list[str]]:
    """JAX's eager outcomes of ``names`` decided by tracing alone, and those still to run.

    In JAX a custom_vjp function under forward mode emits a ``custom_lin``
    equation whose evaluation raises; eagerly every equation is evaluated
    (``jvp`` binds it at once, ``linearize``'s linear map after removing dead
    code), so JAX's eager run raises exactly where the same transformation
    traced (``make_jaxpr``, nothing run) holds one. Where it holds none, the
    jitted reference gives the eager run's values. Where tracing itself
    raises (eagerly JAX may accept what it refuses traced), the eager run
    is left to decide. Call within the program's ``enable_x64``.
    """
    decided: dict[str, Outcome] = {}
    eager = []
    for name in _eager_names(steps, names):
        try:
            traced = jax.make_jaxpr(_reference(steps, [name]))(*arrays)
        except Exception:
            eager.append(name)
            continue
        if runs_custom_lin(traced.jaxpr):
            decided[name] = (None, custom_lin_error())
    return decided, eager


def jax_outcomes(
    steps: Sequence[Step],
    seed: int,
    x64: bool,
    names: Sequence[str] = TRANSFORMATIONS,
    at: Arrays | None = None,
) -> dict[str, Outcome]:
    """JAX's result (or error) for each transformation in ``names``, jitted together.

    The inputs are the jitted function's arguments, not constants, so XLA
    cannot fold the program at compile time (its constant folder's
    ``tanh`` is not the compiled one). Where the one program raises, each
    transformation is traced on its own (cheap: no compile) to find those
    that raise, and the others are compiled together again. ``at``: other
    inputs than ``inputs(seed, x64)`` (``_as_near_exact_as_jax``'s).
    """

    def fetched(which: Sequence[str], jitted: bool) -> dict[str, Any]:
        fn = _reference(steps, which)
        host: dict[str, Any] = on_host((jax.jit(fn) if jitted else fn)(*arrays))
        return host

    def traced_error(name: str) -> Exception | None:
        try:
            jax.jit(_reference(steps, [name])).trace(*arrays)
        except Exception as e:
            return e
        return None

    arrays = inputs(seed, x64) if at is None else at
    with jax.enable_x64(x64):
        outcomes, eager = _forward_outcomes(steps, names, arrays)
        for name in eager:
            outcomes[name] = run_eagerly(partial(fetched, [name], False), name, False)
        together = [n for n in names if n not in outcomes]
        try:
            shared = fetched(bases(together), True)
            return outcomes | {k: (v, None) for k, v in derive(together, shared).items()}
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
            # too); an eager transformation is compared with JAX's eager one
            # where that may differ (``_eager_may_differ``).
            compile_failed = isinstance(error, jax.errors.JaxRuntimeError)
            if not name.startswith("jit") and _eager_may_differ(steps, error):
                outcomes[name] = run_eagerly(partial(fetched, [name], False), name, compile_failed)
        return outcomes


def jax_eagerly(
    steps: Sequence[Step], seed: int, x64: bool, name: str, without_jit: bool = False
) -> Outcome:
    """JAX's outcome for transformation ``name`` run as a user runs it, not jitted with the rest.

    ``without_jit``: jit disabled too, each operation compiled alone. The
    reference where JAX's compiled program is no answer (``compare``).
    """
    arrays = inputs(seed, x64)

    def fetch() -> dict[str, Any]:
        host: dict[str, Any] = on_host(_reference(steps, [name])(*arrays))
        return host

    with jax.enable_x64(x64):
        return run_eagerly(fetch, name, without_jit)


def _eager_may_differ(steps: Sequence[Step], error: Exception) -> bool:
    """Whether JAX's eager run of a transformation may not raise ``error``, raised when traced.

    Eagerly every value is concrete and each operation is compiled alone,
    and that is all that differs: the same rules run in the same order. So
    the eager run may differ where XLA failed to compile the traced program,
    where tracing refused a traced value (a ``ConcretizationTypeError``), or
    where a step turns on whether a value is concrete (``bounded_by_value``:
    a ``fori_loop``'s traced trip count). Elsewhere the traced error is the
    eager run's (a ``scatter_mul``'s gradient at repeated indices raises in
    both), and running it eagerly, an XLA compile per operation, took about
    a sixth of the search's time.
    """
    return isinstance(
        error, jax.errors.JaxRuntimeError | jax.errors.ConcretizationTypeError
    ) or any(bounded_by_value(op) for op, _ in steps)


Program = tuple[Sequence[Step], int]  # a program's steps and its inputs' seed


def jax_bundle_outcomes(
    programs: Sequence[Program], x64: bool, retry: bool = True
) -> list[dict[str, Outcome]]:
    """``jax_outcomes`` of each of several programs (one mode), all compiled in one ``jax.jit``.

    The bundle returns each program's transformations separately, computed
    from that program's own inputs only, so each is what ``jax_outcomes``
    gives (the same computation, compiled beside others). A transformation
    that raises when traced is left out of the bundle, and it and those
    computed from it go alone (``jax_outcomes``, which sorts out which of
    them raise); the program's others stay in the bundle. Where the bundle
    still raises (XLA's failure), each program is traced alone: those that
    raise go alone, the others are bundled again, and if that raises too,
    each goes alone.
    """
    arrays = [inputs(seed, x64) for _, seed in programs]
    with jax.enable_x64(x64):
        plans = [
            _forward_outcomes(steps, TRANSFORMATIONS, xs)
            for (steps, _), xs in zip(programs, arrays, strict=True)
        ]
    failed: list[dict[str, Exception]] = [{} for _ in programs]  # filled when traced
    fns = [
        _reference(steps, bases([n for n in TRANSFORMATIONS if n not in {*decided, *eager}]), lost)
        for (steps, _), (decided, eager), lost in zip(programs, plans, failed, strict=True)
    ]

    def bundle(*per_program: Arrays) -> list[dict[str, Any]]:
        return [fn(*xs) for fn, xs in zip(fns, per_program, strict=True)]

    # ``FAST_REFERENCE``, but not for FFTs: XLA's CPU FFT rejects more layouts (``run_eagerly``).
    fast = FAST_REFERENCE and not any(has_fft(steps) for steps, _ in programs)
    with jax.enable_x64(x64):
        try:
            lowered = jax.jit(bundle).trace(*arrays).lower()
            shared = on_host(lowered.compile(FAST_REFERENCE if fast else None)(*arrays))
        except Exception:
            shared = None
        if shared is None:
            alone = [not retry or trace_raises(fn, xs) for fn, xs in zip(fns, arrays, strict=True)]
            rest = [p for p, a in zip(programs, alone, strict=True) if not a]
            again = iter(jax_bundle_outcomes(rest, x64, retry=False) if rest else [])
            return [
                jax_outcomes(steps, seed, x64) if a else next(again)
                for (steps, seed), a in zip(programs, alone, strict=True)
            ]
        results = []
        for (steps, seed), (decided, eager), lost, mine in zip(
            programs, plans, failed, shared, strict=True
        ):
            traced = [n for n in TRANSFORMATIONS if n not in {*decided, *eager}]
            solo = eager + [n for n in traced if not lost.keys().isdisjoint(bases([n]))]
            outcomes = decided | (jax_outcomes(steps, seed, x64, solo) if solo else {})
            together = [n for n in TRANSFORMATIONS if n not in outcomes]
            results.append(outcomes | {k: (v, None) for k, v in derive(together, mine).items()})
        return results


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
    library's own class may differ, as they do between JAX versions. Where
    JAX's compiled program is no answer, JAX's run as a user runs it is
    (``jax_eagerly``): where XLA failed on it and didax's ran, and where an
    eager transformation's values differ from it.
    """
    want_value, jax_error = want or jax_outcomes(steps, seed, x64, [transformation])[transformation]
    thunks = _transformations(DIDAX_NS, program(DIDAX_NS, steps), *split_inputs(inputs(seed, x64)))
    try:
        with didax.enable_x64(x64):  # read on the host here, where an error is caught
            got = jax.tree_util.tree_map(np.asarray, thunks[transformation]())
    except Exception as e:
        if jax_error is None:
            return "didax raised:\n" + traceback.format_exc(limit=3)
        if error_kind(e) is error_kind(jax_error):
            return None
        return f"JAX raised {_describe(jax_error)}; didax raised {_describe(e)}"
    if isinstance(jax_error, jax.errors.JaxRuntimeError):
        # XLA failed on JAX's compiled program, not JAX's rules (its CPU FFT
        # rejects a layout XLA's layout assignment gave it, which didax's
        # FFT lowering pins): didax's result is checked against JAX's run
        # op by op, the value the program means.
        want_value, jax_error = jax_eagerly(steps, seed, x64, transformation, without_jit=True)
    if jax_error is not None:
        return f"JAX raised {_describe(jax_error)}; didax returned {_summary(got)}"
    differs = _differs(got, want_value, tolerance(steps, x64))
    if differs is not None and not transformation.startswith("jit"):
        # JAX's reference is its jitted run, which is its eager run's values
        # to round-off unless XLA miscompiles it (as it does a gradient
        # through a ``reduce_window`` min, in JAX's jit and didax's alike:
        # regressions.json): an eager transformation that differs is
        # compared with JAX's eager run.
        eager, error = jax_eagerly(steps, seed, x64, transformation)
        if error is None and _differs(got, eager, tolerance(steps, x64)) is None:
            return None
    if differs is None or x64:
        return differs
    # 32-bit round-off: agreement where didax is no farther from the exact value than JAX.
    return None if _as_near_exact_as_jax(steps, seed, transformation, got, want_value) else differs


def _as_near_exact_as_jax(
    steps: Sequence[Step], seed: int, transformation: str, got: Any, want: Any
) -> bool:
    """Whether didax's 32-bit result is, entry by entry, as near the exact value as JAX's.

    In 32-bit mode an entry that is a difference of larger terms can be
    mostly round-off, in both libraries, each its own: a second derivative
    through a saturated ``tanh`` whose exact value is -7e-8 was -3.4e-6 in
    JAX and 0 in didax (``tests/fuzz/regressions.json``). The exact value is
    JAX's result in 64-bit mode at the same inputs, widened. A program that
    draws random numbers draws others at 64 bits, so it is not judged so.
    """
    if any(of_family(op, "random") for op, _ in steps):
        return False
    wide = [np.asarray(a, np.float64) for a in inputs(seed, x64=False)]
    exact, error = jax_outcomes(steps, seed, True, [transformation], at=wide)[transformation]
    return error is None and no_farther(got, want, exact, tolerance(steps, x64=False))


# didax's jitted transformations, bundled: each program's function of its
# own inputs, jitted together (``jit`` is ``jit(f)``, ``jit(grad)`` is
# ``jit(grad(f))``: per program, not the gradient of a sum).
_BUNDLED: Final[dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]]] = {
    "jit": lambda f: f,
    "jit(grad)": lambda f: didax.grad(f),
}


def didax_bundle_agrees(
    programs: Sequence[Program], x64: bool, name: str, wants: Sequence[Outcome]
) -> list[bool]:
    """Whether each program's didax ``name`` (jitted), compiled in one bundle, is JAX's ``want``.

    A program where JAX raised is left out (didax must raise alone); where
    the bundle raises, none agrees here. A program that does not agree is
    compared alone by the caller (``compare``), as if never bundled.
    """
    fns, xs, where = [], [], []
    for k, ((steps, seed), (_, error)) in enumerate(zip(programs, wants, strict=True)):
        if error is None:
            fns.append(_BUNDLED[name](program(DIDAX_NS, steps)))
            xs.append(split_inputs(inputs(seed, x64))[0])
            where.append(k)
    agrees = [False] * len(programs)
    if not fns:
        return agrees

    def bundle(*per_program: Arrays) -> list[Any]:
        return [fn(*x) for fn, x in zip(fns, per_program, strict=True)]

    try:
        with didax.enable_x64(x64):
            got = on_host(didax.jit(bundle)(*xs))
    except Exception:
        return agrees
    for k, mine in zip(where, got, strict=True):
        steps, _ = programs[k]
        agrees[k] = _differs(mine, wants[k][0], tolerance(steps, x64)) is None
    return agrees


def random_program(rng: np.random.Generator, length: int) -> list[Step]:
    return [
        (random_op(rng), (int(rng.integers(0, 64)), int(rng.integers(0, 64))))
        for _ in range(length)
    ]


def draw(rng: np.random.Generator, max_length: int = 8) -> tuple[list[Step], int, bool]:
    """A random program of 1 to ``max_length`` steps, its inputs' seed, and its mode (x64)."""
    steps = random_program(rng, int(rng.integers(1, max_length + 1)))
    return steps, int(rng.integers(0, 2**31)), bool(rng.random() < X64_SHARE)


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


Found = list[tuple[dict[str, Any], str]]  # (the shrunk case, its report) per failure


def _search(
    seconds: float,
    seed: int,
    max_length: int,
    programs: int | None,
    verbose: bool,
    bundle: int = 1,
) -> tuple[int, Found]:
    rng = np.random.default_rng(seed)
    deadline = time.monotonic() + seconds
    found: Found = []
    pairs, made = 0, 0
    flags = os.environ.get("XLA_FLAGS", "")
    fast = FAST_COMPILE in flags or OLDER_EMITTERS in flags
    defaults = _XlaDefaults() if fast else None
    while (made < programs) if programs is not None else (time.monotonic() < deadline):
        size = bundle if programs is None else min(bundle, programs - made)
        drawn: list[tuple[list[Step], int, bool]] = []
        for _ in range(size):  # each program's own draws, in the order of an unbundled search
            drawn.append(draw(rng, max_length))
        made += size
        # A bundle per mode (enable_x64 is for a whole computation), and those
        # with FFTs apart (JAX's reference compiles them otherwise at XLA's
        # own emitters: ``jax_bundle_outcomes``).
        for x64, fft in [(True, False), (True, True), (False, False), (False, True)]:
            group: list[Program] = [
                (steps, s) for steps, s, mode in drawn if (mode, has_fft(steps)) == (x64, fft)
            ]
            if group:
                pairs += _check_bundle(group, x64, found, verbose, defaults)
    if defaults is not None:
        defaults.close()
    return pairs, found


class _XlaDefaults:
    """A process compiling at XLA's defaults, where a mismatch found at the fast flags is confirmed.

    The search compiles without LLVM's optimisations and at XLA's older CPU
    emitters (``FAST_COMPILE``, ``OLDER_EMITTERS``), and XLA gets a few
    programs wrong there, either library's: at the older emitters its CPU
    FFT rejects the operand layout some FFT programs' jitted gradients give
    it (a ``RET_CHECK`` in ``fft_thunk.cc``; 2 pairs of 600 in JAX's jitted
    reference, measured); at ``-O0`` it computed ``inf`` or ``0`` for an
    entry of JAX's jitted ``vmap(grad)`` of a row maximum where its defaults
    and JAX's eager run agree with didax (``[('normal', (16, 54)), ('mean',
    (16, 39)), ('svd', (21, 1)), ('max', (12, 3))]``, inputs seed
    524863537). So a mismatch counts only when this process finds it too,
    and it shrinks it there. XLA reads its flags once per process: the
    process is spawned, on the first mismatch, with both flags left out of
    its ``XLA_FLAGS``.
    """

    def __init__(self) -> None:
        self.pool: ProcessPoolExecutor | None = None

    def mismatch(
        self, steps: Sequence[Step], seed: int, transformation: str, x64: bool
    ) -> tuple[dict[str, Any], str] | None:
        """``_mismatch`` of the pair, found at XLA's defaults."""
        if self.pool is None:
            flags = os.environ.get("XLA_FLAGS", "")
            defaults = flags.replace(OLDER_EMITTERS, "").replace(FAST_COMPILE, "")
            os.environ["XLA_FLAGS"] = " ".join(defaults.split())
            try:
                # This module is found from the root there, however it was imported here.
                root = str(Path(__file__).resolve().parents[2])
                context = multiprocessing.get_context("spawn")
                self.pool = ProcessPoolExecutor(
                    1, mp_context=context, initializer=site.addsitedir, initargs=(root,)
                )
                self.pool.submit(os.getpid).result()  # spawned now, with these flags
            finally:
                os.environ["XLA_FLAGS"] = flags
        return self.pool.submit(_mismatch, steps, seed, transformation, x64).result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


def _mismatch(
    steps: Sequence[Step], seed: int, transformation: str, x64: bool, why: str | None = None
) -> tuple[dict[str, Any], str] | None:
    """The shrunk case and its report, if didax and JAX disagree on the pair; else None.

    Compared alone, against JAX's reference compiled as usual (not
    bundled); ``why`` is what the search found, where it found something.
    """
    found = compare(steps, seed, transformation, x64)
    if found is None:
        return None
    small = shrink(list(steps), seed, transformation, x64)
    report = (
        f"{transformation} of {small} (inputs seed {seed}, x64 {x64}): "
        f"{compare(small, seed, transformation, x64) or why or found}"
    )
    return _case(small, seed, transformation, x64), report


def _check_bundle(
    group: Sequence[Program],
    x64: bool,
    found: Found,
    verbose: bool,
    defaults: _XlaDefaults | None = None,
) -> int:
    """Compares each program of ``group`` under each transformation; returns the pairs run.

    ``defaults``: where this process compiles at the fast flags, the process
    at XLA's defaults that confirms a mismatch.
    """
    outcomes = jax_bundle_outcomes(group, x64)
    bundled = {
        name: didax_bundle_agrees(group, x64, name, [o[name] for o in outcomes])
        for name in _BUNDLED
    }
    pairs = 0
    for k, (steps, input_seed) in enumerate(group):
        for transformation in TRANSFORMATIONS:
            pairs += 1
            if transformation in bundled and bundled[transformation][k]:
                continue
            want = outcomes[k][transformation]
            # At the fast flags XLA's failure is no reference (both
            # libraries' jit may meet it): such a pair, and any mismatch
            # there, is compared at XLA's defaults.
            xla_failed = isinstance(want[1], jax.errors.JaxRuntimeError)
            why = None if xla_failed else compare(steps, input_seed, transformation, x64, want)
            if why is None and not xla_failed:
                continue
            if defaults is not None:
                failure = defaults.mismatch(steps, input_seed, transformation, x64)
            else:
                failure = _mismatch(steps, input_seed, transformation, x64, why)
            if failure is None:
                continue
            if verbose:
                print("MISMATCH", failure[1], flush=True)
            found.append(failure)
    return pairs


def _unfiltered() -> None:
    """JAX's tracebacks left unfiltered in a searching process.

    JAX filters its own frames out of each error's traceback as the error
    passes its API (about 24 ms an error, measured in a profile: 9 of 425 s
    of a search, which met 375 errors in 288 programs); the
    search reads only the error's class and message. For the processes of
    the search only, not for a caller of ``fuzz`` (the test suite).
    """
    jax.config.update("jax_traceback_filtering", "off")


def _search_job(args: tuple[float, int, int, int]) -> tuple[int, Found]:
    seconds, seed, max_length, bundle = args
    _unfiltered()
    if FAST_COMPILE not in os.environ.get("XLA_FLAGS", ""):  # ``--optimized``: as the parent
        FAST_REFERENCE.clear()
    return _search(seconds, seed, max_length, None, verbose=True, bundle=bundle)


def fuzz(
    seconds: float,
    seed: int,
    max_length: int = 8,
    record: bool = True,
    programs: int | None = None,
    jobs: int = 1,
    verbose: bool = False,
    bundle: int = BUNDLE,
) -> tuple[int, list[str]]:
    """Runs random programs for ``seconds`` (or ``programs`` of them, whatever the time).

    Returns the number of program x transformation pairs run and a report
    per failure; ``record`` appends each failure's shrunk program to the
    regressions. ``jobs`` processes search at once (for ``seconds``), job
    ``k`` from seed ``seed + k * 1_000_003``: job 0's programs are those of
    a single-process run.
    """
    if jobs == 1:
        pairs, found = _search(seconds, seed, max_length, programs, verbose, bundle)
    else:
        # Spawned, not forked: a fork of a process running XLA's threads can
        # deadlock. Not multiprocessing's Pool: its daemonic workers cannot
        # start the process at XLA's defaults (``_XlaDefaults``).
        context = multiprocessing.get_context("spawn")
        tasks = [(seconds, seed + k * 1_000_003, max_length, bundle) for k in range(jobs)]
        with ProcessPoolExecutor(jobs, mp_context=context) as pool:
            results = list(pool.map(_search_job, tasks))
        pairs = sum(n for n, _ in results)
        found = [f for _, fs in results for f in fs]
    if record:
        for case, _ in found:
            _record(case)
    return pairs, [report for _, report in found]


def _knows_flag(flag: str) -> bool:
    """Whether this jaxlib accepts the XLA flag ``flag`` (XLA aborts on an unknown one)."""
    code = "import jax.numpy as jnp; jnp.zeros(1).block_until_ready()"
    env = dict(os.environ, XLA_FLAGS=flag)
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True)
    return run.returncode == 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-length", type=int, default=8)
    parser.add_argument("--jobs", type=int, default=1, help="processes searching at once")
    parser.add_argument("--bundle", type=int, default=BUNDLE, help="programs per compile")
    parser.add_argument(
        "--optimized",
        action="store_true",
        help="XLA's default compiler, not its fastest to compile",
    )
    args = parser.parse_args(argv)
    _unfiltered()
    if not args.optimized:
        # Set before either library starts its backend; spawned jobs inherit it.
        flags = os.environ.get("XLA_FLAGS", "")
        fast = [FAST_COMPILE, *([OLDER_EMITTERS] if _knows_flag(OLDER_EMITTERS) else [])]
        os.environ["XLA_FLAGS"] = " ".join([flags, *fast]).strip()
    else:
        FAST_REFERENCE.clear()  # a spawned job clears its own (``_search_job``)
    start = time.monotonic()
    pairs, failures = fuzz(
        args.seconds, args.seed, args.max_length, jobs=args.jobs, verbose=True, bundle=args.bundle
    )
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
