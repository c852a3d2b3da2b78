"""Control flow against JAX: every function under every transformation, on the same programs.

Each program is written once against a pair of modules ``(lax, numpy)`` and
run twice, with ``(didax.lax, didax.numpy)`` and with ``(jax.lax,
jax.numpy)``; each transformation likewise comes from ``didax`` or ``jax``.
Derivatives are also checked against central finite differences.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from tests.slicing import slice_params

import didax as dx
import didax.numpy as dnp
from didax import lax as dlax
from didax.errors import ShapeError
from didax.interpreters.while_loop import WhileLoopNotReversibleError
from didax.ir.typecheck import typecheck_jaxpr

DIDAX = types.SimpleNamespace(lax=dlax, np=dnp, t=dx)
JAX = types.SimpleNamespace(lax=jax.lax, np=jnp, t=jax)

Program = Callable[[types.SimpleNamespace], Callable[..., Any]]


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


# --- the programs ------------------------------------------------------------------------


def p_cond(m: types.SimpleNamespace) -> Callable[..., Any]:
    def f(x: Any, y: Any) -> Any:
        return m.lax.cond(
            m.np.sum(x) > 0.0,
            lambda a, b: m.np.sin(a) * b,
            lambda a, b: m.np.cos(a) + b * b,
            x,
            y,
        )

    return f


def p_cond_closure(m: types.SimpleNamespace) -> Callable[..., Any]:
    # Branches closing over different values, and returning a pytree.
    def f(x: Any, y: Any) -> Any:
        w = x * 2.0
        out = m.lax.cond(
            x[0] < y[1],
            lambda: {"a": w * y, "b": m.np.sum(w)},
            lambda: {"a": y - x, "b": m.np.sum(y * y)},
        )
        return out["a"] + out["b"]

    return f


def p_switch(m: types.SimpleNamespace) -> Callable[..., Any]:
    def f(x: Any, y: Any) -> Any:
        index = m.lax.convert_element_type(m.np.floor(m.np.sum(x) * 2.0), np.int32)
        branches = [
            lambda a, b: a * b,
            lambda a, b: m.np.sin(a) + b,
            lambda a, b: m.np.exp(-a * a) * b,
        ]
        # Out-of-range indices clamp, as JAX's.
        return m.lax.switch(index, branches, x, y)

    return f


def p_while(m: types.SimpleNamespace) -> Callable[..., Any]:
    def f(x: Any, y: Any) -> Any:
        def cond(c: Any) -> Any:
            return c[0] < 5

        def body(c: Any) -> Any:
            i, v = c
            return i + 1, m.np.sin(v) * y + x

        return m.lax.while_loop(cond, body, (0, x))[1]

    return f


def p_while_data_dependent(m: types.SimpleNamespace) -> Callable[..., Any]:
    # The trip count depends on the data: lanes of a vmap stop at different times.
    def f(x: Any, y: Any) -> Any:
        def cond(v: Any) -> Any:
            return m.np.sum(v * v) < 50.0

        return m.lax.while_loop(cond, lambda v: v * 1.5 + y * 0.1, x)

    return f


def p_fori_static(m: types.SimpleNamespace) -> Callable[..., Any]:
    def f(x: Any, y: Any) -> Any:
        return m.lax.fori_loop(0, 4, lambda i, v: m.np.tanh(v * y + i), x)

    return f


def p_scan(m: types.SimpleNamespace) -> Callable[..., Any]:
    def f(x: Any, y: Any) -> Any:
        def step(c: Any, xy: Any) -> Any:
            a, b = xy
            c = m.np.sin(c) * a + b
            return c, c * a

        xs = (m.np.stack([x, y, x * y]), m.np.stack([y, x, y - x]))
        c, ys = m.lax.scan(step, x, xs)
        return c + m.np.sum(ys, axis=0)

    return f


def p_scan_reverse_unroll(m: types.SimpleNamespace) -> Callable[..., Any]:
    def f(x: Any, y: Any) -> Any:
        def step(c: Any, a: Any) -> Any:
            return c * 0.5 + m.np.cos(a) * y, m.np.sum(c * a)

        xs = m.np.stack([x, x + 1.0, x * x, y, y * y, x - y, x + y])
        c, ys = m.lax.scan(step, y, xs, reverse=True, unroll=3)
        return c + m.np.sum(ys)

    return f


def p_scan_no_xs(m: types.SimpleNamespace) -> Callable[..., Any]:
    def f(x: Any, y: Any) -> Any:
        c, ys = m.lax.scan(lambda c, _: (c * y + 1.0, m.np.sum(c)), x, None, length=4)
        return c * m.np.sum(ys)

    return f


def p_map(m: types.SimpleNamespace) -> Callable[..., Any]:
    def f(x: Any, y: Any) -> Any:
        return m.lax.map(lambda r: m.np.sin(r) * y, m.np.stack([x, y, x * y]))[1]

    return f


def p_nested(m: types.SimpleNamespace) -> Callable[..., Any]:
    # A scan inside a cond inside a while (a fori_loop with static bounds is a scan,
    # so the outer loop is written as a while to keep it a while).
    def f(x: Any, y: Any) -> Any:
        def inner(v: Any) -> Any:
            c, _ = m.lax.scan(lambda c, a: (c * a + m.np.sin(c), None), v, m.np.stack([y, x]))
            return c

        def body(c: Any) -> Any:
            i, v = c
            v = m.lax.cond(i % 2 == 0, inner, lambda v: v * y, v)
            return i + 1, v

        return m.lax.while_loop(lambda c: c[0] < 3, body, (0, x))[1]

    return f


FORWARD_PROGRAMS: dict[str, Program] = {
    "cond": p_cond,
    "cond_closure": p_cond_closure,
    "switch": p_switch,
    "while": p_while,
    "while_data_dependent": p_while_data_dependent,
    "fori_static": p_fori_static,
    "scan": p_scan,
    "scan_reverse_unroll": p_scan_reverse_unroll,
    "scan_no_xs": p_scan_no_xs,
    "map": p_map,
    "nested": p_nested,
}
# Reverse mode: everything but while loops.
REVERSE_PROGRAMS: dict[str, Program] = {
    k: v for k, v in FORWARD_PROGRAMS.items() if not k.startswith(("while", "nested"))
}


def _args(name: str, seed: int = 0) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    r = _rng(seed)
    x, y = r.uniform(-0.9, 0.9, 3), r.uniform(-0.9, 0.9, 3)
    if name == "switch":
        x = x * 0.8 + 0.5  # sum(x)*2 spans the branch indices, and beyond
    return x, y


def _close(a: Any, b: Any, tol: float = 1e-10) -> None:
    jax.tree_util.tree_map(
        lambda u, v: np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=tol, atol=tol),
        a,
        b,
    )


def _scalar(f: Callable[..., Any], m: types.SimpleNamespace) -> Callable[..., Any]:
    return lambda x, y: m.np.sum(f(x, y) * f(x, y))


# --- forward: eval, jit, jvp, vmap --------------------------------------------------------


@pytest.mark.parametrize("name", sorted(FORWARD_PROGRAMS))
def test_eval_and_jit(name: str) -> None:
    x, y = _args(name)
    expected = FORWARD_PROGRAMS[name](JAX)(x, y)
    f = FORWARD_PROGRAMS[name](DIDAX)
    _close(f(x, y), expected)
    _close(dx.jit(f)(x, y), expected)
    closed = dx.make_jaxpr(f)(x, y)
    typecheck_jaxpr(closed)


@pytest.mark.parametrize("name", sorted(FORWARD_PROGRAMS))
def test_jvp(name: str) -> None:
    x, y = _args(name)
    tx, ty = _args(name, seed=1)
    expected = jax.jvp(FORWARD_PROGRAMS[name](JAX), (x, y), (tx, ty))
    f = FORWARD_PROGRAMS[name](DIDAX)
    _close(dx.jvp(f, (x, y), (tx, ty)), expected)
    _close(dx.jit(lambda *a: dx.jvp(f, a[:2], a[2:]))(x, y, tx, ty), expected)
    # Against central differences.
    eps = 1e-6
    fd = (np.asarray(f(x + eps * tx, y + eps * ty)) - np.asarray(f(x - eps * tx, y - eps * ty))) / (
        2 * eps
    )
    np.testing.assert_allclose(np.asarray(dx.jvp(f, (x, y), (tx, ty))[1]), fd, rtol=1e-5, atol=1e-6)


VMAP_AXES: Final[list[tuple[int | None, int | None]]] = [(0, None), (None, 0), (0, 0), (1, 0)]
# CI's slice: every program with x batched (batched predicates: lanes part ways), and each
# program under one other in_axes, so each of cond, while and scan meets every in_axes.
VMAP_OTHER_AXES: Final[dict[tuple[int | None, int | None], set[str]]] = {
    (None, 0): {"cond", "while", "scan", "map"},
    (0, 0): {"switch", "while_data_dependent", "scan_no_xs"},
    (1, 0): {"cond_closure", "nested", "fori_static", "scan_reverse_unroll"},
}


@pytest.mark.parametrize(
    ("in_axes", "name"),
    slice_params(
        [(a, n) for a in VMAP_AXES for n in sorted(FORWARD_PROGRAMS)],
        lambda row: row[0] == (0, None) or row[1] in VMAP_OTHER_AXES[row[0]],
        lambda row: f"in_axes{VMAP_AXES.index(row[0])}-{row[1]}",
    ),
)
def test_vmap(name: str, in_axes: tuple[int | None, int | None]) -> None:
    # Batched operands make batched predicates too: lanes take different branches
    # and loops run different numbers of times.
    xs = np.stack([_args(name, seed=s)[0] for s in range(4)])
    ys = np.stack([_args(name, seed=s + 10)[1] for s in range(4)])
    x = xs if in_axes[0] is not None else xs[0]
    y = ys if in_axes[1] is not None else ys[0]
    if in_axes[0] == 1:
        x = xs.T
    expected = jax.vmap(FORWARD_PROGRAMS[name](JAX), in_axes)(x, y)
    f = FORWARD_PROGRAMS[name](DIDAX)
    _close(dx.vmap(f, in_axes)(x, y), expected)
    _close(dx.jit(dx.vmap(f, in_axes))(x, y), expected)


# CI's slice: jacfwd is vmap of jvp, both run on every program above; these
# reach cond's n-way form, scan reversed and unrolled, map, and the three nested.
@pytest.mark.parametrize(
    "name",
    slice_params(
        sorted(FORWARD_PROGRAMS),
        lambda n: n in {"switch", "scan_reverse_unroll", "map", "nested"},
        str,
    ),
)
def test_jacfwd(name: str) -> None:
    x, y = _args(name)
    expected = jax.jacfwd(FORWARD_PROGRAMS[name](JAX), argnums=(0, 1))(x, y)
    _close(dx.jacfwd(FORWARD_PROGRAMS[name](DIDAX), argnums=(0, 1))(x, y), expected)


# --- reverse: grad, vjp, linearize ----------------------------------------------------------


# CI's slices of the two reverse tables share the programs out: each program's
# transpose is checked by one of them, and each meets a cond and a scan.
GRAD_SLICE: Final = {"cond", "switch", "scan_reverse_unroll", "map"}
VJP_SLICE: Final = {"cond_closure", "fori_static", "scan", "scan_no_xs"}


@pytest.mark.parametrize(
    "name", slice_params(sorted(REVERSE_PROGRAMS), GRAD_SLICE.__contains__, str)
)
def test_grad(name: str) -> None:
    x, y = _args(name)
    expected = jax.grad(_scalar(REVERSE_PROGRAMS[name](JAX), JAX), argnums=(0, 1))(x, y)
    g = dx.grad(_scalar(REVERSE_PROGRAMS[name](DIDAX), DIDAX), argnums=(0, 1))
    _close(g(x, y), expected)
    _close(dx.jit(g)(x, y), expected)
    # Against central differences, one coordinate at a time.
    loss = _scalar(REVERSE_PROGRAMS[name](DIDAX), DIDAX)
    eps = 1e-6
    for i in range(3):
        e = np.zeros(3)
        e[i] = eps
        fd = (float(loss(x + e, y)) - float(loss(x - e, y))) / (2 * eps)
        np.testing.assert_allclose(np.asarray(g(x, y)[0])[i], fd, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "name", slice_params(sorted(REVERSE_PROGRAMS), VJP_SLICE.__contains__, str)
)
def test_vjp_and_per_example_grads(name: str) -> None:
    x, y = _args(name)
    ct = _args(name, seed=3)[0]
    out, f_vjp = jax.vjp(REVERSE_PROGRAMS[name](JAX), x, y)
    d_out, d_vjp = dx.vjp(REVERSE_PROGRAMS[name](DIDAX), x, y)
    _close(d_out, out)
    _close(d_vjp(ct), f_vjp(ct))
    xs = np.stack([_args(name, seed=s)[0] for s in range(3)])
    expected = jax.vmap(jax.grad(_scalar(REVERSE_PROGRAMS[name](JAX), JAX)), (0, None))(xs, y)
    got = dx.vmap(dx.grad(_scalar(REVERSE_PROGRAMS[name](DIDAX), DIDAX)), (0, None))(xs, y)
    _close(got, expected)


# CI's slice: cond with closures, switch, the data-dependent while, the reversed and
# xs-less scans, and nested; the rest are the same primitives in plainer forms.
@pytest.mark.parametrize(
    "name",
    slice_params(
        sorted(FORWARD_PROGRAMS),
        lambda n: n not in {"cond", "while", "fori_static", "scan", "map"},
        str,
    ),
)
def test_linearize_of_jit(name: str) -> None:
    x, y = _args(name)
    tx, ty = _args(name, seed=1)
    f = FORWARD_PROGRAMS[name](DIDAX)
    out, f_lin = dx.linearize(dx.jit(f), x, y)
    expected_out, expected_t = jax.jvp(FORWARD_PROGRAMS[name](JAX), (x, y), (tx, ty))
    _close(out, expected_out)
    _close(f_lin(tx, ty), expected_t)


def test_hessian_of_scan() -> None:
    f_d = _scalar(p_scan(DIDAX), DIDAX)
    f_j = _scalar(p_scan(JAX), JAX)
    x, y = _args("scan")
    _close(dx.hessian(f_d)(x, y), jax.hessian(f_j)(x, y))


def test_grad_of_while_is_refused_with_advice() -> None:
    f = _scalar(p_while(DIDAX), DIDAX)
    with pytest.raises(WhileLoopNotReversibleError, match="fori_loop with static"):
        dx.grad(f)(*_args("while"))


def test_fori_loop_with_traced_bounds_is_a_while() -> None:
    f = dx.jit(lambda n, x: dlax.fori_loop(0, n, lambda i, v: v * 2.0 + i, x))
    assert f(5, 1.0) == jax.lax.fori_loop(0, 5, lambda i, v: v * 2.0 + i, 1.0)
    closed = dx.make_jaxpr(lambda n, x: dlax.fori_loop(0, n, lambda i, v: v + i, x))(5, 1.0)
    assert [e.primitive.name for e in closed.eqns].count("while") == 1
    static = dx.make_jaxpr(lambda x: dlax.fori_loop(0, 5, lambda i, v: v + i, x))(1.0)
    assert [e.primitive.name for e in static.eqns] == ["scan"]


# --- an RNN ---------------------------------------------------------------------------------


def _rnn_loss(m: types.SimpleNamespace) -> Callable[..., Any]:
    def loss(params: Any, xs: Any, targets: Any) -> Any:
        w_h, w_x, b, w_o = params

        def step(h: Any, x: Any) -> Any:
            h = m.np.tanh(h @ w_h + x @ w_x + b)
            return h, h @ w_o

        h0 = m.np.zeros((xs.shape[1], w_h.shape[0]), dtype=xs.dtype)
        _, outs = m.lax.scan(step, h0, xs)
        return m.np.mean((outs - targets) ** 2)

    return loss


def test_rnn_50_steps_loss_and_grads_equal_jax() -> None:
    r = _rng(7)
    hidden, features, batch, steps = 16, 4, 8, 50
    params = (
        r.normal(0, 0.3, (hidden, hidden)),
        r.normal(0, 0.3, (features, hidden)),
        r.normal(0, 0.1, hidden),
        r.normal(0, 0.3, (hidden, 2)),
    )
    xs = r.normal(0, 1, (steps, batch, features))
    targets = r.normal(0, 1, (steps, batch, 2))
    expected = jax.value_and_grad(_rnn_loss(JAX))(params, xs, targets)
    got = dx.jit(dx.value_and_grad(_rnn_loss(DIDAX)))(params, xs, targets)
    _close(got, expected, tol=1e-9)
    _close(dx.value_and_grad(_rnn_loss(DIDAX))(params, xs, targets), expected, tol=1e-9)


# --- errors at trace time, in the user's frame ----------------------------------------------


def test_branch_outputs_of_different_types() -> None:
    with pytest.raises(TypeError, match=r"same types.*test_control_flow\.py"):
        dlax.cond(True, lambda: np.ones(2), lambda: np.ones(3))
    with pytest.raises(TypeError, match=r"same structure.*test_control_flow\.py"):
        dlax.cond(True, lambda: (1.0, 2.0), lambda: 1.0)


def test_branch_outputs_must_match_exactly_as_in_jax() -> None:
    x = np.float32(1.0)
    # A Python scalar output does not take the other branch's f32, in JAX either.
    with pytest.raises(TypeError, match="equal output types"):
        jax.lax.cond(False, lambda: x, lambda: 2.0)
    with pytest.raises(TypeError, match=r"same types: false_fun returns \(f64\[\]\) and true"):
        dlax.cond(False, lambda: x, lambda: 2.0)
    # Weakness alone is no difference.
    out = dlax.cond(False, lambda: np.float64(1.0), lambda: 2.0)
    assert float(out) == 2.0


def test_body_changing_the_carry_type() -> None:
    with pytest.raises(TypeError, match=r"carry.*f32\[\].*test_control_flow\.py"):
        dlax.scan(lambda c, x: (c.astype(np.float32), x), np.float64(0.0), np.ones(3))
    with pytest.raises(TypeError, match=r"body_fun.*test_control_flow\.py"):
        dlax.while_loop(lambda v: v < 1.0, lambda v: np.ones(2) * v, 0.5)


def test_weak_carry_takes_the_body_dtype() -> None:
    c, _ = dlax.scan(lambda c, x: (c + x, None), 0.0, np.ones(3, np.float32))
    assert c.dtype == np.float32

    def step(c: Any, x: Any) -> Any:
        return c + x, None

    expected, _ = jax.lax.scan(step, 0.0, jnp.ones(3, jnp.float32))
    assert np.asarray(expected).dtype == np.float32


@pytest.mark.parametrize(
    ("pred", "match"), [(np.ones(2, bool), "scalar"), (np.float64(1.0), "boolean or integer")]
)
def test_bad_predicates(pred: Any, match: str) -> None:
    with pytest.raises(TypeError, match=rf"{match}.*test_control_flow\.py"):
        dlax.cond(pred, lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match=r"boolean scalar.*test_control_flow\.py"):
        dlax.while_loop(lambda v: v, lambda v: v, 1.0)


def test_integer_predicate_and_clamped_switch() -> None:
    assert float(dlax.cond(3, lambda: 1.0, lambda: 2.0)) == 1.0
    branches = [lambda: 0.0, lambda: 1.0, lambda: 2.0]
    assert [float(dlax.switch(i, branches)) for i in (-5, 0, 1, 2, 9)] == [0, 0, 1, 2, 2]


def test_scan_length_errors() -> None:
    with pytest.raises(ValueError, match="disagree"):
        dlax.scan(lambda c, x: (c, x), 0.0, (np.ones(3), np.ones(4)))
    with pytest.raises(ValueError, match="length must be given"):
        dlax.scan(lambda c, x: (c, x), 0.0, None)
    with pytest.raises(TypeError, match="pair"):
        dlax.scan(lambda c, x: c, 0.0, np.ones(3))


def test_ill_typed_cond_equation_names_the_primitive() -> None:
    from didax.core.lax.cond import cond_p

    branch = dx.make_jaxpr(lambda a: a * 2.0)(1.0).jaxpr
    with pytest.raises(
        ShapeError, match=r"cond applied to operands of types \(i32\[\], f64\[2\]\)"
    ):
        cond_p.bind(np.int32(0), np.ones(2), branches=(branch,))
