"""jvp, vmap, jacfwd and make_jaxpr against JAX, and their composition and errors."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
from didax import errors, lax
from didax.core import dtypes
from didax.ir.typecheck import typecheck_jaxpr

RNG = np.random.default_rng(0)


def _close(a: Any, b: Any, tol: float = 1e-12) -> None:
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


# --- higher-order derivatives and control flow --------------------------------


def test_sin_derivatives_to_fourth_order() -> None:
    def deriv(f: Any) -> Any:
        return lambda x: dx.jvp(f, (x,), (1.0,))[1]

    f: Any = lax.sin
    jf: Any = jnp.sin
    expected: list[Callable[[float], Any]] = [
        np.sin,
        np.cos,
        lambda x: -np.sin(x),
        lambda x: -np.cos(x),
        np.sin,
    ]
    for order in range(5):
        for x in (0.3, 1.7, -2.2):
            _close(f(x), expected[order](x))
            _close(f(x), jf(x))
        f = deriv(f)
        jf = jax.grad(jf)


def test_fourth_derivative_jaxpr_typechecks() -> None:
    def deriv(f: Any) -> Any:
        return lambda x: dx.jvp(f, (x,), (1.0,))[1]

    f4 = deriv(deriv(deriv(deriv(lax.sin))))
    closed = dx.make_jaxpr(f4)(1.0)
    typecheck_jaxpr(closed)
    from didax.interpreters.evaluation import eval_closed_jaxpr

    _close(eval_closed_jaxpr(closed, [1.0])[0], np.sin(1.0))


def test_jvp_through_python_control_flow_on_concrete_values() -> None:
    def f(x: Any) -> Any:
        if x > 0:
            return lax.mul(x, x)
        return lax.neg(x)

    assert dx.jvp(f, (3.0,), (1.0,)) == (9.0, 6.0)
    assert dx.jvp(f, (-3.0,), (1.0,)) == (3.0, -1.0)

    def g(x: Any) -> Any:
        total = x
        for _ in range(int(x)):  # int() of a jvp tracer is concrete too
            total = lax.mul(total, x)
        return total

    _close(dx.jvp(g, (2.0,), (1.0,))[1], 3 * 2.0**2)


def test_jvp_matches_jax_on_pytrees_and_multiple_outputs() -> None:
    def f(p: dict[str, Any], x: Any) -> Any:
        h = dx.numpy.tanh(dx.numpy.dot(x, p["w"]) + p["b"])
        return {"h": h, "s": dx.numpy.sum(h * h)}

    def jf(p: dict[str, Any], x: Any) -> Any:
        h = jnp.tanh(jnp.dot(x, p["w"]) + p["b"])
        return {"h": h, "s": jnp.sum(h * h)}

    p = {"w": RNG.normal(size=(3, 2)), "b": RNG.normal(size=2)}
    x = RNG.normal(size=(4, 3))
    tp = {"w": RNG.normal(size=(3, 2)), "b": RNG.normal(size=2)}
    tx = RNG.normal(size=(4, 3))
    out, t_out = dx.jvp(f, (p, x), (tp, tx))
    j_out, j_t_out = jax.jvp(jf, (p, x), (tp, tx))
    for k in ("h", "s"):
        _close(out[k], j_out[k])
        _close(t_out[k], j_t_out[k])


def test_jvp_of_integer_input_has_float0_tangent() -> None:
    x = np.arange(3)
    out, t = dx.jvp(lambda i: lax.mul(i, 2), (x,), (np.zeros(3, dtypes.float0),))
    np.testing.assert_array_equal(out, x * 2)
    assert t.dtype == dtypes.float0
    assert t.shape == (3,)
    with pytest.raises(TypeError, match="float0"):
        dx.jvp(lambda i: i, (x,), (np.zeros(3),))


def test_jvp_output_with_zero_tangent_is_instantiated() -> None:
    _, t = dx.jvp(lambda x: np.ones(2), (1.0,), (1.0,))
    np.testing.assert_array_equal(t, np.zeros(2))


def test_jvp_rejects_mismatched_tangents() -> None:
    with pytest.raises(ValueError, match="shape"):
        dx.jvp(lax.sin, (np.ones(3),), (np.ones(2),))
    with pytest.raises(TypeError, match="tree structure"):
        dx.jvp(lambda x, y: x, (1.0, 2.0), (1.0,))


# --- perturbation confusion -------------------------------------------------


def test_perturbation_confusion_gives_jax_answer() -> None:
    # Siskind & Pearlmutter's example: d/dx (x * d/dy (x + y)) at x = 1 is 1.
    def f(x: Any) -> Any:
        inner = dx.jvp(lambda y: lax.add(x, y), (1.0,), (1.0,))[1]
        return lax.mul(x, inner)

    def jf(x: Any) -> Any:
        inner = jax.jvp(lambda y: x + y, (1.0,), (1.0,))[1]
        return x * inner

    ours = dx.jvp(f, (1.0,), (1.0,))
    theirs = jax.jvp(jf, (1.0,), (1.0,))
    _close(ours[0], theirs[0])
    _close(ours[1], theirs[1])
    assert float(ours[1]) == 1.0


def test_nested_jvp_closing_over_outer_tracer() -> None:
    def f(x: Any) -> Any:
        # the inner function closes over the outer tracer x: d/dy (x * y) = x
        return dx.jvp(lambda y: lax.mul(x, lax.mul(y, y)), (2.0,), (1.0,))[1]

    _close(
        dx.jvp(f, (3.0,), (1.0,))[1],
        jax.jvp(lambda x: jax.jvp(lambda y: x * y * y, (2.0,), (1.0,))[1], (3.0,), (1.0,))[1],
    )


# --- vmap ------------------------------------------------------------------


def test_vmap_in_and_out_axes() -> None:
    x = RNG.normal(size=(3, 4))
    y = RNG.normal(size=(4,))

    def f(a: Any, b: Any) -> Any:
        return dx.numpy.sin(a) * b

    _close(
        dx.vmap(f, in_axes=(1, None))(x, y[:3]),
        jax.vmap(lambda a, b: jnp.sin(a) * b, (1, None))(x, y[:3]),
    )
    _close(
        dx.vmap(f, in_axes=(0, None), out_axes=1)(x, y),
        jax.vmap(lambda a, b: jnp.sin(a) * b, (0, None), 1)(x, y),
    )
    _close(
        dx.vmap(f, in_axes=(-1, None), out_axes=-1)(x, y[:3]),
        jax.vmap(lambda a, b: jnp.sin(a) * b, (-1, None), -1)(x, y[:3]),
    )


def test_vmap_pytree_prefix_axes() -> None:
    p = {"a": RNG.normal(size=(5, 2)), "b": RNG.normal(size=(2, 5))}

    def f(p: dict[str, Any]) -> Any:
        return (p["a"] + p["b"], p["a"])

    ours = dx.vmap(f, in_axes=({"a": 0, "b": 1},))(p)
    theirs = jax.vmap(lambda q: (q["a"] + q["b"], q["a"]), in_axes=({"a": 0, "b": 1},))(p)
    _close(ours[0], theirs[0])
    _close(ours[1], theirs[1])


def test_vmap_unmapped_output_and_axis_size() -> None:
    out = dx.vmap(lambda x: (x, 7.0), out_axes=(0, None))(np.arange(3.0))
    _close(out[0], np.arange(3.0))
    _close(out[1], 7.0)
    _close(dx.vmap(lambda: np.ones(2), axis_size=3)(), np.ones((3, 2)))
    _close(dx.vmap(lambda x: 1.0, in_axes=None, axis_size=2)(5.0), np.ones(2))


def test_vmap_errors() -> None:
    with pytest.raises(ValueError, match="inconsistent sizes"):
        dx.vmap(lax.add)(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="out of range"):
        dx.vmap(lax.sin, in_axes=2)(np.ones(3))
    with pytest.raises(ValueError, match="at least one mapped"):
        dx.vmap(lax.sin, in_axes=None)(np.ones(3))
    with pytest.raises(ValueError, match="depends on the mapped axis"):
        dx.vmap(lax.sin, out_axes=None)(np.ones(3))
    with pytest.raises(ValueError, match="2 entries"):
        dx.vmap(lax.sin, in_axes=(0, 0))(np.ones(3))
    with pytest.raises(errors.ConcretizationTypeError, match="vmap"):
        dx.vmap(lambda x: x if x > 0 else -x)(np.ones(3))


def test_vmap_of_vmap_matches_jax() -> None:
    x = RNG.normal(size=(2, 3, 4))
    ours = dx.vmap(dx.vmap(lambda v: dx.numpy.sum(v * v), in_axes=1), in_axes=2)(x)
    theirs = jax.vmap(jax.vmap(lambda v: jnp.sum(v * v), in_axes=1), in_axes=2)(x)
    _close(ours, theirs)


def test_jvp_of_vmap_and_vmap_of_jvp() -> None:
    x = RNG.normal(size=(4, 3))
    t = RNG.normal(size=(4, 3))

    def f(v: Any) -> Any:
        return dx.numpy.sum(dx.numpy.sin(v) * v)

    def jf(v: Any) -> Any:
        return jnp.sum(jnp.sin(v) * v)

    ours = dx.jvp(dx.vmap(f), (x,), (t,))
    theirs = jax.jvp(jax.vmap(jf), (x,), (t,))
    _close(ours[1], theirs[1])
    ours2 = dx.vmap(lambda a, b: dx.jvp(f, (a,), (b,)))(x, t)
    theirs2 = jax.vmap(lambda a, b: jax.jvp(jf, (a,), (b,)))(x, t)
    _close(ours2[0], theirs2[0])
    _close(ours2[1], theirs2[1])
    typecheck_jaxpr(dx.make_jaxpr(dx.vmap(lambda a, b: dx.jvp(f, (a,), (b,))))(x, t))


def test_jacfwd_matches_jax() -> None:
    def f(x: Any, y: Any) -> Any:
        return dx.numpy.sin(x) * dx.numpy.sum(y * y), dx.numpy.outer(x, y)

    def jf(x: Any, y: Any) -> Any:
        return jnp.sin(x) * jnp.sum(y * y), jnp.outer(x, y)

    x, y = RNG.normal(size=3), RNG.normal(size=(2,))
    for argnums in (0, 1, (0, 1)):
        ours = dx.jacfwd(f, argnums)(x, y)
        theirs = jax.jacfwd(jf, argnums)(x, y)
        for o, t in zip(
            jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs), strict=True
        ):
            assert np.shape(o) == np.shape(t)
            _close(o, t)


def test_jacfwd_of_jacfwd_is_the_hessian() -> None:
    def f(x: Any) -> Any:
        return dx.numpy.sum(dx.numpy.sin(x) * x[::-1])

    x = RNG.normal(size=4)
    _close(dx.jacfwd(dx.jacfwd(f))(x), jax.hessian(lambda v: jnp.sum(jnp.sin(v) * v[::-1]))(x))


def test_jacfwd_rejects_integer_inputs() -> None:
    with pytest.raises(TypeError, match="floating-point"):
        dx.jacfwd(lambda i: i)(np.arange(3))


# --- make_jaxpr ----------------------------------------------------------------


def test_make_jaxpr_static_argnums() -> None:
    def f(x: Any, n: int) -> Any:
        for _ in range(n):
            x = lax.sin(x)
        return x

    closed = dx.make_jaxpr(f, static_argnums=1)(1.0, 3)
    assert [e.primitive.name for e in closed.eqns] == ["sin"] * 3


def test_make_jaxpr_of_jvp_and_vmap_typecheck() -> None:
    def f(x: Any) -> Any:
        return dx.numpy.sum(dx.numpy.tanh(x) ** 2)

    for closed in (
        dx.make_jaxpr(lambda x: dx.jvp(f, (x,), (x,)))(np.ones(3)),
        dx.make_jaxpr(dx.vmap(f))(np.ones((2, 3))),
        dx.make_jaxpr(dx.jacfwd(f))(np.ones(3)),
    ):
        typecheck_jaxpr(closed)


# --- errors --------------------------------------------------------------------


def test_bool_of_tracer_under_make_jaxpr_is_a_concretization_error() -> None:
    def f(x: Any) -> Any:
        return x if x > 0 else -x

    with pytest.raises(errors.ConcretizationTypeError) as info:
        dx.make_jaxpr(f)(1.0)
    message = str(info.value)
    assert "lax.cond" in message
    assert "make_jaxpr" in message
    assert "bool()" in message
    assert isinstance(info.value, TypeError)


def test_ill_typed_add_names_primitive_shapes_and_user_line() -> None:
    line = inspect.currentframe().f_lineno + 2  # type: ignore[union-attr]
    with pytest.raises(TypeError) as info:
        lax.add(np.ones(3), np.ones(4))
    message = str(info.value)
    assert isinstance(info.value, errors.ShapeError)
    assert re.search(r"\badd\b", message)
    assert "(3,)" in message
    assert "(4,)" in message
    assert f"test_transformations.py:{line}" in message


def test_ill_typed_add_under_transformations_reports_user_terms() -> None:
    for transform in (dx.make_jaxpr, dx.vmap):

        def bad(x: Any) -> Any:
            return lax.add(x, np.ones(4))

        line = bad.__code__.co_firstlineno + 1

        with pytest.raises(errors.ShapeError) as info:
            transform(bad)(np.ones((2, 3)) if transform is dx.vmap else np.ones(3))
        message = str(info.value)
        assert "f64[3]" in message
        assert "f64[4]" in message
        assert f"test_transformations.py:{line}" in message


def test_escaped_jvp_tracer_raises_unexpected_tracer_error() -> None:
    leaked: list[Any] = []

    def f(x: Any) -> Any:
        leaked.append(x)
        return lax.sin(x)

    dx.jvp(f, (1.0,), (1.0,))
    with pytest.raises(errors.UnexpectedTracerError, match="jvp"):
        lax.sin(leaked[0])
    with pytest.raises(errors.UnexpectedTracerError):
        dx.jvp(lambda y: lax.mul(y, leaked[0]), (1.0,), (1.0,))
    with pytest.raises(errors.UnexpectedTracerError):
        dx.make_jaxpr(lambda y: lax.mul(y, leaked[0]))(1.0)


def test_escaped_staging_tracer_raises_unexpected_tracer_error() -> None:
    leaked: list[Any] = []

    def keep(x: Any) -> Any:
        leaked.append(x)
        return x

    dx.make_jaxpr(keep)(1.0)
    with pytest.raises(errors.UnexpectedTracerError, match="make_jaxpr"):
        lax.cos(leaked[0])
