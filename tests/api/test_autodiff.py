"""Reverse mode against JAX: vjp, grad, value_and_grad, linearize, jacrev, hessian.

- Every differentiable standard primitive: ``vjp`` equals ``jax.vjp`` (values
  and dtypes, at float32 and float64), ``grad`` of a weighted sum of it equals
  central finite differences, and the staged vjp typechecks and runs under jit.
- Autodidax's compositionality stress test (part 4): every combination of
  ``f``, jit, jvp and grad it lists, hessians included, agrees with JAX.
- grad/jit/vmap/jvp nestings, jacrev and hessian (argnums int and tuple,
  pytrees in and out), has_aux, linearize with a reused ``f_jvp``.
- grad through Python control flow on concrete values.
- The Mini-JAX complexity lesson: ``z = a * (z + z)`` repeated D times has a
  gradient jaxpr linear in D.
- Bad inputs raise clear errors; ``stop_gradient`` cuts a path.
"""

from __future__ import annotations

import dataclasses
import functools
import zlib
from collections.abc import Callable
from typing import Any, Final, TypeAlias

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

import didax as dx
import didax.numpy as dnp
from didax import errors
from didax import lax as dlax
from didax.core import lax as core_lax
from didax.core.primitive import Primitive
from didax.core.trace import Tracer
from didax.interpreters.evaluation import eval_closed_jaxpr
from didax.ir.jaxpr import ClosedJaxpr, Jaxpr
from didax.ir.typecheck import typecheck_jaxpr

Array: TypeAlias = np.ndarray[Any, Any]
DType: TypeAlias = np.dtype[Any]
Shape: TypeAlias = tuple[int, ...]

F32: Final = np.dtype(np.float32)
F64: Final = np.dtype(np.float64)


def _tol(dtype: DType) -> tuple[float, float]:
    return (2e-5, 2e-6) if dtype == F32 else (1e-11, 1e-12)


def assert_same(actual: Any, expected: Any, what: str = "", tol: float | None = None) -> None:
    """Equal shape and dtype; equal values to the dtype's tolerance (or ``tol``)."""
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.dtype == e.dtype, f"{what}dtype {a.dtype} != {e.dtype}"
    assert a.shape == e.shape, f"{what}shape {a.shape} != {e.shape}"
    if a.dtype.kind == "f":
        rtol, atol = _tol(a.dtype) if tol is None else (tol, tol)
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=what)
    elif a.dtype.kind != "V":  # float0 cotangents have no values
        np.testing.assert_array_equal(a, e, err_msg=what)


def assert_tree_same(actual: Any, expected: Any, tol: float | None = None) -> None:
    """Same pytree structure, and ``assert_same`` leaf by leaf."""
    a_leaves, a_tree = jax.tree_util.tree_flatten(actual)
    e_leaves, e_tree = jax.tree_util.tree_flatten(expected)
    assert str(a_tree) == str(e_tree), f"structure {a_tree} != {e_tree}"
    for i, (a, e) in enumerate(zip(a_leaves, e_leaves, strict=True)):
        assert_same(a, e, f"leaf {i}: ", tol)


def _rng(*salt: object) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(salt).encode()))


# --- every differentiable primitive -------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class VjpCase:
    """A primitive applied to float operands: didax's call, JAX's, and the operands' shapes."""

    prim: Primitive
    fun: Callable[..., Any]
    oracle: Callable[..., Any]
    shapes: tuple[Shape, ...]
    lo: float = -2.0
    hi: float = 2.0
    nonzero: bool = False  # magnitudes of at least 0.5 (abs, divisors, negative powers)
    variant: str = ""
    zero: bool = False  # the derivative is zero everywhere

    @property
    def id(self) -> str:
        return f"{self.prim.name}-{self.variant}" if self.variant else self.prim.name

    def args(self, dtype: DType) -> tuple[Array, ...]:
        rng = _rng("operands", self.id, dtype.name)
        out = []
        for shape in self.shapes:
            if self.nonzero:
                x = rng.choice([-1.0, 1.0], size=shape) * rng.uniform(0.5, self.hi, size=shape)
            else:
                x = rng.uniform(self.lo, self.hi, size=shape)
            out.append(np.asarray(x, dtype))
        return tuple(out)


def vcase(
    name: str,
    *shapes: Shape,
    static: tuple[Any, ...] = (),
    lo: float = -2.0,
    hi: float = 2.0,
    nonzero: bool = False,
    variant: str = "",
    zero: bool = False,
) -> VjpCase:
    """``lax.<name>(*operands, *static)`` in both libraries."""
    d, j = getattr(dlax, name), getattr(jlax, name)
    prim = getattr(core_lax, f"{name.rstrip('_')}_p")
    return VjpCase(
        prim,
        lambda *xs: d(*xs, *static),
        lambda *xs: j(*xs, *static),
        shapes,
        lo,
        hi,
        nonzero,
        variant,
        zero,
    )


M: Final = (2, 3)
PRED: Final = np.array([[True, False, True], [False, False, True]])
I32: Final = np.int32

VJP_CASES: Final[tuple[VjpCase, ...]] = (
    # Element-wise.
    vcase("add", M, M),
    vcase("sub", M, M),
    vcase("mul", M, M),
    vcase("div", M, M, nonzero=True),
    vcase("rem", M, M, nonzero=True, hi=3.0),
    vcase("pow", M, M, lo=0.5, hi=2.0),
    vcase("max", M, M),
    vcase("min", M, M),
    vcase("integer_pow", M, static=(3,), variant="cube"),
    vcase("integer_pow", M, static=(-2,), nonzero=True, variant="negative"),
    vcase("neg", M),
    vcase("abs", M, nonzero=True),
    vcase("exp", M),
    vcase("log", M, lo=0.1, hi=3.0),
    vcase("log1p", M, lo=-0.5, hi=2.0),
    vcase("expm1", M),
    vcase("sin", M),
    vcase("cos", M),
    vcase("tan", M, lo=-1.2, hi=1.2),
    vcase("tanh", M),
    vcase("logistic", M, lo=-4.0, hi=4.0),
    vcase("sqrt", M, lo=0.1, hi=3.0),
    vcase("rsqrt", M, lo=0.1, hi=3.0),
    vcase("cbrt", M, lo=0.1, hi=3.0),
    vcase("square", M),
    VjpCase(
        core_lax.select_p,
        lambda x, y: dlax.select(PRED, x, y),
        lambda x, y: jlax.select(PRED, x, y),
        (M, M),
    ),
    VjpCase(
        core_lax.convert_element_type_p,
        lambda x: dlax.convert_element_type(x, np.float32),
        lambda x: jlax.convert_element_type(x, np.float32),
        (M,),
        variant="to_float32",
    ),
    VjpCase(
        core_lax.convert_element_type_p,
        lambda x: dlax.convert_element_type(x, np.float64),
        lambda x: jlax.convert_element_type(x, np.float64),
        (M,),
        variant="to_float64",
    ),
    # Zero derivatives: piecewise constant, or cut by stop_gradient.
    vcase("sign", M, nonzero=True, zero=True),
    vcase("floor", M, zero=True),
    vcase("ceil", M, zero=True),
    vcase("round", M, static=(0,), zero=True),
    vcase("stop_gradient", M, zero=True),
    # Structural.
    vcase("broadcast_in_dim", (3, 1), static=((2, 3, 4), (1, 2))),
    vcase("broadcast_in_dim", (), static=((2, 3), ()), variant="scalar"),
    vcase("reshape", (2, 3, 2), static=((3, 4),)),
    vcase("reshape", M, static=((6,), (1, 0)), variant="dimensions"),
    vcase("transpose", (2, 3, 4), static=((2, 0, 1),)),
    vcase("squeeze", (2, 1, 3, 1), static=((1, 3),)),
    vcase("expand_dims", M, static=((0, 3),)),
    vcase("slice", (5, 6), static=((1, 0), (4, 6), (2, 3))),
    VjpCase(
        core_lax.dynamic_slice_p,
        lambda x: dlax.dynamic_slice(x, (I32(1), I32(4)), (2, 3)),  # 4 is clamped to 3
        lambda x: jlax.dynamic_slice(x, (1, 4), (2, 3)),
        ((5, 6),),
    ),
    VjpCase(
        core_lax.dynamic_update_slice_p,
        lambda x, u: dlax.dynamic_update_slice(x, u, (I32(2), I32(1))),
        lambda x, u: jlax.dynamic_update_slice(x, u, (2, 1)),
        ((5, 6), (2, 3)),
    ),
    VjpCase(
        core_lax.concatenate_p,
        lambda *xs: dlax.concatenate(xs, 1),
        lambda *xs: jlax.concatenate(xs, 1),
        ((2, 3), (2, 1), (2, 2)),
    ),
    vcase("pad", M, (), static=(((1, 2, 1), (-1, 0, 2)),)),
    vcase("rev", (3, 4), static=((0, 1),)),
    # Reductions.
    vcase("reduce_sum", (2, 3, 4), static=((0, 2),)),
    vcase("reduce_max", (2, 3, 4), static=((1,),)),
    vcase("reduce_min", (2, 3, 4), static=((0, 2),)),
    vcase("reduce_prod", (2, 3, 4), static=((2,),)),
    vcase("cumsum", (3, 4), static=(1,)),
    vcase("cumsum", (3, 4), static=(0, True), variant="reverse"),
    # Linear algebra.
    vcase("dot_general", (2, 3), (3, 4), static=((((1,), (0,)), ((), ())),)),
    vcase(
        "dot_general",
        (2, 3, 4),
        (2, 4, 5),
        static=((((2,), (1,)), ((0,), (0,))),),
        variant="batch",
    ),
)

# Standard primitives with no float output to differentiate (their vjp is
# that of a constant), and so no entry in VJP_CASES.
# The cases here take float operands; the complex parts are checked against
# JAX with complex operands in tests/api/test_complex.py (test_vjp_of_complex_parts).
COMPLEX_CASES_ELSEWHERE: Final = set(core_lax.COMPLEX_PARTS)

NOT_DIFFERENTIABLE: Final = {
    *core_lax.COMPARISONS,
    core_lax.and_p,
    core_lax.or_p,
    core_lax.not_p,
    core_lax.iota_p,
    core_lax.argmax_p,
    core_lax.argmin_p,
}


def _cases(dtypes: tuple[DType, ...], keep: Callable[[VjpCase], bool] = lambda c: True) -> Any:
    return [pytest.param(c, d, id=f"{c.id}-{d.name}") for c in VJP_CASES for d in dtypes if keep(c)]


def _cotangent(out: Any, *salt: object) -> Array:
    out = np.asarray(out)
    return np.asarray(_rng("cotangent", *salt).standard_normal(out.shape), out.dtype)


def test_every_differentiable_primitive_has_a_case() -> None:
    covered = {c.prim for c in VJP_CASES}
    missing = [
        p.name
        for p in core_lax.STANDARD_PRIMITIVES
        if p not in covered and p not in NOT_DIFFERENTIABLE and p not in COMPLEX_CASES_ELSEWHERE
    ]
    assert not missing, f"differentiable primitives with no entry in VJP_CASES: {missing}"


@functools.cache
def jax_vjp(c: VjpCase, dtype: DType) -> tuple[Any, Array, tuple[Any, ...]]:
    """JAX's ``(out, ct, cotangents)`` for the case, computed in one compiled call.

    Eager JAX compiles every operation it meets separately, which would
    dominate the run time of this file.
    """
    args = c.args(dtype)
    out = jax.eval_shape(c.oracle, *args)
    ct = np.asarray(_rng("cotangent", c.id, dtype.name).standard_normal(out.shape), out.dtype)

    def vjp(args: Any, ct: Any) -> Any:
        j_out, j_vjp = jax.vjp(c.oracle, *args)
        return j_out, j_vjp(ct)

    j_out, j_cts = jax.jit(vjp)(args, ct)
    return j_out, ct, j_cts


@pytest.mark.parametrize(("c", "dtype"), _cases((F32, F64)))
def test_vjp_matches_jax(c: VjpCase, dtype: DType) -> None:
    args = c.args(dtype)
    j_out, ct, j_cts = jax_vjp(c, dtype)
    out, f_vjp = dx.vjp(c.fun, *args)
    assert_same(out, j_out, "primal: ")
    cts = f_vjp(ct)
    assert isinstance(cts, tuple)
    assert len(cts) == len(args)
    for i, (a, e) in enumerate(zip(cts, j_cts, strict=True)):
        assert_same(a, e, f"cotangent {i}: ")
        if c.zero:
            assert not np.any(np.asarray(a)), "a zero-derivative case has a nonzero cotangent"
    # f_vjp is reusable, and linear: twice the cotangent, twice the answer.
    for i, (a, e) in enumerate(zip(f_vjp(2 * ct), j_cts, strict=True)):
        assert_same(a, 2 * np.asarray(e), f"second call, cotangent {i}: ")


@pytest.mark.parametrize(("c", "dtype"), _cases((F64,), lambda c: not c.zero))
def test_grad_matches_finite_differences(c: VjpCase, dtype: DType) -> None:
    args = c.args(dtype)
    n = len(args)
    w = _cotangent(np.asarray(c.fun(*args), F64), "weights", c.id)

    def loss(*xs: Any) -> Any:
        return dnp.sum(dnp.asarray(c.fun(*xs), F64) * w)

    grads = dx.grad(loss, argnums=tuple(range(n)))(*args)
    assert len(grads) == n
    rng = _rng("direction", c.id)
    v = [rng.standard_normal(x.shape) for x in args]
    # A float32 result (to_float32) keeps too few digits for a small step; it is linear.
    low_precision = np.asarray(c.fun(*args)).dtype == F32
    h, tol = (1e-3, 1e-3) if low_precision else (1e-6, 1e-6)
    plus = loss(*(x + h * d for x, d in zip(args, v, strict=True)))
    minus = loss(*(x - h * d for x, d in zip(args, v, strict=True)))
    fd = (float(np.asarray(plus)) - float(np.asarray(minus))) / (2 * h)
    directional = sum(float(np.sum(np.asarray(g) * d)) for g, d in zip(grads, v, strict=True))
    np.testing.assert_allclose(directional, fd, rtol=tol, atol=tol)


@pytest.mark.parametrize(("c", "dtype"), _cases((F64,)))
def test_staged_vjp_typechecks_and_runs_under_jit(c: VjpCase, dtype: DType) -> None:
    args = c.args(dtype)
    n = len(args)
    _, ct, expected = jax_vjp(c, dtype)

    def pullback(*xs: Any) -> Any:
        return dx.vjp(c.fun, *xs[:n])[1](xs[n])

    eager = pullback(*args, ct)
    closed = dx.make_jaxpr(pullback)(*args, ct)
    typecheck_jaxpr(closed)
    staged = eval_closed_jaxpr(closed, [*args, ct])
    jitted = dx.jit(pullback)(*args, ct)
    for i in range(n):
        assert_same(eager[i], expected[i], f"eager {i}: ")
        assert_same(staged[i], expected[i], f"staged {i}: ")
        assert_same(jitted[i], expected[i], f"jit {i}: ")


def test_vjp_integer_primal_gets_float0_cotangent() -> None:
    out, f_vjp = dx.vjp(lambda x, n: x * n, 2.0, 3)
    j_out, j_vjp = jax.vjp(lambda x, n: x * n, 2.0, 3)
    assert_same(out, j_out)
    (cx, cn), (jcx, jcn) = f_vjp(1.0), j_vjp(1.0)
    assert_same(cx, jcx)
    assert np.asarray(cn).dtype == np.asarray(jcn).dtype == jax.dtypes.float0


# --- Autodidax's compositionality stress test -------------------------------------------


@dataclasses.dataclass(frozen=True)
class Api:
    """One library's transformations and functions, so that a test runs on both."""

    jit: Callable[[Callable[..., Any]], Callable[..., Any]]
    jvp: Any
    grad: Any
    jacfwd: Any
    jacrev: Any
    hessian: Any
    sin: Any
    cos: Any


def _didax_api() -> Api:
    return Api(dx.jit, dx.jvp, dx.grad, dx.jacfwd, dx.jacrev, dx.hessian, dnp.sin, dnp.cos)


JAX: Final = Api(jax.jit, jax.jvp, jax.grad, jax.jacfwd, jax.jacrev, jax.hessian, jnp.sin, jnp.cos)


def nested_calls(api: Api) -> Callable[[Any], Any]:
    """Autodidax's ``foo`` (JAX's core_test.py ``fun_with_nested_calls_2``)."""
    jit, jvp, sin = api.jit, api.jvp, api.sin

    def foo(x: Any) -> Any:
        @jit
        def bar(y: Any) -> Any:
            def baz(w: Any) -> Any:
                q = jit(lambda x: y)(x)
                q = q + jit(lambda: y)()
                q = q + jit(lambda y: w + y)(y)
                q = jit(lambda w: jit(sin)(x) * y)(1.0) + q
                return q

            p, t = jvp(baz, (x + 1.0,), (y,))
            return t + (x * p)

        return bar(x)

    return foo


def jit_calls_jit(api: Api) -> Callable[[Any], Any]:
    """The jitted ``f`` calling a jitted ``g`` that Autodidax's stress test runs on."""

    @api.jit
    def g(x: Any) -> Any:
        return api.cos(x) * 2.0

    @api.jit
    def f(x: Any) -> Any:
        return g(x * 2.0)

    return f


def sin_neg(api: Api) -> Callable[[Any], Any]:
    """Autodidax's first grad example: ``-sin(x) * 2 + x``."""

    def f(x: Any) -> Any:
        y = api.sin(x) * 2.0
        return -y + x

    return f


FUNCTIONS: Final = {"foo": nested_calls, "jit_f_of_jit_g": jit_calls_jit, "sin_neg": sin_neg}

Combination: TypeAlias = Callable[[Api, Callable[[Any], Any]], Any]

# Autodidax's list (ans1-4, deriv1-5, hess1-7), plus hessians by the library's
# own functions and a third derivative; each with the quantity it computes at 3.0.
COMBINATIONS: Final[dict[str, tuple[Combination, str]]] = {
    "f": (lambda a, f: f(3.0), "value"),
    "jit(f)": (lambda a, f: a.jit(f)(3.0), "value"),
    "jvp(f)": (lambda a, f: a.jvp(f, (3.0,), (5.0,)), "jvp"),
    "jvp(jit(f))": (lambda a, f: a.jvp(a.jit(f), (3.0,), (5.0,)), "jvp"),
    "grad(f)": (lambda a, f: a.grad(f)(3.0), "d1"),
    "grad(jit(f))": (lambda a, f: a.grad(a.jit(f))(3.0), "d1"),
    "jit(grad(jit(f)))": (lambda a, f: a.jit(a.grad(a.jit(f)))(3.0), "d1"),
    "jvp(f) unit tangent": (lambda a, f: a.jvp(f, (3.0,), (1.0,))[1], "d1"),
    "jvp(jit(f)) unit tangent": (lambda a, f: a.jvp(a.jit(f), (3.0,), (1.0,))[1], "d1"),
    "grad(grad(f))": (lambda a, f: a.grad(a.grad(f))(3.0), "d2"),
    "grad(grad(jit(f)))": (lambda a, f: a.grad(a.grad(a.jit(f)))(3.0), "d2"),
    "grad(jit(grad(f)))": (lambda a, f: a.grad(a.jit(a.grad(f)))(3.0), "d2"),
    "jit(grad(grad(f)))": (lambda a, f: a.jit(a.grad(a.grad(f)))(3.0), "d2"),
    "jvp(grad(f))": (lambda a, f: a.jvp(a.grad(f), (3.0,), (1.0,))[1], "d2"),
    "jvp(jit(grad(f)))": (lambda a, f: a.jvp(a.jit(a.grad(f)), (3.0,), (1.0,))[1], "d2"),
    "hessian(f)": (lambda a, f: a.hessian(f)(3.0), "d2"),
    "jit(hessian(f))": (lambda a, f: a.jit(a.hessian(f))(3.0), "d2"),
    "jacrev(jacrev(jit(f)))": (lambda a, f: a.jacrev(a.jacrev(a.jit(f)))(3.0), "d2"),
    "jacrev(jacfwd(f))": (lambda a, f: a.jacrev(a.jacfwd(f))(3.0), "d2"),
    "grad(grad(grad(f)))": (lambda a, f: a.grad(a.grad(a.grad(f)))(3.0), "d3"),
}


@functools.cache
def jax_quantities(fname: str) -> dict[str, Any]:
    """JAX's value, jvp and first three derivatives of the function at 3.0, each compiled once.

    Every combination computing one quantity is compared with the same JAX
    answer, which also checks Autodidax's own assertions (all the ways of
    computing a derivative agree).
    """
    f = FUNCTIONS[fname](JAX)
    d1 = jax.grad(f)
    d2 = jax.grad(d1)
    return {
        "value": jax.jit(f)(3.0),
        "jvp": jax.jit(lambda x: jax.jvp(f, (x,), (5.0,)))(3.0),
        "d1": jax.jit(d1)(3.0),
        "d2": jax.jit(d2)(3.0),
        "d3": jax.jit(jax.grad(d2))(3.0),
    }


@pytest.mark.parametrize("combo", COMBINATIONS)
@pytest.mark.parametrize("fname", FUNCTIONS)
def test_compositionality_stress_test(fname: str, combo: str) -> None:
    run, quantity = COMBINATIONS[combo]
    api = _didax_api()
    assert_tree_same(run(api, FUNCTIONS[fname](api)), jax_quantities(fname)[quantity], 1e-10)


# --- grad, value_and_grad, vjp: nestings, pytrees, has_aux ------------------------------

RNG: Final = np.random.default_rng(0)
W1: Final = RNG.normal(size=(4, 3))
B1: Final = RNG.normal(size=3)
XS: Final = RNG.normal(size=(5, 4))
YS: Final = RNG.normal(size=(5, 3))


def loss_dnp(params: dict[str, Any], x: Any, y: Any) -> Any:
    pred = dnp.tanh(x @ params["w"] + params["b"])
    return dnp.sum((pred - y) ** 2)


def loss_jnp(params: dict[str, Any], x: Any, y: Any) -> Any:
    pred = jnp.tanh(x @ params["w"] + params["b"])
    return jnp.sum((pred - y) ** 2)


PARAMS: Final = {"w": W1, "b": B1}


def test_grad_of_pytree_params_matches_jax() -> None:
    assert_tree_same(dx.grad(loss_dnp)(PARAMS, XS, YS), jax.grad(loss_jnp)(PARAMS, XS, YS))


def test_grad_of_jit_and_jit_of_grad_match_jax() -> None:
    expected = jax.grad(loss_jnp)(PARAMS, XS, YS)
    assert_tree_same(dx.grad(dx.jit(loss_dnp))(PARAMS, XS, YS), expected)
    assert_tree_same(dx.jit(dx.grad(loss_dnp))(PARAMS, XS, YS), expected)
    assert_tree_same(dx.jit(dx.grad(dx.jit(loss_dnp)))(PARAMS, XS, YS), expected)


def test_grad_of_grad_of_jit_matches_jax() -> None:
    def f(x: Any) -> Any:
        return dnp.sin(x) * dnp.exp(x) / (1.0 + x * x)

    def jf(x: Any) -> Any:
        return jnp.sin(x) * jnp.exp(x) / (1.0 + x * x)

    d2 = jax.jit(jax.grad(jax.grad(jf)))
    d3 = jax.jit(jax.grad(jax.grad(jax.grad(jf))))
    for x in (0.3, -1.2, 2.5):
        assert_same(dx.grad(dx.grad(dx.jit(f)))(x), d2(x))
        assert_same(dx.grad(dx.grad(dx.grad(dx.jit(f))))(x), d3(x), tol=1e-10)


def test_vmap_of_grad_gives_per_example_gradients() -> None:
    per_example = dx.vmap(dx.grad(loss_dnp), in_axes=(None, 0, 0))(PARAMS, XS, YS)
    expected = jax.vmap(jax.grad(loss_jnp), in_axes=(None, 0, 0))(PARAMS, XS, YS)
    assert_tree_same(per_example, expected)
    # The sum of per-example gradients is the batch gradient.
    batch = dx.grad(loss_dnp)(PARAMS, XS, YS)
    for k in ("w", "b"):
        np.testing.assert_allclose(np.asarray(per_example[k]).sum(0), np.asarray(batch[k]))
    jitted = dx.jit(dx.vmap(dx.grad(loss_dnp), in_axes=(None, 0, 0)))(PARAMS, XS, YS)
    assert_tree_same(jitted, expected)


# Written once against a NumPy-like module, run with didax.numpy and jax.numpy.
LABELS: Final = np.eye(5)[[0, 3, 1]]


def _cross_entropy(np_: Any, x: Any) -> Any:
    logits = x @ np_.ones((4, 5)) * 0.1 + x[:, :1]
    top = np_.max(logits, axis=1, keepdims=True)
    log_z = top + np_.log(np_.sum(np_.exp(logits - top), axis=1, keepdims=True))
    return -np_.sum(LABELS * (logits - log_z)) / 3


NUMPY_LOSSES: Final[dict[str, Callable[[Any, Any], Any]]] = {
    "softmax_cross_entropy": _cross_entropy,
    "relu": lambda np_, x: np_.sum(np_.maximum(x @ x.T, 0.0)),
    "leaky_where": lambda np_, x: np_.sum(np_.where(x > 0, x, 0.1 * x) ** 2),
    "indexing": lambda np_, x: np_.sum(x[0, :2] * x[1:, 2]) + x[2, 3],
    "variance": lambda np_, x: np_.mean((x - np_.mean(x, axis=0)) ** 2),
    "einsum_transpose": lambda np_, x: np_.sum(np_.einsum("ij,kj->ik", x, x) * (x @ x.T)),
    "concat_reshape_cumsum": lambda np_, x: np_.sum(
        np_.cumsum(np_.concatenate([x, np_.sin(x)], axis=1).reshape((4, 6)), axis=0) ** 2
    ),
    "stack_prod": lambda np_, x: np_.sum(np_.prod(np_.stack([x, x * 2.0]), axis=2)),
    "clip_sqrt_power": lambda np_, x: np_.sum(np_.sqrt(np_.clip(x, 0.1, 2.0)) ** 1.5),
    "broadcast_row": lambda np_, x: np_.sum(np_.tanh((x + np_.arange(4.0)) * 2.0)),
    "global_max_min": lambda np_, x: np_.max(x) * np_.min(x),
    "dot_outer": lambda np_, x: np_.dot(x[0], x[1]) + np_.sum(np_.outer(x[0], x[1]) ** 2),
}


@pytest.mark.parametrize("name", NUMPY_LOSSES)
def test_grad_of_numpy_functions_matches_jax(name: str) -> None:
    loss = NUMPY_LOSSES[name]
    x = _rng("numpy loss", name).normal(size=(3, 4))
    expected = jax.jit(jax.value_and_grad(functools.partial(loss, jnp)))(x)
    assert_tree_same(dx.value_and_grad(functools.partial(loss, dnp))(x), expected)
    assert_tree_same(dx.jit(dx.value_and_grad(functools.partial(loss, dnp)))(x), expected)


def test_grad_of_vmap_matches_jax() -> None:
    def f(w: Any) -> Any:
        return dnp.sum(dx.vmap(lambda x: dnp.tanh(x @ w))(XS))

    def jf(w: Any) -> Any:
        return jnp.sum(jax.vmap(lambda x: jnp.tanh(x @ w))(XS))

    assert_same(dx.grad(f)(W1), jax.grad(jf)(W1))


@pytest.mark.parametrize("argnums", [0, 1, (0,), (0, 2), (2, 0)], ids=str)
def test_value_and_grad_argnums_match_jax(argnums: int | tuple[int, ...]) -> None:
    def f(x: Any, y: Any, z: Any) -> Any:
        return dnp.sum(dnp.sin(x) * y["a"] + z[0] * z[1])

    def jf(x: Any, y: Any, z: Any) -> Any:
        return jnp.sum(jnp.sin(x) * y["a"] + z[0] * z[1])

    args = (RNG.normal(size=3), {"a": RNG.normal(size=3)}, (RNG.normal(size=3), 2.0))
    assert_tree_same(dx.value_and_grad(f, argnums)(*args), jax.value_and_grad(jf, argnums)(*args))
    assert_tree_same(dx.grad(f, argnums)(*args), jax.grad(jf, argnums)(*args))


def test_grad_and_value_and_grad_has_aux_match_jax() -> None:
    def f(x: Any) -> Any:
        y = dnp.sin(x)
        return dnp.sum(y * y), {"y": y, "n": 3}

    def jf(x: Any) -> Any:
        y = jnp.sin(x)
        return jnp.sum(y * y), {"y": y, "n": 3}

    x = RNG.normal(size=4)
    g, aux = dx.grad(f, has_aux=True)(x)
    jg, jaux = jax.grad(jf, has_aux=True)(x)
    assert_same(g, jg)
    assert_same(aux["y"], jaux["y"])
    assert aux["n"] == 3
    (v, aux2), g2 = dx.value_and_grad(f, has_aux=True)(x)
    (jv, jaux2), jg2 = jax.value_and_grad(jf, has_aux=True)(x)
    assert_same(v, jv)
    assert_same(aux2["y"], jaux2["y"])
    assert_same(g2, jg2)


def test_has_aux_returns_values_not_tracers() -> None:
    def f(x: Any) -> Any:
        y = dnp.sin(x)
        return dnp.sum(y * y), y

    x = RNG.normal(size=4)
    expected = np.sin(x)
    _, _, aux = dx.vjp(f, x, has_aux=True)
    assert not isinstance(aux, Tracer), "vjp's aux is a tracer"
    _, aux = dx.grad(f, has_aux=True)(x)
    assert not isinstance(aux, Tracer), "grad's aux is a tracer"
    (_, aux), _ = dx.value_and_grad(f, has_aux=True)(x)
    assert not isinstance(aux, Tracer), "value_and_grad's aux is a tracer"
    # Under jit, aux comes out as a result of the jitted computation.
    g, aux = dx.jit(dx.grad(f, has_aux=True))(x)
    assert_same(g, 2 * np.sin(x) * np.cos(x))
    assert_same(aux, expected)
    assert_same(dx.jit(lambda x: dx.vjp(f, x, has_aux=True)[2])(x), expected)


def test_vjp_pytrees_in_and_out_and_has_aux_match_jax() -> None:
    def f(p: Any, x: Any) -> Any:
        h = dnp.tanh(x @ p["w"] + p["b"])
        return {"h": h, "s": (dnp.sum(h), h[0])}, dnp.mean(h)

    def jf(p: Any, x: Any) -> Any:
        h = jnp.tanh(x @ p["w"] + p["b"])
        return {"h": h, "s": (jnp.sum(h), h[0])}, jnp.mean(h)

    out, f_vjp, aux = dx.vjp(f, PARAMS, XS, has_aux=True)
    j_out, j_vjp, j_aux = jax.vjp(jf, PARAMS, XS, has_aux=True)
    assert_tree_same(out, j_out)
    assert_same(aux, j_aux)
    for salt in range(2):  # f_vjp is reusable
        rng = _rng("pytree cotangent", salt)
        ct = jax.tree_util.tree_map(lambda o, rng=rng: rng.standard_normal(np.shape(o)), j_out)
        assert_tree_same(f_vjp(ct), j_vjp(ct))


def test_vjp_under_jit_and_of_jit_match_jax() -> None:
    x = RNG.normal(size=(3, 4))
    ct = RNG.normal(size=4)

    def f(x: Any) -> Any:
        return dnp.sum(dnp.sin(x) * x, axis=0)

    def jf(x: Any) -> Any:
        return jnp.sum(jnp.sin(x) * x, axis=0)

    expected = jax.vjp(jf, x)[1](ct)
    assert_tree_same(dx.vjp(dx.jit(f), x)[1](ct), expected)
    assert_tree_same(dx.jit(lambda x, ct: dx.vjp(f, x)[1](ct))(x, ct), expected)
    assert_tree_same(dx.jit(lambda x, ct: dx.vjp(dx.jit(f), x)[1](ct))(x, ct), expected)


def test_grad_of_jit_with_static_argnums() -> None:
    def f(x: Any, n: int) -> Any:
        for _ in range(n):
            x = dnp.sin(x)
        return x

    g = dx.grad(dx.jit(f, static_argnums=1))
    assert_same(g(0.7, 3), jax.grad(jax.jit(lambda x, n: _nsin(x, n), static_argnums=1))(0.7, 3))


def _nsin(x: Any, n: int) -> Any:
    for _ in range(n):
        x = jnp.sin(x)
    return x


def test_grad_keeps_input_dtype_like_jax() -> None:
    for x in (np.float32(1.5), np.ones(3, np.float32), 1.5, np.float64(1.5)):
        assert_same(
            dx.grad(lambda x: dnp.sum(x * 2.0 + dnp.sin(x)))(x),
            jax.grad(lambda x: jnp.sum(x * 2.0 + jnp.sin(x)))(x),
        )


def test_grad_of_constant_function_and_unused_argument_is_zero() -> None:
    assert_same(dx.grad(lambda x: 3.0)(1.0), jax.grad(lambda x: 3.0)(1.0))
    g = dx.grad(lambda x, y: x * 2.0, argnums=(0, 1))(1.0, np.ones(3))
    jg = jax.grad(lambda x, y: x * 2.0, argnums=(0, 1))(1.0, np.ones(3))
    assert_tree_same(g, jg)


def test_nested_grad_has_no_perturbation_confusion() -> None:
    # d/dx [x * d/dy (x + y)] = d/dx [x] = 1; a confused implementation gives 2.
    def f(x: Any) -> Any:
        return x * dx.grad(lambda y: x + y)(1.0)

    assert_same(dx.grad(f)(2.0), 1.0)

    # Closing over the outer tracer: d/dx [d/dy (x * y)] = d/dx [x] = 1.
    def h(x: Any) -> Any:
        return dx.grad(lambda y: x * y)(2.0)

    assert_same(dx.grad(h)(3.0), jax.grad(lambda x: jax.grad(lambda y: x * y)(2.0))(3.0))


def test_jvp_of_grad_and_grad_of_jvp_match_jax() -> None:
    x, t = RNG.normal(size=3), RNG.normal(size=3)

    def f(x: Any) -> Any:
        return dnp.sum(dnp.sin(x) * dnp.exp(x))

    def jf(x: Any) -> Any:
        return jnp.sum(jnp.sin(x) * jnp.exp(x))

    assert_tree_same(dx.jvp(dx.grad(f), (x,), (t,)), jax.jvp(jax.grad(jf), (x,), (t,)))

    def g(x: Any) -> Any:
        return dnp.sum(dx.jvp(f, (x,), (x,))[1])

    def jg(x: Any) -> Any:
        return jnp.sum(jax.jvp(jf, (x,), (x,))[1])

    assert_same(dx.grad(g)(x), jax.grad(jg)(x))


# --- jacrev and hessian ------------------------------------------------------------------


def test_jacrev_matches_jax_and_jacfwd() -> None:
    x = RNG.normal(size=(2, 3))

    def f(x: Any) -> Any:
        return dnp.sin(x) @ dnp.ones((3, 4)) * 2.0

    def jf(x: Any) -> Any:
        return jnp.sin(x) @ jnp.ones((3, 4)) * 2.0

    jac = dx.jacrev(f)(x)
    expected = jax.jit(jax.jacrev(jf))(x)
    assert_same(jac, expected)
    assert_same(jac, dx.jacfwd(f)(x))
    assert_same(dx.jit(dx.jacrev(f))(x), expected)


@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1,)], ids=str)
def test_jacrev_pytrees_and_argnums_match_jax(argnums: int | tuple[int, ...]) -> None:
    def f(p: Any, x: Any) -> Any:
        h = dnp.tanh(x @ p["w"] + p["b"])
        return {"h": h, "s": dnp.sum(h * h)}

    def jf(p: Any, x: Any) -> Any:
        h = jnp.tanh(x @ p["w"] + p["b"])
        return {"h": h, "s": jnp.sum(h * h)}

    x = XS[:2]
    expected = jax.jit(jax.jacrev(jf, argnums))(PARAMS, x)
    assert_tree_same(dx.jacrev(f, argnums)(PARAMS, x), expected)


def test_vmap_of_jacrev_and_jacrev_of_vmap_match_jax() -> None:
    def f(x: Any) -> Any:
        return dnp.sin(x) * dnp.sum(x)

    def jf(x: Any) -> Any:
        return jnp.sin(x) * jnp.sum(x)

    assert_same(dx.vmap(dx.jacrev(f))(XS), jax.jit(jax.vmap(jax.jacrev(jf)))(XS))
    assert_same(dx.jacrev(dx.vmap(f))(XS[:2]), jax.jit(jax.jacrev(jax.vmap(jf)))(XS[:2]))


@pytest.mark.parametrize("argnums", [0, (0, 1), 1], ids=str)
def test_hessian_matches_jax(argnums: int | tuple[int, ...]) -> None:
    def f(x: Any, y: Any) -> Any:
        return dnp.sum(dnp.sin(x) * dnp.exp(y[0]) + x * x * y[1])

    def jf(x: Any, y: Any) -> Any:
        return jnp.sum(jnp.sin(x) * jnp.exp(y[0]) + x * x * y[1])

    x = RNG.normal(size=3)
    y = (RNG.normal(size=3), 0.7)
    expected = jax.jit(jax.hessian(jf, argnums))(x, y)
    assert_tree_same(dx.hessian(f, argnums)(x, y), expected, 1e-10)


def test_hessian_of_jit_and_jit_of_hessian_match_jax() -> None:
    def f(x: Any) -> Any:
        return dnp.sum(dnp.tanh(x @ W1))

    def jf(x: Any) -> Any:
        return jnp.sum(jnp.tanh(x @ W1))

    x = RNG.normal(size=4)
    expected = jax.jit(jax.hessian(jf))(x)
    assert_same(dx.hessian(dx.jit(f))(x), expected, tol=1e-10)
    assert_same(dx.jit(dx.hessian(f))(x), expected, tol=1e-10)
    assert_same(dx.jacrev(dx.jacrev(f))(x), expected, tol=1e-10)


# --- linearize -----------------------------------------------------------------------------


def test_linearize_matches_jax_and_f_jvp_is_reusable() -> None:
    calls = []

    def f(x: Any, p: Any) -> Any:
        calls.append(1)
        return {"y": dnp.sin(x) * p[0], "z": dnp.sum(dnp.exp(x) * p[1])}

    def jf(x: Any, p: Any) -> Any:
        return {"y": jnp.sin(x) * p[0], "z": jnp.sum(jnp.exp(x) * p[1])}

    x, p = RNG.normal(size=3), (RNG.normal(size=3), 0.5)
    out, f_jvp = dx.linearize(f, x, p)
    j_out, j_jvp = jax.linearize(jf, x, p)
    assert_tree_same(out, j_out)
    for salt in range(3):
        rng = _rng("linearize tangents", salt)
        tx, tp = rng.standard_normal(3), (rng.standard_normal(3), float(rng.standard_normal()))
        assert_tree_same(f_jvp(tx, tp), j_jvp(tx, tp))
        assert_tree_same(f_jvp(tx, tp), dx.jvp(f, (x, p), (tx, tp))[1])
    # The primal ran once, in linearize (the jvp checks above ran it three more times).
    assert len(calls) == 1 + 3


def test_linearize_of_jit_matches_jax() -> None:
    def f(x: Any) -> Any:
        return dnp.sin(x) * dnp.cos(x) + x

    def jf(x: Any) -> Any:
        return jnp.sin(x) * jnp.cos(x) + x

    x = RNG.normal(size=5)
    out, f_jvp = dx.linearize(dx.jit(f), x)
    j_out, j_jvp = jax.linearize(jf, x)
    assert_same(out, j_out)
    for t in (np.ones(5), RNG.normal(size=5)):
        assert_same(f_jvp(t), j_jvp(t))
    assert_same(dx.jit(f_jvp)(np.ones(5)), j_jvp(np.ones(5)))


# --- Python control flow on concrete values --------------------------------------------


def test_grad_through_python_control_flow() -> None:
    def f(x: Any) -> Any:
        if x > 0:
            return x * x * x
        return -x

    assert_same(dx.grad(f)(2.0), 12.0)
    assert_same(dx.grad(f)(-2.0), -1.0)

    def g(x: Any) -> Any:
        total = x
        for _ in range(int(x)):  # int() of a grad tracer is concrete
            total = total * x
        return total

    assert_same(dx.grad(g)(3.0), 4 * 3.0**3)  # x ** 4
    assert_same(dx.grad(g)(2.5), 3 * 2.5**2)  # x ** 3
    assert_same(dx.value_and_grad(g)(2.0), (np.float64(8.0), np.float64(12.0)))


def test_grad_of_control_flow_under_jit_is_a_concretization_error() -> None:
    def f(x: Any) -> Any:
        return x * x if x > 0 else -x

    with pytest.raises(errors.ConcretizationTypeError):
        dx.jit(dx.grad(f))(2.0)
    with pytest.raises(errors.ConcretizationTypeError):
        dx.grad(dx.jit(f))(2.0)


# --- complexity: z = a * (z + z) --------------------------------------------------------------


def chain(depth: int) -> Callable[[Any, Any], Any]:
    """Mini-JAX's hard case for reverse mode: every intermediate is used twice."""

    def f(a: Any, z: Any) -> Any:
        for _ in range(depth):
            z = a * (z + z)
        return z

    return f


def count_eqns(jaxpr: Jaxpr) -> int:
    """Equations, counting those inside the jaxprs of higher-order primitives too."""
    total = 0
    for eqn in jaxpr.eqns:
        total += 1
        for p in eqn.params.values():
            if isinstance(p, ClosedJaxpr):
                total += count_eqns(p.jaxpr)
            elif isinstance(p, Jaxpr):
                total += count_eqns(p)
    return total


def test_chain_gradient_is_linear_in_depth_and_exact() -> None:
    a, z0 = 0.505, 1.5
    counts = {}
    for depth in (50, 100, 200):
        closed = dx.make_jaxpr(dx.grad(chain(depth), argnums=(0, 1)))(a, z0)
        typecheck_jaxpr(closed)
        counts[depth] = count_eqns(closed.jaxpr)
        ga, gz = dx.grad(chain(depth), argnums=(0, 1))(a, z0)
        np.testing.assert_allclose(float(np.asarray(gz)), (2 * a) ** depth, rtol=1e-12)
        expected_a = 2 * depth * (2 * a) ** (depth - 1) * z0
        np.testing.assert_allclose(float(np.asarray(ga)), expected_a, rtol=1e-12)
        staged_ga, staged_gz = eval_closed_jaxpr(closed, [a, z0])
        np.testing.assert_allclose(float(np.asarray(staged_ga)), expected_a, rtol=1e-12)
        np.testing.assert_allclose(float(np.asarray(staged_gz)), (2 * a) ** depth, rtol=1e-12)
    assert counts[50] <= 12 * 50, counts
    for small, large in ((50, 100), (100, 200)):
        assert 1.8 <= counts[large] / counts[small] <= 2.2, counts


# --- bad input -------------------------------------------------------------------------------


def test_grad_of_non_scalar_output_names_the_shape() -> None:
    with pytest.raises(TypeError, match=r"\(3,\)"):
        dx.grad(lambda x: x * 2.0)(np.ones(3))
    with pytest.raises(TypeError, match=r"\(2, 3\)"):
        dx.value_and_grad(lambda x: x * 2.0)(np.ones((2, 3)))
    with pytest.raises(TypeError, match="scalar"):
        dx.grad(lambda x: (x, x))(1.0)


def test_grad_with_respect_to_integer_input_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"int64.*float|float.*int64"):
        dx.grad(lambda x: x * 2.0)(3)
    with pytest.raises(TypeError, match=r"int32.*float|float.*int32"):
        dx.grad(lambda x, n: x * n, argnums=1)(2.0, np.int32(3))
    # An integer argument not differentiated is fine.
    assert_same(dx.grad(lambda x, n: x * n)(2.0, 3), 3.0)


def test_grad_of_integer_output_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="int"):
        dx.grad(lambda x: dlax.convert_element_type(x, np.int32))(1.0)


def test_vjp_has_aux_needs_a_pair() -> None:
    with pytest.raises(TypeError, match="pair"):
        dx.vjp(lambda x: x * 2.0, 1.0, has_aux=True)
    with pytest.raises(TypeError, match="pair"):
        dx.vjp(lambda x: (x, x, x), 1.0, has_aux=True)
    with pytest.raises(TypeError):
        dx.grad(lambda x: x * 2.0, has_aux=True)(1.0)


def test_vjp_cotangent_of_wrong_shape_or_structure_raises() -> None:
    _, f_vjp = dx.vjp(lambda x: x * 2.0, np.ones(3))
    with pytest.raises(ValueError, match=r"\(2,\)"):
        f_vjp(np.ones(2))
    _, g_vjp = dx.vjp(lambda x: (x, x), 1.0)
    with pytest.raises(TypeError):
        g_vjp(1.0)


def test_grad_argnums_out_of_range_raises() -> None:
    with pytest.raises(ValueError, match="argnums"):
        dx.grad(lambda x, y: x * y, argnums=2)(1.0, 2.0)


# --- stop_gradient -----------------------------------------------------------------------------


def test_stop_gradient_cuts_its_path() -> None:
    def f(x: Any) -> Any:
        return x * x + dlax.stop_gradient(x * x * x)

    def jf(x: Any) -> Any:
        return x * x + jlax.stop_gradient(x * x * x)

    assert_same(dx.grad(f)(2.0), 4.0)
    assert_same(dx.grad(f)(2.0), jax.grad(jf)(2.0))
    assert_same(dx.grad(dlax.stop_gradient)(2.0), 0.0)
    assert_same(dx.grad(dx.jit(f))(2.0), 4.0)
    assert_same(dx.grad(dx.grad(f))(2.0), 2.0)
    # Only the stopped path is cut: x * stop_gradient(x) has derivative stop_gradient(x).
    assert_same(dx.grad(lambda x: x * dlax.stop_gradient(x))(3.0), 3.0)
