"""``checkify`` through ``cond``, ``while_loop`` and ``scan`` bodies, against JAX's on the same
inputs: the message (which site, which iteration's values), under jit, eagerly and vmapped."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import checkify as jck

import didax as dx
import didax.numpy as dnp
from didax import lax as dlax
from didax.experimental import checkify as dck

Libs = tuple[Any, Any, Any]  # (numpy, lax, checkify)
D: Final[Libs] = (dnp, dlax, dck)
J: Final[Libs] = (jnp, jax.lax, jck)


def _scan(libs: Libs) -> Callable[[Any], Any]:
    np_, lax, ck = libs

    def body(c: Any, x: Any) -> Any:
        ck.check(x < 3.0, "x too big: {}", x)
        return c + np_.log(x), np_.sin(x) / x

    return lambda xs: lax.scan(body, 0.0, xs)


def _scan_index(libs: Libs) -> Callable[[Any], Any]:
    np_, lax, _ = libs
    table = np_.arange(4.0)

    def body(c: Any, i: Any) -> Any:
        return c + lax.dynamic_index_in_dim(table, i, keepdims=False), c

    return lambda idx: lax.scan(body, 0.0, idx)


def _while(libs: Libs) -> Callable[[Any], Any]:
    _, lax, ck = libs

    def body(c: Any) -> Any:
        i, v = c
        ck.check(v < 10.0, "v={} at i={}", v, i)
        return i + 1, v * 2.0

    return lambda x: lax.while_loop(lambda c: c[0] < 6, body, (0, x))


def _cond(libs: Libs) -> Callable[[Any], Any]:
    np_, lax, ck = libs

    def pos(x: Any) -> Any:
        ck.check(x > 0, "neg {}", x)
        return np_.log(x)

    return lambda x: lax.cond(x > -5.0, pos, lambda x: x / 0.0, x)


def _nested(libs: Libs) -> Callable[[Any], Any]:
    # A scan inside a cond branch: the error crosses both.
    np_, lax, ck = libs

    def body(c: Any, x: Any) -> Any:
        ck.check(x != 2.0, "two at carry {}", c)
        return c + x, np_.sqrt(x)

    return lambda xs: lax.cond(xs[0] > 0, lambda v: lax.scan(body, 0.0, v)[0], np_.sum, xs)


# program -> the inputs it runs on (one shape each: one compile per error set).
CASES: Final[dict[str, tuple[Callable[[Libs], Callable[[Any], Any]], list[Any]]]] = {
    "scan": (
        _scan,
        [np.array([1.0, 2.0, 4.0]), np.array([1.0, -1.0, 4.0]), np.array([0.0, 1.0, 2.0])],
    ),
    "scan_index": (_scan_index, [np.array([0, 3, 1]), np.array([1, 5, -7])]),
    "while": (_while, [1.0, 0.5, 20.0]),
    "cond": (_cond, [2.0, -1.0, -6.0, 0.0]),
    "nested": (_nested, [np.array([1.0, 2.0, -1.0]), np.array([-1.0, 2.0, 3.0])]),
}
ERRORS: Final = {
    "user": (dck.user_checks, jck.user_checks),
    "all": (dck.all_checks, jck.all_checks),
}


@pytest.mark.parametrize("errors", sorted(ERRORS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_jitted_messages_are_jax_s(case: str, errors: str) -> None:
    make, inputs = CASES[case]
    ours_set, theirs_set = ERRORS[errors]
    ours = dx.jit(dck.checkify(make(D), errors=ours_set))
    theirs = jax.jit(jck.checkify(make(J), errors=theirs_set))
    for x in inputs:
        (e_d, out_d), (e_j, out_j) = ours(x), theirs(x)
        assert e_d.get() == e_j.get(), (x, e_d.get(), e_j.get())
        leaves = zip(dx.tree_util.tree_leaves(out_d), jax.tree_util.tree_leaves(out_j), strict=True)
        for a, b in leaves:
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12)


def test_eager_and_throw() -> None:
    e, _ = dck.checkify(_scan(D))(np.array([1.0, 5.0, 6.0]))
    assert e.get() == "x too big: 5.0 (`check` failed)"
    with pytest.raises(dck.JaxRuntimeError, match=r"x too big: 5\.0"):
        e.throw()
    e, _ = dck.checkify(_while(D))(3.0)
    assert e.get() == "v=12.0 at i=2 (`check` failed)"


def test_vmapped_names_the_element() -> None:
    xs = np.array([[1.0, 2.0, 2.5], [1.0, 4.0, 9.0]])
    e_d, _ = dx.vmap(dck.checkify(_scan(D)))(xs)
    e_j, _ = jax.vmap(jck.checkify(_scan(J)))(xs)
    assert e_d.get() == e_j.get() == "at mapped index 1: x too big: 4.0 (`check` failed)"
    v = np.array([1.0, 20.0])
    e_d, _ = dx.vmap(dck.checkify(_while(D)))(v)
    e_j, _ = jax.vmap(jck.checkify(_while(J)))(v)
    assert e_d.get() == e_j.get()


def test_a_check_in_cond_fun_is_refused() -> None:
    def f(x: Any) -> Any:
        def keep_going(v: Any) -> Any:
            dck.check(v > 0, "gone")
            return v < 10.0

        return dlax.while_loop(keep_going, lambda v: v * 2.0, x)

    with pytest.raises(NotImplementedError, match="cond_fun"):
        dck.checkify(f)(1.0)


def test_checkify_of_grad_through_scan() -> None:
    def loss(libs: Libs) -> Callable[[Any], Any]:
        return lambda xs: _scan(libs)(xs)[0]

    ours = dx.jit(dck.checkify(dx.grad(loss(D)), errors=dck.all_checks))
    theirs = jax.jit(jck.checkify(jax.grad(loss(J)), errors=jck.all_checks))
    for xs in (np.array([1.0, 2.0, 2.5]), np.array([1.0, 4.0, 0.5]), np.array([1.0, -1.0, 0.5])):
        (e_d, g_d), (e_j, g_j) = ours(xs), theirs(xs)
        assert e_d.get() == e_j.get()
        np.testing.assert_allclose(np.asarray(g_d), np.asarray(g_j), rtol=1e-12)
