"""Tests of ``didax.numpy`` against NumPy (values and dtypes) and JAX (derivatives).

Functions run eagerly (NumPy arrays in, NumPy arrays out) and are compared
with NumPy 2, values and dtypes. ``check`` also stages each call with
``make_jaxpr``, type-checks the jaxpr, evaluates it and requires the staged
type and value to equal the eager ones; vmapped calls are compared with a
Python loop and jvp with ``jax.jvp``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeAlias

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from tests.slicing import PARTS, in_part

import didax as dx
import didax.numpy as dnp
from didax.errors import ConcretizationTypeError
from didax.interpreters.evaluation import eval_closed_jaxpr
from didax.ir.typecheck import typecheck_jaxpr

Array: TypeAlias = np.ndarray[Any, Any]
Fn: TypeAlias = Callable[..., Any]

F16: Final = np.dtype(np.float16)
F32: Final = np.dtype(np.float32)
F64: Final = np.dtype(np.float64)
I8: Final = np.dtype(np.int8)
I32: Final = np.dtype(np.int32)
I64: Final = np.dtype(np.int64)
U8: Final = np.dtype(np.uint8)
BOOL: Final = np.dtype(np.bool_)


def rand(shape: Sequence[int], dtype: Any = F64, seed: int = 0, positive: bool = False) -> Array:
    """Seeded test data: normals for floats, small integers, random booleans."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        x = rng.standard_normal(tuple(shape))
        return (np.abs(x) + 0.5 if positive else x).astype(dt)
    if dt.kind in "iu":
        lo = 1 if positive or dt.kind == "u" else -5
        return rng.integers(lo, 6, tuple(shape)).astype(dt)
    return rng.random(tuple(shape)) > 0.5


def assert_same(actual: Any, expected: Any, rtol: float | None = None) -> None:
    """Equal dtype, shape and values (exact for integers and booleans)."""
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.dtype == e.dtype, f"dtype {a.dtype} != expected {e.dtype}"
    assert a.shape == e.shape, f"shape {a.shape} != expected {e.shape}"
    if a.dtype.kind == "f":
        tol = (
            rtol
            if rtol is not None
            else (1e-3 if a.dtype == F16 else 1e-5 if a.dtype == F32 else 1e-12)
        )
        np.testing.assert_allclose(a, e, rtol=tol, atol=tol, equal_nan=True)
    else:
        np.testing.assert_array_equal(a, e)


def staged(f: Fn, *args: Any) -> Any:
    """``f(*args)`` staged with make_jaxpr, type-checked and evaluated; its type must match."""
    closed = dx.make_jaxpr(f)(*args)
    typecheck_jaxpr(closed)
    (out,) = eval_closed_jaxpr(closed, list(args))
    (aval,) = closed.out_avals
    out = np.asarray(out)
    assert (aval.shape, aval.dtype) == (out.shape, out.dtype), (aval, out.dtype)
    return out


def check(f: Fn, expected: Any, *args: Any, rtol: float | None = None) -> None:
    """``f(*args)`` equals ``expected`` eagerly and staged."""
    assert_same(f(*args), expected, rtol)
    assert_same(staged(f, *args), expected, rtol)


def check_vmap(f: Fn, *args: Any, in_axes: Any = 0) -> None:
    """vmap of ``f`` equals a Python loop over the mapped axis, eagerly and staged."""
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    size = next(np.shape(a)[ax] for a, ax in zip(args, axes, strict=True) if ax is not None)
    rows = [
        f(*(a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, axes, strict=True)))
        for i in range(size)
    ]
    expected = np.stack([np.asarray(r) for r in rows])
    batched = dx.vmap(f, in_axes=in_axes)
    assert_same(batched(*args), expected)
    assert_same(staged(batched, *args), expected)


def check_jvp(f: Fn, jf: Fn, primals: Sequence[Array], seed: int = 1) -> None:
    """didax.jvp of ``f`` equals jax.jvp of ``jf`` (float64 primals, random tangents)."""
    tangents = tuple(rand(np.shape(p), F64, seed=seed + i) for i, p in enumerate(primals))
    out, t_out = dx.jvp(f, tuple(primals), tangents)
    j_out, j_t_out = jax.jvp(
        jf, tuple(jnp.asarray(p) for p in primals), tuple(map(jnp.asarray, tangents))
    )
    assert_same(out, np.asarray(j_out), rtol=1e-10)
    assert_same(t_out, np.asarray(j_t_out), rtol=1e-10)


# --- element-wise binary operations ------------------------------------------------------

# (name, kinds of operands it takes, whether it is tested with jvp)
BINARY: Final = [
    ("add", "biuf", True),
    ("subtract", "iuf", True),
    ("multiply", "biuf", True),
    ("divide", "iuf", True),
    ("true_divide", "iuf", False),
    ("power", "f", True),
    ("maximum", "biuf", True),
    ("minimum", "biuf", True),
    ("greater", "biuf", False),
    ("greater_equal", "biuf", False),
    ("less", "biuf", False),
    ("less_equal", "biuf", False),
    ("equal", "biuf", False),
    ("not_equal", "biuf", False),
    ("logical_and", "biuf", False),
    ("logical_or", "biuf", False),
]
SHAPE_PAIRS: Final = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 4)), ((), (2, 2))]
DTYPE_PAIRS: Final[list[tuple[np.dtype[Any], np.dtype[Any]]]] = [
    (F64, F64),
    (F32, F32),
    (I64, I64),
    (I32, I32),
    (BOOL, BOOL),
    (F32, F64),
    (I32, I64),
    (I8, U8),
    (BOOL, I32),
]


def jax_ref(name: str) -> Fn:
    """jax.numpy's ``name`` on NumPy arguments, its result as NumPy: the oracle for dtypes."""
    jf = getattr(jnp, name)
    return lambda *args, **kwargs: np.asarray(jf(*args, **kwargs))


def in_binary_slice(case: tuple[tuple[Any, Any], tuple[Any, Any]]) -> bool:
    """Every shape pair at float64 and every dtype pair at the shape pair broadcasting both."""
    dtype_pair, shape_pair = case
    return dtype_pair == (F64, F64) or shape_pair == ((2, 1), (1, 4))


# Slice: every promotion and every broadcast of each function; they are decided independently.
@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize(("name", "kinds", "_"), BINARY, ids=[b[0] for b in BINARY])
def test_binary_matches_jax(name: str, kinds: str, _: bool, part: bool) -> None:
    f, ref = getattr(dnp, name), jax_ref(name)
    positive = name in ("divide", "true_divide", "power")
    cases = in_part(itertools.product(DTYPE_PAIRS, SHAPE_PAIRS), in_binary_slice, part)
    for (dx_, dy), (sx, sy) in cases:
        if dx_.kind not in kinds or dy.kind not in kinds:
            continue
        x, y = rand(sx, dx_, seed=1, positive=positive), rand(sy, dy, seed=2, positive=positive)
        check(f, ref(x, y), x, y)
    if part:
        x, y = rand((4, 3), F32, 3, positive), rand((3,), F32, 4, positive)
        check_vmap(f, x, y, in_axes=(0, None))
        check_vmap(f, x, np.stack([y] * 4, axis=1), in_axes=(0, 1))


SCALAR_CASES: Final = [(F32, 2.5), (F32, 3), (I32, 3), (I32, 2.5), (BOOL, 1), (U8, 2), (F16, 2.0)]


# Slice: each array kind with each scalar kind; uint8 and float16 only narrow those promotions.
@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize(("name", "kinds", "_"), BINARY, ids=[b[0] for b in BINARY])
def test_binary_with_python_scalars(name: str, kinds: str, _: bool, part: bool) -> None:
    f, ref = getattr(dnp, name), jax_ref(name)
    positive = name in ("divide", "true_divide", "power")
    for dt, scalar in in_part(SCALAR_CASES, lambda c: c[0] in (F32, I32, BOOL), part):
        if dt.kind not in kinds or (dt.kind not in "f" and kinds == "f"):
            continue
        x = rand((2, 3), dt, seed=5, positive=positive)
        # The Python scalar is weak on either side.
        check(lambda a, s=scalar: f(a, s), ref(x, scalar), x)
        check(lambda a, s=scalar: f(s, a), ref(scalar, x), x)


@pytest.mark.parametrize("name", [b[0] for b in BINARY if b[2]])
def test_binary_jvp_matches_jax(name: str) -> None:
    x, y = rand((2, 3), positive=True, seed=7), rand((3,), positive=True, seed=8)
    check_jvp(getattr(dnp, name), getattr(jnp, name), (x, y))


def test_bool_subtract_and_broadcast_errors() -> None:
    with pytest.raises(TypeError, match="boolean"):
        dnp.subtract(np.array([True]), np.array([False]))
    with pytest.raises(dx.errors.ShapeError, match="add: operands could not be broadcast"):
        dnp.add(np.ones(3), np.ones(4))


# --- dtypes and weak types ---------------------------------------------------


@pytest.mark.parametrize(
    ("x", "y", "expected"),
    [
        (np.ones(2, F32), 2.0, F32),
        (2.0, np.ones(2, F32), F32),
        (np.ones(2, F16), 2.0, F16),
        (np.ones(2, I32), 3, I32),
        (np.ones(2, U8), 3, U8),
        (np.ones(2, I32), 2.5, F64),
        (np.ones(2, BOOL), 1, I64),
        (np.ones(2, BOOL), True, BOOL),
        (np.ones(2, F32), np.float64(1.0), F64),  # NumPy scalars are strong
        (np.ones(2, F32), np.ones(2, F64), F64),
        (np.ones(2, I32), np.ones(2, I64), I64),
        (np.ones(2, I8), np.ones(2, U8), np.dtype(np.int16)),
        (np.ones(2, I32), np.ones(2, F32), F32),  # JAX's lattice (NumPy's table: float64)
        (np.ones(2, U8), np.ones(2, F16), F16),
        (2, 3, I64),
        (2.0, 3, F64),
    ],
)
def test_promotion_dtypes(x: Any, y: Any, expected: np.dtype[Any]) -> None:
    assert np.asarray(dnp.add(x, y)).dtype == expected
    assert np.asarray(dnp.multiply(x, y)).dtype == expected
    # Staged with the arrays as arguments; Python and NumPy scalars stay constants.
    arrays = [a for a in (x, y) if isinstance(a, np.ndarray)]

    def f(*args: Any) -> Any:
        it = iter(args)
        return dnp.add(*(next(it) if isinstance(a, np.ndarray) else a for a in (x, y)))

    assert staged(f, *arrays).dtype == expected


def test_strong_int32_plus_float32_follows_jax() -> None:
    # API.md: promotion is JAX's lattice: float32 here (NumPy's table says float64).
    assert np.asarray(dnp.add(np.ones(2, I32), np.ones(2, F32))).dtype == np.float32
    assert dnp.divide(np.ones(2, I32), 2).dtype == np.float32
    assert dnp.divide(np.ones(2, I64), 2).dtype == np.float64


def test_weak_types_under_staging() -> None:
    # A Python scalar argument is a weak f64 tracer; with weak scalars it stays weak...
    closed = dx.make_jaxpr(lambda x: x * 2.0 + 1)(3.0)
    assert closed.out_avals[0].weak_type
    assert closed.out_avals[0].dtype == F64
    # ... so that a strong float32 decides the dtype later, as in JAX.
    closed = dx.make_jaxpr(lambda x: x * 2.0 + np.float32(1))(3.0)
    assert closed.out_avals[0].dtype == F32
    assert not closed.out_avals[0].weak_type
    typecheck_jaxpr(closed)
    assert str(dx.make_jaxpr(lambda x: 2.0 * x)(3.0)).count("=") == 1
    # A strong argument is never weakened by a Python scalar.
    closed = dx.make_jaxpr(lambda x: x * 2.0)(np.float32(3.0))
    assert not closed.out_avals[0].weak_type
    assert closed.out_avals[0].dtype == F32
    # Under jvp and vmap too.
    _, t = dx.jvp(lambda x: x * 2.0, (np.ones(3, F32),), (np.ones(3, F32),))
    assert t.dtype == F32
    assert dx.vmap(lambda x: dnp.sin(x) * 2)(np.ones(3, F32)).dtype == F32


def test_weak_integer_meets_strong_float() -> None:
    closed = dx.make_jaxpr(lambda i, x: dnp.add(i, x))(2, np.ones(3, F32))
    assert closed.out_avals[0].dtype == F32
    assert str(closed).count("convert_element_type") == 1


# --- element-wise unary operations ---------------------------------------------------------

UNARY_INEXACT: Final = ["exp", "log", "log1p", "sqrt", "sin", "cos", "tan", "tanh"]
UNARY_SAME: Final = ["abs", "negative", "sign", "floor", "ceil", "round"]


@pytest.mark.parametrize("name", [*UNARY_INEXACT, *UNARY_SAME, "logical_not"])
def test_unary_matches_jax(name: str) -> None:
    f, ref = getattr(dnp, name), jax_ref(name)
    positive = name in ("log", "sqrt", "log1p")
    for dt in (F64, F32, I64, I32, BOOL):
        x = rand((2, 3), dt, seed=11, positive=positive)
        if dt == BOOL and name in ("negative", "sign"):
            with pytest.raises(TypeError):
                ref(x)
            with pytest.raises(TypeError):
                f(x)
            continue
        if dt == BOOL and name == "round":
            assert_same(f(x), x)  # JAX refuses; didax keeps booleans, as floor/ceil do
            continue
        # Integers and booleans become floats for the inexact functions (int32 and
        # bool: float32, int64: float64), as in JAX.
        check(f, ref(x), x)
    check_vmap(f, rand((4, 3), F32, seed=12, positive=positive))


@pytest.mark.parametrize("name", [*UNARY_INEXACT, "abs", "negative"])
def test_unary_jvp_matches_jax(name: str) -> None:
    x = rand((2, 3), F64, seed=13, positive=name in ("log", "sqrt", "log1p"))
    check_jvp(getattr(dnp, name), getattr(jnp, name), (x,))


def test_python_scalar_inputs() -> None:
    assert_same(dnp.exp(1), np.exp(1.0))
    assert_same(dnp.sqrt(4.0), np.float64(2.0))
    assert_same(dnp.floor(3), np.asarray(3))
    assert_same(dnp.abs(-2), np.asarray(2))
    assert dx.make_jaxpr(lambda x: dnp.exp(x))(2).out_avals[0].dtype == F64


def test_round_decimals() -> None:
    x = np.array([0.5, 1.5, 2.5, -0.5, 1.2345, -2.675, 123.456])
    for d in (0, 1, 2, -1, -2):
        check(lambda a, d=d: dnp.round(a, d), np.round(x, d), x)
    ints = np.array([1234, -1251, 55, -50], I64)
    check(lambda a: dnp.round(a, -2), np.round(ints, -2), ints)
    check(lambda a: dnp.round(a, 1), np.round(ints, 1), ints)


def test_floor_divide_and_remainder_operators() -> None:
    for dt in (I64, I32, F64, F32):
        x: Any = np.array([-7, 7, -7, 7, 6, -6, 0], dt)
        y: Any = np.array([2, 2, -2, -2, 3, 3, 5], dt)
        check(lambda a, b: a // b, x // y, x, y)
        check(lambda a, b: a % b, x % y, x, y)
        check(lambda a: 7 // a, 7 // y, y)
        check(lambda a: -7 % a, -7 % y, y)
    x = np.array([5, 7, 9], U8)
    check(lambda a: a // 2, x // 2, x)
    check(lambda a: a % 4, x % 4, x)
    check_jvp(lambda a: a % 1.5, lambda a: a % 1.5, (rand((4,), seed=3) * 3,))


def test_power() -> None:
    x = rand((2, 3), seed=21)
    check(lambda a: dnp.power(a, 3), np.power(x, 3), x)
    check(lambda a: dnp.power(a, -2), np.power(x, -2), x)
    check(lambda a: a**2, x**2, x)
    check(lambda a: 2.0**a, 2.0**x, x)
    ints = np.arange(-4, 5, dtype=I32)
    check(lambda a: dnp.power(a, 3), np.power(ints, 3), ints)
    exps = np.array([0, 1, 2, 3, 10, 0, 5, 13, 2], I64)
    check(dnp.power, np.power(ints, exps), ints, exps)  # traced integer exponents
    check(dnp.power, np.power(ints.astype(F32), exps.astype(I8)), ints.astype(F32), exps.astype(I8))
    with pytest.raises(ValueError, match="negative integer powers"):
        dnp.power(ints, -1)
    # x ** 2 is integer_pow: differentiable at negative bases.
    closed = dx.make_jaxpr(lambda a: a**2)(x)
    assert "integer_pow" in str(closed)
    check_jvp(lambda a: a**3, lambda a: a**3, (x,))


def test_where_and_clip() -> None:
    c, x, y = rand((2, 3), BOOL, 1), rand((2, 3), F32, 2), rand((3,), F64, 3)
    check(dnp.where, np.where(c, x, y), c, x, y)
    check(lambda a, b: dnp.where(a, b, 0.0), np.where(c, x, 0.0), c, x)
    ints = rand((2, 3), I32, 4)
    check(lambda i, b: dnp.where(i, b, -1), np.where(ints, x, -1), ints, x)  # nonzero is true
    check(lambda a: dnp.where(a > 0, a, 0), np.where(x > 0, x, 0), x)
    with pytest.raises(ConcretizationTypeError, match="size"):  # one argument: nonzero
        dx.jit(dnp.where)(c)
    check_vmap(lambda a, b: dnp.where(a, b, 1.0), c, x)
    check_jvp(lambda a, b: dnp.where(c, a, b), lambda a, b: jnp.where(c, a, b), (x.astype(F64), y))

    check(lambda a: dnp.clip(a, -0.5, 0.5), np.clip(x, -0.5, 0.5), x)
    check(lambda a: dnp.clip(a, None, 0.0), np.clip(x, None, 0.0), x)
    check(lambda a: dnp.clip(a, min=0.1), np.clip(x, min=0.1), x)
    check(lambda a: dnp.clip(a, 0, 3), np.clip(ints, 0, 3), ints)
    check(lambda a: dnp.clip(a, 0.5, 3), np.clip(ints, 0.5, 3), ints)
    check(lambda a, lo: dnp.clip(a, lo, 1.0), np.clip(x, y, 1.0), x, y)
    check_jvp(lambda a: dnp.clip(a, -0.3, 0.3), lambda a: jnp.clip(a, -0.3, 0.3), (y,))


def test_logical_functions_on_numbers() -> None:
    x, y = np.array([0.0, 1.5, -2.0, 0.0]), np.array([0, 0, 3, 4])
    check(dnp.logical_and, np.logical_and(x, y), x, y)
    check(dnp.logical_or, np.logical_or(x, y), x, y)
    check(dnp.logical_not, np.logical_not(x), x)


# --- reductions --------------------------------------------------------------

AXES: Final = [None, 0, 1, -1, (0, 2), ()]


def in_reduction_slice(case: tuple[np.dtype[Any], Any, bool]) -> bool:
    """Every axis and keepdims at float64, and every dtype at axis (0, 2) with keepdims."""
    dt, axis, keepdims = case
    return dt == F64 or (axis == (0, 2) and keepdims)


# Slice: every dtype and every axis form of each reduction; they are decided independently.
@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean"])
def test_reductions_match_jax(name: str, part: bool) -> None:
    f, ref = getattr(dnp, name), jax_ref(name)
    dts: list[np.dtype[Any]] = [F64, F32, I32, I64, BOOL]
    if name != "mean":
        dts.append(U8)
    cases = itertools.product(dts, AXES, (False, True))
    for dt, axis, keepdims in in_part(cases, in_reduction_slice, part):
        x = rand((2, 3, 4), dt, seed=31)
        check(
            lambda a, ax=axis, k=keepdims: f(a, axis=ax, keepdims=k),
            ref(x, axis=axis, keepdims=keepdims),
            x,
        )
    if part:
        check_vmap(lambda a: f(a, axis=0), rand((4, 2, 3), F32, seed=32))
        check_jvp(
            lambda a: f(a, axis=1),
            lambda a: getattr(jnp, name)(a, axis=1),
            (rand((3, 4), seed=33),),
        )


def test_reduction_dtypes_and_errors() -> None:
    x = rand((3, 4), I32, seed=34)
    assert_same(dnp.sum(x, dtype=dnp.float32), np.sum(x, dtype=np.float32))
    assert_same(dnp.sum(x, axis=0, dtype=np.int32), np.sum(x, axis=0, dtype=np.int32))
    assert_same(dnp.mean(x, axis=1, dtype=np.float32), np.mean(x, axis=1, dtype=np.float32))
    h = rand((5,), F16, seed=35)
    assert_same(dnp.mean(h), np.mean(h))
    assert_same(dnp.sum(3.0), np.sum(3.0))
    with pytest.raises(ValueError, match="zero-size"):
        dnp.max(np.ones((0, 3)), axis=0)
    with pytest.raises(np.exceptions.AxisError):
        dnp.sum(x, axis=2)
    with pytest.raises(ValueError, match="duplicate"):
        dnp.sum(x, axis=(0, -2))


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions(name: str) -> None:
    f, ref = getattr(dnp, name), getattr(np, name)
    for dt in (F64, I32, BOOL):
        x = rand((3, 4, 5), dt, seed=41)
        for axis, keepdims in itertools.product([None, 0, 1, -1], (False, True)):
            check(
                lambda a, ax=axis, k=keepdims: f(a, axis=ax, keepdims=k),
                ref(x, axis=axis, keepdims=keepdims),
                x,
            )
    check_vmap(lambda a: f(a, axis=-1), rand((4, 2, 3), seed=42))
    with pytest.raises(ValueError, match="empty"):
        f(np.ones((2, 0)), axis=1)


def test_cumsum() -> None:
    for dt in (F64, F32, I32, BOOL, U8):
        x = rand((3, 4), dt, seed=51)
        for axis in (None, 0, 1, -1):
            check(lambda a, ax=axis: dnp.cumsum(a, axis=ax), jax_ref("cumsum")(x, axis=axis), x)
    x = rand((3, 4), seed=52)
    check(
        lambda a: dnp.cumsum(a, axis=1, dtype=dnp.float32),
        np.cumsum(x, axis=1, dtype=np.float32),
        x,
    )
    check_vmap(lambda a: dnp.cumsum(a), x)
    check_jvp(lambda a: dnp.cumsum(a, 0), lambda a: jnp.cumsum(a, 0), (x,))


# --- linear algebra ----------------------------------------------------------


def test_dot_all_ranks() -> None:
    shapes = {0: (), 1: (4,), 2: (3, 4), 3: (2, 3, 4)}
    for ra, rb in itertools.product(range(4), range(4)):
        a = rand(shapes[ra], seed=61)
        if rb == 0:
            b = rand((), seed=62)
        elif rb == 1:
            b = rand((4,), seed=62)
        else:
            b = rand((5, 4, 2)[3 - rb :], seed=62)
        if ra == 0 or rb == 0 or a.shape[-1] == b.shape[0 if rb == 1 else -2]:
            check(dnp.dot, np.dot(a, b), a, b)
    ints = rand((3, 4), I32, seed=63)
    check(dnp.dot, np.dot(ints, ints.T), ints, ints.T)
    bools = rand((3, 4), BOOL, seed=64)
    check(dnp.dot, np.dot(bools, bools.T), bools, bools.T)
    small = ints.astype(I8)  # int8 with float32 is float32 in NumPy's and JAX's tables alike
    check(dnp.dot, np.dot(small, rand((4,), F32)), small, rand((4,), F32))
    with pytest.raises(TypeError, match="not aligned"):
        dnp.dot(np.ones((2, 3)), np.ones((2, 3)))
    check_jvp(dnp.dot, jnp.dot, (rand((2, 3, 4), seed=65), rand((5, 4, 2), seed=66)))


@pytest.mark.parametrize(
    ("sa", "sb"),
    [
        ((4,), (4,)),
        ((3, 4), (4,)),
        ((4,), (4, 5)),
        ((3, 4), (4, 5)),
        ((2, 3, 4), (4, 5)),
        ((3, 4), (2, 4, 5)),
        ((4,), (2, 4, 5)),
        ((2, 1, 3, 4), (5, 4, 2)),
        ((2, 3, 4), (2, 4, 5)),
    ],
)
def test_matmul(sa: tuple[int, ...], sb: tuple[int, ...]) -> None:
    a, b = rand(sa, seed=71), rand(sb, seed=72)
    check(dnp.matmul, np.matmul(a, b), a, b)
    check(lambda x, y: x @ y, a @ b, a, b)
    check_jvp(dnp.matmul, jnp.matmul, (a, b))


def test_matmul_mixed_and_errors() -> None:
    a, b = rand((3, 4), F32, seed=73), rand((4, 2), I8, seed=74)
    check(dnp.matmul, np.matmul(a, b), a, b)
    with pytest.raises(ValueError, match="scalars"):
        dnp.matmul(np.ones(3), 2.0)
    with pytest.raises(TypeError, match="core dimension"):
        dnp.matmul(np.ones((2, 3)), np.ones((4, 5)))
    check_vmap(dnp.matmul, rand((5, 3, 4), seed=75), rand((4, 2), seed=76), in_axes=(0, None))
    check_vmap(dnp.matmul, rand((5, 3, 4), seed=75), rand((4, 5, 2), seed=76), in_axes=(0, 1))


@pytest.mark.parametrize(
    ("spec", "sa", "sb"),
    [
        ("ij,jk->ik", (3, 4), (4, 5)),
        ("ij,jk", (3, 4), (4, 5)),
        ("ij,kj->ki", (3, 4), (5, 4)),
        ("bij,bjk->bik", (2, 3, 4), (2, 4, 5)),
        ("bij,bjk->kbi", (2, 3, 4), (2, 4, 5)),
        ("i,i->", (4,), (4,)),
        ("i,j->ij", (3,), (4,)),
        ("ij,j->i", (3, 4), (4,)),
        ("ijk,k->", (2, 3, 4), (4,)),
        ("ij,kl->jl", (3, 4), (5, 6)),
        ("ab,ab->ab", (3, 4), (3, 4)),
        ("ba,ab", (4, 3), (3, 4)),
    ],
)
def test_einsum(spec: str, sa: tuple[int, ...], sb: tuple[int, ...]) -> None:
    a, b = rand(sa, seed=81), rand(sb, seed=82)
    check(lambda x, y: dnp.einsum(spec, x, y), np.einsum(spec, a, b), a, b)
    check_jvp(lambda x, y: dnp.einsum(spec, x, y), lambda x, y: jnp.einsum(spec, x, y), (a, b))


def test_einsum_errors_and_dtypes() -> None:
    with pytest.raises(ValueError, match=r"(?i)size"):
        dnp.einsum("ij,jk", np.ones((2, 3)), np.ones((4, 5)))
    with pytest.raises(ValueError, match="rank"):
        dnp.einsum("ijk,jk", np.ones((2, 3)), np.ones((3, 5)))
    a, b = rand((2, 3), I32, seed=83), rand((3,), I64, seed=84)
    check(lambda p, q: dnp.einsum("ij,j->i", p, q), np.einsum("ij,j->i", a, b), a, b)
    check_vmap(
        lambda p, q: dnp.einsum("ij,j->i", p, q), rand((4, 2, 3), seed=85), rand((4, 3), seed=86)
    )


def test_outer() -> None:
    a, b = rand((3,), seed=91), rand((2, 2), F32, seed=92)
    check(dnp.outer, np.outer(a, b), a, b)
    check_jvp(dnp.outer, jnp.outer, (a, rand((4,), seed=93)))


# --- shapes ------------------------------------------------------------------


def test_shape_functions() -> None:
    x = rand((2, 3, 4), seed=101)
    check(dnp.transpose, np.transpose(x), x)
    check(lambda a: dnp.transpose(a, (1, -1, 0)), np.transpose(x, (1, 2, 0)), x)
    check(lambda a: dnp.swapaxes(a, 0, -1), np.swapaxes(x, 0, -1), x)
    check(lambda a: dnp.moveaxis(a, 0, -1), np.moveaxis(x, 0, -1), x)
    check(lambda a: dnp.moveaxis(a, (0, 1), (2, 0)), np.moveaxis(x, (0, 1), (2, 0)), x)
    check(lambda a: dnp.reshape(a, (4, -1)), np.reshape(x, (4, -1)), x)
    check(lambda a: dnp.reshape(a, 24), np.reshape(x, 24), x)
    check(dnp.ravel, np.ravel(x), x)
    check(lambda a: dnp.broadcast_to(a, (5, 2, 3, 4)), np.broadcast_to(x, (5, 2, 3, 4)), x)
    y = rand((3, 1), seed=102)
    check(lambda a: dnp.broadcast_to(a, (2, 3, 4)), np.broadcast_to(y, (2, 3, 4)), y)
    check(lambda a: dnp.expand_dims(a, -1), np.expand_dims(x, -1), x)
    check(lambda a: dnp.expand_dims(a, (0, 2)), np.expand_dims(x, (0, 2)), x)
    z = rand((1, 3, 1), seed=103)
    check(dnp.squeeze, np.squeeze(z), z)
    check(lambda a: dnp.squeeze(a, -1), np.squeeze(z, -1), z)
    check_vmap(lambda a: dnp.moveaxis(dnp.reshape(a, (4, 3)), 0, 1), x)
    check_jvp(
        lambda a: dnp.swapaxes(dnp.reshape(a, (3, 8)), 0, 1),
        lambda a: jnp.swapaxes(jnp.reshape(a, (3, 8)), 0, 1),
        (x,),
    )
    with pytest.raises(ValueError, match="cannot reshape"):
        dnp.reshape(x, (5, -1))
    with pytest.raises(ValueError, match="size not equal to one"):
        dnp.squeeze(z, 1)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        dnp.broadcast_to(x, (3, 4))
    with pytest.raises(NotImplementedError, match="order"):
        dnp.reshape(x, (24,), order="F")


def test_concatenate_and_stack() -> None:
    a, b, c = rand((2, 3), seed=111), rand((2, 3), F32, seed=112), rand((4, 3), I8, seed=113)
    check(lambda p, q: dnp.concatenate([p, q]), np.concatenate([a, b]), a, b)
    check(lambda p, q: dnp.concatenate([p, q], axis=-1), np.concatenate([a, b], axis=-1), a, b)
    check(lambda p, q: dnp.concatenate((p, q), axis=None), np.concatenate((a, c), axis=None), a, c)
    check(lambda p, q: dnp.concatenate([p, q], axis=0), np.concatenate([b, c], axis=0), b, c)
    for axis in (0, 1, 2, -1):
        check(lambda p, q, ax=axis: dnp.stack([p, q], axis=ax), np.stack([a, b], axis=axis), a, b)
    with pytest.raises(ValueError, match="zero-dimensional"):
        dnp.concatenate([np.float64(1), np.float64(2)])
    with pytest.raises(ValueError, match="same shape"):
        dnp.stack([a, c])
    with pytest.raises(TypeError, match="must match"):  # as JAX
        dnp.concatenate([a, c], axis=1)
    check_vmap(lambda p, q: dnp.stack([p, q], -1), a, b)
    check_jvp(
        lambda p, q: dnp.concatenate([p, dnp.stack([q, q])], 0),
        lambda p, q: jnp.concatenate([p, jnp.stack([q, q])], 0),
        (a, rand((3,), seed=114)),
    )


# --- creation ----------------------------------------------------------------


def test_array_and_asarray() -> None:
    assert_same(dnp.array([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]]))
    assert_same(dnp.asarray([1, 2.5]), np.asarray([1, 2.5]))
    assert_same(dnp.array([1.7, -1.7], dtype=dnp.int32), np.array([1, -1], I32))
    assert_same(dnp.asarray(2.0), np.asarray(2.0))
    assert_same(dnp.array(True), np.array(True))
    assert_same(dnp.array([1, 2], ndmin=3), np.array([1, 2], ndmin=3))
    x = np.arange(3.0)
    assert isinstance(dnp.asarray(x), dx.Array)
    # NumPy data is copied: a later write to x does not reach the Array.
    a = dnp.asarray(x)
    x[0] = 5.0
    assert a[0] == 0.0
    assert dnp.asarray(a) is a
    assert dnp.array(a) is not a
    assert dnp.asarray(np.array([1 + 2j])).dtype == np.complex128
    with pytest.raises(TypeError):
        dnp.asarray(np.array(["a"]))
    # Lists of tracers are stacked, with NEP 50 promotion of the Python scalars.
    y = np.ones(2, F32)
    # As NumPy's array(), Python scalars inside lists are not weak: f32 and [0.0, 1.0] give f64.
    check(lambda t: dnp.array([t, 2 * t, [0.0, 1.0]]), np.array([y, 2 * y, [0.0, 1.0]]), y)
    check(lambda t: dnp.array([t, 2 * t]), np.array([y, 2 * y]), y)
    check(lambda t: dnp.asarray([t[0], 1.5], dtype=float), np.array([1, 1.5]), y)
    check_jvp(
        lambda t: dnp.asarray([[t, 1.0], [2.0, dnp.sin(t)]]),
        lambda t: jnp.asarray([[t, 1.0], [2.0, jnp.sin(t)]]),
        (np.asarray(0.3),),
    )
    check_vmap(lambda t: dnp.array([t, -t]), y)


def test_filled_arrays_stage_small_equations() -> None:
    for f, ref in [
        (lambda: dnp.zeros((2, 3)), np.zeros((2, 3))),
        (lambda: dnp.ones(4, dtype=dnp.int32), np.ones(4, np.int32)),
        (lambda: dnp.full((2, 2), 7), np.full((2, 2), 7)),
        (lambda: dnp.full(3, 1.5, dtype=np.float32), np.full(3, 1.5, np.float32)),
        (lambda: dnp.arange(5), np.arange(5)),
        (lambda: dnp.eye(3), np.eye(3)),
        (lambda: dnp.linspace(0.0, 1.0, 7), np.linspace(0.0, 1.0, 7)),
    ]:
        check(f, ref)
        closed = dx.make_jaxpr(f)()
        assert closed.consts == ()  # built from iota/broadcasts, not a hoisted constant
    fill = np.array([1, 2, 3], U8)
    check(lambda: dnp.full((2, 3), fill), np.full((2, 3), fill))
    x = rand((2, 3), F32, seed=121)
    check(dnp.zeros_like, np.zeros_like(x), x)
    check(dnp.ones_like, np.ones_like(x), x)
    check(lambda a: dnp.zeros_like(a, dtype=int), np.zeros_like(x, dtype=int), x)
    check(lambda a: dnp.ones_like(a, shape=(4,)), np.ones_like(x, shape=(4,)), x)
    check(lambda a: dnp.full((3, 2, 3), a), np.full((3, 2, 3), x), x)
    with pytest.raises(TypeError, match="negative"):  # as JAX
        dnp.zeros((2, -1))


@pytest.mark.parametrize(
    "args",
    [
        (5,),
        (2, 9),
        (2, 11, 3),
        (10, 2, -3),
        (0, 1, 0.1),
        (1.5, -2.5, -0.5),
        (3, 3),
        (5, 2),
        (-3.0,),
    ],
)
def test_arange(args: tuple[Any, ...]) -> None:
    assert_same(dnp.arange(*args), np.arange(*args), rtol=1e-12)
    assert_same(staged(lambda: dnp.arange(*args)), np.arange(*args), rtol=1e-12)


def test_arange_dtypes_and_errors() -> None:
    assert_same(dnp.arange(5, dtype=dnp.float32), np.arange(5, dtype=np.float32))
    assert_same(dnp.arange(0.5, 3, dtype=int), np.arange(0.5, 3, dtype=int))
    assert_same(dnp.arange(np.int32(4)), np.arange(np.int32(4)))
    with pytest.raises(ZeroDivisionError):
        dnp.arange(0, 4, 0)
    with pytest.raises(TypeError, match="concrete"):
        dx.make_jaxpr(lambda n: dnp.arange(n))(3)


def test_linspace() -> None:
    linspace_kwargs: list[dict[str, Any]] = [
        {"num": 5},
        {"num": 5, "endpoint": False},
        {"num": 1},
        {"num": 0},
        {"num": 4, "dtype": int},
        {"num": 3, "dtype": np.float32},
    ]
    for kwargs in linspace_kwargs:
        check(lambda k=kwargs: dnp.linspace(-1.0, 2.0, **k), np.linspace(-1.0, 2.0, **kwargs))
    lo, hi = np.array([0.0, 1.0]), np.array([[1.0, 3.0], [2.0, 5.0]])
    check(lambda a, b: dnp.linspace(a, b, 4), np.linspace(lo, hi, 4), lo, hi)
    check(lambda a, b: dnp.linspace(a, b, 4, axis=-1), np.linspace(lo, hi, 4, axis=-1), lo, hi)
    assert_same(
        dnp.linspace(np.float32(0), np.float32(1), 3), np.linspace(np.float32(0), np.float32(1), 3)
    )
    y, step = dnp.linspace(0, 10, 6, retstep=True)
    ey, estep = np.linspace(0, 10, 6, retstep=True)
    assert_same(y, ey)
    assert_same(step, np.asarray(estep))
    check_jvp(lambda a, b: dnp.linspace(a, b, 5), lambda a, b: jnp.linspace(a, b, 5), (lo, hi[0]))


def test_eye() -> None:
    cases: list[tuple[tuple[int, ...], dict[str, Any]]] = [
        ((3,), {}),
        ((2, 4), {}),
        ((4, 3, 1), {}),
        ((3, 3, -2), {}),
        ((3,), {"dtype": bool}),
        ((2,), {"dtype": dnp.int32}),
    ]
    for args, kwargs in cases:
        check(lambda a=args, k=kwargs: dnp.eye(*a, **k), np.eye(*args, **kwargs))


def test_scalar_types_are_dtypes_and_converters() -> None:
    pairs = [
        (dnp.float32, np.float32),
        (dnp.float64, np.float64),
        (dnp.int32, np.int32),
        (dnp.int64, np.int64),
        (dnp.bool_, np.bool_),
    ]
    for ours, theirs in pairs:
        assert np.dtype(ours) == theirs
        assert ours.dtype == np.dtype(theirs)
        assert np.zeros(2, dtype=ours).dtype == theirs
        assert dnp.zeros(2, dtype=ours).dtype == theirs
        assert np.dtype(theirs) == ours
    assert_same(dnp.float32(1.5), np.asarray(1.5, F32))
    assert_same(dnp.int32(np.array([1.7, -1.7])), np.array([1, -1], I32))
    assert_same(dnp.bool_(np.array([0.0, 2.0])), np.array([False, True]))
    x = rand((3,), seed=131) * 4
    check(lambda a: dnp.int32(a), x.astype(I32), x)
    check(lambda a: dnp.float32(a) * 2.0, x.astype(F32) * 2, x)
    check(lambda a: a.astype(dnp.int64), x.astype(I64), x)
    check(lambda a: dnp.bool_(a), x.astype(bool), x)
    assert repr(dnp.float32) == "didax.numpy.float32"


# --- indexing ----------------------------------------------------------------

INDICES: Final = [
    0,
    -1,
    3,
    slice(1, 3),
    slice(None, None, -1),
    slice(-1, 0, -2),
    slice(5, 1),
    slice(10, 20),
    slice(None, None, 2),
    slice(3, None, -3),
    (1, 2),
    (-1, slice(None), 0),
    (Ellipsis, 1),
    (1, Ellipsis),
    (None,),
    (None, 0),
    (1, None, slice(None), Ellipsis),
    (Ellipsis, None),
    (slice(None), None, slice(1, 4, 2), -2),
    (),
    Ellipsis,
    (np.int32(2), np.array(1)),
    (slice(None, None, -1), slice(None, None, -2), slice(None, None, -3)),
]


@pytest.mark.parametrize("index", INDICES, ids=[repr(i) for i in INDICES])
def test_static_indexing(index: Any) -> None:
    x = rand((4, 5, 6), seed=141)
    check(lambda a: a[index], x[index], x)
    check_vmap(lambda a: a[index], np.stack([x, -x]))
    check_jvp(lambda a: dnp.sin(a)[index], lambda a: jnp.sin(a)[index], (x,))


def test_dynamic_indexing() -> None:
    x = rand((4, 5), seed=151)
    closed = dx.make_jaxpr(lambda a, i: a[i])(x, np.int64(0))
    typecheck_jaxpr(closed)
    assert "dynamic_slice" in str(closed)
    for i in (0, 3, -1, -4):
        assert_same(eval_closed_jaxpr(closed, [x, np.int64(i)])[0], x[i])
    # Mixed with static entries, and an int32 index.
    closed = dx.make_jaxpr(lambda a, i: a[1:, i, None])(x, np.int32(0))
    typecheck_jaxpr(closed)
    for i in (2, -2):
        assert_same(eval_closed_jaxpr(closed, [x, np.int32(i)])[0], x[1:, i, None])
    # Out of range indices are clamped, as in XLA and JAX.
    assert_same(eval_closed_jaxpr(closed, [x, np.int32(9)])[0], x[1:, 4, None])
    # Batched indices (vmap) and differentiation through the indexed operand.
    idx = np.array([0, -1, 2, 3])
    # (A NumPy array cannot be indexed by a tracer: NumPy's own __getitem__ runs.)
    assert_same(staged(lambda a, ii: dx.vmap(lambda i: a[i])(ii), x, idx), x[idx])
    check_vmap(lambda a, i: a[i, 1:], np.stack([x] * 4), idx)
    check_jvp(
        lambda a: dx.vmap(lambda i: dnp.sin(a)[i])(idx),
        lambda a: jax.vmap(lambda i: jnp.sin(a)[i])(idx),
        (x,),
    )


def test_indexing_errors() -> None:
    # What jax.numpy refuses (advanced indexing itself is tests/api/test_indexing.py's).
    def index_under_jaxpr(index: Any) -> None:
        dx.make_jaxpr(lambda a: a[index])(np.ones((3, 4)))

    with pytest.raises(IndexError, match="Too many indices"):
        index_under_jaxpr((0, 0, 0))
    with pytest.raises(IndexError, match="single ellipsis"):
        index_under_jaxpr((Ellipsis, Ellipsis))
    with pytest.raises(TypeError, match="integer or boolean type"):
        index_under_jaxpr(1.0)
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        index_under_jaxpr(slice(0.5, 2))
    with pytest.raises(TypeError, match="non-tuple sequence"):
        index_under_jaxpr([0, 1])
    with pytest.raises(IndexError, match="Slice entries must be static"):
        dx.make_jaxpr(lambda a, i: a[i:])(np.ones(3), np.int64(1))
    with pytest.raises(IndexError, match="boolean indices must be concrete"):
        dx.make_jaxpr(lambda a: a[a > 0])(np.ones(3))
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        index_under_jaxpr(slice(None, None, 0))
    # Static indices out of bounds clamp, as in JAX.
    a = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(dnp.asarray(a)[3], jnp.asarray(a)[3])
    np.testing.assert_array_equal(dnp.asarray(a)[0, -5], jnp.asarray(a)[0, -5])


# --- methods and operators on tracers ----------------------------------------


def test_operators_on_tracers() -> None:
    x, y = rand((2, 3), seed=161), rand((3,), F32, seed=162, positive=True)
    ops: list[tuple[Fn, Fn]] = [
        (lambda a, b: a + b, lambda a, b: a + b),
        (lambda a, b: a - b, lambda a, b: a - b),
        (lambda a, b: a * b, lambda a, b: a * b),
        (lambda a, b: a / b, lambda a, b: a / b),
        (lambda a, b: a // b, lambda a, b: a // b),
        (lambda a, b: a % b, lambda a, b: a % b),
        (lambda a, b: b**a, lambda a, b: b**a),
        (lambda a, b: a @ b, lambda a, b: a @ b),
        (lambda a, b: b @ a.T, lambda a, b: b @ a.T),
        (lambda a, b: a < b, lambda a, b: a < b),
        (lambda a, b: a <= b, lambda a, b: a <= b),
        (lambda a, b: a > b, lambda a, b: a > b),
        (lambda a, b: a >= b, lambda a, b: a >= b),
        (lambda a, b: a == b, lambda a, b: a == b),
        (lambda a, b: a != b, lambda a, b: a != b),
        (lambda a, b: (a > 0) & (b > 1), lambda a, b: (a > 0) & (b > 1)),
        (lambda a, b: (a > 0) | (b > 1), lambda a, b: (a > 0) | (b > 1)),
        (lambda a, b: ~(a > b), lambda a, b: ~(a > b)),
        (lambda a, b: -a + (+b) + abs(a), lambda a, b: -a + (+b) + abs(a)),
        (
            lambda a, b: 2 * a - 1.5 / b + 3 // b + 2 % b,
            lambda a, b: 2 * a - 1.5 / b + 3 // b + 2 % b,
        ),
    ]
    for f, ref in ops:
        check(f, ref(x, y), x, y)
    # A NumPy array on the left defers to the tracer's reflected operator.
    check(lambda a: np.ones(3) + a, np.ones(3) + x, x)
    check(lambda a: np.ones((3, 2)) @ a, np.ones((3, 2)) @ x, x)
    ints = rand((4,), I32, seed=163)
    check(lambda a: (a & 6) | 1, (ints & 6) | 1, ints)
    check(lambda a: 6 & ~a, 6 & ~ints, ints)
    check(lambda a: 7 | a, 7 | ints, ints)
    with pytest.raises(TypeError, match="floating-point"):
        staged(lambda a: a & 1, x)
    with pytest.raises(TypeError, match="floating-point"):
        staged(lambda a: ~a, x)


def test_tracers_stay_unhashable_and_compare_to_other_objects() -> None:
    seen: list[Any] = []

    def f(a: Any) -> Any:
        with pytest.raises(TypeError, match="not hashable"):
            hash(a)
        seen.append(a == None)  # noqa: E711 - the operator itself is under test
        seen.append(a != "text")
        return a

    staged(f, np.ones(2))
    assert seen == [False, True]


def test_methods_on_tracers() -> None:
    x = rand((2, 3, 4), seed=171)
    methods: list[tuple[Fn, Fn]] = [
        (lambda a: a.T, lambda a: a.T),
        (lambda a: a.reshape(6, 4), lambda a: a.reshape(6, 4)),
        (lambda a: a.reshape((4, -1)), lambda a: a.reshape((4, -1))),
        (lambda a: a.reshape(-1), lambda a: a.reshape(-1)),
        (lambda a: a.sum(), lambda a: a.sum()),
        (lambda a: a.sum(axis=1, keepdims=True), lambda a: a.sum(axis=1, keepdims=True)),
        (lambda a: a.mean(0), lambda a: a.mean(0)),
        (lambda a: a.max(axis=(0, 2)), lambda a: a.max(axis=(0, 2))),
        (lambda a: a.min(-1), lambda a: a.min(-1)),
        (lambda a: a.prod(1), lambda a: a.prod(1)),
        (lambda a: a.argmax(1), lambda a: a.argmax(1)),
        (lambda a: a.argmin(), lambda a: a.argmin()),
        (lambda a: a.cumsum(2), lambda a: a.cumsum(2)),
        (lambda a: a.astype(np.float32), lambda a: a.astype(np.float32)),
        (lambda a: a.astype(dnp.int32), lambda a: a.astype(np.int32)),
        (lambda a: a.ravel(), lambda a: a.ravel()),
        (lambda a: a.flatten(), lambda a: a.flatten()),
        (lambda a: a.transpose(), lambda a: a.transpose()),
        (lambda a: a.transpose(1, 0, 2), lambda a: a.transpose(1, 0, 2)),
        (lambda a: a.transpose((2, 0, 1)), lambda a: a.transpose((2, 0, 1))),
        (lambda a: a[:1].squeeze(), lambda a: a[:1].squeeze()),
        (lambda a: a[:, :1].squeeze(1), lambda a: a[:, :1].squeeze(1)),
        (lambda a: a.swapaxes(0, 2), lambda a: a.swapaxes(0, 2)),
        (lambda a: a.clip(-0.5, 0.5), lambda a: a.clip(-0.5, 0.5)),
        (lambda a: a.round(1), lambda a: a.round(1)),
        (lambda a: a[0].dot(a[1].T), lambda a: a[0].dot(a[1].T)),
        (lambda a: dnp.stack(list(a)), lambda a: np.stack(list(a))),
        (
            lambda a: a.shape[0] * a.ndim * a.size * a[0, 0],
            lambda a: a.shape[0] * a.ndim * a.size * a[0, 0],
        ),
    ]
    for f, ref in methods:
        check(f, ref(x), x)
    with pytest.raises(TypeError, match="0-d"):
        staged(lambda a: list(a[0, 0, 0]), x)


def test_composite_under_transformations() -> None:
    x, w = rand((5, 3), seed=181), rand((3, 4), seed=182)

    def layer(a: Any, m: Any) -> Any:
        h = dnp.tanh(a @ m + 1.0)
        return dnp.mean(h**2, axis=-1) - h.max(axis=-1) + dnp.exp(-abs(h[..., ::2])).sum(-1)

    def jlayer(a: Any, m: Any) -> Any:
        h = jnp.tanh(a @ m + 1.0)
        return jnp.mean(h**2, axis=-1) - h.max(axis=-1) + jnp.exp(-abs(h[..., ::2])).sum(-1)

    check(layer, np.asarray(jlayer(x, w)), x, w, rtol=1e-10)
    check_jvp(layer, jlayer, (x, w))
    check_vmap(layer, x, w, in_axes=(0, None))
    # jvp of vmap and vmap of jvp, both against JAX.
    tx = rand((5, 3), seed=183)
    _, t = dx.jvp(lambda a: dx.vmap(lambda r: layer(r, w))(a), (x,), (tx,))
    _, jt = jax.jvp(lambda a: jax.vmap(lambda r: jlayer(r, w))(a), (x,), (tx,))
    assert_same(t, np.asarray(jt), rtol=1e-10)
    t2 = dx.vmap(lambda r, s: dx.jvp(lambda q: layer(q, w), (r,), (s,))[1])(x, tx)
    assert_same(t2, np.asarray(jt), rtol=1e-10)
