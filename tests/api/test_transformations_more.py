"""jacobian, linear_transpose, custom_gradient, closure_convert, named_call/named_scope,
ensure_compile_time_eval and checkpoint_name, each against JAX on the same functions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, Final

import jax
import jax.ad_checkpoint
import jax.numpy as jnp
import numpy as np
import pytest

import didax as dx
import didax.numpy as dnp

A: Final = np.arange(6.0, dtype=np.float32).reshape(2, 3) / 5


def _close(ours: Any, theirs: Any, rtol: float = 1e-5) -> None:
    tree: Any = jax.tree_util.tree_structure(ours)
    assert tree == jax.tree_util.tree_structure(theirs)
    for a, b in zip(
        jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs), strict=True
    ):
        assert np.shape(a) == np.shape(b)
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=1e-6)


# --- jacobian ------------------------------------------------------------------------------


def test_jacobian_is_jacrev() -> None:
    assert dx.jacobian is dx.jacrev
    x = np.array([0.3, 0.7, 1.1], np.float32)
    ours = dx.jit(dx.jacobian(lambda x: dnp.sin(x) * x.sum()))(x)
    _close(ours, jax.jacobian(lambda x: jnp.sin(x) * x.sum())(x))


# --- linear_transpose -----------------------------------------------------------------------

# (name, didax's function, JAX's, primals): the same linear function in each library.
LINEAR: Final[list[tuple[str, Callable[..., Any], Callable[..., Any], tuple[Any, ...]]]] = [
    (
        "scalars",
        lambda x, y: 0.5 * x - 0.5 * y,
        lambda x, y: 0.5 * x - 0.5 * y,
        (np.float32(1.0), np.float32(2.0)),
    ),
    (
        "pytree",
        lambda d: {"a": dnp.matmul(A, d["u"]), "b": d["u"].sum() * 3},
        lambda d: {"a": jnp.matmul(A, d["u"]), "b": d["u"].sum() * 3},
        ({"u": np.ones(3, np.float32), "v": np.ones(2, np.float32)},),
    ),
    ("structural", lambda x: x.T[::-1] * 2, lambda x: x.T[::-1] * 2, (A,)),
    (
        "complex",
        lambda z: (1 + 2j) * z.sum(),
        lambda z: (1 + 2j) * z.sum(),
        (np.ones(3, np.complex64),),
    ),
    ("int", lambda k: 3 * k[::2], lambda k: 3 * k[::2], (np.arange(4, dtype=np.int32),)),
]


@pytest.mark.parametrize(("name", "ours", "theirs", "primals"), LINEAR, ids=[c[0] for c in LINEAR])
def test_linear_transpose(
    name: str, ours: Callable[..., Any], theirs: Callable[..., Any], primals: tuple[Any, ...]
) -> None:
    out = theirs(*primals)
    rng = np.random.default_rng(0)

    def random_like(o: Any) -> Any:
        o = np.asarray(o)
        return np.asarray(
            rng.normal(size=o.shape) * 4 + (1j if o.dtype.kind == "c" else 0), o.dtype
        )

    ct = jax.tree_util.tree_map(random_like, out)
    expected = jax.linear_transpose(theirs, *primals)(ct)
    f_t = dx.linear_transpose(ours, *primals)
    _close(f_t(ct), expected)
    _close(dx.jit(f_t)(ct), expected)


def test_linear_transpose_shape_dtype_struct_and_errors() -> None:
    s = dx.ShapeDtypeStruct((), np.float32)
    _close(
        dx.linear_transpose(lambda x, y: 0.5 * x - 0.5 * y, s, s)(np.float32(1.0)),
        jax.linear_transpose(lambda x, y: 0.5 * x - 0.5 * y, s, s)(np.float32(1.0)),
    )
    with pytest.raises(TypeError, match="linear_transpose only supports"):
        dx.linear_transpose(lambda x: x.astype(np.int32), s)
    f_t = dx.linear_transpose(lambda x: x * 2, np.ones(3, np.float32))
    with pytest.raises(TypeError, match="cotangent's type"):
        f_t(np.ones(2, np.float32))
    with pytest.raises(TypeError, match="cotangent's tree"):
        f_t((np.ones(3, np.float32),))


# --- custom_gradient ------------------------------------------------------------------------


def _custom_gradient_pair(cg: Any, np_: Any) -> tuple[Any, Any]:
    @cg
    def f(x: Any, y: Any) -> Any:
        return np_.sin(x) * y, lambda g: (g * np_.cos(x) * 100, g * 7.0)

    @cg
    def h(x: Any) -> Any:
        return x**2, lambda g: g * x

    return f, h


def test_custom_gradient() -> None:
    f, h = _custom_gradient_pair(dx.custom_gradient, dnp)
    jf, jh = _custom_gradient_pair(jax.custom_gradient, jnp)
    x = np.array([0.3, 1.2], np.float32)
    _close(f(1.0, 2.0), jf(1.0, 2.0))
    for ours, theirs in ((dx.grad(f, argnums=(0, 1)), jax.grad(jf, argnums=(0, 1))),):
        _close(ours(1.0, 2.0), theirs(1.0, 2.0))
        _close(dx.jit(ours)(1.0, 2.0), jax.jit(theirs)(1.0, 2.0))
    _close(dx.vmap(dx.grad(h))(x), jax.vmap(jax.grad(jh))(x))
    assert dx.custom_derivatives.custom_gradient is dx.custom_gradient
    with pytest.raises(TypeError, match="custom_gradient: the function must return a pair"):
        dx.grad(dx.custom_gradient(lambda x: x))(1.0)


# --- closure_convert ------------------------------------------------------------------------


def _outer(cc: Any) -> Callable[[Any], Any]:
    def outer(a: Any) -> Any:
        f = lambda x: x * a + 1.0  # noqa: E731
        g, consts = cc(f, 1.0)
        return len(consts), g(2.0, *consts)

    return outer


def test_closure_convert() -> None:
    ours, theirs = _outer(dx.closure_convert), _outer(jax.closure_convert)
    # Eagerly nothing can carry a derivative: nothing is hoisted.
    assert ours(3.0)[0] == theirs(3.0)[0] == 0
    # Under jvp and jit the closed-over a is hoisted.
    hoisted: list[int] = []

    def value(a: Any) -> Any:
        n, y = ours(a)
        hoisted.append(n)
        return y

    _close(dx.jvp(value, (3.0,), (1.0,)), jax.jvp(lambda a: theirs(a)[1], (3.0,), (1.0,)))
    _close(dx.jit(lambda a: ours(a)[1])(3.0), jax.jit(lambda a: theirs(a)[1])(3.0))
    assert hoisted == [1]
    g, _ = dx.closure_convert(lambda x: x, 1.0)
    with pytest.raises(TypeError, match="closure_convert: the inputs"):
        g((1.0, 2.0))


# --- named_call, named_scope, ensure_compile_time_eval ------------------------------------


def test_named_call_and_scope() -> None:
    from didax.api.named import current_name_stack

    seen: list[str] = []

    def body(x: Any) -> Any:
        seen.append(current_name_stack())
        return dnp.sin(x) * 2

    f = dx.named_call(body, name="inner")
    with dx.named_scope("outer"):
        _close(dx.jit(f)(0.5), jax.jit(jax.named_call(lambda x: jnp.sin(x) * 2))(0.5))
    _close(dx.grad(dx.named_scope("s")(body))(0.5), jax.grad(lambda x: jnp.sin(x) * 2)(0.5))
    assert seen == ["outer/inner", "s"]
    assert current_name_stack() == ""
    not_a_name: Any = 3
    with (
        pytest.raises(TypeError, match="named_scope: the name must be a str"),
        dx.named_scope(not_a_name),
    ):
        pass


def test_ensure_compile_time_eval() -> None:
    kinds: list[str] = []

    def make(mod: Any, np_: Any) -> Any:
        @mod.jit
        def f(x: Any) -> Any:
            with mod.ensure_compile_time_eval():
                y = np_.sin(3.0)
                kinds.append(type(y).__name__)
                positive = y > 0  # concrete: usable in an ``if`` below
                z = x * 2  # staged: x is traced
            return (np_.sin(x) if positive else np_.cos(x)) + z

        return f

    _close(make(dx, dnp)(0.5), make(jax, jnp)(0.5))
    assert kinds[0] == "Array"
    jaxpr = str(dx.make_jaxpr(make(dx, dnp))(0.5))
    assert "sin 3.0" not in jaxpr


# --- checkpoint_name and the name policies -------------------------------------------------


def _counts(jaxpr: Any, c: Counter[str]) -> Counter[str]:
    """How many equations of each primitive, nested jaxprs included (as JAX's tests count)."""
    for e in jaxpr.eqns:
        c[e.primitive.name] += 1
        for v in e.params.values():
            for sub in v if isinstance(v, (tuple, list)) else [v]:
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    _counts(inner, c)
    return c


def _named_program(np_: Any, name: Any) -> Callable[[Any], Any]:
    def f(x: Any) -> Any:
        a = name(np_.sin(x), "a")
        b = name(np_.exp(a), "b")
        return np_.sum(np_.tanh(b) * a)

    return f


# CI keeps one row per policy; the other rows are the slow session's.
POLICIES: Final = [
    ("save_only_these_names", ("a",)),
    pytest.param("save_only_these_names", ("b",), marks=pytest.mark.slow),
    pytest.param("save_only_these_names", ("a", "b"), marks=pytest.mark.slow),
    ("save_any_names_but_these", ("a",)),
    pytest.param("save_any_names_but_these", (), marks=pytest.mark.slow),
    ("nothing_saveable", None),
]


@pytest.mark.parametrize(("policy", "names"), POLICIES)
def test_checkpoint_name_policies(policy: str, names: tuple[str, ...] | None) -> None:
    """The grad jaxpr recomputes exactly the equations JAX's recomputes, for each policy."""
    x = np.array([0.2, 0.5, 0.9], np.float32)
    counts = []
    for mod, np_, name in (
        (dx, dnp, dx.checkpoint_name),
        (jax, jnp, jax.ad_checkpoint.checkpoint_name),
    ):
        make = getattr(mod.checkpoint_policies, policy)
        chosen = make(*names) if names is not None else make
        f = mod.checkpoint(_named_program(np_, name), policy=chosen)
        jaxpr = mod.make_jaxpr(mod.grad(f))(x)
        c = _counts(getattr(jaxpr, "jaxpr", jaxpr), Counter())
        counts.append((c["sin"], c["exp"], c["tanh"], c["name"]))
        if mod is dx:
            grads = dx.jit(dx.grad(f))(x)
        else:
            _close(grads, jax.grad(f)(x))
    assert counts[0] == counts[1], (policy, names, counts)


def test_checkpoint_name_outside_checkpoint() -> None:
    tree = {"p": np.ones(2, np.float32), "q": 1.0}
    named = dx.checkpoint_name(tree, "t")
    _close(named, jax.ad_checkpoint.checkpoint_name(tree, "t"))
    assert "name[name='t']" in str(
        dx.make_jaxpr(lambda x: dx.checkpoint_name(x, "t"))(1.0)
    ).replace(" ", "")
    f = lambda x: dx.checkpoint_name(dnp.sin(x), "s") * x  # noqa: E731
    ones = np.ones(3, np.float32)
    _close(dx.vmap(dx.grad(f))(ones), (np.cos(ones) + np.sin(ones)).astype(np.float32))
    not_a_name: Any = 3
    with pytest.raises(TypeError, match="checkpoint_name: the name must be a str"):
        dx.checkpoint_name(1.0, not_a_name)


# --- linear_call ---------------------------------------------------------------------------

Y: Final = np.array([0.5, 0.25, 2.0], np.float32)
XS: Final = np.array([1.0, 2.0, 3.0], np.float32)


def _scaled(lc: Any) -> Callable[[Any, Any], Any]:
    """``r * v``, whose given transpose is deliberately ``10 * r * ct`` (not the true one)."""

    def f(r: Any, v: Any) -> Any:
        return lc(lambda r, v: r * v, lambda r, ct: 10.0 * ct * r, r, v)

    return f


def test_linear_call() -> None:
    ours, theirs = (
        _scaled(dx.custom_derivatives.linear_call),
        _scaled(jax.custom_derivatives.linear_call),
    )
    ones = np.ones(3, np.float32)
    _close(ours(XS, Y), theirs(XS, Y))
    g, jg = (
        dx.grad(lambda x, y: ours(x, y).sum(), argnums=1),
        jax.grad(lambda x, y: theirs(x, y).sum(), argnums=1),
    )
    _close(g(XS, Y), jg(XS, Y))
    _close(dx.jit(g)(XS, Y), jg(XS, Y))
    _close(
        dx.jvp(lambda v: ours(XS, v), (Y,), (ones,)),
        jax.jvp(lambda v: theirs(XS, v), (Y,), (ones,)),
    )
    f_t = dx.linear_transpose(lambda v: ours(XS, v), Y)
    _close(f_t(ones), jax.linear_transpose(lambda v: theirs(XS, v), Y)(ones))
    # Transposing the transpose gives the function back.
    _close(dx.linear_transpose(lambda c: f_t(c)[0], Y)(Y), (XS * Y,))
    # JAX has no batching rule: per example, against JAX's grad in a loop.
    expected = np.stack([jg(x, y) for x, y in zip(XS, Y, strict=True)])
    _close(dx.vmap(g)(XS, Y), expected)
    _close(dx.grad(lambda y: dx.vmap(ours)(XS, y).sum())(Y), 10.0 * XS)
    with pytest.raises(TypeError, match="transpose output pytree structure"):
        dx.custom_derivatives.linear_call(lambda r, v: v, lambda r, ct: (ct, ct), (), 1.0)


def test_combined_and_exclusion_policies() -> None:
    """save_from_both_policies is the union (as JAX's); save_anything_except_these_names
    saves all but the names (its docstring's meaning; JAX 0.10.2's saves everything)."""
    x = np.array([0.2, 0.5, 0.9], np.float32)
    pol = dx.checkpoint_policies

    def counts(policy: Any, mod: Any = dx, np_: Any = dnp, name: Any = dx.checkpoint_name) -> Any:
        f = mod.checkpoint(_named_program(np_, name), policy=policy)
        c = _counts(getattr(mod.make_jaxpr(mod.grad(f))(x), "jaxpr", None), Counter())
        return c["sin"], c["exp"], c["tanh"]

    both = pol.save_from_both_policies(
        pol.save_only_these_names("a"), pol.save_only_these_names("b")
    )
    jpol = jax.checkpoint_policies
    assert counts(both) == counts(
        jpol.save_from_both_policies(
            jpol.save_only_these_names("a"), jpol.save_only_these_names("b")
        ),
        jax,
        jnp,
        jax.ad_checkpoint.checkpoint_name,
    )
    assert counts(pol.save_anything_except_these_names()) == counts(pol.everything_saveable)


@pytest.mark.x64_off
def test_in_32_bit_mode() -> None:
    s = dx.ShapeDtypeStruct((3,), np.float32)
    _close(
        dx.linear_transpose(lambda x: 2.0 * x[::-1], s)(XS),
        jax.linear_transpose(lambda x: 2.0 * x[::-1], s)(XS),
    )
    f, _ = _custom_gradient_pair(dx.custom_gradient, dnp)
    jf, _ = _custom_gradient_pair(jax.custom_gradient, jnp)
    _close(dx.grad(f)(0.5, 2.0), jax.grad(jf)(0.5, 2.0))
    dx.test_util.check_grads(lambda x: dnp.sin(x) * x, (XS,), 1)
