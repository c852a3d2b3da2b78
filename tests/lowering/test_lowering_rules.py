"""The StableHLO lowering of every standard primitive, against didax's own NumPy impl.

``CASES`` holds at least one entry per primitive of ``STANDARD_PRIMITIVES``
(``test_every_primitive_has_a_case`` fails on a gap). Each case runs, for
each dtype it lists, ``jit(fun)(*args)`` (lowered, compiled by XLA, run)
and compares it with eager ``fun(*args)`` (the impl rules, which define the
semantics): same dtype and shape, equal values for integer and bool
results, and close values for floating-point ones (``TOLERANCES``).

Cases named by a ``variant`` are the edge cases: integer division and
remainder of negative operands and by zero, rounding of exact halves,
arg-extrema ties, out-of-range dynamic-slice starts, negative and interior
padding, reversed cumulative sums, batched dot products, reductions over
several axes, zero-size arrays, NaNs, and float-to-integer conversions that
saturate. A case with a ``known_failure`` is a strict xfail: it documents a
bug outside the rules and fails once that is fixed, so that its mark is
removed. (XLA's fast min/max, which drops NaNs, was one: ``xla.compile`` now
passes explicit CompileOptions.)
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Callable
from typing import Any, Final, TypeAlias

import numpy as np
import pytest

from didax import lax as dlax
from didax.api.jit import jit
from didax.core import lax as core_lax
from didax.core.array import Array as DeviceArray
from didax.core.primitive import Primitive
from didax.lowering.mlir import LOWERING_RULES

Array: TypeAlias = np.ndarray[Any, Any]
DType: TypeAlias = np.dtype[Any]
ArgMaker: TypeAlias = Callable[[np.random.Generator, DType], tuple[Array, ...]]

BOOL: Final = np.dtype(np.bool_)
I32: Final = np.dtype(np.int32)
I64: Final = np.dtype(np.int64)
U8: Final = np.dtype(np.uint8)
U32: Final = np.dtype(np.uint32)
U64: Final = np.dtype(np.uint64)
F32: Final = np.dtype(np.float32)
F64: Final = np.dtype(np.float64)

FLOATS: Final = (F32, F64)
SIGNED: Final = (I32, I64, F32, F64)
NUMBERS: Final = (I32, I64, U8, U32, F32, F64)
ALL: Final = (BOOL, I32, I64, U8, U32, F32, F64)
COMPLEX: Final = (np.dtype(np.complex64), np.dtype(np.complex128))
BITWISE: Final = (BOOL, I32, I64, U8, U32)

# Relative tolerances (also used as absolute ones: inputs are of order 1, and
# a result near 0, such as sin(pi), has no meaningful relative error).
# "exact": ops that are correctly rounded in both NumPy and XLA, or that only
# associate differently (sums, products, dot products, cumulative sums,
# repeated squaring for integer_pow): a few ulps (at most 2.5 measured).
# "approx": transcendental functions, which XLA's CPU backend evaluates with
# its own approximations where NumPy calls libm. Measured over 20000 points
# per function (jaxlib 0.10.2, CPU): at most 3 ulps in float32 (expm1, tanh,
# logistic) and in float64 too, except log1p near -1 (120 ulps, 3e-14).
TOLERANCES: Final[dict[str, dict[DType, float]]] = {
    "exact": {F32: 1e-6, F64: 1e-12},
    "approx": {F32: 2e-6, F64: 1e-12},
}


@dataclasses.dataclass(frozen=True)
class Case:
    """One application of a primitive, checked for each of ``dtypes``."""

    prim: Primitive
    fun: Callable[..., Any]  # the didax.lax call on the operands
    args: ArgMaker  # seeded operands of a given dtype
    dtypes: tuple[DType, ...]
    variant: str = ""
    tolerance: str = "exact"
    known_failure: str = ""  # why the case fails today (an xfail, strict)

    @property
    def id(self) -> str:
        return f"{self.prim.name}-{self.variant}" if self.variant else self.prim.name


# --- input generators -----------------------------------------------------------------


def _rand(
    rng: np.random.Generator, shape: tuple[int, ...], dtype: DType, lo: float, hi: float
) -> Array:
    """Values of ``dtype`` in ``[lo, hi]`` (clipped to what the dtype holds)."""
    if dtype == BOOL:
        return np.asarray(rng.random(shape) < 0.5)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        ints = rng.integers(max(int(lo), int(info.min)), min(int(hi), int(info.max)) + 1, shape)
        return np.asarray(ints, dtype)
    if dtype.kind == "c":  # both parts in [lo, hi]
        parts = rng.uniform(lo, hi, (2, *shape))
        return np.asarray(parts[0] + 1j * parts[1], dtype)
    return np.asarray(rng.uniform(lo, hi, shape), dtype)


def operands(*shapes: tuple[int, ...], lo: float = -3.0, hi: float = 3.0) -> ArgMaker:
    """Operands of the given shapes, all of the case's dtype, in ``[lo, hi]``."""

    def make(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
        return tuple(_rand(rng, s, dtype, lo, hi) for s in shapes)

    return make


def nonzero_divisor(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """(x, y) with y's magnitudes at least 1, so that integer quotients vary."""
    x = _rand(rng, (3, 4), dtype, -20, 20)
    y = _rand(rng, (3, 4), dtype, 1, 5)
    if dtype.kind != "u":
        y = np.where(rng.random(y.shape) < 0.5, -y, y).astype(dtype)
    return x, y


def signed_division_table(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """Every sign combination, exact and inexact quotients, zero divisors, INT_MIN / -1."""
    xs = [7, -7, 7, -7, 6, -6, 0, 5, -5, 3]
    ys = [2, 2, -2, -2, 3, -3, 4, 0, 0, 7]
    if dtype.kind == "i":
        xs.append(int(np.iinfo(dtype).min))
        ys.append(-1)
    return np.asarray(xs, dtype), np.asarray(ys, dtype)


def unsigned_division_table(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    top = int(np.iinfo(dtype).max)
    return np.asarray([7, 6, 0, 5, top, top], dtype), np.asarray([2, 3, 4, 0, 0, 2], dtype)


def float_division_table(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """fmod's signs, and division and remainder by zero (inf, nan)."""
    xs = [7.5, -7.5, 7.5, -7.5, 1.0, -1.0, 0.0, 5.25]
    ys = [2.0, 2.0, -2.0, -2.0, 0.0, 0.0, 0.0, 0.5]
    return np.asarray(xs, dtype), np.asarray(ys, dtype)


def halves(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """Exact halves (the ties of rounding) of both signs, other values, and hard cases.

    The hard cases: the float just below 0.5 (``x + 0.5`` rounds up to 1), and
    odd integers at the edge of the mantissa (``x + 0.5`` rounds to even).
    """
    exact = np.arange(-9, 10) / 2
    other = rng.uniform(-4, 4, 8)
    below_half = np.nextafter(dtype.type(0.5), dtype.type(0))
    big = 2.0 ** np.finfo(dtype).nmant
    hard = [below_half, -below_half, big + 1, -(big + 1), big + 3, 0.0, -0.0, np.inf, -np.inf]
    return (np.asarray(np.concatenate([exact, other, hard]), dtype),)


def with_ties(*shapes: tuple[int, ...]) -> ArgMaker:
    """Operands drawn from {0, 1, 2}, so that comparisons and arg-extrema see ties."""

    def make(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
        if dtype == BOOL:
            return tuple(_rand(rng, s, dtype, 0, 1) for s in shapes)
        return tuple(np.asarray(rng.integers(0, 3, size=s), dtype) for s in shapes)

    return make


def extremes(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """Rows made only of the dtype's extreme values (the reductions' identities)."""
    if dtype == BOOL:
        return (np.asarray([[False, False], [True, True], [False, True]]),)
    lo, hi = (np.iinfo(dtype).min, np.iinfo(dtype).max) if dtype.kind in "iu" else (-np.inf, np.inf)
    return (np.asarray([[lo, lo, lo], [hi, hi, hi], [hi, lo, hi]], dtype),)


def with_nans(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """Rows with no NaN, one NaN, two NaNs, and only NaNs (long enough for vector code)."""
    x = rng.uniform(-3, 3, (4, 17))
    x[1, 5] = np.nan
    x[2, 3] = x[2, 11] = np.nan
    x[3] = np.nan
    return (np.asarray(x, dtype),)


def nans_either_side(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """(x, y) with NaNs in x only, in y only, and in both."""
    x, y = rng.uniform(-3, 3, (2, 17))
    x[[1, 4]] = np.nan
    y[[2, 4]] = np.nan
    return np.asarray(x, dtype), np.asarray(y, dtype)


def select_args(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    return (_rand(rng, (2, 3), BOOL, 0, 1), *operands((2, 3), (2, 3))(rng, dtype))


def index(value: int, dtype: DType) -> Array:
    return np.asarray(value, dtype)


def dynamic_slice_starts(*starts: tuple[int, DType]) -> ArgMaker:
    """A (5, 6) operand and the given start indices."""

    def make(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
        return (_rand(rng, (5, 6), dtype, -9, 9), *(index(v, d) for v, d in starts))

    return make


def dynamic_update_starts(*starts: tuple[int, DType]) -> ArgMaker:
    """A (5, 6) operand, a (2, 3) update and the given start indices."""

    def make(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
        x, u = _rand(rng, (5, 6), dtype, -9, 9), _rand(rng, (2, 3), dtype, -9, 9)
        return (x, u, *(index(v, d) for v, d in starts))

    return make


def pad_args(shape: tuple[int, ...]) -> ArgMaker:
    def make(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
        return _rand(rng, shape, dtype, 1, 9), np.asarray(0 if dtype == BOOL else 7, dtype)

    return make


def no_operands(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    return ()


def conversion_source(target: DType) -> ArgMaker:
    """Values every source dtype can hold that ``target`` holds too.

    Fractions of both signs check that floats truncate toward zero, and
    zeros check conversions to bool; ``out_of_range`` checks the rest.
    """

    def make(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
        lo = 0.0 if target.kind in "ub" else -100.0
        hi = 1.0 if target == BOOL and dtype.kind == "f" else 100.0
        x = _rand(rng, (3, 5), dtype, lo, hi if dtype.kind == "f" else min(hi, 127))
        if dtype.kind == "f":
            x.flat[::3] = np.trunc(x.flat[::3]) + np.where(x.flat[::3] < 0, -0.5, 0.5)
        x.flat[::4] = 0
        return (x,)

    return make


def out_of_range(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """Values most integer dtypes cannot hold: floats saturate (NaN to 0), integers wrap."""
    if dtype.kind == "f":
        values = [np.nan, np.inf, -np.inf, 1e10, -1e10, -1.5, -0.5, 0.5, 300.7, -300.7, 2.0**31]
        return (np.asarray(values, dtype),)
    top = int(np.iinfo(dtype).max)
    return (np.asarray([top, top - 1, 300, 256, 255, 2**31 % top, 1, 0], dtype),)


# --- the table ----------------------------------------------------------------------------


def elementwise(
    name: str,
    args: ArgMaker,
    dtypes: tuple[DType, ...],
    *,
    variant: str = "",
    tolerance: str = "exact",
    known_failure: str = "",
    **params: Any,
) -> Case:
    """A case calling ``didax.lax.<name>(*operands, **params)``."""
    fn = getattr(dlax, name)
    prim = getattr(core_lax, f"{name.rstrip('_')}_p")
    return Case(
        prim, lambda *xs: fn(*xs, **params), args, dtypes, variant, tolerance, known_failure
    )


def case(
    prim: Primitive,
    fun: Callable[..., Any],
    args: ArgMaker,
    dtypes: tuple[DType, ...],
    variant: str = "",
    tolerance: str = "exact",
    known_failure: str = "",
) -> Case:
    return Case(prim, fun, args, dtypes, variant, tolerance, known_failure)


P: Final = core_lax

CASES: Final[list[Case]] = [
    # Arithmetic.
    elementwise("add", operands((3, 4), (3, 4), lo=-50, hi=50), NUMBERS),
    elementwise("add", operands((0, 3), (0, 3)), NUMBERS, variant="empty"),
    elementwise("sub", operands((3, 4), (3, 4), lo=-50, hi=50), NUMBERS),
    elementwise("mul", operands((3, 4), (3, 4), lo=-50, hi=50), NUMBERS),
    elementwise("div", nonzero_divisor, NUMBERS),
    elementwise("div", signed_division_table, (I32, I64), variant="signs-and-zero"),
    elementwise("div", unsigned_division_table, (U8, U32), variant="unsigned-and-zero"),
    elementwise("div", float_division_table, FLOATS, variant="by-zero"),
    elementwise("rem", nonzero_divisor, NUMBERS),
    elementwise("rem", signed_division_table, (I32, I64), variant="signs-and-zero"),
    elementwise("rem", unsigned_division_table, (U8, U32), variant="unsigned-and-zero"),
    elementwise("rem", float_division_table, FLOATS, variant="by-zero"),
    elementwise("pow", operands((3, 4), (3, 4), lo=0.1, hi=3), FLOATS, tolerance="approx"),
    elementwise("max", operands((3, 4), (3, 4), lo=-50, hi=50), ALL),
    elementwise("min", operands((3, 4), (3, 4), lo=-50, hi=50), ALL),
    *(elementwise(n, nans_either_side, FLOATS, variant="nan") for n in ("max", "min")),
    *(
        elementwise("integer_pow", operands((3, 4), lo=-3, hi=3), NUMBERS, y=y, variant=f"y={y}")
        for y in (0, 1, 2, 3, 5, 12)
    ),
    *(
        elementwise("integer_pow", operands((3, 4), lo=0.5, hi=2), FLOATS, y=y, variant=f"y={y}")
        for y in (-1, -2, -7)
    ),
    elementwise("neg", operands((3, 4), lo=-50, hi=50), NUMBERS),
    # Complex numbers' parts (more in tests/api/test_complex.py).
    elementwise("real", operands((3, 4)), COMPLEX),
    elementwise("imag", operands((3, 4)), COMPLEX),
    elementwise("conj", operands((3, 4)), (*COMPLEX, F32)),
    elementwise("complex", operands((3, 4), (3, 4)), FLOATS),
    elementwise("abs", operands((3, 4)), COMPLEX, variant="complex", tolerance="approx"),
    elementwise("mul", operands((3, 4), (3, 4)), COMPLEX, variant="complex", tolerance="approx"),
    elementwise("sign", operands((3, 4), lo=-2, hi=2), NUMBERS),
    # JAX refuses abs of unsigned integers (tests/api/test_small_dtypes.py).
    elementwise("abs", operands((3, 4), lo=-50, hi=50), (I32, I64, F32, F64)),
    # Floating-point functions, over domains where they are finite.
    elementwise("exp", operands((3, 4), lo=-5, hi=5), FLOATS, tolerance="approx"),
    elementwise("log", operands((3, 4), lo=0.01, hi=20), FLOATS, tolerance="approx"),
    elementwise("log1p", operands((3, 4), lo=-0.9, hi=5), FLOATS, tolerance="approx"),
    elementwise("expm1", operands((3, 4), lo=-3, hi=3), FLOATS, tolerance="approx"),
    elementwise("sin", operands((3, 4), lo=-6, hi=6), FLOATS, tolerance="approx"),
    elementwise("cos", operands((3, 4), lo=-6, hi=6), FLOATS, tolerance="approx"),
    elementwise("tan", operands((3, 4), lo=-1.5, hi=1.5), FLOATS, tolerance="approx"),
    elementwise("tanh", operands((3, 4), lo=-4, hi=4), FLOATS, tolerance="approx"),
    elementwise("logistic", operands((3, 4), lo=-8, hi=8), FLOATS, tolerance="approx"),
    elementwise("sqrt", operands((3, 4), lo=0, hi=9), FLOATS),
    elementwise("rsqrt", operands((3, 4), lo=0.1, hi=9), FLOATS),
    elementwise("cbrt", operands((3, 4), lo=-27, hi=27), FLOATS, tolerance="approx"),
    elementwise("square", operands((3, 4), lo=-50, hi=50), (I32, I64, F32, F64)),
    elementwise("floor", halves, FLOATS),
    elementwise("ceil", halves, FLOATS),
    elementwise("round", halves, FLOATS, variant="away-from-zero"),
    elementwise(
        "round", halves, FLOATS, variant="to-even", rounding_method=core_lax.ROUND_TO_NEAREST_EVEN
    ),
    # Comparisons and logic.
    *(elementwise(n, with_ties((3, 4), (3, 4)), ALL) for n in ("eq", "ne", "lt", "le", "gt", "ge")),
    elementwise("lt", lambda r, d: (*with_nans(r, d), *with_nans(r, d)), FLOATS, variant="nan"),
    elementwise("ne", lambda r, d: (*with_nans(r, d), *with_nans(r, d)), FLOATS, variant="nan"),
    elementwise("and_", operands((3, 4), (3, 4), lo=0, hi=255), BITWISE),
    elementwise("or_", operands((3, 4), (3, 4), lo=0, hi=255), BITWISE),
    elementwise("not_", operands((3, 4), lo=-100, hi=255), BITWISE),
    elementwise("select", select_args, ALL),
    *(
        case(
            P.convert_element_type_p,
            lambda x, t=target: dlax.convert_element_type(x, t),
            conversion_source(target),
            ALL,
            variant=f"to-{target}",
        )
        for target in ALL
    ),
    *(
        case(
            P.convert_element_type_p,
            lambda x, t=target: dlax.convert_element_type(x, t),
            out_of_range,
            (I64, U32, F32, F64),
            variant=f"out-of-range-to-{target}",
        )
        for target in (BOOL, I32, I64, U8, U32)
    ),
    elementwise("stop_gradient", operands((3, 4)), ALL),
    # Structural.
    case(
        P.broadcast_in_dim_p,
        lambda x: dlax.broadcast_in_dim(x, (2, 3, 4), (0, 2)),
        operands((2, 1)),
        ALL,
    ),
    case(
        P.broadcast_in_dim_p,
        lambda x: dlax.broadcast_in_dim(x, (3, 0), ()),
        operands(()),
        ALL,
        variant="scalar-to-empty",
    ),
    case(P.reshape_p, lambda x: dlax.reshape(x, (4, 3, 1)), operands((2, 6)), ALL),
    case(P.reshape_p, lambda x: dlax.reshape(x, (3, 0)), operands((0, 5)), ALL, variant="empty"),
    case(P.transpose_p, lambda x: dlax.transpose(x, (2, 0, 1)), operands((2, 3, 4)), ALL),
    case(P.squeeze_p, lambda x: dlax.squeeze(x, (0, 2)), operands((1, 3, 1, 2)), ALL),
    case(P.expand_dims_p, lambda x: dlax.expand_dims(x, (0, 3)), operands((3, 2)), ALL),
    case(P.slice_p, lambda x: dlax.slice(x, (1, 0), (5, 6), (2, 3)), operands((5, 7)), ALL),
    case(
        P.slice_p, lambda x: dlax.slice(x, (2, 1), (2, 4)), operands((5, 7)), ALL, variant="empty"
    ),
    case(
        P.dynamic_slice_p,
        lambda x, i, j: dlax.dynamic_slice(x, (i, j), (2, 3)),
        dynamic_slice_starts((1, I32), (2, I32)),
        ALL,
    ),
    case(
        P.dynamic_slice_p,
        lambda x, i, j: dlax.dynamic_slice(x, (i, j), (2, 3)),
        dynamic_slice_starts((-4, I64), (9, I32)),
        ALL,
        variant="out-of-range-mixed-dtypes",
    ),
    case(
        P.dynamic_slice_p,
        lambda x, i, j: dlax.dynamic_slice(x, (i, j), (3, 2)),
        dynamic_slice_starts((2**64 - 1, U64), (2**31 - 1, I32)),
        (I32, F64),
        variant="huge-unsigned",
    ),
    case(
        P.dynamic_slice_p,
        lambda x, i, j: dlax.dynamic_slice(x, (i, j), (4, 5)),
        dynamic_slice_starts((2**32 - 1, U32), (7, U32)),
        (I32, F64),
        variant="unsigned-past-the-end",
    ),
    case(
        P.dynamic_slice_p,
        lambda x, i, j: dlax.dynamic_slice(x, (i, j), (0, 6)),
        dynamic_slice_starts((3, I64), (1, I64)),
        (I32, F64),
        variant="empty",
    ),
    case(
        P.dynamic_update_slice_p,
        lambda x, u, i, j: dlax.dynamic_update_slice(x, u, (i, j)),
        dynamic_update_starts((1, I32), (2, I32)),
        ALL,
    ),
    case(
        P.dynamic_update_slice_p,
        lambda x, u, i, j: dlax.dynamic_update_slice(x, u, (i, j)),
        dynamic_update_starts((-2, I32), (100, I64)),
        ALL,
        variant="out-of-range-mixed-dtypes",
    ),
    case(
        P.dynamic_update_slice_p,
        lambda x, u, i, j: dlax.dynamic_update_slice(x, u, (i, j)),
        dynamic_update_starts((2**64 - 2, U64), (5, U8)),
        (I32, F64),
        variant="huge-unsigned",
    ),
    case(
        P.concatenate_p,
        lambda x, y, z: dlax.concatenate((x, y, z), 1),
        operands((2, 3), (2, 0), (2, 1)),
        ALL,
    ),
    case(P.pad_p, lambda x, v: dlax.pad(x, v, ((1, 2, 0), (0, 3, 0))), pad_args((2, 3)), ALL),
    case(
        P.pad_p,
        lambda x, v: dlax.pad(x, v, ((-1, 2, 1), (2, -3, 2))),
        pad_args((3, 4)),
        ALL,
        variant="negative-and-interior",
    ),
    case(
        P.pad_p,
        lambda x, v: dlax.pad(x, v, ((-2, -1, 3), (1, 1, 1))),
        pad_args((2, 0)),
        ALL,
        variant="crop-and-empty",
    ),
    case(P.rev_p, lambda x: dlax.rev(x, (0, 2)), operands((2, 3, 4)), ALL),
    case(P.rev_p, lambda x: dlax.rev(x, ()), operands((2, 3)), ALL, variant="no-axes"),
    *(
        case(P.iota_p, lambda d=d, n=n: dlax.iota(d, n), no_operands, (d,), f"size={n}")
        for d, n in [(BOOL, 2), (I32, 5), (I64, 7), (U8, 6), (U32, 3), (F32, 4), (F64, 5)]
    ),
    case(P.iota_p, lambda: dlax.iota(np.float64, 0), no_operands, (F64,), "empty"),
    # Reductions and scans.
    *(
        case(prim, lambda x, p=prim, a=axes: p.bind(x, axes=a), args, dtypes, f"axes={axes}")
        for prim, dtypes, args in [
            (P.reduce_sum_p, NUMBERS, operands((3, 4, 5), lo=0, hi=9)),
            (P.reduce_prod_p, NUMBERS, operands((3, 4, 5), lo=0.5, hi=2)),
            (P.reduce_max_p, ALL, operands((3, 4, 5), lo=-50, hi=50)),
            (P.reduce_min_p, ALL, operands((3, 4, 5), lo=-50, hi=50)),
        ]
        for axes in [(), (1,), (0, 2), (0, 1, 2)]
    ),
    *(
        case(prim, lambda x, p=prim: p.bind(x, axes=(0,)), operands((0, 3)), NUMBERS, "empty")
        for prim in (P.reduce_sum_p, P.reduce_prod_p)
    ),
    *(
        case(prim, lambda x, p=prim: p.bind(x, axes=(1,)), extremes, ALL, "extremes")
        for prim in (P.reduce_max_p, P.reduce_min_p)
    ),
    *(
        case(
            prim,
            lambda x, p=prim: p.bind(x, axes=(1,)),
            with_nans,
            FLOATS,
            "nan",
        )
        for prim in (P.reduce_max_p, P.reduce_min_p)
    ),
    *(
        case(
            prim,
            lambda x, f=fn, a=axis, t=it: f(x, a, t),
            with_ties((4, 5, 3)),
            ALL,
            f"ties-axis={axis}-{np.dtype(it)}",
        )
        for prim, fn in [(P.argmax_p, dlax.argmax), (P.argmin_p, dlax.argmin)]
        for axis, it in [(0, np.int32), (1, np.int64), (2, np.uint8)]
    ),
    *(
        case(prim, lambda x, f=fn: f(x, 1, np.int32), operands((3, 40), lo=-9, hi=9), ALL)
        for prim, fn in [(P.argmax_p, dlax.argmax), (P.argmin_p, dlax.argmin)]
    ),
    *(
        case(prim, lambda x, f=fn: f(x, 1, np.int32), extremes, ALL, "extremes")
        for prim, fn in [(P.argmax_p, dlax.argmax), (P.argmin_p, dlax.argmin)]
    ),
    *(
        case(prim, lambda x, f=fn: f(x, 1, np.int64), with_nans, FLOATS, "nan")
        for prim, fn in [(P.argmax_p, dlax.argmax), (P.argmin_p, dlax.argmin)]
    ),
    *(
        case(
            P.cumsum_p,
            lambda x, a=axis, r=reverse: dlax.cumsum(x, a, r),
            operands((3, 4, 5), lo=0, hi=9),
            NUMBERS,
            f"axis={axis}-reverse={reverse}",
        )
        for axis in (0, 1, 2)
        for reverse in (False, True)
    ),
    case(P.cumsum_p, lambda x: dlax.cumsum(x, 1), operands((2, 0)), NUMBERS, "empty-axis"),
    case(P.cumsum_p, lambda x: dlax.cumsum(x, 1), operands((0, 3)), NUMBERS, "empty-other-axis"),
    # Linear algebra (integers small enough not to overflow uint8 sums).
    case(
        P.dot_general_p,
        lambda x, y: dlax.dot_general(x, y, (((1,), (0,)), ((), ()))),
        operands((3, 4), (4, 5), lo=0, hi=3),
        NUMBERS,
        "matmul",
    ),
    case(
        P.dot_general_p,
        lambda x, y: dlax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
        operands((2, 3, 4), (2, 4, 5), lo=0, hi=3),
        NUMBERS,
        "batched",
    ),
    case(
        P.dot_general_p,
        lambda x, y: dlax.dot_general(x, y, (((0, 3), (2, 0)), ((2,), (1,)))),
        operands((2, 3, 4, 5), (5, 4, 2, 6), lo=0, hi=3),
        NUMBERS,
        "batch-and-contract-anywhere",
    ),
    case(
        P.dot_general_p,
        lambda x, y: dlax.dot_general(x, y, (((), ()), ((), ()))),
        operands((3,), (2,), lo=0, hi=3),
        NUMBERS,
        "outer",
    ),
    case(
        P.dot_general_p,
        lambda x, y: dlax.dot_general(x, y, (((1,), (0,)), ((), ()))),
        operands((3, 0), (0, 2)),
        NUMBERS,
        "empty-contraction",
    ),
]

PARAMS: Final = [
    pytest.param(
        c,
        d,
        id=f"{c.id}-{d}",
        marks=[pytest.mark.xfail(reason=c.known_failure, strict=True)] if c.known_failure else [],
    )
    for c in CASES
    for d in c.dtypes
]


def _seed(case_id: str, dtype: DType) -> int:
    return zlib.crc32(f"{case_id}-{dtype}".encode())


def assert_same(got: Array, want: Array, tolerance: str) -> None:
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind in "fc":
        # A complex dtype's tolerance is its parts' (XLA's complex products
        # and moduli round differently from NumPy's).
        part = np.dtype(np.float32) if want.dtype == np.complex64 else np.dtype(np.float64)
        tol = TOLERANCES[tolerance][want.dtype if want.dtype.kind == "f" else part]
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


# --- the tests ------------------------------------------------------------------------------


def test_every_primitive_has_a_lowering_rule() -> None:
    missing = [p.name for p in core_lax.STANDARD_PRIMITIVES if p not in LOWERING_RULES]
    assert not missing, f"no lowering rule for {missing}"


def test_every_primitive_has_a_case() -> None:
    covered = {c.prim for c in CASES}
    missing = [p.name for p in core_lax.STANDARD_PRIMITIVES if p not in covered]
    assert not missing, f"no test case for {missing}"


@pytest.mark.parametrize(("case", "dtype"), PARAMS)
def test_jit_matches_eager(case: Case, dtype: DType) -> None:
    rng = np.random.default_rng(_seed(case.id, dtype))
    args = case.args(rng, dtype)
    with np.errstate(all="ignore"):  # division by zero and friends are part of the cases
        want = np.asarray(case.fun(*args))
    result = jit(case.fun)(*args)
    assert isinstance(result, DeviceArray), type(result)  # computed by XLA, not eagerly
    got = np.asarray(result)
    assert_same(got, want, case.tolerance)


def test_lowered_text_names_the_primitives_ops() -> None:
    """A spot check that the rules emit the StableHLO ops one expects."""
    x = np.arange(6.0).reshape(2, 3)
    text = jit(lambda x: dlax.cumsum(dlax.argmax(x, 1, np.int32), 0)).lower(x).as_text()
    assert "stablehlo.reduce" in text
    assert "stablehlo.reduce_window" in text
    assert "stablehlo.iota" in text
