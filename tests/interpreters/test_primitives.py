"""Acceptance tests for every standard primitive, against ``jax.lax`` as the oracle.

``CASES`` holds at least one entry per primitive of ``STANDARD_PRIMITIVES``
(``test_every_primitive_has_a_case`` fails on a gap): the didax call, the
matching ``jax.lax`` call, a seeded input generator, the dtypes it runs
with, and whether the primitive has a (generically nonzero) derivative.
Every case is checked for:

- impl: the eager result equals JAX's, values and dtype;
- typing: ``abstract_eval`` gives the eager result's type, and so does the
  impl rule itself (before the evaluator casts its result);
- staging: the jaxpr typechecks, contains the primitive, and evaluates to
  the eager result;
- eager against jit: eager evaluation's compiled route (one-equation XLA
  programs, as on an accelerator) gives the jitted result bit for bit, and
  its host route (NumPy, a CPU's fast path) gives it to the dtype's
  tolerance;
- jvp (float inputs; every nonempty subset of them differentiated, the rest
  constant): equals ``jax.jvp``; at float64 also central finite differences;
  its jaxpr typechecks and evaluates to the same;
- vmap: equals a Python loop over the batch, for every nonempty subset of
  batched operands, with the batch axis first, last, or alternating between
  operands; its jaxpr typechecks and evaluates to the same.

A few elementwise primitives are also checked at second order (jvp of jvp,
vmap of jvp).
"""

from __future__ import annotations

import dataclasses
import itertools
import warnings
import zlib
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeAlias

import jax
import numpy as np
import pytest
from jax import lax as jlax

import didax
from didax import lax as dlax
from didax.core import lax as core_lax
from didax.core.abstract_eval import abstract_eval
from didax.core.primitive import Primitive
from didax.interpreters.evaluation import (
    IMPL_RULES,
    compiled_route,
    eval_closed_jaxpr,
    eval_jaxpr,
)
from didax.ir.jaxpr import Jaxpr
from didax.ir.typecheck import typecheck_jaxpr

Array: TypeAlias = np.ndarray[Any, Any]
DType: TypeAlias = np.dtype[Any]
ArgMaker: TypeAlias = Callable[[np.random.Generator, DType], tuple[Array, ...]]

F32: Final = np.dtype(np.float32)
F64: Final = np.dtype(np.float64)
I32: Final = np.dtype(np.int32)
I64: Final = np.dtype(np.int64)
BOOL: Final = np.dtype(np.bool_)

FLOATS: Final = (F32, F64)
NUMBERS: Final = (F32, F64, I32, I64)
ALL: Final = (F32, F64, I32, I64, BOOL)
COMPLEX: Final = (np.dtype(np.complex64), np.dtype(np.complex128))
STRUCTURAL: Final = (F32, F64, I32, BOOL)
LOGICAL: Final = (BOOL, I32, I64)

BATCH: Final = 3


@dataclasses.dataclass(frozen=True)
class Case:
    """One application of a primitive: didax's call, JAX's, and its inputs."""

    prim: Primitive
    fun: Callable[..., Any]  # the didax.lax call on the operands
    oracle: Callable[..., Any]  # the same computation in jax.lax
    args: ArgMaker  # seeded operands of a given dtype
    dtypes: tuple[DType, ...]
    differentiable: bool = True  # False: piecewise constant, or no float output
    variant: str = ""
    kinks: bool = False  # inputs sit where the derivative jumps: no finite differences

    @property
    def id(self) -> str:
        return f"{self.prim.name}-{self.variant}" if self.variant else self.prim.name


# --- input generators ---------------------------------------------------------


def _rand(
    rng: np.random.Generator,
    shape: tuple[int, ...],
    dtype: DType,
    lo: float = -3.0,
    hi: float = 3.0,
    *,
    nonzero: bool = False,
) -> Array:
    """Random values of ``dtype`` in ``[lo, hi]``; with ``nonzero``, magnitudes of at least 0.5."""
    if dtype == BOOL:
        return np.asarray(rng.random(shape) < 0.5)
    if dtype.kind in "iu":
        ints = rng.integers(int(lo), int(hi) + 1, size=shape)
        if nonzero:
            ints = np.where(ints == 0, rng.choice([-1, 1], size=shape), ints)
        return np.asarray(ints, dtype)
    if dtype.kind == "c":  # both parts in [lo, hi]
        parts = rng.uniform(lo, hi, size=(2, *shape))
        return np.asarray(parts[0] + 1j * parts[1], dtype)
    if nonzero:
        signs = rng.choice([-1.0, 1.0], size=shape)
        return np.asarray(signs * rng.uniform(0.5, hi, size=shape), dtype)
    return np.asarray(rng.uniform(lo, hi, size=shape), dtype)


def operands(
    *shapes: tuple[int, ...], lo: float = -3.0, hi: float = 3.0, nonzero: Sequence[int] = ()
) -> ArgMaker:
    """Operands of the given shapes, all of the case's dtype."""

    def make(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
        return tuple(
            _rand(rng, s, dtype, lo, hi, nonzero=i in nonzero) for i, s in enumerate(shapes)
        )

    return make


def with_ties(*shapes: tuple[int, ...]) -> ArgMaker:
    """Operands drawn from {-1, 0, 1}, so that comparisons and arg-extrema see ties."""

    def make(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
        if dtype == BOOL:
            return tuple(_rand(rng, s, dtype) for s in shapes)
        return tuple(np.asarray(rng.integers(-1, 2, size=s), dtype) for s in shapes)

    return make


def halves(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """Floats, half of them exact halves (the ties of rounding), and the hard cases of rounding.

    The largest float below 1/2 (``x + 0.5`` rounds up to 1), odd integers
    at the edge of the significand (``x + 0.5`` rounds to even), signed
    zero, infinities and NaN.
    """
    shape = (3, 4)
    exact = rng.integers(-7, 8, size=shape) / 2
    x = np.asarray(np.where(rng.random(shape) < 0.5, exact, rng.uniform(-4, 4, shape)), dtype)
    below_half = np.nextafter(dtype.type(0.5), dtype.type(0))
    odd = dtype.type(2 ** np.finfo(dtype).nmant + 1)
    edges = [below_half, -below_half, odd, -odd, -0.0, np.inf, -np.inf, np.nan]
    x.flat[rng.permutation(x.size)[: len(edges)]] = edges
    return (x,)


def with_zero(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """An operand with exact zeros (conversions to bool, the sign of zero)."""
    x = _rand(rng, (2, 3), dtype)
    x.flat[::4] = 0
    return (x,)


def select_args(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    return (_rand(rng, (2, 3), BOOL), _rand(rng, (2, 3), dtype), _rand(rng, (2, 3), dtype))


def dynamic_slice_args(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    # Indices of two integer dtypes, past the end at times (they are clamped).
    return (
        _rand(rng, (5, 6), dtype),
        np.asarray(rng.integers(0, 6), I32),
        np.asarray(rng.integers(0, 8), I64),
    )


def dynamic_update_slice_args(update_shape: tuple[int, int]) -> ArgMaker:
    def make(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
        return (
            _rand(rng, (5, 6), dtype),
            _rand(rng, update_shape, dtype),
            np.asarray(rng.integers(0, 6), I64),
            np.asarray(rng.integers(0, 8), I32),
        )

    return make


def dynamic_slice_case(sizes: tuple[int, int], variant: str = "") -> Case:
    return Case(
        core_lax.dynamic_slice_p,
        lambda x, i, j: dlax.dynamic_slice(x, (i, j), sizes),
        lambda x, i, j: jlax.dynamic_slice(x, (_idx(i), _idx(j)), sizes),
        dynamic_slice_args,
        STRUCTURAL,
        variant=variant,
    )


def dynamic_update_slice_case(update_shape: tuple[int, int], variant: str = "") -> Case:
    return Case(
        core_lax.dynamic_update_slice_p,
        lambda x, u, i, j: dlax.dynamic_update_slice(x, u, (i, j)),
        lambda x, u, i, j: jlax.dynamic_update_slice(x, u, (_idx(i), _idx(j))),
        dynamic_update_slice_args(update_shape),
        STRUCTURAL,
        variant=variant,
    )


def pow_args(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    return (_rand(rng, (2, 3), dtype, 0.5, 2.0), _rand(rng, (2, 3), dtype, -2.0, 2.0))


def pow_at_zero(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """Zero bases and zero exponents, where the derivative rules avoid ``log(0)`` and ``0 ** -1``.

    Not both at once: there JAX's derivative in the base is ``0 * inf = nan``
    for a float exponent, and didax's is 0 (the derivative of ``x ** 0``).
    """
    x = _rand(rng, (3, 4), dtype, 0.5, 2.0)
    x[0] = 0
    y = np.asarray(np.tile(np.arange(4), (3, 1)), dtype)
    y[0, 0] = 2
    return x, y


def int_division_edges(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """Zero divisors (XLA: ``x / 0`` is -1, ``x % 0`` is x) and the minimum over -1."""
    x = _rand(rng, (3, 4), dtype, -7, 7)
    y = _rand(rng, (3, 4), dtype, -3, 3)
    x[0, :2] = np.iinfo(dtype).min
    y[0, :2] = (-1, 0)
    y[1, 0] = 0
    return x, y


def out_of_range(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """Floats past every integer range, infinities and NaN (conversions to integers saturate)."""
    x = _rand(rng, (3, 4), dtype, -300.0, 300.0)
    edges = [np.nan, np.inf, -np.inf, 3e9, -3e9, 2.0**63, -(2.0**63), 1e30, 0.0]
    x.flat[rng.permutation(x.size)[: len(edges)]] = edges
    return (x,)


def prod_with_zeros(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """Rows of a product with no zero, exactly one zero, and two zeros."""
    x = _rand(rng, (3, 4), dtype, 0.5, 1.5, nonzero=True)
    x[1, 2] = 0
    x[2, 0] = x[2, 3] = 0
    return (x,)


def no_operands(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    return ()


# --- the table ------------------------------------------------------------------


def same_api(name: str, *static: Any, **kw: Any) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """didax's and JAX's calls of ``lax.<name>(*operands, *static, **kw)``, where the APIs agree."""
    d, j = getattr(dlax, name), getattr(jlax, name)
    return (lambda *xs: d(*xs, *static, **kw)), (lambda *xs: j(*xs, *static, **kw))


def case(
    name: str,
    args: ArgMaker,
    dtypes: tuple[DType, ...],
    *static: Any,
    prim: Primitive | None = None,
    differentiable: bool = True,
    variant: str = "",
    kinks: bool = False,
    **kw: Any,
) -> Case:
    fun, oracle = same_api(name, *static, **kw)
    prim = getattr(core_lax, f"{name.rstrip('_')}_p") if prim is None else prim
    return Case(prim, fun, oracle, args, dtypes, differentiable, variant, kinks)


def _idx(i: Any) -> Any:
    # JAX wants one index dtype: its default int (int32 without x64).
    return jlax.convert_element_type(i, jax.dtypes.canonicalize_dtype(np.int64))


def convert_case(target: DType, args: ArgMaker, dtypes: tuple[DType, ...], variant: str) -> Case:
    return Case(
        core_lax.convert_element_type_p,
        lambda x: dlax.convert_element_type(x, target),
        lambda x: jlax.convert_element_type(x, target),
        args,
        dtypes,
        differentiable=target.kind == "f",
        variant=variant,
    )


CONVERSIONS: Final = (
    *(convert_case(t, with_zero, ALL, f"to_{t.name}") for t in ALL),
    # Floats out of range: XLA saturates (NaN becomes 0).
    *(
        convert_case(t, out_of_range, FLOATS, f"to_{t.name}-saturating")
        for t in (I32, I64, np.dtype(np.uint8), BOOL)
    ),
)


BINARY: Final = operands((2, 3), (2, 3))
UNARY: Final = operands((2, 3))

CASES: Final[tuple[Case, ...]] = (
    # Element-wise arithmetic.
    case("add", BINARY, NUMBERS),
    case("sub", BINARY, NUMBERS),
    case("mul", BINARY, NUMBERS),
    case("div", operands((2, 3), (2, 3), nonzero=(1,)), NUMBERS),
    case("div", int_division_edges, (I32, I64), variant="int_edges"),
    case("rem", operands((2, 3), (2, 3), nonzero=(1,)), NUMBERS),
    case("rem", int_division_edges, (I32, I64), variant="int_edges"),
    case("pow", pow_args, FLOATS),
    case("pow", pow_at_zero, FLOATS, variant="at_zero", kinks=True),
    case("max", BINARY, ALL),
    case("max", with_ties((2, 3), (2, 3)), FLOATS, variant="ties", kinks=True),
    case("min", BINARY, ALL),
    case("min", with_ties((2, 3), (2, 3)), FLOATS, variant="ties", kinks=True),
    case("integer_pow", UNARY, NUMBERS, 3, variant="cube"),
    case("integer_pow", UNARY, NUMBERS, 1, variant="one"),
    case("integer_pow", UNARY, NUMBERS, 0, variant="zero"),
    case("integer_pow", operands((2, 3), nonzero=(0,)), FLOATS, -2, variant="negative"),
    case("neg", UNARY, NUMBERS),
    # Complex numbers' parts (more in tests/api/test_complex.py).
    case("real", UNARY, COMPLEX),
    case("imag", UNARY, COMPLEX),
    case("conj", UNARY, (*COMPLEX, F64)),
    case("complex", BINARY, FLOATS),
    case("sign", with_zero, NUMBERS, differentiable=False),
    case("abs", operands((2, 3), nonzero=(0,)), NUMBERS),
    case("exp", operands((2, 3), lo=-2.0, hi=2.0), FLOATS),
    case("log", operands((2, 3), lo=0.1, hi=3.0), FLOATS),
    case("log1p", operands((2, 3), lo=-0.5, hi=2.0), FLOATS),
    case("expm1", operands((2, 3), lo=-2.0, hi=2.0), FLOATS),
    case("sin", UNARY, FLOATS),
    case("cos", UNARY, FLOATS),
    case("tan", operands((2, 3), lo=-1.2, hi=1.2), FLOATS),
    case("tanh", UNARY, FLOATS),
    case("logistic", operands((2, 3), lo=-4.0, hi=4.0), FLOATS),
    case("sqrt", operands((2, 3), lo=0.1, hi=3.0), FLOATS),
    case("rsqrt", operands((2, 3), lo=0.1, hi=3.0), FLOATS),
    case("cbrt", operands((2, 3), lo=-3.0, hi=3.0), FLOATS),
    case("square", UNARY, (*NUMBERS, *COMPLEX)),
    case("floor", halves, FLOATS, differentiable=False),
    case("ceil", halves, FLOATS, differentiable=False),
    case("round", halves, FLOATS, 0, differentiable=False, variant="away_from_zero"),
    case("round", halves, FLOATS, 1, differentiable=False, variant="to_even"),
    # Comparisons and logic.
    *(
        case(n, with_ties((2, 3), (2, 3)), ALL, differentiable=False)
        for n in ("eq", "ne", "lt", "le", "gt", "ge")
    ),
    Case(core_lax.and_p, dlax.and_, jlax.bitwise_and, BINARY, LOGICAL, differentiable=False),
    Case(core_lax.or_p, dlax.or_, jlax.bitwise_or, BINARY, LOGICAL, differentiable=False),
    Case(core_lax.not_p, dlax.not_, jlax.bitwise_not, UNARY, LOGICAL, differentiable=False),
    case("select", select_args, ALL),
    *CONVERSIONS,
    case("stop_gradient", UNARY, ALL, differentiable=False),
    # Structural.
    case("broadcast_in_dim", operands((3, 1)), STRUCTURAL, (2, 3, 4), (1, 2)),
    case("broadcast_in_dim", operands(()), STRUCTURAL, (2, 3), (), variant="scalar"),
    case("broadcast_in_dim", operands((3,)), STRUCTURAL, (3, 2), (0,), variant="trailing"),
    case("reshape", operands((2, 3, 2)), STRUCTURAL, (3, 4)),
    case("reshape", operands((2, 3)), STRUCTURAL, (6,), (1, 0), variant="dimensions"),
    case("transpose", operands((2, 3, 4)), STRUCTURAL, (2, 0, 1)),
    case("squeeze", operands((2, 1, 3, 1)), STRUCTURAL, (1, -1)),
    case("expand_dims", operands((2, 3)), STRUCTURAL, (0, 3)),
    case("expand_dims", operands((2, 3)), STRUCTURAL, (-1,), variant="negative"),
    case("slice", operands((5, 6)), STRUCTURAL, (1, 0), (4, 6), (2, 3)),
    case("slice", operands((5, 6)), STRUCTURAL, (1, 2), (3, 5), variant="unit_strides"),
    dynamic_slice_case((2, 3)),
    dynamic_slice_case((0, 2), "empty"),
    dynamic_slice_case((5, 6), "whole"),
    dynamic_update_slice_case((2, 3)),
    dynamic_update_slice_case((2, 0), "empty"),
    dynamic_update_slice_case((5, 6), "whole"),
    Case(
        core_lax.concatenate_p,
        lambda *xs: dlax.concatenate(xs, 1),
        lambda *xs: jlax.concatenate(xs, 1),
        operands((2, 3), (2, 1), (2, 2)),
        STRUCTURAL,
    ),
    case("pad", operands((2, 3), ()), STRUCTURAL, ((1, 2, 1), (-1, 0, 2))),
    case("pad", operands((2, 3), ()), STRUCTURAL, ((0, 1, 0), (2, 0, 0)), variant="edges"),
    case("pad", operands((2, 3), ()), STRUCTURAL, ((-2, 1, 1), (0, -2, 0)), variant="crop"),
    case("rev", operands((3, 4)), STRUCTURAL, (0, 1)),
    case("rev", operands((3, 4)), STRUCTURAL, (1,), variant="one_axis"),
    Case(
        core_lax.iota_p,
        lambda: dlax.iota(np.float64, 5),
        lambda: jlax.iota(np.float64, 5),
        no_operands,
        (F64,),
        differentiable=False,
        variant="f64",
    ),
    Case(
        core_lax.iota_p,
        lambda: dlax.iota(np.int32, 4),
        lambda: jlax.iota(np.int32, 4),
        no_operands,
        (I32,),
        differentiable=False,
        variant="i32",
    ),
    # Reductions.
    case("reduce_sum", operands((2, 3, 4)), NUMBERS, (0, 2)),
    case("reduce_sum", operands((2, 3, 4)), NUMBERS, (0, 1, 2), variant="all"),
    case("reduce_sum", operands((2, 3)), NUMBERS, (), variant="none"),
    case("reduce_max", operands((2, 3, 4)), ALL, (1,)),
    case("reduce_max", operands((2, 3, 4)), ALL, (0, 2), variant="two_axes"),
    case("reduce_min", operands((2, 3, 4)), ALL, (1,)),
    case("reduce_min", operands((2, 3, 4)), ALL, (0, 2), variant="two_axes"),
    case("reduce_max", with_ties((3, 4)), FLOATS, (1,), variant="ties", kinks=True),
    case("reduce_min", with_ties((3, 4)), FLOATS, (0,), variant="ties", kinks=True),
    case("reduce_prod", operands((2, 3, 4), lo=-2.0, hi=2.0), NUMBERS, (2,)),
    case("reduce_prod", prod_with_zeros, FLOATS, (1,), variant="zeros"),
    case("argmax", with_ties((3, 4)), ALL, 1, np.int32, differentiable=False),
    case("argmax", with_ties((3, 4)), ALL, 0, np.int64, differentiable=False, variant="axis0"),
    case("argmin", with_ties((3, 4)), ALL, 1, np.int32, differentiable=False),
    case("argmin", with_ties((3, 4)), ALL, 0, np.int64, differentiable=False, variant="axis0"),
    case("cumsum", operands((3, 4)), NUMBERS, 1),
    case("cumsum", operands((3, 4)), NUMBERS, 0, True, variant="reverse"),
    # Linear algebra.
    case("dot_general", operands((2, 3), (3, 4)), NUMBERS, (((1,), (0,)), ((), ()))),
    case(
        "dot_general",
        operands((2, 3, 4), (2, 4, 5)),
        NUMBERS,
        (((2,), (1,)), ((0,), (0,))),
        variant="batch",
    ),
    case(
        "dot_general",
        operands((3, 2, 4), (4, 5, 2)),
        NUMBERS,
        (((2,), (0,)), ((1,), (2,))),
        variant="inner_batch",
    ),
    case("dot_general", operands((2,), (3,)), NUMBERS, (((), ()), ((), ())), variant="outer"),
    case("dot_general", operands((3,), (3,)), NUMBERS, (((0,), (0,)), ((), ())), variant="inner"),
)


# --- helpers -------------------------------------------------------------------------


def make_args(c: Case, dtype: DType, salt: str = "") -> tuple[Array, ...]:
    rng = np.random.default_rng(zlib.crc32(f"{c.id}-{dtype.name}-{salt}".encode()))
    return c.args(rng, dtype)


def tolerance(dtype: DType) -> tuple[float, float]:
    """``(rtol, atol)`` for comparing results of ``dtype`` computed in different orders."""
    return (1e-5, 1e-6) if dtype == F32 else (1e-12, 1e-14)


def assert_same(actual: Any, expected: Any, what: str = "") -> None:
    """Equal shape and dtype; equal values (to a dtype's tolerance for floats)."""
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.dtype == e.dtype, f"{what}dtype {a.dtype} != {e.dtype}"
    assert a.shape == e.shape, f"{what}shape {a.shape} != {e.shape}"
    if a.dtype.kind == "f":
        rtol, atol = tolerance(a.dtype)
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=what)
    elif a.dtype.kind != "V":  # float0 tangents have no values
        np.testing.assert_array_equal(a, e, err_msg=what)


def params(cases: Sequence[tuple[Case, DType]]) -> list[Any]:
    return [pytest.param(c, d, id=f"{c.id}-{d.name}") for c, d in cases]


CASE_DTYPES: Final = [(c, d) for c in CASES for d in c.dtypes]


def float_argnums(c: Case, dtype: DType) -> tuple[int, ...]:
    return tuple(i for i, x in enumerate(make_args(c, dtype)) if x.dtype.kind == "f")


def subsets(items: Sequence[int]) -> list[tuple[int, ...]]:
    """Every nonempty subset of ``items``, in a stable order."""
    return [s for k in range(1, len(items) + 1) for s in itertools.combinations(items, k)]


def _subset_name(n: int, chosen: Sequence[int]) -> str:
    return "".join("x" if i in chosen else "_" for i in range(n))


# Tangents for every nonempty subset of the float operands (the others are
# constants to jvp, so rules meet symbolic zeros), at both float widths.
JVP_PARAMS: Final = [
    (c, d, nums)
    for c in CASES
    for d in FLOATS
    if d in c.dtypes
    for nums in subsets(float_argnums(c, d))
]


def jvp_params(keep: Callable[[Case, DType], bool] = lambda c, d: True) -> list[Any]:
    return [
        pytest.param(c, d, nums, id=f"{c.id}-{d.name}-{_subset_name(len(make_args(c, d)), nums)}")
        for c, d, nums in JVP_PARAMS
        if keep(c, d)
    ]


def partial_in(fun: Callable[..., Any], args: Sequence[Any], argnums: Sequence[int]) -> Any:
    """``fun`` as a function of ``args[i] for i in argnums``, the others fixed."""

    def f(*xs: Any) -> Any:
        full = list(args)
        for i, x in zip(argnums, xs, strict=True):
            full[i] = x
        return fun(*full)

    return f


def single_eqn_prefix(jaxpr: Jaxpr) -> Jaxpr:
    """The jaxpr computing the inputs of ``jaxpr``'s last equation."""
    last = jaxpr.eqns[-1]
    return Jaxpr(jaxpr.in_binders, jaxpr.eqns[:-1], last.inputs)


# --- the table itself ---------------------------------------------------------------------


def test_every_primitive_has_a_case() -> None:
    covered = {c.prim for c in CASES}
    missing = [p.name for p in core_lax.STANDARD_PRIMITIVES if p not in covered]
    assert not missing, f"primitives with no entry in CASES: {missing}"
    unknown = [c.id for c in CASES if c.prim not in core_lax.STANDARD_PRIMITIVES]
    assert not unknown, f"CASES entries for non-standard primitives: {unknown}"


def test_case_ids_are_unique() -> None:
    ids = [f"{c.id}-{d.name}" for c, d in CASE_DTYPES]
    assert len(ids) == len(set(ids))


# --- impl, typing, staging -------------------------------------------------------------


@pytest.mark.parametrize(("c", "dtype"), params(CASE_DTYPES))
def test_impl_matches_jax(c: Case, dtype: DType) -> None:
    args = make_args(c, dtype)
    assert_same(c.fun(*args), c.oracle(*args))


@pytest.mark.parametrize(("c", "dtype"), params(CASE_DTYPES))
def test_abstract_eval_agrees_with_impl(c: Case, dtype: DType) -> None:
    args = make_args(c, dtype)
    out = np.asarray(c.fun(*args))
    closed = didax.make_jaxpr(c.fun)(*args)
    last = closed.eqns[-1]
    assert last.primitive is c.prim, f"the case's last equation is {last.primitive}"
    assert closed.jaxpr.outs == last.out_binders
    (aval,) = abstract_eval(c.prim, [x.aval for x in last.inputs], dict(last.params))
    assert (aval.shape, aval.dtype) == (out.shape, out.dtype)
    if c.prim not in IMPL_RULES:  # computed by its compiled program (cbrt): no impl rule
        return
    # The impl rule itself, before the evaluator casts its result to the type.
    ins = eval_jaxpr(single_eqn_prefix(closed.jaxpr), [*closed.consts, *args])
    raw = np.asarray(IMPL_RULES[c.prim](*(np.asarray(x) for x in ins), **last.params))
    assert (raw.shape, raw.dtype) == (aval.shape, aval.dtype), (
        f"impl rule returned {raw.dtype}{list(raw.shape)}, typing rule says {aval.str_short()}"
    )


@pytest.mark.parametrize(("c", "dtype"), params(CASE_DTYPES))
def test_staging(c: Case, dtype: DType) -> None:
    args = make_args(c, dtype)
    eager = c.fun(*args)
    closed = didax.make_jaxpr(c.fun)(*args)
    jaxpr_type = typecheck_jaxpr(closed)
    assert c.prim in {e.primitive for e in closed.eqns}
    (out_type,) = jaxpr_type.out_types
    assert (out_type.shape, out_type.dtype) == (np.shape(eager), np.asarray(eager).dtype)
    (staged,) = eval_closed_jaxpr(closed, args)
    assert_same(staged, eager)


@pytest.mark.parametrize(("c", "dtype"), params(CASE_DTYPES))
def test_eager_equals_jit(c: Case, dtype: DType) -> None:
    args = make_args(c, dtype)
    jitted = np.asarray(didax.jit(c.fun)(*args))
    with compiled_route():
        compiled = c.fun(*args)
    assert isinstance(compiled, didax.Array)
    assert compiled._host is None, "the compiled route computed on the host"
    assert np.asarray(compiled).dtype == jitted.dtype
    np.testing.assert_array_equal(np.asarray(compiled), jitted)
    assert_same(c.fun(*args), jitted, "host route: ")


# The cases of 32-bit (and narrower) dtypes again with both libraries in their
# default mode (x64 off), where Python scalars and index results are 32-bit.
DEFAULT_MODE_CASES: Final = [(c, d) for c, d in CASE_DTYPES if d.itemsize <= 4]


@pytest.mark.x64_off
@pytest.mark.parametrize(("c", "dtype"), params(DEFAULT_MODE_CASES))
def test_eager_and_jit_match_jax_in_the_default_mode(c: Case, dtype: DType) -> None:
    args = make_args(c, dtype)
    # A case that asks for a 64-bit dtype gets JAX's truncation warning from both.
    with warnings.catch_warnings(record=True) as jax_warned:
        warnings.simplefilter("always")
        expected = c.oracle(*args)
    with warnings.catch_warnings(record=True) as didax_warned:
        warnings.simplefilter("always")
        eager, jitted = c.fun(*args), didax.jit(c.fun)(*args)
    assert bool(didax_warned) == bool(jax_warned), [str(w.message) for w in didax_warned]
    assert_same(eager, expected, "eager: ")
    assert_same(jitted, expected, "jit: ")


# IEEE special values, outside the domains the table keeps to: results as
# XLA's (inf, nan, signed zeros), never a NumPy warning (pytest makes those errors).
SPECIAL_UNARY: Final = [p.name for p in (*core_lax.NUMERIC_UNARY, *core_lax.FLOAT_UNARY)]
SPECIAL_BINARY: Final = [p.name for p in core_lax.ARITHMETIC_BINARY]
TRIG: Final = {"sin", "cos", "tan"}  # argument reduction of huge values differs by library


def special_values(dtype: DType, name: str) -> Array:
    big = 100.0 if name in TRIG else float(np.finfo(dtype).max) / 4
    tiny = float(np.sqrt(np.finfo(dtype).tiny))
    values = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 3.0, np.inf, -np.inf, np.nan, big, -big, tiny]
    return np.asarray(values, dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("name", SPECIAL_UNARY + SPECIAL_BINARY)
def test_impl_special_values(name: str, dtype: DType) -> None:
    x = special_values(dtype, name)
    args = [x] if name in SPECIAL_UNARY else [np.repeat(x, x.size), np.tile(x, x.size)]
    assert_same(getattr(dlax, name)(*args), getattr(jlax, name)(*args))


# --- jvp -------------------------------------------------------------------------------------


def jvp_inputs(
    c: Case, dtype: DType, nums: tuple[int, ...], salt: str = ""
) -> tuple[tuple[Array, ...], tuple[Array, ...], tuple[Array, ...]]:
    """All operands, the differentiated ones, and a random tangent for each of those."""
    args = make_args(c, dtype, salt)
    seed = f"tangents-{c.id}-{dtype.name}-{nums}-{salt}"
    rng = np.random.default_rng(zlib.crc32(seed.encode()))
    tangents = tuple(np.asarray(rng.standard_normal(args[i].shape), dtype) for i in nums)
    return args, tuple(args[i] for i in nums), tangents


@pytest.mark.parametrize(("c", "dtype", "nums"), jvp_params())
def test_jvp_matches_jax(c: Case, dtype: DType, nums: tuple[int, ...]) -> None:
    args, primals, tangents = jvp_inputs(c, dtype, nums)
    out, t_out = didax.jvp(partial_in(c.fun, args, nums), primals, tangents)
    j_out, j_t_out = jax.jvp(partial_in(c.oracle, args, nums), primals, tangents)
    assert_same(out, j_out, "primal: ")
    assert_same(t_out, j_t_out, "tangent: ")
    t = np.asarray(t_out)
    if not c.differentiable and t.dtype.kind == "f":
        assert not np.any(t), "a case marked not differentiable has a nonzero tangent"


def _float64_result(c: Case, dtype: DType) -> bool:
    return np.asarray(c.fun(*make_args(c, dtype))).dtype == F64


@pytest.mark.parametrize(
    ("c", "dtype", "nums"),
    jvp_params(
        lambda c, d: d == F64 and c.differentiable and not c.kinks and _float64_result(c, d)
    ),
)
def test_jvp_matches_finite_differences(c: Case, dtype: DType, nums: tuple[int, ...]) -> None:
    args, primals, tangents = jvp_inputs(c, dtype, nums)
    f = partial_in(c.fun, args, nums)
    _, t_out = didax.jvp(f, primals, tangents)
    h = 1e-6
    plus = f(*(p + h * t for p, t in zip(primals, tangents, strict=True)))
    minus = f(*(p - h * t for p, t in zip(primals, tangents, strict=True)))
    fd = (np.asarray(plus) - np.asarray(minus)) / (2 * h)
    np.testing.assert_allclose(t_out, fd, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("c", "dtype", "nums"), jvp_params())
def test_jvp_jaxpr_typechecks(c: Case, dtype: DType, nums: tuple[int, ...]) -> None:
    args, primals, tangents = jvp_inputs(c, dtype, nums)
    f = partial_in(c.fun, args, nums)
    n = len(nums)

    def jvp_fun(*xs: Any) -> Any:
        return didax.jvp(f, xs[:n], xs[n:])

    closed = didax.make_jaxpr(jvp_fun)(*primals, *tangents)
    typecheck_jaxpr(closed)
    staged = eval_closed_jaxpr(closed, [*primals, *tangents])
    out, t_out = didax.jvp(f, primals, tangents)
    assert len(staged) == 2
    assert_same(staged[0], out)
    assert_same(staged[1], t_out)


# --- vmap --------------------------------------------------------------------------------


def batch_axis(where: str, operand: int) -> int:
    """The batch axis of a batched operand: first, last, or alternating (``mixed``)."""
    if where == "mixed":
        return 0 if operand % 2 == 0 else -1
    return 0 if where == "first" else -1


def vmap_params() -> list[Any]:
    out = []
    for c, dtype in CASE_DTYPES:
        n = len(make_args(c, dtype))
        # Every nonempty subset of batched operands; a nullary primitive is
        # mapped with axis_size only.
        for batched in subsets(range(n)) or [()]:
            for where in ("first", "last", "mixed") if len(batched) > 1 else ("first", "last"):
                name = f"{_subset_name(n, batched) or 'nullary'}-{where}"
                # CI runs every combination at a case's first dtype, and at its
                # other dtypes every operand batched along axis 0 (batching
                # rules rarely look at the dtype); the rest is the slow session's.
                everyday = dtype == c.dtypes[0] or (len(batched) == n and where == "first")
                marks = () if everyday else (pytest.mark.slow,)
                out.append(
                    pytest.param(
                        c, dtype, batched, where, id=f"{c.id}-{dtype.name}-{name}", marks=marks
                    )
                )
    return out


@pytest.mark.parametrize(("c", "dtype", "batched", "where"), vmap_params())
def test_vmap_matches_loop(c: Case, dtype: DType, batched: tuple[int, ...], where: str) -> None:
    samples = [make_args(c, dtype, salt=str(b)) for b in range(BATCH)]
    base = samples[0]
    n = len(base)
    in_axes = tuple(batch_axis(where, i) if i in batched else None for i in range(n))
    stacked = [
        base[i] if ax is None else np.stack([s[i] for s in samples], axis=ax)
        for i, ax in enumerate(in_axes)
    ]
    per_element = [
        np.asarray(c.fun(*(samples[b][i] if i in batched else base[i] for i in range(n))))
        for b in range(BATCH)
    ]
    out_axis = -1 if where == "last" else 0
    expected = np.stack(per_element, axis=out_axis)
    batched_fun = didax.vmap(c.fun, in_axes=in_axes, out_axes=out_axis, axis_size=BATCH)
    assert_same(batched_fun(*stacked), expected)
    closed = didax.make_jaxpr(batched_fun)(*stacked)
    typecheck_jaxpr(closed)
    (staged,) = eval_closed_jaxpr(closed, stacked)
    assert_same(staged, expected)


# --- second order --------------------------------------------------------------------------

SECOND_ORDER: Final = [
    pytest.param(dlax.sin, jlax.sin, operands((2, 3)), id="sin"),
    pytest.param(dlax.exp, jlax.exp, operands((2, 3), lo=-2.0, hi=2.0), id="exp"),
    pytest.param(dlax.log, jlax.log, operands((2, 3), lo=0.1, hi=3.0), id="log"),
    pytest.param(dlax.tanh, jlax.tanh, operands((2, 3)), id="tanh"),
    pytest.param(dlax.logistic, jlax.logistic, operands((2, 3)), id="logistic"),
    pytest.param(dlax.rsqrt, jlax.rsqrt, operands((2, 3), lo=0.1, hi=3.0), id="rsqrt"),
    pytest.param(dlax.mul, jlax.mul, BINARY, id="mul"),
    pytest.param(dlax.div, jlax.div, operands((2, 3), (2, 3), nonzero=(1,)), id="div"),
    pytest.param(dlax.pow, jlax.pow, pow_args, id="pow"),
    pytest.param(
        lambda x: dlax.integer_pow(x, 3), lambda x: jlax.integer_pow(x, 3), UNARY, id="cube"
    ),
    pytest.param(dlax.max, jlax.max, BINARY, id="max"),
]


def _second_order_inputs(
    args: ArgMaker, salt: str
) -> tuple[tuple[Array, ...], tuple[Array, ...], tuple[Array, ...], tuple[Array, ...]]:
    rng = np.random.default_rng(zlib.crc32(salt.encode()))
    xs = args(rng, F64)
    return (
        xs,
        tuple(np.asarray(rng.standard_normal(x.shape)) for x in xs),
        tuple(np.asarray(rng.standard_normal(x.shape)) for x in xs),
        tuple(np.asarray(rng.standard_normal(x.shape)) for x in xs),
    )


@pytest.mark.parametrize(("fun", "oracle", "args"), SECOND_ORDER)
def test_jvp_of_jvp(fun: Callable[..., Any], oracle: Callable[..., Any], args: ArgMaker) -> None:
    xs, ts, us, vs = _second_order_inputs(args, "jvp-of-jvp")
    n = len(xs)

    def first(jvp: Callable[..., Any], f: Callable[..., Any]) -> Callable[..., Any]:
        return lambda *a: jvp(f, a[:n], a[n:])[1]

    d_out = didax.jvp(first(didax.jvp, fun), (*xs, *ts), (*us, *vs))
    j_out = jax.jvp(first(jax.jvp, oracle), (*xs, *ts), (*us, *vs))
    assert_same(d_out[0], j_out[0])
    assert_same(d_out[1], j_out[1])
    typecheck_jaxpr(
        didax.make_jaxpr(lambda *a: didax.jvp(first(didax.jvp, fun), a[: 2 * n], a[2 * n :]))(
            *xs, *ts, *us, *vs
        )
    )


@pytest.mark.parametrize(("fun", "oracle", "args"), SECOND_ORDER)
def test_vmap_of_jvp(fun: Callable[..., Any], oracle: Callable[..., Any], args: ArgMaker) -> None:
    samples = [_second_order_inputs(args, f"vmap-of-jvp-{b}")[:2] for b in range(BATCH)]
    n = len(samples[0][0])

    def tangent(*a: Any) -> Any:
        return didax.jvp(fun, a[:n], a[n:])

    flat = [(*xs, *ts) for xs, ts in samples]
    stacked = [np.stack([f[i] for f in flat]) for i in range(2 * n)]
    out, t_out = didax.vmap(tangent)(*stacked)
    loop = [tangent(*f) for f in flat]
    assert_same(out, np.stack([np.asarray(p) for p, _ in loop]))
    assert_same(t_out, np.stack([np.asarray(t) for _, t in loop]))
    typecheck_jaxpr(didax.make_jaxpr(didax.vmap(tangent))(*stacked))


# vmap of jvp, and jvp of vmap, for every differentiable case at float64 with
# all float operands differentiated: the batching rules of whatever each jvp
# rule binds.
COMPOSED_PARAMS: Final = [
    pytest.param(c, F64, float_argnums(c, F64), id=c.id)
    for c in CASES
    if F64 in c.dtypes and c.differentiable and float_argnums(c, F64) and _float64_result(c, F64)
]


@pytest.mark.parametrize(("c", "dtype", "nums"), COMPOSED_PARAMS)
def test_vmap_and_jvp_compose(c: Case, dtype: DType, nums: tuple[int, ...]) -> None:
    args = make_args(c, dtype)
    f = partial_in(c.fun, args, nums)
    n = len(nums)
    batch = [jvp_inputs(c, dtype, nums, salt=str(b))[1:] for b in range(BATCH)]
    stacked = [np.stack([p[i] for p, _ in batch]) for i in range(n)]
    stacked += [np.stack([t[i] for _, t in batch]) for i in range(n)]

    def tangent(*xs: Any) -> Any:
        return didax.jvp(f, xs[:n], xs[n:])

    loop = [tangent(*p, *t) for p, t in batch]
    expected = [np.stack([np.asarray(r[k]) for r in loop]) for k in range(2)]
    out, t_out = didax.vmap(tangent)(*stacked)
    assert_same(out, expected[0])
    assert_same(t_out, expected[1])
    out, t_out = didax.jvp(didax.vmap(f), tuple(stacked[:n]), tuple(stacked[n:]))
    assert_same(out, expected[0])
    assert_same(t_out, expected[1])
    typecheck_jaxpr(didax.make_jaxpr(didax.vmap(tangent))(*stacked))
