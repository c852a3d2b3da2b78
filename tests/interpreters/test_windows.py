"""The windowed reductions (``reduce_window``: sum, max, min and generic), against ``jax.lax``.

A table of windows (ranks 0 to 4; window sizes, strides, explicit and
``'SAME'``/``'SAME_LOWER'``/``'VALID'`` padding, base and window dilations,
empty results) is run through each kind of window: values eagerly and
under ``jit``, ``jvp``, ``vjp``, ``vmap`` and grad of grad wherever JAX
defines them (the generic window has only a jvp; max/min windows with a
window dilation have no vjp), in float32 and float64, each equal to JAX's;
derivatives against finite differences on a subset; flops against XLA's
cost analysis; the lowering's ops against JAX's; the errors.

Each kind's cases are one jitted program in each library, so that compiles
stay few.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, TypeAlias

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from tests.slicing import PARTS, in_part, slice_params

import didax as dx
from didax import lax
from didax.api.flops import cost
from didax.errors import DTypeError, ShapeError

Array: TypeAlias = np.ndarray[Any, Any]
Fn: TypeAlias = Callable[..., Any]
Padding: TypeAlias = str | tuple[tuple[int, int], ...]

F32: Final = np.dtype(np.float32)
F64: Final = np.dtype(np.float64)

# (shape, window_dimensions, window_strides, padding, base_dilation, window_dilation)
Case: TypeAlias = tuple[
    tuple[int, ...],
    tuple[int, ...],
    tuple[int, ...],
    Padding,
    tuple[int, ...] | None,
    tuple[int, ...] | None,
]
CASES: Final[list[Case]] = [
    ((8,), (2,), (2,), "VALID", None, None),
    ((9,), (3,), (1,), ((0, 0),), None, None),
    ((9,), (3,), (2,), ((1, 2),), None, None),
    ((7,), (2,), (1,), ((0, 0),), (2,), None),
    ((7,), (2,), (1,), ((0, 0),), None, (2,)),
    ((10,), (3,), (3,), ((2, 1),), (2,), (2,)),
    ((6,), (1,), (1,), "VALID", None, None),
    ((5,), (5,), (1,), "VALID", None, None),
    ((4,), (6,), (1,), ((1, 1),), None, None),
    ((3,), (4,), (1,), "VALID", None, None),  # no window fits: an empty result
    ((6, 6), (2, 2), (2, 2), "VALID", None, None),
    ((7, 5), (3, 3), (2, 2), "SAME", None, None),
    ((7, 5), (3, 2), (1, 1), ((1, 1), (0, 1)), None, None),
    ((6, 4), (2, 2), (1, 1), ((0, 0), (0, 0)), (2, 1), None),
    ((6, 4), (2, 2), (1, 2), ((0, 0), (0, 0)), None, (2, 1)),
    ((5, 5), (2, 3), (3, 1), ((0, 2), (1, 1)), (1, 2), (2, 1)),
    ((4, 6), (1, 3), (1, 3), "VALID", None, None),
    ((3, 3), (3, 3), (1, 1), ((1, 1), (1, 1)), None, None),
    ((8, 3), (4, 1), (2, 1), "SAME_LOWER", None, None),
    ((5, 7), (2, 2), (2, 3), ((1, 0), (2, 2)), (2, 2), None),
    ((0, 4), (1, 2), (1, 1), "VALID", None, None),
    ((4, 6, 6), (1, 2, 2), (1, 2, 2), "VALID", None, None),
    ((3, 5, 4), (2, 3, 2), (1, 2, 1), "SAME", None, None),
    ((3, 4, 5), (1, 2, 3), (1, 1, 2), ((0, 0), (1, 1), (2, 0)), None, (1, 2, 1)),
    ((2, 5, 5), (2, 2, 2), (1, 1, 1), ((0, 0), (0, 0), (0, 0)), (1, 2, 1), None),
    ((3, 4, 4), (3, 1, 1), (1, 1, 1), ((1, 1), (0, 0), (0, 0)), None, None),
    ((2, 6, 6, 3), (1, 2, 2, 1), (1, 2, 2, 1), "VALID", None, None),
    ((2, 7, 7, 2), (1, 3, 3, 1), (1, 2, 2, 1), "SAME", None, None),
    ((2, 5, 6, 2), (1, 3, 3, 1), (1, 1, 1, 1), ((0, 0), (1, 1), (1, 1), (0, 0)), None, None),
    ((1, 4, 5, 2), (1, 2, 2, 1), (1, 1, 1, 1), "VALID", (1, 2, 2, 1), None),
    ((2, 4, 4, 2), (1, 2, 2, 1), (1, 1, 1, 1), "VALID", None, (1, 2, 2, 1)),
    (
        (2, 3, 5, 1),
        (2, 2, 3, 1),
        (1, 1, 2, 1),
        ((0, 1), (1, 0), (0, 2), (0, 0)),
        (1, 1, 2, 1),
        (1, 2, 1, 1),
    ),
    ((), (), (), (), None, None),
]

KINDS: Final = ("sum", "max", "min", "generic")

# The cases (indices into CASES) that reach each feature of the table: ranks
# 0 to 4, each form of padding ('VALID', 'SAME', 'SAME_LOWER', explicit), base
# and window dilations, both and neither, an empty result and an empty
# operand. The values test runs every case; the jvp, finite-difference and
# flops tests run these in the default run, and the rest in the slow session.
FEATURED: Final = frozenset((0, 3, 4, 5, 9, 11, 18, 20, 23, 26, 31, 32))


def featured(c: Case) -> bool:
    return CASES.index(c) in FEATURED


def init_and_op(kind: str, dtype: np.dtype[Any], ops: Any) -> tuple[Array, Fn]:
    """The init value (of ``dtype``) and the reducer of each kind, from ``ops`` (a ``lax``)."""
    init = {"sum": 0.0, "max": -np.inf, "min": np.inf, "generic": 1.0}[kind]
    op = {"sum": ops.add, "max": ops.max, "min": ops.min, "generic": ops.mul}[kind]
    return np.asarray(init, dtype), op


def window_fn(kind: str, case: Case, dtype: np.dtype[Any], ops: Any) -> Fn:
    """``x -> reduce_window(x, ...)`` of one kind and case, with ``ops`` ``jax.lax`` or didax's."""
    _, dims, strides, padding, base, wdil = case
    init, op = init_and_op(kind, dtype, ops)
    return lambda x: ops.reduce_window(x, init, op, dims, strides, padding, base, wdil)


def data(kind: str, shape: tuple[int, ...], dtype: np.dtype[Any], seed: int = 0) -> Array:
    """Factors near 1 for products; ties among maxima and minima (rounded normals)."""
    rng = np.random.default_rng(seed)
    if kind in ("sum", "generic"):
        return rng.uniform(0.5, 1.5, shape).astype(dtype)
    return np.round(rng.standard_normal(shape), 1).astype(dtype)


def distinct(shape: tuple[int, ...], seed: int = 0) -> Array:
    """Values far apart (no ties), for finite differences through max and min."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) * 0.1 + 0.5).astype(F64)


def has_vjp(kind: str, case: Case) -> bool:
    """JAX's: none for the generic window, none for max/min with a window dilation."""
    wdil = case[5]
    if kind == "generic":
        return False
    return kind == "sum" or wdil is None or all(d == 1 for d in wdil)


def tolerance(dtype: np.dtype[Any]) -> float:
    return 2e-6 if dtype == F32 else 1e-13


def assert_close(got: Any, want: Any, dtype: np.dtype[Any]) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype, (g.dtype, w.dtype)
    assert g.shape == w.shape, (g.shape, w.shape)
    tol = tolerance(dtype)
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def dtype_of(i: int) -> np.dtype[Any]:
    """The dtype of the ``i``-th case of a run: float32 and float64 in turn."""
    return F32 if i % 2 == 0 else F64


Build: TypeAlias = Callable[[Any, Case, np.dtype[Any]], Fn]


def both(
    build: Build, cases: Sequence[Case], offset: int, *args: Sequence[Array]
) -> tuple[Any, Any]:
    """``build(ops, case, dtype)`` per case, run as one jitted program by didax and by JAX.

    Case ``i`` runs in ``dtype_of(i + offset)``; ``build`` makes a function of
    the case's arguments (one from each of ``args``). Returns (didax's
    results, JAX's results), one per case.
    """

    def program(ops: Any) -> Fn:
        fns = [build(ops, c, dtype_of(i + offset)) for i, c in enumerate(cases)]
        return lambda *a: [f(*xs) for f, xs in zip(fns, zip(*a, strict=True), strict=True)]

    mine = dx.jit(program(lax))(*args)
    theirs = jax.jit(program(jax.lax))(*([jnp.asarray(x) for x in a] for a in args))
    return mine, theirs


def inputs(
    kind: str, cases: Sequence[Case], offset: int, seed: int = 0, batch: tuple[int, ...] = ()
) -> list[Array]:
    """Data of each case's operand shape (``batch`` axes in front), in its dtype."""
    return [
        data(kind, (*batch, *c[0]), dtype_of(i + offset), seed + i) for i, c in enumerate(cases)
    ]


def check(mine: Sequence[Any], theirs: Sequence[Any], offset: int) -> None:
    for i, (m, t) in enumerate(zip(mine, theirs, strict=True)):
        for a, b in zip(jax.tree.leaves(m), jax.tree.leaves(t), strict=True):
            assert_close(a, b, dtype_of(i + offset))


# --- values --------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
# Offset 0 alone runs every case, and both dtypes: the default run's slice.
@pytest.mark.parametrize("offset", slice_params([0, 1], lambda o: o == 0, ["f32-f64", "f64-f32"]))
def test_values_match_jax_eagerly_and_under_jit(kind: str, offset: int) -> None:
    # Every case in float32 and in float64 (offsets 0 and 1); eagerly, a third of them.
    xs = inputs(kind, CASES, offset)
    mine, theirs = both(lambda ops, c, d: window_fn(kind, c, d, ops), CASES, offset, *[xs])
    check(mine, theirs, offset)
    for i, (x, c, t) in enumerate(zip(xs, CASES, theirs, strict=True)):
        if i % 3 == offset:
            assert_close(window_fn(kind, c, dtype_of(i + offset), lax)(x), t, dtype_of(i + offset))


def test_case_count_and_shape_tuple() -> None:
    assert len(CASES) >= 30
    for c in CASES:
        args = window_shape(c)
        assert lax.reduce_window_shape_tuple(*args) == jax.lax.reduce_window_shape_tuple(*args)


# --- derivatives -------------------------------------------------------------------------------


@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("kind", KINDS)
def test_jvp_matches_jax(kind: str, part: bool) -> None:
    cases = in_part(CASES, featured, part)
    xs, ts = inputs(kind, cases, 1), inputs("sum", cases, 1, seed=100)

    def build(ops: Any, c: Case, dtype: np.dtype[Any]) -> Fn:
        f = window_fn(kind, c, dtype, ops)
        jvp = dx.jvp if ops is lax else jax.jvp
        return lambda x, t: jvp(f, (x,), (t,))

    check(*both(build, cases, 1, xs, ts), 1)


def vjp_cases(kind: str) -> list[Case]:
    # Not rank 0: JAX's select_and_scatter aborts XLA's CPU compiler there
    # (didax's lowers to the source itself: test_rank_0_max_window_has_a_vjp).
    # Every third case: XLA compiles select_and_scatter slowly.
    return [c for c in CASES if has_vjp(kind, c) and c[0]][::3]


@pytest.mark.parametrize("kind", ["sum", "max", "min"])
def test_vjp_matches_jax(kind: str) -> None:
    cases = vjp_cases(kind)
    xs = inputs(kind, cases, 0)
    cts = [
        data("sum", lax.reduce_window_shape_tuple(*window_shape(c)), dtype_of(i), 200 + i)
        for i, c in enumerate(cases)
    ]

    def build(ops: Any, c: Case, dtype: np.dtype[Any]) -> Fn:
        f = window_fn(kind, c, dtype, ops)
        vjp = dx.vjp if ops is lax else jax.vjp
        return lambda x, ct: vjp(f, x)[1](ct)[0]

    mine, theirs = both(build, cases, 0, xs, cts)
    check(mine, theirs, 0)
    for i in (1, 4):  # eagerly too, float64 and float32
        assert_close(build(lax, cases[i], dtype_of(i))(xs[i], cts[i]), theirs[i], dtype_of(i))


def window_shape(c: Case) -> tuple[Any, ...]:
    """``reduce_window_shape_tuple``'s arguments for a case (string padding resolved by JAX)."""
    shape, dims, strides, padding, base, wdil = c
    if isinstance(padding, str):
        dilated = (
            dims
            if wdil is None
            else tuple(1 + d * (k - 1) for k, d in zip(dims, wdil, strict=True))
        )
        padding = tuple(jax.lax.padtype_to_pads(shape, dilated, strides, padding))
    return shape, dims, strides, padding, base, wdil


def test_rank_0_max_window_has_a_vjp() -> None:
    f = window_fn("max", CASES[-1], F32, lax)
    assert float(dx.jit(dx.grad(lambda x: f(x) * 3.0))(np.float32(2.0))) == 3.0


@pytest.mark.parametrize("kind", ["sum", "max", "min"])
def test_grad_of_grad_matches_jax(kind: str) -> None:
    cases = vjp_cases(kind)[1::2]
    xs, vs = inputs(kind, cases, 1), inputs("sum", cases, 1, seed=300)

    def build(ops: Any, c: Case, dtype: np.dtype[Any]) -> Fn:
        f = window_fn(kind, c, dtype, ops)
        grad = dx.grad if ops is lax else jax.grad

        def total(y: Any) -> Any:
            return y.sum() if ops is lax else jnp.sum(y)

        def inner(x: Any, v: Any) -> Any:
            return total(grad(lambda x: total(f(x) ** 3))(x) * v)

        return lambda x, v: grad(inner)(x, v)

    check(*both(build, cases, 1, xs, vs), 1)


# Finite differences: a part of the table, float64, values without ties.
FD_CASES: Final = [CASES[i] for i in (2, 5, 15, 23, 31)]


@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("kind", KINDS)
def test_jvp_matches_finite_differences(kind: str, part: bool) -> None:
    eps = 1e-6
    for i, c in in_part(enumerate(FD_CASES), lambda ic: featured(ic[1]), part):
        f = window_fn(kind, c, F64, lax)
        x = distinct(c[0], i) if kind in ("max", "min") else data(kind, c[0], F64, i)
        t = data("sum", c[0], F64, 400 + i)
        out, tangent = dx.jvp(f, (x,), (t,))
        with np.errstate(invalid="ignore"):  # windows wholly in the padding: +-inf
            numeric = (np.asarray(f(x + eps * t)) - np.asarray(f(x - eps * t))) / (2 * eps)
        numeric = np.where(np.isfinite(np.asarray(out)), numeric, 0.0)
        np.testing.assert_allclose(np.asarray(tangent), numeric, rtol=1e-6, atol=1e-6)


# --- vmap ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_vmap_matches_jax(kind: str) -> None:
    # Batched along the last axis, so that the batch axis is not in front.
    cases = [c for c in CASES if c[0]][::3]
    xs = [x.reshape(*x.shape[1:], 3) for x in inputs(kind, cases, 0, batch=(3,))]

    def build(ops: Any, c: Case, dtype: np.dtype[Any]) -> Fn:
        vmap = dx.vmap if ops is lax else jax.vmap
        return vmap(window_fn(kind, c, dtype, ops), in_axes=-1)

    check(*both(build, cases, 0, xs), 0)


def test_vmap_of_vjp_matches_jax() -> None:
    cases = [CASES[i] for i in (11, 26)]
    xs = inputs("max", cases, 0, batch=(2,))

    def build(ops: Any, c: Case, dtype: np.dtype[Any]) -> Fn:
        f = window_fn("max", c, dtype, ops)
        vmap, grad = (dx.vmap, dx.grad) if ops is lax else (jax.vmap, jax.grad)
        return vmap(grad(lambda x: (f(x) ** 2).sum()))

    check(*both(build, cases, 0, xs), 0)


def test_vmap_over_tangents_and_cotangents_and_hessian_match_jax() -> None:
    # Only the tangents (cotangents) batched, the operand not: the operand is
    # broadcast along the batch; and jacfwd of jacrev, through the transposes.
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 6)).astype(np.float32)
    ts, cts = rng.standard_normal((3, 5, 6)), rng.standard_normal((3, 5, 3))
    window = ((2, 2), (1, 2), ((0, 1), (1, 0)))

    def run(ops: Any) -> Any:
        vmap, jvp, vjp, jac = (
            (dx.vmap, dx.jvp, dx.vjp, dx.hessian)
            if ops is lax
            else (jax.vmap, jax.jvp, jax.vjp, jax.hessian)
        )
        f = lambda x: ops.reduce_window(x, -np.inf, ops.max, *window)  # noqa: E731
        return (
            vmap(lambda t: jvp(f, (x,), (t,))[1])(ts.astype(np.float32)),
            vmap(lambda ct: vjp(f, x)[1](ct)[0])(cts.astype(np.float32)),
            jac(lambda x: (f(x) ** 3).sum() if ops is lax else jnp.sum(f(x) ** 3))(x),
        )

    for m, t in zip(dx.jit(lambda: run(lax))(), jax.jit(lambda: run(jax.lax))(), strict=True):
        assert_close(m, t, F32)


# --- several operands, pytrees ------------------------------------------------------------


def test_several_operands_as_a_pytree_match_jax() -> None:
    x = data("max", (6, 7), F32, 1)
    idx = np.arange(42, dtype=np.int32).reshape(6, 7)
    init = (np.float32(-np.inf), np.int32(-1))

    def build(ops: Any) -> Fn:
        def reducer(a: Any, b: Any) -> Any:
            pick = ops.ge(a[0], b[0])
            return ops.select(pick, a[0], b[0]), ops.select(pick, a[1], b[1])

        return lambda x, i: ops.reduce_window((x, i), init, reducer, (2, 3), (1, 2), "SAME")

    mine = dx.jit(build(lax))(x, idx)
    theirs = jax.jit(build(jax.lax))(x, idx)
    for m, t in zip(mine, theirs, strict=True):
        np.testing.assert_array_equal(np.asarray(m), np.asarray(t))
    eager = build(lax)(x, idx)
    np.testing.assert_array_equal(np.asarray(eager[1]), np.asarray(theirs[1]))
    batched = dx.vmap(build(lax), in_axes=(0, None))(np.stack([x, -x]), idx)
    np.testing.assert_array_equal(np.asarray(batched[1][0]), np.asarray(theirs[1]))


def test_jvp_of_a_pytree_of_floats_matches_jax() -> None:
    x, y = data("sum", (5, 6), F64, 1), data("max", (5, 6), F64, 2)
    tx, ty = data("sum", (5, 6), F64, 3), data("sum", (5, 6), F64, 4)
    init = {"a": np.float64(0), "b": np.float64(-np.inf)}

    def build(ops: Any) -> Fn:
        def reducer(p: Any, q: Any) -> Any:
            return {"a": p["a"] * q["b"] + q["a"], "b": ops.max(p["b"], q["b"])}

        return lambda t: ops.reduce_window(t, init, reducer, (2, 2), (1, 2), "VALID")

    mine = dx.jvp(build(lax), ({"a": x, "b": y},), ({"a": tx, "b": ty},))
    theirs = jax.jvp(build(jax.lax), ({"a": x, "b": y},), ({"a": tx, "b": ty},))
    for m, t in zip(jax.tree.leaves(mine), jax.tree.leaves(theirs), strict=True):
        assert_close(m, t, F64)


# --- flops, lowering --------------------------------------------------------------------------

FLOPS_CASES: Final = [CASES[i] for i in (0, 5, 12, 15, 23, 26, 31)]


@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("kind", KINDS)
def test_flops_match_xla(kind: str, part: bool) -> None:
    # Lowered, not compiled: XLA's count of the module as written.
    for i, c in in_part(enumerate(FLOPS_CASES), lambda ic: featured(ic[1]), part):
        x = data(kind, c[0], F32, i)
        f = window_fn(kind, c, F32, lax)
        w = data("sum", lax.reduce_window_shape_tuple(*window_shape(c)), F32, i)
        fns: list[Fn] = [lambda x, w, f=f: f(x), lambda x, w, f=f: dx.jvp(f, (x,), (x,))[1]]
        if has_vjp(kind, c):
            fns.append(lambda x, w, f=f: dx.vjp(f, x)[1](w)[0])
        for fn in fns:
            xla = dx.jit(fn).lower(x, w).cost_analysis()
            assert cost(fn)(x, w).flops == int(xla.get("flops", 0.0)), c


def hlo_ops(text: str) -> list[str]:
    """The windowed ops of a StableHLO module, in order."""
    return [
        w.strip('"')
        for line in text.splitlines()
        for w in line.split()
        if w.strip('"') in ("stablehlo.reduce_window", "stablehlo.select_and_scatter")
    ]


@pytest.mark.parametrize("kind", ["sum", "max", "min"])
def test_lowering_has_jaxs_ops(kind: str) -> None:
    c = CASES[28]
    x = data(kind, c[0], F32)
    f, g = window_fn(kind, c, F32, lax), window_fn(kind, c, F32, jax.lax)
    pairs = [
        (f, g),
        (dx.grad(lambda x: f(x).sum()), jax.grad(lambda x: jnp.sum(g(x)))),
        (lambda x: dx.jvp(f, (x,), (x,)), lambda x: jax.jvp(g, (x,), (x,))),
    ]
    for mine, theirs in pairs:
        assert hlo_ops(dx.jit(mine).lower(x).as_text()) == hlo_ops(
            jax.jit(theirs).lower(x).as_text()
        )


def test_monoids_are_recognised_as_jax_does() -> None:
    x = np.ones((4, 4), np.float32)

    def prims(init: Any, op: Fn) -> list[str]:
        jaxpr = dx.make_jaxpr(lambda x: lax.reduce_window(x, init, op, (2, 2), (1, 1), "VALID"))
        return [e.primitive.name for e in jaxpr(x).eqns]

    assert prims(0.0, lax.add) == ["reduce_window_sum"]
    assert prims(-np.inf, lax.max) == ["reduce_window_max"]
    assert prims(np.inf, lax.min) == ["reduce_window_min"]
    assert prims(1.0, lax.add) == ["reduce_window"]  # not the identity: generic
    assert prims(0.0, lambda a, b: a + b) == ["reduce_window"]  # not lax.add itself


# --- errors --------------------------------------------------------------------------------


def test_errors_name_the_primitive() -> None:
    x = np.ones((4, 4), np.float32)
    with pytest.raises(ShapeError, match="wrong number of window_dimensions"):
        lax.reduce_window(x, 0.0, lax.add, (2,), (1,), "VALID")
    with pytest.raises(ShapeError, match="window_strides must have every element be strictly"):
        lax.reduce_window(x, 0.0, lax.add, (2, 2), (0, 1), "VALID")
    with pytest.raises(DTypeError, match="inconsistent dtypes"):
        lax.reduce_window(x, np.float64(1), lax.mul, (2, 2), (1, 1), "VALID")
    with pytest.raises(ValueError, match="same tree structure"):
        lax.reduce_window((x, x), np.float32(1), lax.mul, (2, 2), (1, 1), "VALID")
    with pytest.raises(RuntimeError, match="Unrecognized padding"):
        lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), "FULL")
    with pytest.raises(DTypeError, match="reduce_window_sum"):
        lax.reduce_window(x > 0, False, lax.add, (2, 2), (1, 1), "VALID")
    with pytest.raises(NotImplementedError, match="window dilation"):
        dx.grad(
            lambda x: lax.reduce_window(
                x, -np.inf, lax.max, (2, 2), (1, 1), "VALID", window_dilation=(2, 1)
            ).sum()
        )(x)

    def closes_over_a_tracer(y: Any) -> Any:
        return lax.reduce_window(x, np.float32(1), lambda a, b: a * b * y, (2, 2), (1, 1), "VALID")

    with pytest.raises(NotImplementedError, match="close over"):
        dx.jit(closes_over_a_tracer)(np.float32(2))


def test_the_generic_window_has_no_vjp_as_in_jax() -> None:
    x = np.ones((4,), np.float32)
    f = lambda x: lax.reduce_window(x, np.float32(1), lax.mul, (2,), (1,), "VALID")  # noqa: E731
    with pytest.raises(NotImplementedError, match="reduce_window"):
        dx.grad(lambda x: f(x).sum())(x)


def test_a_batched_init_value_is_refused_as_in_jax() -> None:
    x = np.ones((3, 4), np.float32)
    f = lambda x, i: lax.reduce_window(x, i, lambda a, b: a * b, (2,), (1,), "VALID")  # noqa: E731
    with pytest.raises(NotImplementedError, match="initial values"):
        dx.vmap(f)(x, np.ones(3, np.float32))
