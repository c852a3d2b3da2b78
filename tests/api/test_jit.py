"""jit: tracing once, compiling once, composing with jvp/vmap/jit, Arrays, threads."""

from __future__ import annotations

import pathlib
import threading
from typing import Any

import jax
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp
from didax import lax
from didax.ir.typecheck import typecheck_jaxpr

GOLDEN = pathlib.Path(__file__).parent.parent / "golden"
RNG = np.random.default_rng(1)


def _close(a: Any, b: Any, tol: float = 1e-12) -> None:
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def _mlp_layer(w: Any, b: Any, x: Any) -> Any:
    return lax.tanh(lax.add(lax.dot(x, w), lax.broadcast_in_dim(b, (x.shape[0], b.shape[0]), (1,))))


def test_jit_equals_eager_and_returns_arrays() -> None:
    w, b, x = RNG.normal(size=(4, 3)), RNG.normal(size=3), RNG.normal(size=(2, 4))
    out = dx.jit(_mlp_layer)(w, b, x)
    assert isinstance(out, dx.Array)
    assert out.shape == (2, 3)
    assert out.dtype == np.float64
    assert out.ndim == 2
    assert out.size == 6
    _close(out, _mlp_layer(w, b, x))


def test_tracing_happens_once_per_signature() -> None:
    calls: list[tuple[int, ...]] = []

    @dx.jit
    def f(x: Any) -> Any:
        calls.append(x.shape)
        return lax.mul(x, 2.0)

    f(np.ones(3))
    f(np.ones(3) * 5)
    f(dx.device_put(np.ones(3)))
    assert len(calls) == 1
    f(np.ones(4))  # new shape
    assert len(calls) == 2
    f(np.ones(4, np.float32))  # new dtype
    assert len(calls) == 3
    info = f.cache_info()
    assert (info.hits, info.misses, info.currsize) == (2, 3, 3)
    f.clear_cache()
    f(np.ones(3))
    assert len(calls) == 4


def test_static_argnums_and_argnames_retrace_on_new_values() -> None:
    calls: list[int] = []

    def f(x: Any, n: int) -> Any:
        calls.append(n)
        for _ in range(n):
            x = lax.sin(x)
        return x

    g = dx.jit(f, static_argnums=1)
    _close(g(0.5, 2), np.sin(np.sin(0.5)))
    _close(g(0.7, 2), np.sin(np.sin(0.7)))
    _close(g(0.5, 3), np.sin(np.sin(np.sin(0.5))))
    _close(g(0.5, n=3), np.sin(np.sin(np.sin(0.5))))
    h = dx.jit(f, static_argnames="n")
    _close(h(0.5, n=1), np.sin(0.5))
    _close(h(0.5, 1), np.sin(0.5))
    assert calls == [2, 3, 3, 1, 1]
    with pytest.raises(ValueError, match="non-hashable"):  # as JAX
        dx.jit(lambda x, s: x, static_argnums=1)(1.0, [1])


def test_decorator_forms() -> None:
    @dx.jit(static_argnums=(1,))
    def f(x: Any, k: float) -> Any:
        return lax.mul(x, k)

    _close(f(2.0, 3.0), 6.0)


def test_recreated_jit_retraces_and_compiles_nothing_new() -> None:
    traces = []

    def f(x: Any) -> Any:
        traces.append(1)
        return lax.sin(lax.mul(x, 3.0))

    dx.jit(f)(np.ones(5))
    before = dx.compile_cache_info()
    for _ in range(10):
        _close(dx.jit(f)(np.ones(5)), np.sin(np.ones(5) * 3.0))
    after = dx.compile_cache_info()
    assert len(traces) == 1  # JAX's process-wide trace cache: one trace in all
    assert after.misses == before.misses
    assert dx.jit(f).cache_info().hits >= 10
    # Other options, another cache: static arguments change what is traced.
    dx.jit(f, donate_argnums=0)(np.ones(5))
    assert len(traces) == 2


def test_recreated_jit_cache_goes_with_the_function() -> None:
    import gc
    import weakref

    def f(x: Any) -> Any:
        return lax.mul(x, 2.0)

    dx.jit(f)(np.ones(3))
    alive = weakref.ref(f)
    del f
    gc.collect()
    assert alive() is None  # the shared trace cache holds its function weakly


def test_clear_caches_retraces() -> None:
    traces = []

    def f(x: Any) -> Any:
        traces.append(1)
        return lax.mul(x, 2.0)

    dx.jit(f)(1.0)
    dx.clear_caches()
    assert dx.compile_cache_info().currsize == 0
    _close(dx.jit(f)(1.0), 2.0)
    assert len(traces) == 2


def test_jit_of_a_callable_without_weak_references() -> None:
    # Builtins take no weak reference: such a jit keeps its own cache.
    f = dx.jit(abs)
    _close(f(-2.0), 2.0)
    _close(f(-3.0), 3.0)
    assert f.cache_info().misses == 1


def test_jvp_of_jit_again_compiles_nothing_new() -> None:
    f = dx.jit(lambda x: lax.mul(lax.sin(x), x))
    dx.jvp(f, (np.ones(3),), (np.ones(3),))
    before = dx.compile_cache_info()
    out = dx.jvp(f, (np.ones(3),), (np.ones(3),))
    assert dx.compile_cache_info().misses == before.misses
    _close(out[1], np.cos(1.0) + np.sin(1.0))


def test_jvp_vmap_of_jit_and_jit_of_jvp_vmap() -> None:
    def f(x: Any) -> Any:
        return lax.mul(lax.sin(x), lax.cos(x))

    def jf(x: Any) -> Any:
        return jax.numpy.sin(x) * jax.numpy.cos(x)

    x, t = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
    ref = jax.jvp(jf, (x,), (t,))
    for ours in (
        dx.jvp(dx.jit(f), (x,), (t,)),
        dx.jit(lambda a, b: dx.jvp(f, (a,), (b,)))(x, t),
        dx.jit(lambda a, b: dx.jvp(dx.jit(f), (a,), (b,)))(x, t),
    ):
        _close(ours[0], ref[0])
        _close(ours[1], ref[1])
    row_sums = lambda v: lax.reduce_sum(lax.mul(v, v), 0)  # noqa: E731
    _close(dx.vmap(dx.jit(row_sums))(x), np.sum(x * x, axis=1))
    _close(dx.jit(dx.vmap(row_sums))(x), np.sum(x * x, axis=1))
    _close(dx.vmap(dx.jit(row_sums), in_axes=1)(x), np.sum(x * x, axis=0))


def test_vmap_of_jit_with_unbatched_operand() -> None:
    g = dx.jit(lambda a, b: lax.mul(a, b))
    x, y = RNG.normal(size=(5, 3)), RNG.normal(size=3)
    _close(dx.vmap(g, in_axes=(0, None))(x, y), x * y)


def test_jit_of_jit_and_closure_over_outer_tracer() -> None:
    inner = dx.jit(lambda x: lax.exp(x))
    outer = dx.jit(lambda x: lax.add(inner(x), inner(lax.neg(x))))
    _close(outer(0.3), np.exp(0.3) + np.exp(-0.3))

    def f(x: Any) -> Any:
        # the jitted function closes over the jvp tracer x
        return dx.jit(lambda y: lax.mul(x, y))(2.0)

    _close(dx.jvp(f, (3.0,), (1.0,))[1], 2.0)
    closed = dx.make_jaxpr(outer)(1.0)
    typecheck_jaxpr(closed)
    assert closed.eqns[0].primitive.name == "jit"


def test_jvp_of_jit_keeps_symbolic_zeros() -> None:
    f = dx.jit(lambda x, y: (lax.mul(x, 2.0), lax.sin(y)))
    # y is a constant of the jvp: its tangent is a symbolic zero, never materialised
    closed = dx.make_jaxpr(lambda x, t: dx.jvp(lambda a: f(a, 2.0), (x,), (t,)))(1.0, 1.0)
    typecheck_jaxpr(closed)
    (call,) = [e for e in closed.eqns if e.primitive.name == "jit"]
    inner = call.params["jaxpr"]
    # x, y and x's tangent only; sin(y) has a zero tangent, so only one tangent comes out
    assert len(inner.in_avals) == 3
    assert len(inner.out_avals) == 3


def test_pytrees_in_and_out() -> None:
    @dx.jit
    def f(p: dict[str, Any], xs: tuple[Any, Any]) -> Any:
        return {"sum": lax.add(p["a"], xs[0]), "pair": [xs[1], p["b"]]}

    out = f({"a": 1.0, "b": np.ones(2)}, (2.0, np.zeros(3)))
    _close(out["sum"], 3.0)
    _close(out["pair"][0], np.zeros(3))
    _close(out["pair"][1], np.ones(2))


def test_arrays_feed_back_without_host_round_trip() -> None:
    f = dx.jit(lambda x: lax.add(x, 1.0))
    a = f(np.zeros(3))
    b = f(a)
    assert isinstance(b, dx.Array)
    assert b._host is None  # never copied to the host
    _close(b, np.full(3, 2.0))
    assert b.block_until_ready() is b


def test_array_protocols() -> None:
    a = dx.device_put(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(np.asarray(a), np.arange(6.0).reshape(2, 3))
    assert "Array(" in repr(a)
    assert "float64" in repr(a)
    assert len(a) == 2
    assert float(dx.device_put(2.5)) == 2.5
    np.testing.assert_array_equal(np.from_dlpack(a), np.asarray(a))
    _close(lax.add(a, a), 2 * np.asarray(a))  # eager ops on Arrays
    host = np.arange(6.0).reshape(2, 3)
    _close(a + 1, host + 1)
    _close(np.ones(3) * a, host)  # NumPy defers to the Array's operators
    _close(a[1, ::-1], host[1, ::-1])
    _close(a.T @ a, host.T @ host)
    _close(a.sum(axis=0), host.sum(axis=0))
    np.testing.assert_array_equal(a > 2.0, host > 2.0)
    assert a.reshape(3, 2).shape == (3, 2)


def test_float64_and_int64_round_trip_without_touching_jax_config() -> None:
    flag = jax.config.read("jax_enable_x64")
    try:
        jax.config.update("jax_enable_x64", False)
        x = np.array([1 + 2.0**-40, 1e300])
        i = np.array([2**62 + 1, -(2**62) - 3], np.int64)
        out = dx.jit(lambda a, b: (lax.mul(a, 1.0), lax.add(b, 0)))(x, i)
        assert out[0].dtype == np.float64
        assert out[1].dtype == np.int64
        np.testing.assert_array_equal(np.asarray(out[0]), x)
        np.testing.assert_array_equal(np.asarray(out[1]), i)
        assert jax.config.read("jax_enable_x64") is False
    finally:
        jax.config.update("jax_enable_x64", flag)


def test_threads_get_correct_results_and_compile_once() -> None:
    traces: list[int] = []

    def f(x: Any) -> Any:
        traces.append(1)
        return lax.mul(lax.sin(x), 7.0)

    g = dx.jit(f)
    xs = [RNG.normal(size=(64,)) + k for k in range(8)]
    results: list[Any] = [None] * 8
    barrier = threading.Barrier(8)
    before = dx.compile_cache_info().misses

    def work(k: int) -> None:
        barrier.wait()
        for _ in range(20):
            results[k] = np.asarray(g(xs[k]))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(8):
        _close(results[k], np.sin(xs[k]) * 7.0)
    assert len(traces) == 1
    assert dx.compile_cache_info().misses == before + 1


def test_threads_mixing_functions_recreated_jits_and_tracing() -> None:
    # 8 threads at once: one shared jitted function, one function of each
    # thread's own, jit(f) re-created at every call, and grad of a jitted
    # function (tracing under a transformation) - all correct, and each
    # program compiled exactly once.
    traces: list[str] = []

    def shared(x: Any) -> Any:
        traces.append("shared")
        return lax.mul(lax.cos(x), 3.0)

    def make_own(k: int) -> Any:
        def own(x: Any) -> Any:
            traces.append(f"own{k}")
            return lax.add(lax.mul(x, x), float(k))

        return own

    def recreated(x: Any) -> Any:
        traces.append("recreated")
        return lax.exp(lax.neg(x))

    g = dx.jit(shared)
    owns = [dx.jit(make_own(k)) for k in range(8)]
    xs = [dnp.asarray(RNG.normal(size=(16,)) + k) for k in range(8)]
    errors: list[BaseException] = []

    def work(k: int, rounds: int, barrier: threading.Barrier | None) -> None:
        try:
            if barrier is not None:
                barrier.wait()
            x = xs[k]
            hx = np.asarray(x)
            for _ in range(rounds):
                _close(g(x), np.cos(hx) * 3.0)
                _close(owns[k](x), hx * hx + k)
                _close(dx.jit(recreated)(x), np.exp(-hx))
                _close(dx.grad(lambda y: dnp.sum(g(y)))(x), -3.0 * np.sin(hx))
        except BaseException as e:
            errors.append(e)

    # The programs this work compiles, counted in one thread.
    dx.clear_caches()
    before = dx.compile_cache_info().misses
    for k in range(8):
        work(k, 1, None)
    programs = dx.compile_cache_info().misses - before
    assert programs >= 10  # shared, recreated, 8 owns, and grad's programs

    dx.clear_caches()
    traces.clear()
    before = dx.compile_cache_info().misses
    barrier = threading.Barrier(8)
    threads = [threading.Thread(target=work, args=(k, 25, barrier)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    assert dx.compile_cache_info().misses - before == programs  # each compiled once
    assert traces.count("recreated") == 1  # traced once, though re-created 200 times
    assert all(traces.count(f"own{k}") == 1 for k in range(8))


def test_lower_as_text_and_compile() -> None:
    f = dx.jit(lambda x, y: lax.sin(lax.mul(x, y)))
    lowered = f.lower(np.ones(3), np.ones(3))
    text = lowered.as_text()
    assert text == (GOLDEN / "stablehlo_mul_sin.txt").read_text()
    compiled = lowered.compile()
    _close(compiled(np.ones(3), np.full(3, 2.0)), np.sin(2.0) * np.ones(3))
    with pytest.raises(TypeError, match="compiled for"):
        compiled(np.ones(4), np.ones(4))


_KEY_CASES: list[tuple[str, dict[str, Any], tuple[Any, ...], dict[str, Any]]] = [
    ("device Arrays", {}, (dx.device_put(np.ones(3, np.float32)), np.float32(2)), {}),
    ("NumPy arrays, a rank-0 one too", {}, (np.ones((2, 3)), np.array(2.0)), {}),
    ("Python scalars", {}, (2.0, 3, True, 1j), {}),
    ("NumPy scalars", {}, (np.float32(2), np.int8(3)), {}),
    ("pytrees", {}, ({"a": np.ones(2)}, [1.0, np.ones(2)]), {}),
    ("keywords", {}, (np.ones(2),), {"y": 2.0}),
    ("static arguments", {"static_argnums": 1}, (np.ones(2), 3), {}),
    ("donated arguments", {"donate_argnums": 0}, (np.ones(2), 2.0), {}),
]


@pytest.mark.parametrize(
    ("options", "args", "kwargs"), [c[1:] for c in _KEY_CASES], ids=[c[0] for c in _KEY_CASES]
)
def test_a_call_its_hit_and_lower_key_the_trace_cache_alike(
    options: dict[str, Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    """One key function: the miss inserts under the key the hit path and ``lower`` look up."""
    from didax.core.config import dispatch_mode, trace_mode

    traces: list[int] = []

    def fun(*xs: Any, **kw: Any) -> Any:
        traces.append(1)
        return jax.tree_util.tree_leaves((xs, kw))

    f = dx.jit(fun, **options)
    want = f(*args, **kwargs)  # a miss: traced, compiled, inserted
    assert len(traces) == 1
    (key,) = f._cache._data
    assert f._cache_key(args, kwargs, trace_mode())[0] == key  # the miss path's key
    assert f._cache_key(args, kwargs, dispatch_mode())[0] == key  # the hit path's
    (entry,) = f._cache._data.values()
    got = f(*args, **kwargs)
    assert len(traces) == 1  # found, not traced again
    assert f.cache_info().misses == 1
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    lowered = f.lower(*args, **kwargs)
    assert len(traces) == 1  # lower finds the call's program
    assert lowered._entry is entry


def test_nested_identical_jaxprs_are_emitted_once() -> None:
    inner = dx.jit(lambda x: lax.exp(lax.neg(x)))
    outer = dx.jit(lambda x: lax.add(inner(x), inner(lax.mul(x, 2.0))))
    text = outer.lower(np.ones(2)).as_text()
    assert text == (GOLDEN / "stablehlo_nested_call.txt").read_text()
    assert text.count("func.func private") == 1
    assert text.count("call @") == 2


def test_bool_of_tracer_under_jit() -> None:
    with pytest.raises(dx.errors.ConcretizationTypeError, match="jit"):
        dx.jit(lambda x: lax.neg(x) if bool(x) else x)(1.0)


def test_numpy_scalar_arguments_take_the_cache_hit_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A NumPy scalar keys the trace cache by its dtype, as on the miss path; results as JAX's."""
    import jax

    from didax.api.jit import Jitted

    slow_calls: list[int] = []
    general = Jitted._call

    def counted(self: Jitted, args: Any, kwargs: Any) -> Any:
        slow_calls.append(1)
        return general(self, args, kwargs)

    monkeypatch.setattr(Jitted, "_call", counted)
    f = dx.jit(lambda a, b: a * b + 1)
    jf = jax.jit(lambda a, b: a * b + 1)
    values = [
        np.float32(2),
        np.float64(2),
        np.int8(3),
        np.bool_(True),
        np.uint16(7),
        np.float16(1.5),
    ]
    with jax.enable_x64(True):
        for v in values:
            for _ in range(3):
                out, want = f(v, 2.0), jf(v, 2.0)
                assert out.dtype == want.dtype
                assert out.weak_type == want.weak_type
                np.testing.assert_array_equal(np.asarray(out), np.asarray(want))
    info = f.cache_info()
    assert info.misses == len(values)  # one trace per dtype
    assert len(slow_calls) == len(values)  # the other calls were cache hits on the hit path


# --- the hot path: a repeat of the most recent signature on Arrays ------------


def _slow_calls(monkeypatch: pytest.MonkeyPatch, f: Any) -> list[int]:
    """Counts the calls that pass the hot path by (they reach ``_cache_key``)."""
    calls: list[int] = []
    key = f._cache_key

    def counted(*args: Any) -> Any:
        calls.append(1)
        return key(*args)

    monkeypatch.setattr(f, "_cache_key", counted)
    return calls


def test_repeated_calls_on_arrays_take_the_hot_path(monkeypatch: pytest.MonkeyPatch) -> None:
    f = dx.jit(lambda a, b: a * b + 1.0)
    x, y = dnp.asarray(np.arange(3.0)), dnp.asarray(np.full(3, 2.0))
    first = f(x, y)  # traced and compiled
    slow = _slow_calls(monkeypatch, f)
    hits = f.cache_info().hits
    for _ in range(5):
        out = f(x, y)
        _close(out, np.arange(3.0) * 2 + 1)
        assert isinstance(out, dx.Array)
        assert out.aval == first.aval
        out = f(out, y)  # a result of the same type goes on the hot path too
    assert slow == []
    assert f.cache_info().hits == hits + 10  # hot hits are counted
    assert f.cache_info().misses == 1


def test_the_hot_path_leaves_other_calls_to_the_usual_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each case where the recent entry must not answer: the usual path answers, rightly."""
    f = dx.jit(lambda a: a * 2.0)
    x = dnp.asarray(np.arange(3.0, dtype=np.float32))
    f(x)
    slow = _slow_calls(monkeypatch, f)
    # Another shape (a new entry, traced), a NumPy argument, a keyword:
    # each reaches the usual path.
    for arg, kwargs, expected in [
        (dnp.asarray(np.ones(4, np.float32)), {}, np.full(4, 2.0)),
        (np.arange(3.0, dtype=np.float32), {}, np.arange(3.0) * 2),
        (None, {"a": x}, np.arange(3.0) * 2),
    ]:
        before = len(slow)
        _close(f(**kwargs) if arg is None else f(arg), expected)
        assert len(slow) > before
    # Under a transformation: traced, not run.
    _close(dx.grad(lambda v: f(v).sum())(x), np.full(3, 2.0))
    # An option overridden in this thread: its own mode, for the same Array.
    m = dx.jit(lambda a: a * np.float64(2.0))
    with dx.enable_x64(False):
        assert m(x).dtype == np.float32  # the f64 scalar is made f32 in 32-bit mode
    with dx.enable_x64(True):
        assert m(x).dtype == np.float64
        assert m(x).dtype == np.float64
    with dx.enable_x64(False):
        assert m(x).dtype == np.float32
    # A deleted Array: the usual error, not a run on a freed buffer.
    g = dx.jit(lambda a: a + 1.0, donate_argnums=0)
    h = dx.jit(lambda a: a + 1.0)
    z = dnp.asarray(np.ones(3, np.float32))
    h(z)
    g(z)
    with pytest.raises(RuntimeError, match="deleted"):
        h(z)
    # debug_nans set process-wide: the hot path must not skip its check.
    nan = dnp.asarray(np.array([np.nan], np.float32))
    k = dx.jit(lambda a: a * 1.0)
    k(nan)
    dx.config.update("jax_debug_nans", True)
    try:
        with pytest.raises(FloatingPointError):
            k(nan)
    finally:
        dx.config.update("jax_debug_nans", False)
    # After clear_caches nothing is recent: the next call traces again.
    dx.clear_caches()
    assert f.cache_info().currsize == 0
    f(x)
    assert f.cache_info().misses == 1


def test_the_hot_path_skips_jits_with_static_arguments_and_several_results() -> None:
    st = dx.jit(lambda a, n: a * n, static_argnums=1)
    x = dnp.asarray(np.arange(3.0, dtype=np.float32))
    _close(st(x, 2), np.arange(3.0) * 2)
    _close(st(x, 3), np.arange(3.0) * 3)  # the static argument is in the key
    recent = st._cache.recent
    assert recent is not None
    assert recent[1].hot is None
    pair = dx.jit(lambda a: (a, a + 1.0))
    for _ in range(3):
        _a, b = pair(x)
        _close(b, np.arange(3.0) + 1)
    assert pair._cache.recent is not None
    assert pair._cache.recent[1].hot is None
