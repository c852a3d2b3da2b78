"""Rank-0 operands of the ``scalar_operands`` primitives, as JAX's lax n-ary operations take them.

``lax.mul(x, 2.0)`` stages ``mul x 2.0`` (JAX: ``mul a 2.0:f32[]``), not a
``broadcast_in_dim`` and a ``mul``; a rank-0 array beside an array of any
shape stands for an array of that shape. Every interpreter must agree: the
typing rule, eager evaluation, the lowering (which broadcasts), jvp (whose
rules see a scalar rank-0 while its tangent is zero, broadcast otherwise),
vmap (an unbatched scalar stays a scalar) and transpose (a scalar's
cotangent is the sum of its array's). Each is checked
against JAX's lax on the same operands, derivatives also against finite
differences.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import jax
import numpy as np
import pytest
from jax import lax as jlax
from tests.slicing import diagonal

import didax as dx
import didax.numpy as dnp
from didax import lax
from didax.core.primitive import ALL_PRIMITIVES
from didax.errors import ShapeError
from didax.interpreters.transpose import UndefinedPrimal, backward_pass

RNG: Final = np.random.default_rng(7)
X: Final = RNG.uniform(0.5, 2.0, (2, 3))
S: Final = np.float64(1.25)

# name -> (didax function, JAX function, differentiable)
BINARY: Final[dict[str, tuple[Callable[..., Any], Callable[..., Any], bool]]] = {
    "add": (lax.add, jlax.add, True),
    "sub": (lax.sub, jlax.sub, True),
    "mul": (lax.mul, jlax.mul, True),
    "div": (lax.div, jlax.div, True),
    "rem": (lax.rem, jlax.rem, True),
    "pow": (lax.pow, jlax.pow, True),
    "max": (lax.max, jlax.max, True),
    "min": (lax.min, jlax.min, True),
    "eq": (lax.eq, jlax.eq, False),
    "ne": (lax.ne, jlax.ne, False),
    "lt": (lax.lt, jlax.lt, False),
    "le": (lax.le, jlax.le, False),
    "gt": (lax.gt, jlax.gt, False),
    "ge": (lax.ge, jlax.ge, False),
    "atan2": (lax.atan2, jlax.atan2, True),
    "nextafter": (lax.nextafter, jlax.nextafter, False),
}
# On integers (booleans for and/or); polygamma(m, x) on floats, differentiable in x only.
INTEGER_BINARY: Final[dict[str, tuple[Callable[..., Any], Callable[..., Any]]]] = {
    "xor": (lax.bitwise_xor, jlax.bitwise_xor),
    "shift_left": (lax.shift_left, jlax.shift_left),
    "shift_right_logical": (lax.shift_right_logical, jlax.shift_right_logical),
    "shift_right_arithmetic": (lax.shift_right_arithmetic, jlax.shift_right_arithmetic),
}
# The scalar_operands primitives that tests/interpreters/test_elementwise_more.py checks.
ISSUE_28: Final = (
    *("clamp", "mulhi", "igamma", "igammac", "igamma_grad_a", "random_gamma_grad", "zeta"),
    "regularized_incomplete_beta",
    # XLA's total-order comparisons (the sorting family), as the comparisons.
    *("eq_to", "le_to", "lt_to"),
)
DIFFERENTIABLE: Final = [n for n, (_, _, d) in BINARY.items() if d]
# Both orders: the scalar second (x * 2.0) and first (2.0 * x).
ORDERS: Final = ["array_scalar", "scalar_array"]
# The default run takes each primitive in one order, the orders alternating down
# the list (``diagonal``): both meet the shared ``scalar_operands`` code (typing,
# lowering, jvp, batching, transpose) and every primitive's own rule is reached.


def _operands(order: str, x: Any = X, s: Any = S) -> tuple[Any, Any]:
    return (x, s) if order == "array_scalar" else (s, x)


def test_the_group_is_the_binary_arithmetic_comparison_logical_and_float_primitives() -> None:
    names = {p.name for p in ALL_PRIMITIVES if p.scalar_operands}
    assert names == {*BINARY, *INTEGER_BINARY, "and", "or", "polygamma", *ISSUE_28}


@pytest.mark.parametrize(("name", "order"), diagonal(2, list(BINARY), ORDERS))
def test_staged_without_a_broadcast_and_equal_to_jax(name: str, order: str) -> None:
    fn, jfn, _ = BINARY[name]
    a, b = _operands(order)
    closed = dx.make_jaxpr(fn)(a, b)
    assert [e.primitive.name for e in closed.jaxpr.eqns] == [name]
    assert sorted(len(x.aval.shape) for x in closed.jaxpr.eqns[0].inputs) == [0, 2]
    want = np.asarray(jfn(a, b))
    for got in (fn(a, b), dx.jit(fn)(a, b)):
        assert got.shape == want.shape
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-13)


@pytest.mark.parametrize("order", ORDERS)
def test_a_python_scalar_is_a_weak_rank0_literal(order: str) -> None:
    x = X.astype(np.float32)
    closed = dx.make_jaxpr(lambda v: lax.mul(*_operands(order, v, 2.0)))(x)
    (eqn,) = closed.jaxpr.eqns
    assert eqn.primitive.name == "mul"
    assert "broadcast_in_dim" not in str(closed)
    out = dx.jit(lambda v: lax.mul(*_operands(order, v, 2.0)))(x)
    assert out.dtype == np.float32
    assert not out.weak_type
    np.testing.assert_array_equal(np.asarray(out), x * np.float32(2.0))


def test_numpy_operators_keep_scalars_as_jax_numpy_does() -> None:
    """The 50-operation chain of the first-call benchmark traces 50 equations, as JAX's."""

    def chain(np_: Any) -> Callable[[Any], Any]:
        def f(v: Any) -> Any:
            for i in range(25):
                v = np_.sin(v) if i % 2 else v * 1.5
                v = v + 1.5
            return v

        return f

    x = np.ones(8, np.float32)
    ours = dx.make_jaxpr(chain(dnp))(x)
    theirs = jax.make_jaxpr(chain(jax.numpy))(x)
    assert len(ours.jaxpr.eqns) == len(theirs.jaxpr.eqns) == 50
    np.testing.assert_allclose(
        np.asarray(dx.jit(chain(dnp))(x)), np.asarray(jax.jit(chain(jax.numpy))(x)), rtol=1e-6
    )


def test_logical_operations_take_scalars() -> None:
    b = np.array([True, False, True])
    for fn, jfn in ((lax.bitwise_and, jlax.bitwise_and), (lax.bitwise_or, jlax.bitwise_or)):
        for t in (np.True_, np.False_):
            closed = dx.make_jaxpr(fn)(b, t)
            assert len(closed.jaxpr.eqns) == 1
            np.testing.assert_array_equal(np.asarray(dx.jit(fn)(b, t)), np.asarray(jfn(b, t)))


def test_shapes_other_than_scalars_must_still_be_equal() -> None:
    with pytest.raises(
        ShapeError, match=r"add applied to operands of types \(f64\[2,3\], f64\[3\]\)"
    ):
        lax.add(X, X[0])
    with pytest.raises(ShapeError, match="or be rank-0 scalars"):
        dx.jit(lax.mul)(X, X[:1])
    # select's cases are not scalar operands (JAX's rule too).
    with pytest.raises(ShapeError, match="select"):
        lax.select(X > 1, X, np.float64(0))


@pytest.mark.parametrize(("name", "order"), diagonal(2, DIFFERENTIABLE, ORDERS))
def test_jvp_and_grad_of_both_operands_agree_with_jax(name: str, order: str) -> None:
    fn, jfn, _ = BINARY[name]
    a, b = _operands(order)
    ta, tb = _operands(order, RNG.normal(size=X.shape), np.float64(0.75))
    out, tan = dx.jvp(fn, (a, b), (ta, tb))
    jout, jtan = jax.jvp(jfn, (a, b), (ta, tb))
    np.testing.assert_allclose(np.asarray(out), np.asarray(jout), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(tan), np.asarray(jtan), rtol=1e-12)
    assert tan.shape == X.shape

    def loss(f: Callable[..., Any], sum_: Callable[[Any], Any]) -> Callable[..., Any]:
        return lambda p, q: sum_(f(p, q) * X)

    grads = dx.grad(loss(fn, dnp.sum), argnums=(0, 1))(a, b)
    jgrads = jax.grad(loss(jfn, jax.numpy.sum), argnums=(0, 1))(a, b)
    for g, jg, v in zip(grads, jgrads, (a, b), strict=True):
        assert g.shape == np.shape(v)
        np.testing.assert_allclose(np.asarray(g), np.asarray(jg), rtol=1e-12)
    # The scalar's derivative against a central difference.
    si = 1 if order == "array_scalar" else 0
    eps = 1e-6
    f = loss(fn, np.sum)
    plus = [a, b]
    minus = [a, b]
    plus[si] = S + eps
    minus[si] = S - eps
    fd = (f(*plus) - f(*minus)) / (2 * eps)
    np.testing.assert_allclose(np.asarray(grads[si]), np.asarray(fd), rtol=1e-6)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_a_constant_scalar_stays_rank0_under_jvp_and_grad(name: str, order: str) -> None:
    """Differentiating in the array alone: the rules see the scalar as it is, as JAX's do.

    ``jvp`` of ``x * 2.0`` stages ``mul t 2.0`` (no broadcast of 2.0), as
    JAX's; the derivatives agree with JAX's.
    """
    fn, jfn, _ = BINARY[name]

    def at(f: Callable[..., Any]) -> Callable[[Any], Any]:
        return lambda x: f(*_operands(order, x))

    t = RNG.normal(size=X.shape)
    out, tan = dx.jvp(at(fn), (X,), (t,))
    jout, jtan = jax.jvp(at(jfn), (X,), (t,))
    np.testing.assert_allclose(np.asarray(out), np.asarray(jout), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(tan), np.asarray(jtan), rtol=1e-12)
    g = dx.grad(lambda x: dnp.sum(at(fn)(x) * X))(X)
    jg = jax.grad(lambda x: jax.numpy.sum(at(jfn)(x) * X))(X)
    np.testing.assert_allclose(np.asarray(g), np.asarray(jg), rtol=1e-12)
    if name in ("add", "sub", "mul", "div"):
        ours = dx.make_jaxpr(lambda x, t: dx.jvp(at(fn), (x,), (t,)))(X, t)
        theirs = jax.make_jaxpr(lambda x, t: jax.jvp(at(jfn), (x,), (t,)))(X, t)
        assert "broadcast_in_dim" not in str(ours)
        if name != "div":  # JAX's div rule is written differently (integer_pow)
            assert len(ours.jaxpr.eqns) == len(theirs.jaxpr.eqns)


@pytest.mark.parametrize(("name", "order"), diagonal(2, list(BINARY), ORDERS))
def test_vmap_over_the_array_the_scalar_or_both(name: str, order: str) -> None:
    fn, jfn, _ = BINARY[name]
    xs = RNG.uniform(0.5, 2.0, (4, *X.shape))
    ss = RNG.uniform(0.5, 2.0, (4,))
    cases = [
        ((xs, S), (0, None)),  # batched array, unbatched scalar
        ((X, ss), (None, 0)),  # unbatched array, batched scalar
        ((xs, ss), (0, 0)),  # both
        ((np.moveaxis(xs, 0, 2), ss), (2, 0)),  # batch axes that differ
        ((ss, S), (0, None)),  # two scalars, one batched
    ]
    for (x, s), (dx_, ds) in cases:
        args = _operands(order, x, s)
        dims = _operands(order, dx_, ds)
        got = dx.vmap(fn, in_axes=dims)(*args)
        want = jax.vmap(jfn, in_axes=dims)(*args)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-13)
        got_jit = dx.jit(dx.vmap(fn, in_axes=dims))(*args)
        np.testing.assert_allclose(np.asarray(got_jit), np.asarray(want), rtol=1e-13)


def test_vmap_leaves_an_unbatched_scalar_unbroadcast() -> None:
    closed = dx.make_jaxpr(dx.vmap(lambda v: lax.mul(v, 2.0)))(X)
    assert [e.primitive.name for e in closed.jaxpr.eqns] == ["mul"]


def test_transpose_sums_the_cotangent_of_a_linear_scalar() -> None:
    """``add t x`` with a rank-0 ``t``: its cotangent is the sum of the output's."""
    closed = dx.make_jaxpr(lax.add)(S, X)
    ct = RNG.normal(size=X.shape)
    t_ct, x_ct = backward_pass(
        closed.jaxpr,
        [UndefinedPrimal(closed.in_avals[0]), UndefinedPrimal(closed.in_avals[1])],
        [ct],
    )
    assert np.shape(t_ct) == ()
    np.testing.assert_allclose(np.asarray(t_ct), ct.sum(), rtol=1e-13)
    np.testing.assert_array_equal(np.asarray(x_ct), ct)
    # mul by a constant array: the scalar's cotangent is <ct, c>.
    closed = dx.make_jaxpr(lax.mul)(S, X)
    (t_ct,) = backward_pass(closed.jaxpr, [UndefinedPrimal(closed.in_avals[0]), X], [ct])
    np.testing.assert_allclose(np.asarray(t_ct), (ct * X).sum(), rtol=1e-13)
    (j_ct,) = jax.vjp(lambda t: jlax.mul(t, X), S)[1](ct)
    np.testing.assert_allclose(np.asarray(t_ct), np.asarray(j_ct), rtol=1e-13)


def test_grad_through_a_staged_program_with_scalar_operands() -> None:
    """jit's jaxpr keeps ``mul x 2.0``; differentiating and batching it reads it back."""

    def f(x: Any, s: Any) -> Any:
        return dnp.sum(dnp.sin(x * s + 2.0) / s)

    jf = dx.jit(f)
    got = dx.grad(jf, argnums=(0, 1))(X, S)
    want = jax.grad(lambda x, s: jax.numpy.sum(jax.numpy.sin(x * s + 2.0) / s), argnums=(0, 1))(
        X, S
    )
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12)
    xs = RNG.normal(size=(3, 2, 3))
    per = dx.vmap(dx.grad(jf), in_axes=(0, None))(xs, S)
    jper = jax.vmap(
        jax.grad(lambda x, s: jax.numpy.sum(jax.numpy.sin(x * s + 2.0) / s)), (0, None)
    )(xs, S)
    np.testing.assert_allclose(np.asarray(per), np.asarray(jper), rtol=1e-12)


def test_the_lowering_emits_each_literal_and_its_broadcast_once_per_body() -> None:
    """``x * 2.0 + 2.0 ... * 2.0``: one constant, one broadcast; cond's branches make their own."""

    def f(np_: Any, lax_: Any) -> Callable[[Any], Any]:
        def g(x: Any) -> Any:
            y = x * 2.0 + 2.0
            z = lax_.cond(np_.sum(y) > 0.0, lambda v: v * 2.0 - 2.0, lambda v: v + 3.0, y)
            return z * 2.0

        return g

    text = dx.jit(f(dnp, lax)).lower(X).as_text()
    main = text[text.index("func.func public @main") :]
    # main's own block, without the branches' regions (indented deeper).
    top = [line for line in main.splitlines() if line.startswith("    %")]
    assert sum("stablehlo.constant dense<2.000000e+00>" in line for line in top) == 1
    assert sum("stablehlo.broadcast_in_dim" in line for line in top) == 1
    branches = [line for line in main.splitlines() if line.startswith("      %")]
    assert sum("stablehlo.constant dense<2.000000e+00>" in line for line in branches) == 1
    # The value used in both blocks computes what JAX's program does, either branch taken.
    for x in (X, -X):
        np.testing.assert_allclose(
            np.asarray(dx.jit(f(dnp, lax))(x)),
            np.asarray(jax.jit(f(jax.numpy, jlax))(x)),
            rtol=1e-14,
        )


@pytest.mark.parametrize(("name", "order"), diagonal(2, list(INTEGER_BINARY), ORDERS))
def test_bit_operations_take_scalars(name: str, order: str) -> None:
    fn, jfn = INTEGER_BINARY[name]
    x = np.array([[-7, 3, 12], [40, -1, 0]], np.int32)
    xs = np.stack([x, x * 3, -x])
    for s in (np.int32(2), np.int32(35), np.int32(-1)):  # in range, past the width, negative
        a, b = _operands(order, x, s)
        closed = dx.make_jaxpr(fn)(a, b)
        assert [e.primitive.name for e in closed.jaxpr.eqns] == [name]
        want = np.asarray(jfn(a, b))
        np.testing.assert_array_equal(np.asarray(fn(a, b)), want)
        np.testing.assert_array_equal(np.asarray(dx.jit(fn)(a, b)), want)
        dims = _operands(order, 0, None)
        np.testing.assert_array_equal(
            np.asarray(dx.vmap(fn, in_axes=dims)(*_operands(order, xs, s))),
            np.asarray(jax.vmap(jfn, in_axes=dims)(*_operands(order, xs, s))),
        )
    ss = np.array([1, 2, 33], np.int32)
    dims = _operands(order, None, 0)
    np.testing.assert_array_equal(
        np.asarray(dx.vmap(fn, in_axes=dims)(*_operands(order, x, ss))),
        np.asarray(jax.vmap(jfn, in_axes=dims)(*_operands(order, x, ss))),
    )


def test_polygamma_takes_a_scalar_order_and_differentiates_in_x() -> None:
    x = RNG.uniform(0.5, 3.0, (2, 3))
    closed = dx.make_jaxpr(lambda v: lax.polygamma(1.0, v))(x)
    assert [e.primitive.name for e in closed.jaxpr.eqns] == ["polygamma"]
    for m in (0.0, 1.0, 2.0):
        want = np.asarray(jlax.polygamma(m, x))
        np.testing.assert_allclose(np.asarray(lax.polygamma(m, x)), want, rtol=1e-12)
        np.testing.assert_allclose(np.asarray(dx.jit(lax.polygamma)(m, x)), want, rtol=1e-12)
        g = dx.grad(lambda v, m=m: dnp.sum(lax.polygamma(m, v)))(x)
        jg = jax.grad(lambda v, m=m: jax.numpy.sum(jlax.polygamma(m, v)))(x)
        np.testing.assert_allclose(np.asarray(g), np.asarray(jg), rtol=1e-10)
    ms = np.array([0.0, 1.0, 2.0])
    np.testing.assert_allclose(
        np.asarray(dx.vmap(lax.polygamma, in_axes=(0, None))(ms, x)),
        np.asarray(jax.vmap(jlax.polygamma, in_axes=(0, None))(ms, x)),
        rtol=1e-12,
    )
