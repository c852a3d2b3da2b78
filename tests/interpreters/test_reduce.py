"""``lax.reduce``, the bitwise reductions, ``reduce_precision``, ``associative_scan``: against JAX.

Each case runs didax and ``jax.lax`` on the same inputs: values eagerly and
under ``jit``; for float cases jvp, vjp, vmap and grad of grad, in float32
and float64; finite differences check a subset of the derivatives. The
generic ``reduce`` (a reducer that is no known monoid) is the
higher-order ``reduce_p``, whose derivative is JAX's tree of halves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from jax import lax as jlax

import didax as dx
from didax import lax as dlax
from didax.api.flops import cost
from didax.core.lax.reductions import reduce_p
from didax.errors import DTypeError, ShapeError

FLOATS: Final = [np.float32, np.float64]


def _tol(dtype: Any) -> dict[str, float]:
    return {"rtol": 2e-5, "atol": 2e-5} if dtype == np.float32 else {"rtol": 1e-11, "atol": 1e-11}


def _close(got: Any, want: Any, dtype: Any) -> None:
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        assert np.asarray(g).dtype == np.asarray(w).dtype, (np.asarray(g).dtype, w.dtype)
        assert np.shape(g) == np.shape(w)
        tol = _tol(dtype)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), tol["rtol"], tol["atol"])


def _data(shape: tuple[int, ...], dtype: Any, seed: int = 0) -> np.ndarray[Any, Any]:
    return np.random.default_rng(seed).uniform(0.3, 1.2, size=shape).astype(dtype)


# --- the generic reduce and the monoids ----------------------------------------------------


def _pair(d: Any, j: Any) -> tuple[Callable[..., Any], Callable[..., Any]]:
    return d, j


def _poly(a: Any, b: Any) -> Any:
    return a * b + a + b  # (a + 1)(b + 1) - 1: associative, identity 0


def _sum_prod(a: Any, b: Any) -> Any:
    return (a[0] + b[0], a[1] * b[1])


def _logaddexp(lib: Any) -> Callable[[Any, Any], Any]:
    return lambda a, b: lib.log(lib.exp(a) + lib.exp(b))


# name -> (didax reducer, jax reducer, init values, the primitive didax binds)
REDUCERS: Final[dict[str, tuple[Callable[..., Any], Callable[..., Any], Any, str]]] = {
    "add": (dlax.add, jlax.add, 0.0, "reduce_sum"),
    "mul": (dlax.mul, jlax.mul, 1.0, "reduce_prod"),
    "max": (dlax.max, jlax.max, -np.inf, "reduce_max"),
    "min": (dlax.min, jlax.min, np.inf, "reduce_min"),
    "poly": (_poly, _poly, 0.0, "reduce"),
    "sum_prod": (_sum_prod, _sum_prod, (0.0, 1.0), "reduce"),
    "logaddexp": (_logaddexp(dlax), _logaddexp(jlax), -np.inf, "reduce"),
    "add_nonidentity": (dlax.add, jlax.add, 0.5, "reduce"),
}
CASES: Final = [((4, 5), (1,)), ((3, 4, 5), (0, 2)), ((7,), (0,)), ((2, 3), ())]


def _operands(name: str, shape: tuple[int, ...], dtype: Any) -> Any:
    x = _data(shape, dtype)
    return (x, _data(shape, dtype, 1)) if name == "sum_prod" else x


def _inits(name: str, dtype: Any) -> Any:
    init = REDUCERS[name][2]
    return jax.tree.map(lambda v: np.asarray(v, dtype), init)


def _fns(name: str, dims: tuple[int, ...], dtype: Any) -> tuple[Any, Any]:
    dfn, jfn, _, _ = REDUCERS[name]
    init = _inits(name, dtype)

    def d(x: Any) -> Any:
        return dlax.reduce(x, init, dfn, dims)

    def j(x: Any) -> Any:
        return jlax.reduce(x, init, jfn, dims)

    return d, j


def _scalar(fn: Callable[..., Any], lib: Any) -> Callable[..., Any]:
    """A scalar of ``fn``'s results (weighted so that every output counts differently)."""

    def f(x: Any) -> Any:
        total = 0.0
        for i, leaf in enumerate(jax.tree.leaves(fn(x))):
            total = total + lib.sum(leaf * leaf * 0.5 + leaf * (i + 1.5))
        return total

    return f


def _derivatives(fn: Callable[..., Any], lib: Any, ad: Any, hessian: bool) -> Callable[..., Any]:
    """Values, jvp, grad and (with ``hessian``) grad of grad along ``t``, in one function.

    JAX's side is jitted whole, so that the oracle compiles once per case.
    """
    scalar = _scalar(fn, lib)

    def all_of(x: Any, t: Any) -> Any:
        out = [fn(x), ad.jvp(fn, (x,), (t,)), ad.grad(scalar)(x)]
        if hessian:
            out.append(ad.jvp(ad.grad(scalar), (x,), (t,))[1])
        return out

    return all_of


@pytest.mark.parametrize(("shape", "dims"), CASES, ids=str)
@pytest.mark.parametrize("name", sorted(REDUCERS))
def test_reduce_values_match_jax(name: str, shape: tuple[int, ...], dims: tuple[int, ...]) -> None:
    dtype = FLOATS[len(dims) % 2]  # float32 and float64 in turn
    d, j = _fns(name, dims, dtype)
    x = _operands(name, shape, dtype)
    want = j(x)
    _close(d(x), want, dtype)
    _close(dx.jit(d)(x), want, dtype)
    jaxpr = str(dx.make_jaxpr(d)(x))
    assert REDUCERS[name][3] in jaxpr or not dims


# The derivatives: the generic reducers on every case, the monoids (whose
# primitives' rules are tested with their family) on one.
DERIVATIVE_CASES: Final = [
    *[(name, case) for name in ("poly", "sum_prod", "logaddexp") for case in CASES[:2]],
    *[(name, CASES[0]) for name in ("max", "add_nonidentity")],
]


@pytest.mark.parametrize(("name", "case"), DERIVATIVE_CASES, ids=str)
def test_reduce_derivatives_match_jax(
    name: str, case: tuple[tuple[int, ...], tuple[int, ...]]
) -> None:
    shape, dims = case
    dtype = FLOATS[CASES.index(case)]  # float32, float64 on the second case
    d, j = _fns(name, dims, dtype)
    x = _operands(name, shape, dtype)
    t = jax.tree.map(lambda a: _data(a.shape, dtype, 2), x)
    # Grad of grad (a Hessian along t) on the first case of each generic reducer.
    hessian = (name, case) in DERIVATIVE_CASES[:6:2]
    want = jax.jit(_derivatives(j, jnp, jax, hessian))(x, t)
    _close(_derivatives(d, dx.numpy, dx, hessian)(x, t), want, dtype)
    if case == CASES[1]:
        _close(dx.jit(_derivatives(d, dx.numpy, dx, hessian))(x, t), want, dtype)


@pytest.mark.parametrize("name", ["add", "max", "poly", "sum_prod"])
@pytest.mark.parametrize("in_axis", [0, 1])
def test_reduce_vmap_matches_jax(name: str, in_axis: int) -> None:
    d, j = _fns(name, (1,), np.float32)
    x = _operands(name, (3, 4, 5), np.float32)
    want = jax.jit(jax.vmap(j, in_axes=in_axis))(x)
    _close(dx.vmap(d, in_axes=in_axis)(x), want, np.float32)
    _close(dx.jit(dx.vmap(d, in_axes=in_axis))(x), want, np.float32)


@pytest.mark.parametrize("name", ["poly", "sum_prod", "logaddexp"])
def test_reduce_grad_matches_finite_differences(name: str) -> None:
    d, _ = _fns(name, (0, 2), np.float64)
    x = _operands(name, (3, 2, 3), np.float64)
    f = _scalar(d, dx.numpy)
    g = dx.grad(f)(x)
    leaves, tree = jax.tree.flatten(x)
    for k, leaf in enumerate(leaves):
        for idx in [(0, 0, 0), (2, 1, 2), (1, 0, 1)]:
            e = np.zeros_like(leaf)
            e[idx] = 1e-6
            plus = jax.tree.unflatten(tree, [v + e if i == k else v for i, v in enumerate(leaves)])
            minus = jax.tree.unflatten(tree, [v - e if i == k else v for i, v in enumerate(leaves)])
            fd = (float(f(plus)) - float(f(minus))) / 2e-6
            np.testing.assert_allclose(np.asarray(jax.tree.leaves(g)[k])[idx], fd, rtol=1e-6)


def test_reduce_argmax_pairs_and_integers_match_jax() -> None:
    # A variadic reducer over (value, index) pairs: an argmax (integers need no tangents).
    def pick(lib: Any) -> Callable[[Any, Any], Any]:
        def f(a: Any, b: Any) -> Any:
            take_a = lib.ge(a[0], b[0])
            return (lib.select(take_a, a[0], b[0]), lib.select(take_a, a[1], b[1]))

        return f

    x = _data((4, 6), np.float32)
    idx = np.broadcast_to(np.arange(6, dtype=np.int32), (4, 6))
    init = (np.float32(-np.inf), np.int32(0))
    want = jlax.reduce((x, idx), init, pick(jlax), (1,))
    _close(dlax.reduce((x, idx), init, pick(dlax), (1,)), want, np.float32)
    _close(dx.jit(lambda x: dlax.reduce((x, idx), init, pick(dlax), (1,)))(x), want, np.float32)
    g = dx.grad(lambda x: dx.numpy.sum(dlax.reduce((x, idx), init, pick(dlax), (1,))[0]))(x)
    # (JAX's jvp fails on the integer operand's symbolic zero tangent here: the
    # gradient is the one-hot of each row's maximum.)
    _close(g, (x == x.max(axis=1, keepdims=True)).astype(np.float32), np.float32)
    ints = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)
    for init_i, df, jf in [(0, dlax.add, jlax.add), (0, _poly, _poly)]:
        _close(
            dlax.reduce(ints, np.int32(init_i), df, (0,)),
            jlax.reduce(ints, np.int32(init_i), jf, (0,)),
            np.float32,
        )


def test_reduce_weak_types_follow_jax() -> None:
    with pytest.raises(TypeError, match="dtypes should match"):  # as JAX's, in 64 bits
        dlax.reduce(np.float32(2.0), 0.0, _poly, ())
    cases: list[tuple[Any, float]] = [(2.0, 0.0), (np.float32(2.0), 0.0), (np.arange(3.0), 0.0)]
    for x, init in cases:
        for df, jf in [(dlax.add, jlax.add), (_poly, _poly)]:
            if df is _poly and np.asarray(x).dtype == np.float32:
                continue
            got = dlax.reduce(x, init, df, (0,) if np.ndim(x) else ())
            want = jlax.reduce(x, init, jf, (0,) if np.ndim(x) else ())
            assert got.weak_type == want.weak_type, (x, init, df)
            assert got.dtype == want.dtype


def test_reduce_refusals_match_jax() -> None:
    x = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match="tree structure"):
        dlax.reduce((x, x), np.float32(0), _poly, (0,))
    with pytest.raises(ShapeError, match="non-scalar initial value"):
        dlax.reduce(x, np.zeros(2, np.float32), _poly, (0,))
    with pytest.raises(DTypeError, match="dtypes should match"):
        dlax.reduce(x, np.int32(0), _poly, (0,))
    with pytest.raises(NotImplementedError, match="close over tracers"):
        dx.grad(
            lambda s: dx.numpy.sum(dlax.reduce(x, np.float32(0), lambda a, b: a * s + b, (0,)))
        )(1.0)
    with pytest.raises(NotImplementedError, match="not arrays"):
        dlax.reduce(
            x, np.float32(0), lambda a, b: a + b * dlax.reduce_sum(np.ones(2, np.float32), 0), (0,)
        )
    w = np.float32(3.0)  # a closed-over scalar is a literal
    _close(dlax.reduce(x, w * 0, lambda a, b: a + w * b, (0,)), np.full(4, 9.0, np.float32), 1)
    # A non-zero tangent for an init value: JAX refuses it too.
    with pytest.raises(NotImplementedError, match="initial values"):
        dx.grad(lambda i: dx.numpy.sum(dlax.reduce(x, i, _poly, (0,))))(np.float32(0))
    with pytest.raises(NotImplementedError, match="initial values"):
        dx.vmap(lambda i: dlax.reduce(x, i, _poly, (0,)))(np.zeros(2, np.float32))


def test_generic_reduce_stages_its_reducer_and_costs_as_xla() -> None:
    x = np.ones((10,), np.float32)
    jaxpr = dx.make_jaxpr(lambda x: dlax.reduce(x, np.float32(0), _poly, (0,)))(x)
    (eqn,) = jaxpr.eqns
    assert eqn.primitive is reduce_p
    assert dlax.reduce_p is reduce_p
    # XLA's cost analysis: the reducer's flops (mul, add, add) once per combination.
    compiled = jax.jit(lambda x: jlax.reduce(x, np.float32(0), _poly, (0,))).lower(x).compile()
    analysis: Any = compiled.cost_analysis()
    want = int(analysis["flops"])
    assert cost(lambda x: dlax.reduce(x, np.float32(0), _poly, (0,)))(x).flops == want
    assert (
        "stablehlo.reduce"
        in dx.jit(lambda x: dlax.reduce(x, np.float32(0), _poly, (0,))).lower(x).as_text()
    )


# --- the bitwise reductions -------------------------------------------------------------------

# Each: didax's reduction and JAX's, the bitwise operation of each, the identity.
_Op = Callable[..., Any]
BITWISE: Final[list[tuple[_Op, _Op, _Op, _Op, int]]] = [
    (dlax.reduce_and, jlax.reduce_and, dlax.bitwise_and, jlax.bitwise_and, -1),
    (dlax.reduce_or, jlax.reduce_or, dlax.bitwise_or, jlax.bitwise_or, 0),
    (dlax.reduce_xor, jlax.reduce_xor, dlax.bitwise_xor, jlax.bitwise_xor, 0),
]


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint64])
@pytest.mark.parametrize("k", range(3), ids=["and", "or", "xor"])
def test_bitwise_reductions_match_jax(k: int, dtype: Any) -> None:
    dred, jred, dop, jop, identity = BITWISE[k]
    rng = np.random.default_rng(k)
    x = rng.integers(0, 2 if dtype == np.bool_ else 200, size=(3, 4, 5)).astype(dtype)
    for axes in [(0,), (1, 2), (), (0, 1, 2)]:
        want = jred(x, axes)
        eager = dred(x, axes)
        both = (eager, dx.jit(lambda x: dred(x, (1, 2)))(x)) if axes == (1, 2) else (eager,)
        for got in both:
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    # lax.reduce with the bitwise op and its identity is the monoid primitive.
    init = np.array(identity).astype(dtype)
    got = dlax.reduce(x, init, dop, (1,))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(jlax.reduce(x, init, jop, (1,))))
    assert dred.__name__ in str(dx.make_jaxpr(lambda x: dlax.reduce(x, init, dop, (1,)))(x))
    np.testing.assert_array_equal(
        np.asarray(dx.vmap(lambda x: dred(x, (0,)), in_axes=2)(x)),
        np.asarray(jax.vmap(lambda x: jred(x, (0,)), in_axes=2)(x)),
    )
    # Empty axes give the identity.
    empty = np.zeros((0, 2), dtype)
    np.testing.assert_array_equal(np.asarray(dred(empty, (0,))), np.asarray(jred(empty, (0,))))


def test_bitwise_reductions_refuse_floats_and_drop_weak_types() -> None:
    with pytest.raises(DTypeError, match="reduce_or"):
        dlax.reduce_or(np.ones(3, np.float32), (0,))
    assert not dlax.reduce_xor(dx.numpy.asarray(3), ()).weak_type
    assert dx.jvp(lambda x: dlax.reduce_or(x > 0, (0,)), (np.ones(3),), (np.ones(3),))[1].dtype == (
        jax.dtypes.float0
    )


# --- reduce_precision -------------------------------------------------------------------------

FORMATS: Final = [(1, 0), (5, 10), (8, 7), (8, 23), (4, 3), (11, 52)]


# XLA's older CPU emitters (the tests session's, noxfile.py) round a few
# overflowing values to a finite number, not to inf: compared with ml_dtypes.
@pytest.mark.xla_default_emitters
@pytest.mark.parametrize(
    "dtype",
    [np.float16, ml_dtypes.bfloat16, np.float32, np.float64],
    ids=lambda d: np.dtype(d).name,
)
def test_reduce_precision_is_bit_exact(dtype: Any) -> None:
    width = np.dtype(dtype).itemsize
    u = f"u{width}"
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 2 ** (8 * width) - 1, size=600, dtype=np.uint64).astype(u)
    specials = np.array([0, -0.0, np.inf, -np.inf, np.nan, 1, 1.5, 65504, 1e-8, 6e-5], dtype)
    x = np.concatenate([bits.view(dtype), specials])
    for e, m in FORMATS:
        want = np.asarray(jax.jit(lambda x, e=e, m=m: jlax.reduce_precision(x, e, m))(x)).view(u)
        eager = np.asarray(dlax.reduce_precision(x, e, m)).view(u)
        jitted = np.asarray(dx.jit(lambda x, e=e, m=m: dlax.reduce_precision(x, e, m))(x)).view(u)
        np.testing.assert_array_equal(eager, want, err_msg=f"eager {e}, {m}")
        np.testing.assert_array_equal(jitted, want, err_msg=f"jit {e}, {m}")


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_reduce_precision_derivatives_match_jax(dtype: Any) -> None:
    x = _data((3, 4), dtype) * 3

    def d(x: Any) -> Any:
        return dx.numpy.sum(dx.numpy.sin(dlax.reduce_precision(x, 5, 10)))

    def j(x: Any) -> Any:
        return jnp.sum(jnp.sin(jlax.reduce_precision(x, 5, 10)))

    t = _data((3, 4), dtype, 1)
    _close(dx.jvp(d, (x,), (t,)), jax.jvp(j, (x,), (t,)), dtype)
    _close(dx.grad(d)(x), jax.grad(j)(x), dtype)
    _close(
        dx.jit(dx.grad(dx.grad(lambda s: d(x * s))))(1.0),
        jax.grad(jax.grad(lambda s: j(x * s)))(1.0),
        dtype,
    )
    _close(
        dx.vmap(lambda r: dlax.reduce_precision(r, 4, 3))(x),
        jax.vmap(lambda r: jlax.reduce_precision(r, 4, 3))(x),
        dtype,
    )
    y = dlax.reduce_precision(2.0, 5, 2)
    assert y.weak_type
    assert jlax.reduce_precision(2.0, 5, 2).weak_type
    with pytest.raises(DTypeError):
        dlax.reduce_precision(np.arange(3), 5, 2)
    with pytest.raises(ShapeError, match="exponent_bits"):
        dlax.reduce_precision(x, 0, 2)


# --- associative_scan ------------------------------------------------------------------------


def _recurrence(a: Any, b: Any) -> Any:
    # h_t = a_t h_{t-1} + b_t: composing two steps (as in a linear RNN).
    return (a[0] * b[0], b[0] * a[1] + b[1])


SCAN_FNS: Final[dict[str, tuple[Callable[..., Any], Callable[..., Any], bool]]] = {
    "add": (dlax.add, jlax.add, False),
    "mul": (dlax.mul, jlax.mul, False),
    "max": (dlax.max, jlax.max, False),
    "recurrence": (_recurrence, _recurrence, True),
}
# (shape, axis, reverse); JAX's reverse scan refuses a negative axis (its
# rev sees it before it is made non-negative), so those cases have none.
SCAN_CASES: Final = [
    ((7, 3), 0, False),
    ((8, 3), 0, True),
    ((3, 6), 1, True),
    ((2, 5, 3), -2, False),
]


@pytest.mark.parametrize(("shape", "axis", "reverse"), SCAN_CASES, ids=str)
@pytest.mark.parametrize("name", sorted(SCAN_FNS))
def test_associative_scan_matches_jax(
    name: str, shape: tuple[int, ...], axis: int, reverse: bool
) -> None:
    dfn, jfn, pair = SCAN_FNS[name]
    dtype = np.float64 if reverse else np.float32
    x = _data(shape, dtype)
    elems = (x, _data(shape, dtype, 1)) if pair else x

    def d(e: Any) -> Any:
        return dlax.associative_scan(dfn, e, reverse=reverse, axis=axis)

    def j(e: Any) -> Any:
        return jlax.associative_scan(jfn, e, reverse=reverse, axis=axis)

    def all_of(ad: Any, lib: Any, scan: Callable[..., Any]) -> Callable[..., Any]:
        scalar = _scalar(scan, lib)

        def f(e: Any, t: Any, stacked: Any) -> Any:
            # values, grad, vmap over a new leading axis, grad of grad along t
            out = [scan(e), ad.grad(scalar)(e), ad.vmap(scan)(stacked)]
            if name == "recurrence":
                out.append(ad.jvp(ad.grad(scalar), (e,), (t,))[1])
            return out

        return f

    t = jax.tree.map(lambda a: _data(a.shape, dtype, 3), elems)
    stacked = jax.tree.map(lambda a: np.stack([a, a * 0.5]), elems)
    want = jax.jit(all_of(jax, jnp, j))(elems, t, stacked)
    _close(all_of(dx, dx.numpy, d)(elems, t, stacked), want, dtype)
    _close(dx.jit(d)(elems), want[0], dtype)


def test_associative_scan_refusals() -> None:
    not_callable: Any = 3
    with pytest.raises(TypeError, match="callable"):
        dlax.associative_scan(not_callable, np.ones(3))
    with pytest.raises(ValueError, match="same first dimension"):
        dlax.associative_scan(_recurrence, (np.ones(3), np.ones(4)))


def test_associative_scan_grad_matches_finite_differences() -> None:
    a, b = _data((6, 2), np.float64), _data((6, 2), np.float64, 1)

    def f(a: Any, b: Any) -> Any:
        _, h = dlax.associative_scan(_recurrence, (a, b), reverse=True)
        return dx.numpy.sum(dx.numpy.sin(h))

    ga, gb = dx.grad(f, argnums=(0, 1))(a, b)
    for arg, g in [(0, ga), (1, gb)]:
        for idx in [(0, 0), (3, 1), (5, 0)]:
            e = np.zeros_like(a)
            e[idx] = 1e-6
            plus = f(a + e, b) if arg == 0 else f(a, b + e)
            minus = f(a - e, b) if arg == 0 else f(a, b - e)
            fd = (float(plus) - float(minus)) / 2e-6
            np.testing.assert_allclose(np.asarray(g)[idx], fd, rtol=1e-6, atol=1e-9)


def test_flops_of_the_new_reductions_are_xla_s() -> None:
    x = _data((6, 5), np.float32)
    for dfn, jfn in [
        (lambda x: dlax.reduce_precision(x, 5, 10), lambda x: jlax.reduce_precision(x, 5, 10)),
        (lambda x: dlax.reduce_or(x > 1, (0,)), lambda x: jlax.reduce_or(x > 1, (0,))),
        (lambda x: dlax.reduce_xor(x > 1, (0, 1)), lambda x: jlax.reduce_xor(x > 1, (0, 1))),
    ]:
        analysis: Any = jax.jit(jfn).lower(x).compile().cost_analysis()
        assert cost(dfn)(x).flops == int(analysis["flops"])


def test_generic_reduce_inside_scan_differentiates_as_jax() -> None:
    x = _data((4, 3), np.float32)

    def run(lax_: Any, lib: Any) -> Callable[..., Any]:
        def f(x: Any) -> Any:
            def body(c: Any, r: Any) -> Any:
                pair = lax_.reduce((r, r), (np.float32(0), np.float32(1)), _sum_prod, (0,))
                return c + lax_.reduce(r, np.float32(0), _poly, (0,)), pair[1]

            c, ys = lax_.scan(body, np.float32(0), x)
            return c + lib.sum(ys)

        return f

    d, j = run(dlax, dx.numpy), run(jlax, jnp)
    want = jax.jit(lambda x: (j(x), jax.grad(j)(x)))(x)
    _close((d(x), dx.grad(d)(x)), want, np.float32)
    _close(dx.jit(lambda x: (d(x), dx.grad(d)(x)))(x), want, np.float32)
    _close(dx.linearize(d, x)[1](x), jax.linearize(j, x)[1](x), np.float32)
