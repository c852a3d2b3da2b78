"""The differential fuzzer's fixed-seed slice, its regressions, and a check that it can fail."""

from __future__ import annotations

from typing import Any

import jax
import numpy as np
import pytest
from tests.fuzz import fuzz
from tests.fuzz.fuzz_compare import load_regressions, no_farther, steps_of

import didax

# Imported by its name (a process the fuzzer spawns finds it so); untyped
# here, as the tests reach into it and patch it.
fz: Any = fuzz


def test_fixed_seed_slice_agrees_with_jax() -> None:
    # 6 programs x 10 transformations: CI's slice (`nox -s fuzz` runs the search).
    pairs, failures = fz.fuzz(0.0, seed=20261124, record=False, programs=6)
    assert pairs == 6 * len(fz.TRANSFORMATIONS)
    assert failures == []


@pytest.mark.parametrize("case", load_regressions(), ids=lambda c: c["transformation"])
def test_regressions(case: dict[str, Any]) -> None:
    x64 = case.get("x64", True)
    assert fz.compare(steps_of(case), case["seed"], case["transformation"], x64) is None


# A program with a ``flip`` step, where ``_wrong_flip`` plants its bug.
_WITH_FLIP: Any = [
    ("sin", (0, 1)),
    ("cos", (1, 1)),
    ("flip", (2, 0)),
    ("dot", (4, 1)),
    ("tanh", (5, 5)),
]


def _wrong_flip(apply: Any) -> Any:
    """``fz._apply`` with a bug planted in didax's ``flip`` step."""

    def wrong_flip(ns: Any, op: str, a: Any, b: Any) -> Any:
        if ns is fz.DIDAX_NS and op == "flip":
            return ns.np.flip(a, axis=1)
        return apply(ns, op, a, b)

    return wrong_flip


def plant_wrong_flip() -> None:
    """Plants the bug in the process this runs in (the process at XLA's defaults)."""
    fz._apply = _wrong_flip(fz._apply)


def test_a_planted_bug_is_found_and_shrunk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fz, "_apply", _wrong_flip(fz._apply))
    steps = _WITH_FLIP
    assert fz.compare(steps, 5, "grad") is not None
    small = fz.shrink(steps, 5, "grad")
    assert len(small) < len(steps)
    assert ("flip", (2, 0)) in small
    assert fz.compare(small, 5, "grad") is not None


def test_a_32_bit_result_agrees_where_as_near_the_exact_value_as_jaxs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The entries of the regression this rule came from: exact, JAX's, didax's.
    exact = np.array([-7.06e-8, 0.04])
    want = np.array([-3.37e-6, 0.04], np.float32)
    assert no_farther(np.array([0.0, 0.04], np.float32), want, exact, 2e-4)
    assert not no_farther(np.array([-9e-6, 0.04], np.float32), want, exact, 2e-4)
    assert not no_farther(np.array([0.0, 0.04]), want, exact, 2e-4)  # another dtype
    assert not no_farther(np.array([0.0, 0.04], np.float32), want, exact * np.nan, 2e-4)
    # A wrong result is no nearer the exact value: the planted bug is still found.
    monkeypatch.setattr(fz, "_apply", _wrong_flip(fz._apply))
    steps = _WITH_FLIP
    assert fz.compare(steps, 5, "grad", x64=False) is not None


def _sin_raises(
    monkeypatch: pytest.MonkeyPatch,
    in_jax: BaseException | None = None,
    in_didax: BaseException | None = None,
) -> None:
    """The ``sin`` step raises ``in_jax`` in JAX's program, ``in_didax`` in didax's."""
    apply = fz._apply

    def patched(ns: Any, op: str, a: Any, b: Any) -> Any:
        error = in_jax if ns is fz.JAX_NS else in_didax
        if op == "sin" and error is not None:
            raise error
        return apply(ns, op, a, b)

    monkeypatch.setattr(fz, "_apply", patched)


def test_jax_raising_agrees_only_with_didax_raising(monkeypatch: pytest.MonkeyPatch) -> None:
    steps = [("cos", (0, 1)), ("sin", (2, 0))]
    _sin_raises(monkeypatch, in_jax=TypeError("refused by JAX"))
    why = fz.compare(steps, 3, "grad")
    assert why is not None
    assert why.startswith("JAX raised TypeError: refused by JAX; didax returned float64[3, 3]")
    _sin_raises(monkeypatch, in_jax=TypeError("refused"), in_didax=ValueError("no"))
    assert fz.compare(steps, 3, "jit") == (
        "JAX raised TypeError: refused; didax raised ValueError: no"
    )
    # The same kind of error: agreement, whatever the classes and messages.
    with pytest.raises(jax.errors.ConcretizationTypeError) as caught:
        jax.jit(lambda x: int(x))(1.0)
    jax_error = caught.value
    didax_error = didax.errors.ConcretizationTypeError("a didax message")
    _sin_raises(monkeypatch, in_jax=jax_error, in_didax=didax_error)
    assert fz.compare(steps, 3, "vmap") is None


def test_where_xla_fails_on_jaxs_program_didaxs_result_is_checked_op_by_op(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # XLA's failure on JAX's compiled program (its CPU FFT's layout check,
    # which didax's lowering avoids) is no answer to compare didax's with:
    # JAX's run with jit disabled is, and a wrong didax result is still found.
    steps = _WITH_FLIP
    failed = (None, jax.errors.JaxRuntimeError("INTERNAL: RET_CHECK failure (fft_thunk.cc)"))
    for name in ["jit", "jit(grad)"]:
        assert fz.compare(steps, 5, name, want=failed) is None
    monkeypatch.setattr(fz, "_apply", _wrong_flip(fz._apply))
    assert fz.compare(steps, 5, "jit(grad)", want=failed) is not None


def test_an_eager_transformation_that_differs_from_jaxs_jitted_run_is_held_to_its_eager_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # JAX's reference is its jitted run; where XLA miscompiles that (in JAX's
    # jit and didax's alike: tests/fuzz/regressions.json), a wrong reference
    # here, an eager transformation is held to JAX's eager run instead; a
    # jitted one is not, and a wrong didax result is still found.
    steps = _WITH_FLIP
    right, _ = fz.jax_outcomes(steps, 5, True, ["grad"])["grad"]
    miscompiled = (jax.tree_util.tree_map(lambda v: v + 1.0, right), None)
    assert fz.compare(steps, 5, "grad", want=miscompiled) is None
    assert fz.compare(steps, 5, "jit(grad)", want=miscompiled) is not None
    monkeypatch.setattr(fz, "_apply", _wrong_flip(fz._apply))
    assert fz.compare(steps, 5, "grad", want=miscompiled) is not None


_OK: Any = [("cos", (0, 1)), ("tanh", (2, 0))]
_SIN: Any = [("sin", (0, 1))]
_SOME: Any = ["eval", "jit", "jit(grad)", "grad"]  # fewer transformations, for time


def _assert_as_unbundled(group: Any, bundled: Any) -> None:
    """Each program's bundled outcomes are what it gets alone: the same errors or values."""
    for (steps, seed), outcomes in zip(group, bundled, strict=True):
        alone = fz.jax_outcomes(steps, seed, True, _SOME)
        for name in _SOME:
            (got, error), (want, want_error) = outcomes[name], alone[name]
            assert (error is None) == (want_error is None), name
            if error is None:
                assert fz._differs(got, want, 1e-7) is None


def test_a_bundle_gives_each_program_its_own_outcomes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fz, "TRANSFORMATIONS", _SOME)
    group = [(_OK, 1), ([("dot", (0, 1)), ("sort", (2, 2))], 2), ([("custom_vjp", (0, 0))], 3)]
    bundled = fz.jax_bundle_outcomes(group, True)
    assert all(o[name][1] is None for o in bundled for name in _SOME)
    _assert_as_unbundled(group, bundled)
    for name in fz._BUNDLED:
        wants = [o[name] for o in bundled]
        assert fz.didax_bundle_agrees(group, True, name, wants) == [True] * 3
        # A wrong reference for the second program: only it disagrees.
        wants[1] = (jax.tree_util.tree_map(lambda v: v + 1.0, wants[1][0]), None)
        assert fz.didax_bundle_agrees(group, True, name, wants) == [True, False, True]


def test_a_program_raising_in_a_bundle_goes_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # JAX refuses ``sin``; didax's ``tanh`` is wrong: the bundle falls back,
    # the raising program alone, the other bundled again, and both compared.
    monkeypatch.setattr(fz, "TRANSFORMATIONS", _SOME)
    monkeypatch.setattr(fz, "shrink", lambda steps, *args: steps)
    apply, alone = fz._apply, fz.jax_outcomes
    went_alone: list[Any] = []

    def patched(ns: Any, op: str, a: Any, b: Any) -> Any:
        if op == "sin" and ns is fz.JAX_NS:
            raise TypeError("refused by JAX")
        return apply(ns, op, a, b) * (2.0 if op == "tanh" and ns is fz.DIDAX_NS else 1.0)

    def spied(steps: Any, *args: Any) -> Any:
        went_alone.append(list(steps))
        return alone(steps, *args)

    monkeypatch.setattr(fz, "_apply", patched)
    monkeypatch.setattr(fz, "jax_outcomes", spied)
    outcomes = fz.jax_bundle_outcomes([(_OK, 4), (_SIN, 5)], True)
    assert went_alone == [_SIN]
    assert all(outcomes[0][n][1] is None for n in _SOME)
    assert all(isinstance(outcomes[1][n][1], TypeError) for n in _SOME)
    found: Any = []
    assert fz._check_bundle([(_OK, 4), (_SIN, 5)], True, found, verbose=False) == 8
    reports = sorted(report.split(" (inputs")[0] for _, report in found)
    assert reports == sorted(f"{n} of {s}" for s in (_OK, _SIN) for n in _SOME)
    assert all("JAX raised TypeError" in r for _, r in found if "sin" in r.split(" (inputs")[0])


def test_a_transformation_raising_in_a_bundle_goes_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # JAX refuses the gradient of a loop with a traced trip count (a while
    # loop) when traced: only ``grad`` and what is computed from it leave
    # the bundle; the program's ``eval`` and ``jit`` and the other program stay.
    monkeypatch.setattr(fz, "TRANSFORMATIONS", _SOME)
    alone, went_alone = fz.jax_outcomes, []

    def spied(steps: Any, seed: int, x64: bool, names: Any = _SOME) -> Any:
        went_alone.append((list(steps), list(names)))
        return alone(steps, seed, x64, names)

    monkeypatch.setattr(fz, "jax_outcomes", spied)
    loop: Any = [("fori_traced:sin", (0, 1))]
    bundled = fz.jax_bundle_outcomes([(_OK, 4), (loop, 6)], True)
    assert went_alone == [(loop, ["jit(grad)", "grad"])]
    assert isinstance(bundled[1]["jit(grad)"][1], Exception)
    _assert_as_unbundled([(_OK, 4), (loop, 6)], bundled)


def test_a_bundle_failing_in_xla_is_compiled_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # XLA's failure shows when the bundle's results are read: no program
    # raises traced alone, so they are bundled again, and give their own outcomes.
    monkeypatch.setattr(fz, "TRANSFORMATIONS", _SOME)
    read, reads = fz.on_host, []

    def failing_once(results: Any) -> Any:
        reads.append(results)
        if len(reads) == 1:
            raise RuntimeError("as XLA's failure, read from a result")
        return read(results)

    monkeypatch.setattr(fz, "on_host", failing_once)
    group = [(_OK, 1), ([("dot", (0, 1))], 2)]
    bundled = fz.jax_bundle_outcomes(group, True)
    assert len(reads) == 2
    _assert_as_unbundled(group, bundled)


@pytest.mark.parametrize("failing", ["jax", "didax"])
def test_a_mismatch_at_the_fast_flags_counts_only_at_xlas_defaults(
    monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    # XLA failing at the fast flags (its CPU FFT rejecting an operand's
    # layout at the older emitters), simulated in this process only: the
    # pairs are compared again in a process at XLA's defaults, where they
    # agree, with or without FFTs. A bug that is there too still counts.
    monkeypatch.setattr(fz, "TRANSFORMATIONS", _SOME)
    monkeypatch.setattr(fz, "shrink", lambda steps, *args: steps)
    apply = fz._apply
    fails = fz.JAX_NS if failing == "jax" else fz.DIDAX_NS

    def patched(ns: Any, op: str, a: Any, b: Any) -> Any:
        if ns is fails and op in {"fft", "sin"}:
            raise jax.errors.JaxRuntimeError("INTERNAL: RET_CHECK failure (fft_thunk.cc:168)")
        return apply(ns, op, a, b)

    monkeypatch.setattr(fz, "_apply", patched)
    defaults = fz._XlaDefaults()
    try:
        found: Any = []
        assert fz._check_bundle([([("fft", (0, 1))], 3)], True, found, False, defaults) == 4
        assert defaults.pool is not None  # the pairs went there
        flags = defaults.pool.submit(fz.os.getenv, "XLA_FLAGS", "").result()
        assert fz.OLDER_EMITTERS not in flags
        assert fz.FAST_COMPILE not in flags
        assert fz._check_bundle([(_SIN, 3)], True, found, False, defaults) == 4
        assert found == []
        monkeypatch.setattr(fz, "_apply", _wrong_flip(apply))
        defaults.pool.submit(plant_wrong_flip).result()
        flipped = [("sin", (0, 1)), ("cos", (1, 1)), ("flip", (2, 0)), ("dot", (4, 1))]
        assert fz._check_bundle([(flipped, 5)], True, found, False, defaults) == 4
        assert {report.split(" of ")[0] for _, report in found} >= {"grad", "jit(grad)"}
    finally:
        defaults.close()


def test_error_kinds_are_the_nearest_builtin_class() -> None:
    assert fz.error_kind(jax.errors.JaxRuntimeError("x")) is RuntimeError
    assert fz.error_kind(didax.errors.ShapeError("x")) is TypeError
    assert fz.error_kind(np.exceptions.AxisError(3, 2)) is ValueError
    assert fz.error_kind(didax.errors.UnexpectedTracerError("x")) is TypeError  # as JAX's


def test_every_family_is_drawn_often_and_every_draw_is_a_step() -> None:
    from tests.fuzz import fuzz_steps as st

    rng = np.random.default_rng(0)
    draws = [st.random_op(rng) for _ in range(3000)]
    for op in draws:
        st.step_fn(op)  # a name the table resolves (a control-flow step with its bodies)
    families = [st.FAMILY_OF[op.split(":")[0]] if op in st.FAMILY_OF else "control" for op in draws]
    share = {name: families.count(name) / len(draws) for name in st.FAMILIES}
    assert min(share.values()) > 0.5 / len(st.FAMILIES), share
    with pytest.raises(ValueError, match="unknown operation"):
        st.step_fn("no_such_step")
    with pytest.raises(ValueError, match="bad control-flow step"):
        st.step_fn("cond:sin")  # cond takes two bodies


def _jax_eager(steps: Any, seed: int, name: str, x64: bool = True) -> Any:
    """JAX's eager run of ``name``: its result, or the error it raises."""
    try:
        with jax.enable_x64(x64):
            return fz.on_host(fz._reference(steps, [name])(*fz.inputs(seed, x64)))[name], None
    except Exception as e:
        return None, e


# The custom_vjp step is dead (nothing reads value 2) or live (the result).
_DEAD_CUSTOM_VJP: Any = [("custom_vjp", (0, 0)), ("sin", (1, 1))]
_LIVE_CUSTOM_VJP: Any = [("sin", (1, 1)), ("custom_vjp", (2, 0))]
_IN_A_BODY: Any = [("cond:custom_vjp:sin", (0, 1))]  # ``custom_lin`` inside a branch


@pytest.mark.parametrize(
    ("steps", "name", "raises"),
    [
        (_DEAD_CUSTOM_VJP, "jvp", True),  # JAX's eager jvp runs every equation
        (_DEAD_CUSTOM_VJP, "linearize", False),  # its linear map drops the dead one
        (_LIVE_CUSTOM_VJP, "jvp", True),
        (_LIVE_CUSTOM_VJP, "linearize", True),
        (_IN_A_BODY, "jvp", True),
    ],
)
def test_forward_mode_over_custom_vjp_is_decided_as_jax_runs_it(
    steps: Any, name: str, raises: bool
) -> None:
    want, error = _jax_eager(steps, 7, name)
    assert (error is not None) == raises
    with jax.enable_x64(True):
        decided, eager = fz._forward_outcomes(steps, [name], fz.inputs(7))
    assert eager == []
    assert (name in decided) == raises
    got, got_error = fz.jax_outcomes(steps, 7, True, [name])[name]
    if raises:
        assert error is not None
        assert got_error is not None
        assert fz.error_kind(got_error) is fz.error_kind(error) is TypeError
    else:
        assert got_error is None
        assert fz._differs(got, want, 1e-7) is None  # the jitted reference, JAX's eager values


def test_forward_mode_that_jax_refuses_traced_runs_eagerly(monkeypatch: pytest.MonkeyPatch) -> None:
    # A step that reads a value in Python: eagerly (jvp's primals are
    # concrete) JAX accepts it; traced it raises, so the eager run decides.
    apply = fz._apply

    def concrete_sin(ns: Any, op: str, a: Any, b: Any) -> Any:
        if op == "sin" and ns is fz.JAX_NS:
            return ns.np.sin(a) if bool(a[0, 0] < 100.0) else a
        return apply(ns, op, a, b)

    monkeypatch.setattr(fz, "_apply", concrete_sin)
    with jax.enable_x64(True):
        decided, eager = fz._forward_outcomes(_DEAD_CUSTOM_VJP, ["jvp", "linearize"], fz.inputs(7))
    assert decided == {}
    assert eager == ["jvp", "linearize"]
    outcomes = fz.jax_outcomes(_DEAD_CUSTOM_VJP, 7, True, ["jvp", "linearize"])
    assert isinstance(outcomes["jvp"][1], TypeError)
    assert outcomes["linearize"][1] is None
    want, _ = _jax_eager(_DEAD_CUSTOM_VJP, 7, "linearize")
    assert fz._differs(outcomes["linearize"][0], want, 1e-7) is None


@pytest.mark.slow
def test_forward_mode_decided_by_tracing_is_jaxs_eager_run_on_random_programs() -> None:
    # The decision against the run it stands for, on random programs holding
    # a custom_vjp step (``nox -s slow``; docs/performance.md has a larger count).
    from tests.fuzz.fuzz_steps import eager_only

    rng, checked = np.random.default_rng(31), 0
    while checked < 40:
        steps, seed, x64 = fz.draw(rng)
        if not any(eager_only(op) for op, _ in steps):
            continue
        checked += 1
        outcomes = fz.jax_outcomes(steps, seed, x64, ["jvp", "linearize"])
        for name, (got, error) in outcomes.items():
            want, want_error = _jax_eager(steps, seed, name, x64)
            assert (error is None) == (want_error is None), (name, steps, seed, x64)
            if error is None:
                assert fz._differs(got, want, fz.tolerance(steps, x64)) is None
            else:
                assert fz.error_kind(error) is fz.error_kind(want_error)


def test_a_refused_transformation_runs_eagerly_only_where_that_may_differ(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The gradient of ``x.at[i].mul(y)`` at repeated indices is refused alike
    # traced and eagerly: the traced error is the reference, nothing is run.
    # A loop's trip count read from the inputs is concrete eagerly, where the
    # loop has a gradient: the eager run decides (and accepts it).
    ran, eagerly = [], fz.run_eagerly

    def spied(fetch: Any, name: str, without_jit: bool) -> Any:
        ran.append(name)
        return eagerly(fetch, name, without_jit)

    monkeypatch.setattr(fz, "run_eagerly", spied)
    repeated: Any = [("at_mul", (0, 1))]
    got = fz.jax_outcomes(repeated, 3, True, ["grad"])["grad"]
    assert ran == []
    want = _jax_eager(repeated, 3, "grad")
    assert isinstance(got[1], NotImplementedError)
    assert fz.error_kind(got[1]) is fz.error_kind(want[1])
    loop: Any = [("fori_traced:sin", (0, 1))]
    value, error = fz.jax_outcomes(loop, 6, True, ["grad"])["grad"]
    assert ran == ["grad"]
    assert error is None
    assert fz._differs(value, _jax_eager(loop, 6, "grad")[0], 1e-7) is None


@pytest.mark.slow
def test_a_traced_refusal_taken_for_the_eager_runs_is_jaxs_eager_run() -> None:
    # ``_eager_may_differ``'s rule against the run it stands for, on random
    # programs (``nox -s slow``; docs/performance.md has a larger count).
    rng, checked = np.random.default_rng(5), 0
    while checked < 20:
        steps, seed, x64 = fz.draw(rng)
        for name in ("grad", "vmap(grad)", "grad(grad)"):
            try:
                with jax.enable_x64(x64):
                    jax.jit(fz._reference(steps, [name])).trace(*fz.inputs(seed, x64))
                continue
            except Exception as e:
                error = e
            if fz._eager_may_differ(steps, error):
                continue
            checked += 1
            _, eager_error = _jax_eager(steps, seed, name, x64)
            assert eager_error is not None, (name, steps, seed, x64)
            assert fz.error_kind(eager_error) is fz.error_kind(error)
