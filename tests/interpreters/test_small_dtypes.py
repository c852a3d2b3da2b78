"""The small dtypes through every primitive of the package, against JAX.

bfloat16, float16, int8, int16 and the unsigned integers meet each primitive
that didax defines (the standard ones of ``core.lax`` and the higher-order
ones of the interpreters) in a small program, a *case*, whose jaxpr holds
the primitive; ``test_every_primitive_has_a_case`` fails on a primitive
with no case. For each case and each small dtype:

- JAX says whether it accepts the dtype (``jax.eval_shape``, no compile).
  Where it does, didax's results eagerly (from NumPy operands, and again
  from didax Arrays, the signature cache's fast path), under ``jit``, under
  ``vmap`` and under ``jit`` of ``vmap`` equal JAX's: dtypes and shapes
  exactly, integers and booleans exactly, 16-bit floats to two units in the
  last place. Where JAX refuses with a ``TypeError``, didax refuses with a
  ``TypeError`` too, eagerly and under ``jit`` (never a ``KeyError`` or a
  crash).
- At the 16-bit floats, ``jvp`` and ``grad`` (eagerly) and ``grad`` under
  ``jit`` equal JAX's, to four units in the last place of the largest value;
  where JAX refuses (jvp of a custom_vjp function, grad of a while loop),
  didax raises the same type of error.

``EXEMPT`` lists what cannot work, with the reason (nothing, at present).
Complex inputs work as in JAX, eagerly, under ``jit`` and under the
transformations (``test_complex_inputs_work_as_in_jax``).

XLA compiles take most of the time, about in proportion to the number of
operations compiled; so each test covers the dtypes of one case, in two
parts (``SLICE_DTYPES``, which the default run checks, and the rest, which
``nox -s slow`` does), and reports every mismatch; JAX computes all of a
part's dtypes in one compiled function (``jax_each``), and didax's ``jit``
does the same (``didax_jit_each``, which compiles dtype by dtype only to say
which one fails).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import pkgutil
import zlib
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeAlias

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from jax import lax as jlax
from tests.slicing import in_part

import didax
import didax.numpy as dnp
from didax import lax as dlax
from didax.core import dtypes
from didax.core import lax as core_lax
from didax.core.lax import STANDARD_PRIMITIVES
from didax.core.primitive import ALL_PRIMITIVES, Primitive

Array: TypeAlias = np.ndarray[Any, Any]
DType: TypeAlias = np.dtype[Any]

BF16: Final[DType] = np.dtype(ml_dtypes.bfloat16)
F16: Final[DType] = np.dtype(np.float16)
FLOATS: Final = (BF16, F16)
INTS: Final[tuple[DType, ...]] = tuple(
    np.dtype(t) for t in (np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.uint64)
)
SMALL: Final = FLOATS + INTS
F32: Final[DType] = np.dtype(np.float32)
I32: Final = np.dtype(np.int32)
BOOL: Final = np.dtype(np.bool_)

# NumPy calls bfloat16's kind 'V': kinds are asked of didax's dtypes module.
_is_float: Final = dtypes.is_float

# The default run's dtypes, one of each kind: bfloat16 (the float whose NumPy
# kind is not 'f', where dtype tests go wrong), a signed integer, and the
# widest unsigned one (64 bits: unsigned index clamps, mulhi's halves): each
# case is checked at the kinds JAX accepts and refused at the others. The slow
# session checks the rest.
SLICE_DTYPES: Final = (BF16, np.dtype(np.int8), np.dtype(np.uint64))


def _in_slice(dtype: DType) -> bool:
    return dtype in SLICE_DTYPES


# --- the two libraries -------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Lib:
    """What the cases call, as one library spells it: didax's or JAX's."""

    lax: Any
    jit: Callable[..., Any]
    checkpoint: Callable[..., Any]
    bitwise_and: Callable[[Any, Any], Any]
    bitwise_or: Callable[[Any, Any], Any]
    bitwise_not: Callable[[Any], Any]
    custom_jvp_square: Callable[[Any], Any]
    custom_vjp_square: Callable[[Any], Any]
    core: Any  # every lax function, those the public didax.lax lacks too


def _custom_jvp_square(lax: Any, custom_jvp: Any) -> Callable[[Any], Any]:
    """``x * x`` with a hand-written jvp rule: its jaxpr holds a custom_jvp_call."""

    @custom_jvp
    def square(x: Any) -> Any:
        return lax.mul(x, x)

    @square.defjvp
    def _rule(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
        (x,), (t,) = primals, tangents
        return square(x), lax.mul(lax.add(x, x), t)

    return square  # type: ignore[no-any-return]


def _custom_vjp_square(lax: Any, custom_vjp: Any) -> Callable[[Any], Any]:
    """``x * x`` with hand-written fwd and bwd rules: a custom_vjp_call (custom_lin under grad)."""

    @custom_vjp
    def square(x: Any) -> Any:
        return lax.mul(x, x)

    def fwd(x: Any) -> tuple[Any, Any]:
        return lax.mul(x, x), x

    def bwd(x: Any, g: Any) -> tuple[Any]:
        return (lax.mul(lax.add(x, x), g),)

    square.defvjp(fwd, bwd)
    return square  # type: ignore[no-any-return]


DIDAX: Final = Lib(
    dlax,
    didax.jit,
    didax.checkpoint,
    dlax.and_,
    dlax.or_,
    dlax.not_,
    _custom_jvp_square(dlax, didax.custom_jvp),
    _custom_vjp_square(dlax, didax.custom_vjp),
    core_lax,
)
JAX: Final = Lib(
    jlax,
    jax.jit,
    jax.checkpoint,
    jlax.bitwise_and,
    jlax.bitwise_or,
    jlax.bitwise_not,
    _custom_jvp_square(jlax, jax.custom_jvp),
    _custom_vjp_square(jlax, jax.custom_vjp),
    jlax,
)


# --- operands ------------------------------------------------------------------------

ArgMaker: TypeAlias = Callable[[np.random.Generator, DType], tuple[Array, ...]]


def _rand(
    rng: np.random.Generator,
    dtype: DType,
    shape: tuple[int, ...],
    lo: float = -3.0,
    hi: float = 3.0,
    *,
    nonzero: bool = False,
) -> Array:
    """Values of ``dtype`` in ``[lo, hi]`` (integers: the part of it the dtype holds)."""
    if _is_float(dtype):
        x = rng.uniform(lo, hi, size=shape)
        if nonzero:
            x = np.where(np.abs(x) < 0.25, 0.5, x)
        return np.asarray(x).astype(dtype)
    info = np.iinfo(dtype)
    ints = rng.integers(max(int(lo), int(info.min)), min(int(hi), int(info.max)) + 1, size=shape)
    if nonzero:
        ints = np.where(ints == 0, 1, ints)
    return np.asarray(ints).astype(dtype)


def operands(
    *shapes: tuple[int, ...], lo: float = -3.0, hi: float = 3.0, nonzero: Sequence[int] = ()
) -> ArgMaker:
    def make(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
        return tuple(
            _rand(rng, dtype, s, lo, hi, nonzero=i in nonzero) for i, s in enumerate(shapes)
        )

    return make


def with_ties(*shapes: tuple[int, ...]) -> ArgMaker:
    """Values from {-1, 0, 1} ({0, 1, 2} unsigned): comparisons and extrema meet ties."""

    def make(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
        lo = 0 if dtype.kind == "u" else -1
        return tuple(np.asarray(rng.integers(lo, lo + 3, size=s)).astype(dtype) for s in shapes)

    return make


def halves(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """Exact halves (the ties of rounding) and values in between."""
    if not _is_float(dtype):
        return (_rand(rng, dtype, (2, 4)),)
    exact = rng.integers(-7, 8, size=(2, 4)) / 2
    return (np.where(rng.random((2, 4)) < 0.5, exact, rng.uniform(-4, 4, (2, 4))).astype(dtype),)


def with_zero(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    x = _rand(rng, dtype, (2, 3))
    x.flat[::2] = 0
    return (x,)


def edges(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """The dtype's extremes and values past other dtypes' ranges (conversions saturate or wrap)."""
    if _is_float(dtype):
        floats = [np.nan, np.inf, -np.inf, 300.0, -300.0, 7e4, -1.5, 0.0, 1e30, 2.5, 65.0, -0.0]
        with np.errstate(over="ignore"):  # 7e4 and 1e30 are float16's infinity
            return (np.asarray(floats).astype(dtype).reshape(3, 4),)
    info = np.iinfo(dtype)
    ints = [info.min, info.max, 0, 1, 2, info.max - 1, info.min + 1, 127, 128, 255, 5, 3]
    ints = [v for v in ints if info.min <= v <= info.max]
    return (np.array(ints + [1] * (12 - len(ints)), dtype).reshape(3, 4),)


def select_args(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    return (rng.random((2, 3)) < 0.5, _rand(rng, dtype, (2, 3)), _rand(rng, dtype, (2, 3)))


def _index_dtype(dtype: DType) -> DType:
    """Start indices of the operand's own dtype where it is an integer one (clamped by XLA)."""
    return I32 if _is_float(dtype) else dtype


def dynamic_slice_args(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    index = _index_dtype(dtype)
    return (
        _rand(rng, dtype, (3, 4)),
        np.asarray(rng.integers(0, 3), index),
        np.asarray(rng.integers(0, 6), index),
    )


def dynamic_update_slice_args(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    index = _index_dtype(dtype)
    return (
        _rand(rng, dtype, (3, 4)),
        _rand(rng, dtype, (2, 2)),
        np.asarray(rng.integers(0, 3), index),
        np.asarray(rng.integers(0, 6), index),
    )


def pad_args(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    return (_rand(rng, dtype, (2, 3)), _rand(rng, dtype, ()))


def pow_args(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    return (_rand(rng, dtype, (2, 3), 0.5, 2.0), _rand(rng, dtype, (2, 3), -2.0, 2.0))


def near_one(shape: tuple[int, ...]) -> ArgMaker:
    """Factors near 1 (floats), or among -1, 1 and 2 (integers): products stay in range."""

    def make(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
        if _is_float(dtype):
            return (np.asarray(rng.uniform(0.9, 1.1, size=shape)).astype(dtype),)
        lo = 1 if dtype.kind == "u" else -1
        return (np.asarray(rng.choice([lo, 1, 1, 2], size=shape)).astype(dtype),)

    return make


def full_range(*shapes: tuple[int, ...]) -> ArgMaker:
    """Integers anywhere in the dtype's range (floats in [-3, 3]): every bit pattern is fair."""

    def make(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
        if _is_float(dtype):
            return tuple(_rand(rng, dtype, s) for s in shapes)
        info = np.iinfo(dtype)
        return tuple(
            np.asarray(rng.integers(info.min, info.max, size=s, dtype=dtype, endpoint=True))
            for s in shapes
        )

    return make


def shift_args(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """Any value, shifted by 0 up to past the bit width (XLA: 0, or the sign fill)."""
    (x,) = full_range((3, 4))(rng, dtype)
    if _is_float(dtype):
        return x, _rand(rng, dtype, (3, 4), 0.0, 3.0)
    bits = 8 * dtype.itemsize
    return x, np.asarray(rng.integers(0, bits + 2, size=(3, 4))).astype(dtype)


def polygamma_args(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """Orders 0, 1 and 2 (integers held in the float dtype), at points in [0.5, 3]."""
    m = np.asarray(rng.integers(0, 3, size=(2, 3))).astype(dtype)
    return m, _rand(rng, dtype, (2, 3), 0.5, 3.0)


def _same_width(dtype: DType) -> DType:
    """A dtype of the same width to bit-cast to: integers and floats both ways."""
    partners: dict[str, DType] = {
        "bfloat16": np.dtype(np.uint16),
        "float16": np.dtype(np.int16),
        "int8": np.dtype(np.uint8),
        "int16": BF16,
        "uint8": np.dtype(np.int8),
        "uint16": F16,
        "uint32": F32,
        "uint64": np.dtype(np.float64),
    }
    return partners[dtype.name]


def gather_args(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """Rows of a (4, 3) operand at in-bounds row indices (of the operand's dtype if an integer)."""
    index = _index_dtype(dtype)
    return _rand(rng, dtype, (4, 3)), np.asarray([[2], [0], [3]]).astype(index)


def gather_out_of_bounds_args(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """As ``gather_args``, with a row past the end: filled with the dtype's default."""
    x, _ = gather_args(rng, dtype)
    return x, np.asarray([[2], [4], [1]]).astype(_index_dtype(dtype))


def scatter_args(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """A (4, 3) operand, row indices with a repeat, and (3, 3) updates."""
    x, _ = gather_args(rng, dtype)
    return x, np.asarray([[2], [0], [2]]).astype(_index_dtype(dtype)), _rand(rng, dtype, (3, 3))


def scatter_unique_args(rng: np.random.Generator, dtype: DType) -> tuple[Array, ...]:
    """As ``scatter_args`` with distinct rows (which of two replacements wins is XLA's choice)."""
    x, _, u = scatter_args(rng, dtype)
    return x, np.asarray([[3], [0], [1]]).astype(_index_dtype(dtype)), u


ROWS: Final = jlax.GatherDimensionNumbers(
    offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)
)
ROW_UPDATES: Final = jlax.ScatterDimensionNumbers(
    update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
)


def _scatter_case(name: str, args: ArgMaker = scatter_args, **kw: Any) -> Case:
    fun = name.replace("-", "_")
    return Case(name, lambda L, x, i, u: getattr(L.core, fun)(x, i, u, ROW_UPDATES, **kw), args)


# A long axis: XLA's sums of 16-bit floats are as exact as sums accumulated
# in float32, and sums of this length tell that from accumulating in the
# 16-bit type (as NumPy does).
LONG: Final = 256


# --- the cases ------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Case:
    """A small program ``fun(lib, *operands)`` whose jaxpr holds the primitive ``prim``."""

    prim: str
    fun: Callable[..., Any]
    args: ArgMaker
    variant: str = ""
    # The error JAX raises for jvp (a custom_vjp function) or for grad (a
    # while loop, whose trip count is not static); didax must raise it too.
    jvp_error: type[Exception] | None = None
    grad_error: type[Exception] | None = None
    # The operands differentiated: by default every float one.
    argnums: tuple[int, ...] | None = None

    @property
    def id(self) -> str:
        return f"{self.prim}-{self.variant}" if self.variant else self.prim


BINARY: Final = operands((2, 3), (2, 3))
UNARY: Final = operands((2, 3))


def unary(name: str, args: ArgMaker = UNARY) -> Case:
    return Case(name, lambda L, x: getattr(L.lax, name)(x), args)


def binary(name: str, args: ArgMaker = BINARY) -> Case:
    return Case(name, lambda L, x, y: getattr(L.lax, name)(x, y), args)


# Conversions that round (to the 16-bit floats), saturate or wrap (to the
# narrowest and widest integers), widen (to float32) and test (to bool).
CONVERSION_TARGETS: Final = (
    BF16,
    F16,
    np.dtype(np.int8),
    np.dtype(np.uint8),
    np.dtype(np.uint64),
    F32,
    BOOL,
)


def _convert_all(L: Lib, x: Any) -> tuple[Any, ...]:
    return tuple(L.lax.convert_element_type(x, t) for t in CONVERSION_TARGETS)


def _while(L: Lib, x: Any) -> Any:
    # Three trips, counted in the operand's dtype; the loop carries both.
    one = L.lax.convert_element_type(1, x.dtype)
    three = L.lax.convert_element_type(3, x.dtype)

    def body(c: tuple[Any, Any]) -> tuple[Any, Any]:
        return L.lax.add(c[0], one), L.lax.sub(L.lax.mul(c[1], c[1]), c[1])

    zero = L.lax.convert_element_type(0, x.dtype)
    return L.lax.while_loop(lambda c: L.lax.lt(c[0], three), body, (zero, x))


def _scan(L: Lib, xs: Any) -> Any:
    def body(carry: Any, x: Any) -> tuple[Any, Any]:
        return L.lax.add(carry, x), L.lax.mul(carry, x)

    return L.lax.scan(body, L.lax.slice(xs, (0, 0), (1, 3)).reshape(3), xs)


def _cond(L: Lib, x: Any, y: Any) -> Any:
    pred = L.lax.gt(L.lax.reduce_max(x, (0, 1)), L.lax.reduce_min(y, (0, 1)))
    return L.lax.cond(pred, lambda a, b: L.lax.mul(a, b), lambda a, b: L.lax.sub(a, b), x, y)


def _generic_reduce(L: Lib, x: Any) -> Any:
    # A max from an init value that is not its identity: the generic reduce.
    return L.lax.reduce(x, np.array(1, x.dtype), L.lax.max, (1,))


def _body(L: Lib, x: Any) -> Any:
    return L.lax.mul(L.lax.add(x, x), x)


CASES: Final[tuple[Case, ...]] = (
    # Element-wise arithmetic.
    binary("add"),
    binary("sub"),
    binary("mul"),
    binary("div", operands((2, 3), (2, 3), nonzero=(1,))),
    binary("rem", operands((2, 3), (2, 3), nonzero=(1,))),
    binary("pow", pow_args),
    binary("max", with_ties((2, 3), (2, 3))),
    binary("min", with_ties((2, 3), (2, 3))),
    Case("integer_pow", lambda L, x: L.lax.integer_pow(x, 3), operands((2, 3), lo=-4, hi=4)),
    Case(
        "integer_pow",
        lambda L, x: L.lax.integer_pow(x, -2),
        operands((2, 3), nonzero=(0,)),
        "negative",
    ),
    unary("neg"),
    unary("sign", with_zero),
    unary("abs", operands((2, 3), nonzero=(0,))),
    unary("exp", operands((2, 3), lo=-2.0, hi=2.0)),
    unary("log", operands((2, 3), lo=0.1, hi=3.0)),
    unary("log1p", operands((2, 3), lo=-0.5, hi=2.0)),
    unary("expm1", operands((2, 3), lo=-2.0, hi=2.0)),
    unary("sin"),
    unary("cos"),
    unary("tan", operands((2, 3), lo=-1.2, hi=1.2)),
    unary("tanh"),
    unary("logistic", operands((2, 3), lo=-4.0, hi=4.0)),
    unary("sqrt", operands((2, 3), lo=0.1, hi=3.0)),
    unary("rsqrt", operands((2, 3), lo=0.1, hi=3.0)),
    unary("cbrt", operands((2, 3), lo=-3.0, hi=3.0)),
    unary("square"),
    unary("floor", halves),
    unary("ceil", halves),
    Case("round", lambda L, x: L.lax.round(x, 0), halves, "away_from_zero"),
    Case("round", lambda L, x: L.lax.round(x, 1), halves, "to_even"),
    # Comparisons and logic.
    *(binary(n, with_ties((2, 3), (2, 3))) for n in ("eq", "ne", "lt", "le", "gt", "ge")),
    Case("and", lambda L, x, y: L.bitwise_and(x, y), BINARY),
    Case("or", lambda L, x, y: L.bitwise_or(x, y), BINARY),
    Case("not", lambda L, x: L.bitwise_not(x), UNARY),
    Case("select", lambda L, p, x, y: L.lax.select(p, x, y), select_args),
    Case("select_n", lambda L, p, x, y: L.lax.select_n(p, x, y), select_args),
    Case("clamp", lambda L, x, y: L.lax.clamp(L.lax.min(x, y), x, L.lax.max(x, y)), BINARY),
    Case("convert_element_type", _convert_all, edges),
    unary("stop_gradient"),
    # Structural.
    Case(
        "broadcast_in_dim",
        lambda L, x: L.lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)),
        operands((2, 1)),
    ),
    Case("reshape", lambda L, x: L.lax.reshape(x, (3, 2)), UNARY),
    Case("transpose", lambda L, x: L.lax.transpose(x, (1, 0)), UNARY),
    Case("squeeze", lambda L, x: L.lax.squeeze(x, (1,)), operands((2, 1, 3))),
    Case("expand_dims", lambda L, x: L.lax.expand_dims(x, (0, 3)), UNARY),
    Case("slice", lambda L, x: L.lax.slice(x, (0, 1), (3, 4), (2, 2)), operands((3, 4))),
    Case(
        "dynamic_slice",
        lambda L, x, i, j: L.lax.dynamic_slice(x, (i, j), (2, 2)),
        dynamic_slice_args,
    ),
    Case(
        "dynamic_update_slice",
        lambda L, x, u, i, j: L.lax.dynamic_update_slice(x, u, (i, j)),
        dynamic_update_slice_args,
    ),
    Case(
        "concatenate",
        lambda L, x, y: L.lax.concatenate([x, y], 1),
        operands((2, 3), (2, 1)),
    ),
    Case("pad", lambda L, x, v: L.lax.pad(x, v, ((1, 0, 1), (-1, 2, 0))), pad_args),
    Case("rev", lambda L, x: L.lax.rev(x, (0, 1)), UNARY),
    Case("iota", lambda L, x: L.lax.iota(x.dtype, 5), UNARY),
    # issue 28: the structural primitives of several operands or results.
    Case("split", lambda L, x: L.lax.split(x, (1, 0, 2), axis=1), UNARY),
    Case("tile", lambda L, x: L.lax.tile(x, (2, 1)), UNARY),
    Case("stack", lambda L, x, y: L.lax.stack([x, y], axis=1), BINARY),
    Case("unstack", lambda L, x: L.lax.unstack(x, axis=1), UNARY),
    Case("optimization_barrier", lambda L, x, y: L.lax.optimization_barrier((x, y)), BINARY),
    Case("copy", lambda L, x: L.lax.copy_p.bind(x), UNARY),
    # Reductions and scans; sums over a long axis.
    Case("reduce_sum", lambda L, x: L.lax.reduce_sum(x, (1,)), operands((2, LONG), lo=0.0, hi=3.0)),
    Case("reduce_max", lambda L, x: L.lax.reduce_max(x, (0, 1)), with_ties((3, 4))),
    Case("reduce_min", lambda L, x: L.lax.reduce_min(x, (0,)), with_ties((3, 4))),
    # XLA multiplies 16-bit floats in their own type, in an order of its own:
    # over a long axis its products drift from the exact one by many ulps.
    Case("reduce_prod", lambda L, x: L.lax.reduce_prod(x, (1,)), near_one((2, 12))),
    Case("argmax", lambda L, x: L.lax.argmax(x, 1, np.int32), with_ties((3, 4))),
    Case("argmin", lambda L, x: L.lax.argmin(x, 0, np.uint8), with_ties((3, 4))),
    Case("reduce_and", lambda L, x: L.lax.reduce_and(x, (1,)), edges),
    Case("reduce_or", lambda L, x: L.lax.reduce_or(x, (0,)), edges),
    Case("reduce_xor", lambda L, x: L.lax.reduce_xor(x, (0, 1)), edges),
    Case("reduce", _generic_reduce, with_ties((3, 4))),
    Case("reduce_precision", lambda L, x: L.lax.reduce_precision(x, 4, 3), edges),
    Case("cumsum", lambda L, x: L.lax.cumsum(x, 1), operands((2, LONG), lo=0.0, hi=3.0)),
    Case(
        "cumsum",
        lambda L, x: L.lax.cumsum(x, 0, reverse=True),
        operands((4, 3)),
        "reverse",
    ),
    Case("cumprod", lambda L, x: L.lax.cumprod(x, 1), near_one((2, 12))),
    Case("cummax", lambda L, x: L.lax.cummax(x, 1), with_ties((3, 4))),
    Case("cummin", lambda L, x: L.lax.cummin(x, 0, reverse=True), with_ties((3, 4))),
    # Windows: padded, strided, dilated; the generic one has no vjp (as in JAX).
    Case(
        "reduce_window_sum",
        lambda L, x: L.lax.reduce_window(x, 0, L.lax.add, (2, 2), (1, 2), ((1, 0), (0, 1))),
        operands((3, 5), lo=0.0, hi=3.0),
    ),
    Case(
        "reduce_window_max",
        lambda L, x: L.lax.reduce_window(x, -np.inf, L.lax.max, (2, 2), (2, 1), "SAME"),
        with_ties((4, 3)),
    ),
    Case(
        "reduce_window_min",
        lambda L, x: L.lax.reduce_window(x, np.inf, L.lax.min, (2,), (1,), "VALID", (2,)),
        with_ties((5,)),
    ),
    Case(
        "reduce_window",
        lambda L, x: L.lax.reduce_window(
            x, np.ones((), x.dtype), L.lax.mul, (1, 3), (1, 1), "SAME", None, (1, 2)
        ),
        near_one((2, 6)),
        grad_error=NotImplementedError,
    ),
    # Linear algebra.
    Case(
        "dot_general",
        lambda L, x, y: L.lax.dot_general(x, y, (((1,), (0,)), ((), ()))),
        operands((2, LONG), (LONG, 3), lo=0.0, hi=3.0),
    ),
    Case(
        "dot_general",
        lambda L, x, y: L.lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
        operands((2, 3, 4), (2, 4, 2)),
        "batch",
    ),
    Case(
        "conv_general_dilated",
        lambda L, x, k: L.lax.conv_general_dilated(x, k, (1, 1), "SAME"),
        operands((2, 3, 5, 5), (4, 3, 3, 3), lo=-2.0, hi=2.0),
    ),
    # Bits.
    Case("xor", lambda L, x, y: L.lax.bitwise_xor(x, y), full_range((3, 4), (3, 4))),
    *(
        Case(n, lambda L, x, y, n=n: getattr(L.lax, n)(x, y), shift_args)
        for n in ("shift_left", "shift_right_logical", "shift_right_arithmetic")
    ),
    Case("population_count", lambda L, x: L.lax.population_count(x), full_range((3, 4))),
    Case("clz", lambda L, x: L.lax.clz(x), full_range((3, 4))),
    Case("mulhi", lambda L, x, y: L.lax.mulhi(x, y), full_range((3, 4), (3, 4))),
    Case(
        "bitcast_convert_type",
        lambda L, x: L.lax.bitcast_convert_type(x, _same_width(x.dtype)),
        edges,
    ),
    Case(
        "bitcast_convert_type",
        lambda L, x: L.lax.bitcast_convert_type(x, np.uint8),
        edges,
        "to_uint8",
    ),
    # Sorting: ties, and NaNs and signed zeros among the floats.
    Case("sort", lambda L, x: L.lax.sort(x, dimension=1), edges),
    Case(
        "sort",
        lambda L, x, y: L.lax.sort((x, y), dimension=0, num_keys=1),
        with_ties((4, 3), (4, 3)),
        "key_val",
    ),
    # issue 28: comparisons in XLA's total order (NaNs and signed zeros among the floats).
    *(
        Case(n, lambda L, x, y, n=n: getattr(L.lax, f"{n}_p").bind(x, y), with_ties((2, 3), (2, 3)))
        for n in ("eq_to", "le_to", "lt_to")
    ),
    Case("top_k", lambda L, x: L.lax.top_k(x, 3), edges),
    # Indexing.
    Case("gather", lambda L, x, i: L.core.gather(x, i, ROWS, (1, 3)), gather_args),
    Case(
        "gather",
        lambda L, x, i: L.core.gather(x, i, ROWS, (1, 3), mode="fill"),
        gather_out_of_bounds_args,
        "fill",
    ),
    _scatter_case("scatter", scatter_unique_args),
    _scatter_case("scatter-add"),
    _scatter_case("scatter-sub"),
    # JAX differentiates a product scatter only with unique_indices=True.
    _scatter_case("scatter-mul", scatter_unique_args, unique_indices=True),
    _scatter_case("scatter-min"),
    _scatter_case("scatter-max"),
    # Special functions, in their domains.
    *(
        Case(n, lambda L, x, n=n: getattr(L.core, n)(x), operands((2, 3), lo=lo, hi=hi))
        for n, lo, hi in (
            ("erf", -2.0, 2.0),
            ("erfc", -2.0, 2.0),
            ("erf_inv", -0.9, 0.9),
            ("lgamma", 0.5, 4.0),
            ("digamma", 0.5, 4.0),
            ("sinh", -2.0, 2.0),
            ("cosh", -2.0, 2.0),
            ("asin", -0.9, 0.9),
            ("acos", -0.9, 0.9),
            ("atan", -3.0, 3.0),
            ("asinh", -3.0, 3.0),
            ("acosh", 1.1, 3.0),
            ("atanh", -0.9, 0.9),
            ("exp2", -2.0, 2.0),
        )
    ),
    Case("is_finite", lambda L, x: L.core.is_finite(x), edges),
    Case("atan2", lambda L, x, y: L.core.atan2(x, y), operands((2, 3), (2, 3), nonzero=(1,))),
    Case(
        "nextafter",
        lambda L, x, y: L.core.nextafter(x, y),
        with_ties((2, 3), (2, 3)),
        jvp_error=NotImplementedError,  # JAX has no derivative rule for it
        grad_error=NotImplementedError,
    ),
    *(
        Case(n, lambda L, x, n=n: getattr(L.core, n)(x), operands((2, 3), lo=lo, hi=hi))
        for n, lo, hi in (("bessel_i0e", -3.0, 3.0), ("bessel_i1e", -3.0, 3.0))
    ),
    *(
        Case(
            n,
            lambda L, a, x, n=n: getattr(L.core, n)(a, x),
            operands((2, 3), (2, 3), lo=0.5, hi=3.0),
        )
        for n in ("igamma", "igammac")
    ),
    # As in JAX: igamma_grad_a and zeta have no derivative rule.
    *(
        Case(
            n,
            lambda L, a, x, n=n: getattr(L.core, n)(a, x),
            operands((2, 3), (2, 3), lo=lo, hi=3.0),
            jvp_error=NotImplementedError,
            grad_error=NotImplementedError,
        )
        for n, lo in (("igamma_grad_a", 0.5), ("zeta", 1.5))
    ),
    # JAX's is lax operations around while loops: forward mode only.
    Case(
        "random_gamma_grad",
        lambda L, a, x: L.core.random_gamma_grad(a, x),
        operands((2, 3), (2, 3), lo=0.5, hi=3.0),
        grad_error=ValueError,
    ),
    # JAX differentiates betainc in x only.
    Case(
        "regularized_incomplete_beta",
        lambda L, a, b, x: L.core.betainc(a, b, x),
        operands((2, 3), (2, 3), (2, 3), lo=0.1, hi=0.9),
        argnums=(2,),
    ),
    # JAX differentiates polygamma in x only (the order m is an integer).
    Case("polygamma", lambda L, m, x: L.core.polygamma(m, x), polygamma_args, argnums=(1,)),
    # Higher-order primitives, around a body every dtype takes.
    Case("jit", lambda L, x: L.jit(lambda y: _body(L, y))(x), UNARY),
    Case("cond", _cond, BINARY),
    Case("while", _while, operands((2, 3), lo=-1.0, hi=1.0), grad_error=ValueError),
    Case("scan", _scan, operands((4, 3), lo=-2.0, hi=2.0)),
    Case("checkpoint", lambda L, x: L.checkpoint(lambda y: _body(L, y))(x), UNARY),
    Case("custom_jvp_call", lambda L, x: L.custom_jvp_square(x), UNARY),
    Case("custom_vjp_call", lambda L, x: L.custom_vjp_square(x), UNARY, jvp_error=TypeError),
)

# Primitives that no case can hold at the top of its jaxpr, and why.
NO_CASE: Final[dict[str, str]] = {
    "dim_as_value": (
        "a symbolic dimension's size as a value: it has no array operand, and its result "
        "is the default integer whatever the operands' dtypes; tests/api/"
        "test_export_symbolic.py checks it against JAX's exports"
    ),
    "name": (
        "checkpoint_name's identity: a value of any dtype passes through unchanged; "
        "tests/api/test_transformations_more.py checks it against JAX"
    ),
    "check": (
        "checkify's assertion takes a boolean predicate and format arguments it never "
        "computes with; tests/api/test_checkify.py checks it against JAX"
    ),
    "linear_call": (
        "a call of the user's function, whose dtypes are those of its own primitives (each "
        "with its case here); tests/api/test_transformations_more.py checks it against JAX"
    ),
    "random_gamma": (
        "a sampler over key data (uint32) and alphas: its dtypes, float32 and float64 as "
        "JAX's, are checked bit for bit by tests/api/test_random_gamma.py"
    ),
    "approx_top_k": (
        "JAX refuses its integer operands with a ValueError from its typing, where this "
        "harness takes a TypeError for JAX's refusal; tests/interpreters/test_top_k.py "
        "checks it against JAX"
    ),
    "fft": (
        "XLA's Fft takes float32/float64 and complex64/complex128 only (JAX refuses 16-bit "
        "and integer operands of lax.fft too), and jnp.fft converts them first: no small "
        "dtype reaches it; tests/api/test_fft.py checks it against JAX"
    ),
    **dict.fromkeys(
        ("real", "imag", "conj", "complex"),
        "complex numbers have no 16-bit or integer dtype (complex64 is the smallest, "
        "and lax.complex takes float32 or float64 parts, as JAX's): no small dtype "
        "reaches it; tests/api/test_complex.py checks it against JAX",
    ),
    "cumlogsumexp": (
        "JAX 0.10.2's lax.cumlogsumexp traces integer operands and then fails lowering "
        "them (OverflowError: float infinity to integer), so this harness cannot take "
        "JAX as the oracle; didax refuses integers at trace time, and its float16 and "
        "bfloat16 results are checked in tests/lowering/test_cumulative.py"
    ),
    **dict.fromkeys(
        ("cholesky", "triangular_solve", "lu", "qr", "eigh", "svd"),
        "a linear-algebra primitive: LAPACK has no kernel for the 16-bit floats nor "
        "for integers, so didax refuses them at trace time with a DTypeError naming "
        "the primitive (tests/api/test_linalg.py checks float16), while JAX 0.10.2's "
        "typing accepts float16 and bfloat16 (jax.eval_shape passes) and only its "
        "lowering fails, so this harness cannot take JAX as the oracle",
    ),
    **dict.fromkeys(
        ("schur", "hessenberg", "householder_product"),
        "LAPACK's gees, gehrd and orgqr: refused for the 16-bit floats and integers as the "
        "other linear-algebra primitives (tests/api/test_scipy_linalg_schur.py checks "
        "float16), where JAX 0.10.2 fails only at lowering",
    ),
    "eig": (
        "LAPACK's geev: refused for the 16-bit floats and integers with a DTypeError naming "
        "the primitive, as the other linear-algebra primitives, where JAX 0.10.2 fails only "
        "at lowering (its NotImplementedError 'Unsupported dtype float16')"
    ),
    **dict.fromkeys(
        ("debug_callback", "pure_callback", "io_callback", "ffi_call"),
        "a host callback (or a user's FFI target): values of any dtype go to the host and "
        "come back unchanged by didax, and what is computed is the user's; "
        "tests/api/test_debug_print.py and tests/api/test_ffi.py check them against JAX",
    ),
    "custom_vmap_call": (
        "a call of the user's function, whose dtypes are those of its own primitives (each "
        "with its case here); tests/api/test_custom_batching.py checks it against JAX"
    ),
    **dict.fromkeys(
        ("select_and_gather_add", "select_and_scatter_add"),
        "made only by the jvp and the transpose of a max/min window (as JAX's), never by "
        "user code: the jvp and grad of the reduce_window_max and reduce_window_min cases "
        "exercise them",
    ),
    "select_and_scatter": (
        "its dtypes are its select and scatter programs' (jaxprs the user stages): "
        "tests/interpreters/test_select_and_scatter.py checks it against JAX in float32 "
        "and float64"
    ),
    "custom_linear_solve": (
        "its dtypes are its programs' (a matvec and solves the user writes): "
        "tests/interpreters/test_solves.py checks it against JAX in float32 and float64"
    ),
    **dict.fromkeys(
        ("rng_bit_generator", "rng_uniform"),
        "XLA's random numbers: rng_bit_generator makes unsigned bits only (uint8 and "
        "uint16 among them: tests/api/test_lax_structure.py checks them bit for bit "
        "against JAX), and rng_uniform's draws are stateful, so no two runs agree",
    ),
    "custom_lin": (
        "made only inside the linear jaxpr that grad transposes, never by user code: "
        "the grad of the custom_vjp_call case exercises it"
    ),
    **dict.fromkeys(
        [
            "psum",
            "pmax",
            "pmin",
            "all_gather",
            "all_to_all",
            "psum_scatter",
            "ppermute",
            "axis_index",
            "sharding_constraint",
            "shard_map",
        ],
        "runs only over named axes of several devices (shard_map); this harness runs on "
        "one device. tests/lowering/multidevice_checks.py checks it against JAX on 8 "
        "devices (collectives in float16 and bfloat16 too)",
    ),
}

# (case id, dtype name, check) -> why didax cannot match JAX there. A check
# that passes while exempted fails its test: the exemption must go.
EXEMPT: Final[dict[tuple[str, str, str], str]] = {}


def _params(cases: Sequence[Case]) -> list[Any]:
    return [pytest.param(c, id=c.id) for c in cases]


def make_args(c: Case, dtype: DType, salt: str = "") -> tuple[Array, ...]:
    rng = np.random.default_rng(zlib.crc32(f"{c.id}-{dtype.name}-{salt}".encode()))
    return c.args(rng, dtype)


BATCH: Final = 2


def stacked_args(c: Case, dtype: DType) -> tuple[Array, ...]:
    """The case's operands and ``BATCH - 1`` more draws, stacked along a new first axis."""
    draws = [make_args(c, dtype, f"batch-{b}" if b else "") for b in range(BATCH)]
    return tuple(np.stack(xs) for xs in zip(*draws, strict=True))


def didax_fun(c: Case) -> Callable[..., Any]:
    return lambda *xs: c.fun(DIDAX, *xs)


def jax_fun(c: Case) -> Callable[..., Any]:
    return lambda *xs: c.fun(JAX, *xs)


# --- comparing with JAX --------------------------------------------------------------


def _leaves(tree: Any) -> list[Any]:
    return list(tree) if isinstance(tree, (tuple, list)) else [tree]


def assert_like_jax(got: Any, want: Any, ulps: float = 2) -> None:
    """Same structure; each leaf a didax value of JAX's dtype and shape, with its values.

    Integers and booleans exactly; 16-bit floats to ``ulps`` units in the
    last place (eps at 1.0) of each value.
    """
    _compare(got, want, ulps, norm_wise=False)


def assert_derivative_like_jax(got: Any, want: Any) -> None:
    """As ``assert_like_jax``, to four units of the largest value's last place.

    A derivative rule is several primitives, each result rounded to the
    16-bit type (didax's eager and jit, as JAX's eager), where JAX's jit
    keeps float32 between fused operations; JAX's own reductions round at
    every level of a tree. Where terms cancel (sums of products with
    random tangents) those roundings show against the largest term.
    """
    _compare(got, want, 4, norm_wise=True)


def _compare(got: Any, want: Any, ulps: float, norm_wise: bool) -> None:
    got_leaves, want_leaves = _leaves(got), _leaves(want)
    assert len(got_leaves) == len(want_leaves), f"{len(got_leaves)} != {len(want_leaves)} results"
    for i, (g, w) in enumerate(zip(got_leaves, want_leaves, strict=True)):
        what = f"result {i}: "
        assert isinstance(g, didax.Array), f"{what}a {type(g).__name__}, not a didax.Array"
        w = np.asarray(w)
        assert g.dtype == w.dtype, f"{what}dtype {g.dtype} != JAX's {w.dtype}"
        assert g.shape == w.shape, f"{what}shape {g.shape} != JAX's {w.shape}"
        if w.dtype == jax.dtypes.float0:
            continue  # tangents of integers carry no values
        if not _is_float(w.dtype):
            np.testing.assert_array_equal(np.asarray(g), w, err_msg=what)
            continue
        wide = w.astype(np.float64)
        tol = ulps * float(ml_dtypes.finfo(w.dtype).eps)
        finite = np.abs(wide[np.isfinite(wide)])
        scale = float(finite.max()) if norm_wise and finite.size else 1.0
        np.testing.assert_allclose(
            np.asarray(g).astype(np.float64), wide, rtol=tol, atol=tol * scale, err_msg=what
        )


def assert_raises(error: type[Exception], f: Callable[..., Any], *args: Any) -> None:
    """``f(*args)`` raises JAX's error (a ``TypeError``, never a ``KeyError`` or a crash)."""
    with pytest.raises(error):
        f(*args)


@dataclasses.dataclass
class Report:
    """The mismatches of one test, over all dtypes, reported together."""

    case: Case
    problems: list[str] = dataclasses.field(default_factory=list)

    def check(self, dtype: DType, label: str, fn: Callable[..., Any], *args: Any) -> None:
        """Calls ``fn(*args)``, recording a failure (or a pass where one is exempted)."""
        reason = EXEMPT.get((self.case.id, dtype.name, label))
        try:
            fn(*args)
        except Exception as e:  # every failure is reported, with its type
            if reason is None:
                self.problems.append(f"{dtype.name} {label}: {type(e).__name__}: {e}")
        else:
            if reason is not None:
                self.problems.append(f"{dtype.name} {label} works now: drop its exemption")

    def assert_ok(self) -> None:
        assert not self.problems, "\n".join(self.problems)


def jax_accepts(c: Case, dtype: DType) -> bool:
    """Whether JAX takes the case at ``dtype``: its typing says no with a ``TypeError``."""
    try:
        jax.eval_shape(jax_fun(c), *make_args(c, dtype))
    except TypeError:
        return False
    return True


ACCEPTED: Final[dict[str, tuple[DType, ...]]] = {
    c.id: tuple(d for d in SMALL if jax_accepts(c, d)) for c in CASES
}

Thunk: TypeAlias = Callable[[], Any]
JAX_COMPILER_OPTIONS: dict[str, Any] = {"xla_backend_optimization_level": 0}


def jax_each(funs: Sequence[Callable[..., Any]], inputs: Sequence[tuple[Any, ...]]) -> list[Any]:
    """Each of ``funs`` applied by JAX to its tuple of ``inputs``, in one compiled function."""
    if not inputs:
        return []
    apply = jax.jit(lambda xss: [f(*xs) for f, xs in zip(funs, xss, strict=True)])
    compiled = apply.lower(list(inputs)).compile(JAX_COMPILER_OPTIONS or None)
    results: list[Any] = compiled(list(inputs))
    return results


def didax_jit_each(
    funs: Sequence[Callable[..., Any]], inputs: Sequence[tuple[Any, ...]]
) -> list[Thunk]:
    """Each of ``funs`` applied by ``didax.jit`` to its tuple of ``inputs``, as thunks.

    One compiled function for all (a compile per dtype would cost most of
    the file's time); if that fails, each is compiled alone, so that a
    failure is reported against the dtypes it concerns.
    """
    if not inputs:
        return []
    try:
        results = didax.jit(lambda xss: [f(*xs) for f, xs in zip(funs, xss, strict=True)])(
            list(inputs)
        )
    except Exception:  # attributed below, one dtype at a time
        return [functools.partial(didax.jit(f), *xs) for f, xs in zip(funs, inputs, strict=True)]
    return [functools.partial(lambda r: r, r) for r in results]


# --- coverage -------------------------------------------------------------------------------


def package_primitives() -> list[Primitive]:
    """The primitives didax itself defines: the standard ones and the interpreters' own."""
    defined: set[Primitive] = set(STANDARD_PRIMITIVES)
    for info in pkgutil.walk_packages(didax.__path__, prefix="didax."):
        module = importlib.import_module(info.name)
        defined.update(v for v in vars(module).values() if isinstance(v, Primitive))
    return [p for p in ALL_PRIMITIVES if p in defined]


def test_every_primitive_has_a_case() -> None:
    names = {p.name for p in package_primitives()}
    with_case = {c.prim for c in CASES}
    missing = sorted(names - with_case - set(NO_CASE))
    assert not missing, f"primitives with no small-dtype case: {missing}"
    assert not (with_case - names), f"cases of no such primitive: {with_case - names}"
    assert not (set(NO_CASE) & with_case), "a primitive both has a case and is listed in NO_CASE"
    assert len({c.id for c in CASES}) == len(CASES), "case ids must be unique"


def test_each_case_holds_its_primitive() -> None:
    for c in CASES:
        dtype = (ACCEPTED[c.id] or SMALL)[0]
        closed = didax.make_jaxpr(didax_fun(c))(*make_args(c, dtype))
        assert c.prim in {e.primitive.name for e in closed.eqns}, f"{c.id}: {closed}"


def test_jax_refuses_what_lax_refuses() -> None:
    # The refusal checks mean something only if the oracle refuses what
    # JAX's lax is known to refuse, and accepts the rest.
    refused = {(c.id, d.name) for c in CASES for d in SMALL if d not in ACCEPTED[c.id]}
    for expected in [
        ("sin", "int8"),
        ("exp", "uint16"),
        ("pow", "int16"),
        ("round-to_even", "uint32"),
        ("abs", "uint8"),
        ("and", "bfloat16"),
        ("not", "float16"),
        ("integer_pow-negative", "int8"),
    ]:
        assert expected in refused, expected
    for accepted in [("abs", "int8"), ("add", "uint64"), ("cumsum", "bfloat16")]:
        assert accepted not in refused, accepted
    assert all(ACCEPTED[c.id] for c in CASES), "every case runs at some small dtype"


def test_exemptions_name_real_checks() -> None:
    ids = {c.id for c in CASES}
    labels = {"eager", "eager on Arrays", "jit", "eager refusal", "jit refusal", "vmap"}
    labels |= {"jit(vmap)", "jvp", "grad", "jit(grad)"}
    for (case_id, dtype_name, label), reason in EXEMPT.items():
        assert case_id in ids
        assert dtype_name in {d.name for d in SMALL}
        assert label in labels
        assert reason.strip()


# --- eager, jit and vmap ------------------------------------------------------------------


def _jit_of_vmap_dtypes(c: Case, accepted: Sequence[DType]) -> tuple[DType, ...]:
    """The dtypes (of ``accepted``) at which the vmapped case is compiled: two, rotating.

    Compiles are the file's time, and a batched program lowers the same at
    every dtype of a kind: the first dtype JAX accepts, and one more that
    moves on with each case, so that over the cases each dtype is met. An
    element-wise primitive's batched program is the primitive on a bigger
    shape, which the plain jit check lowers already: none.
    """
    if c.prim in ELEMENTWISE or not accepted:
        return ()
    i = CASE_INDEX[c.id]
    return tuple(dict.fromkeys((accepted[0], accepted[i % len(accepted)])))


ELEMENTWISE: Final = frozenset(p.name for p in core_lax.ELEMENTWISE)
CASE_INDEX: Final = {c.id: i for i, c in enumerate(CASES)}


def _matches(want: Any, f: Callable[..., Any], *args: Any) -> None:
    assert_like_jax(f(*args), want)


def _ci_params(
    cases: Sequence[Case], dtypes_of: Callable[[Case], Sequence[DType]] = lambda c: SMALL
) -> list[Any]:
    """Every case in two parts, its ``dtypes_of`` in ``SLICE_DTYPES`` and the
    rest (a part with none is left out). CI runs the slice part of each case
    but every other element-wise one (they share one lowering path, and every
    element-wise primitive is also in tests/interpreters/test_primitives.py);
    the slow session runs every part of every case."""
    out = []
    elementwise = 0
    for c in cases:
        slow = False
        if c.id in ELEMENTWISE:
            slow = elementwise % 2 == 1
            elementwise += 1
        for part in (True, False):
            if not in_part(dtypes_of(c), _in_slice, part):
                continue
            marks = (pytest.mark.slow,) if slow or not part else ()
            name = f"{c.id}-{'slice' if part else 'rest'}"
            out.append(pytest.param(c, part, id=name, marks=marks))
    return out


@pytest.mark.parametrize(("c", "part"), _ci_params(CASES))
def test_eager_jit_and_vmap_match_jax(c: Case, part: bool) -> None:
    dtypes_here = in_part(SMALL, _in_slice, part)
    accepted = [d for d in ACCEPTED[c.id] if d in dtypes_here]
    inputs = {d: make_args(c, d) for d in dtypes_here}
    plain = [inputs[d] for d in accepted]
    batched = [stacked_args(c, d) for d in accepted]
    f, vf = didax_fun(c), didax.vmap(didax_fun(c))
    n = len(accepted)
    # JAX computes every accepted dtype, vmapped, in one compiled function;
    # the first element of each batch is the plain case (XLA compiles per
    # result kernel: computing the plain cases too would double the time).
    wanted_batched = jax_each([jax.vmap(jax_fun(c))] * n, batched)
    wanted = [[np.asarray(y)[0] for y in _leaves(w)] for w in wanted_batched]
    # didax's jit computes every dtype in one program, and the vmapped case
    # at two of them.
    vmapped_at = {d: n + j for j, d in enumerate(_jit_of_vmap_dtypes(c, accepted))}
    jitted = didax_jit_each(
        [f] * n + [vf] * len(vmapped_at),
        plain + [batched[accepted.index(d)] for d in vmapped_at],
    )
    report = Report(c)
    for k, dtype in enumerate(accepted):
        want, want_batched = wanted[k], wanted_batched[k]
        report.check(dtype, "eager", _matches, want, f, *plain[k])
        arrays = [dnp.asarray(a) for a in plain[k]]
        report.check(dtype, "eager on Arrays", _matches, want, f, *arrays)
        report.check(dtype, "jit", _matches, want, jitted[k])
        report.check(dtype, "vmap", _matches, want_batched, vf, *batched[k])
        if dtype in vmapped_at:
            report.check(dtype, "jit(vmap)", _matches, want_batched, jitted[vmapped_at[dtype]])
    for dtype in dtypes_here:
        if dtype not in accepted:
            report.check(dtype, "eager refusal", assert_raises, TypeError, f, *inputs[dtype])
            jitted_alone = didax.jit(f)
            report.check(
                dtype, "jit refusal", assert_raises, TypeError, jitted_alone, *inputs[dtype]
            )
    report.assert_ok()


# --- jvp and grad of the 16-bit floats ---------------------------------------------------


def _float_outputs(fun: Callable[..., Any]) -> Callable[..., Any]:
    return lambda *xs: [y for y in _leaves(fun(*xs)) if _is_float(np.dtype(y.dtype))]


def _partial(fun: Callable[..., Any], args: Sequence[Any], nums: Sequence[int]) -> Any:
    """``fun`` as a function of the operands at ``nums``, the others fixed."""

    def f(*xs: Any) -> Any:
        full = list(args)
        for i, x in zip(nums, xs, strict=True):
            full[i] = x
        return fun(*full)

    return f


def _loss(lax: Any, fun: Callable[..., Any]) -> Callable[..., Any]:
    """The sum of every float output, in float32: a scalar to take the gradient of."""

    def loss(*xs: Any) -> Any:
        sums = [
            lax.reduce_sum(lax.convert_element_type(y, np.float32), tuple(range(y.ndim)))
            for y in fun(*xs)
        ]
        total = sums[0]
        for s in sums[1:]:
            total = lax.add(total, s)
        return total

    return loss


def _float_argnums(args: Sequence[Array]) -> tuple[int, ...]:
    return tuple(i for i, x in enumerate(args) if _is_float(x.dtype))


@dataclasses.dataclass(frozen=True)
class Derivatives:
    """A case's operands at one float dtype, which are differentiated, and tangents for them."""

    args: tuple[Array, ...]
    nums: tuple[int, ...]
    tangents: tuple[Array, ...]

    @property
    def primals(self) -> tuple[Array, ...]:
        return tuple(self.args[i] for i in self.nums)

    def function(self, fun: Callable[..., Any]) -> Callable[..., Any]:
        """``fun``'s float outputs as a function of the differentiated operands."""
        return _float_outputs(_partial(fun, self.args, self.nums))


def derivatives(c: Case, dtype: DType) -> Derivatives:
    args = make_args(c, dtype)
    nums = _float_argnums(args) if c.argnums is None else c.argnums
    rng = np.random.default_rng(zlib.crc32(f"tangents-{c.id}-{dtype.name}".encode()))
    tangents = tuple(np.asarray(rng.standard_normal(args[i].shape)).astype(dtype) for i in nums)
    return Derivatives(args, nums, tangents)


def _differentiable(c: Case, dtype: DType) -> bool:
    """Accepted by JAX at ``dtype``, with a float operand and a float result."""
    if dtype not in ACCEPTED[c.id] or not _float_argnums(make_args(c, dtype)):
        return False
    outs = _leaves(jax.eval_shape(jax_fun(c), *make_args(c, dtype)))
    return any(_is_float(np.dtype(o.dtype)) for o in outs)


DIFFERENTIABLE: Final[dict[str, tuple[DType, ...]]] = {
    c.id: tuple(d for d in FLOATS if _differentiable(c, d)) for c in CASES
}


def _jvp_matches(want: Any, f: Callable[..., Any], dv: Derivatives) -> None:
    out, t_out = didax.jvp(f, dv.primals, dv.tangents)
    assert_derivative_like_jax(out, want[0])
    assert_derivative_like_jax(t_out, want[1])


def _derivative_matches(want: Any, f: Callable[..., Any], *args: Any) -> None:
    assert_derivative_like_jax(f(*args), want)


@pytest.mark.parametrize(
    ("c", "part"),
    _ci_params([c for c in CASES if DIFFERENTIABLE[c.id]], lambda c: DIFFERENTIABLE[c.id]),
)
def test_jvp_and_grad_match_jax(c: Case, part: bool) -> None:
    floats = in_part(DIFFERENTIABLE[c.id], _in_slice, part)
    ds = [derivatives(c, d) for d in floats]

    def jax_derivatives(dv: Derivatives) -> Callable[..., Any]:
        f, n = dv.function(jax_fun(c)), len(dv.nums)

        def both(*xs: Any) -> Any:
            jvp = None if c.jvp_error else jax.jvp(f, xs[:n], xs[n:])
            grad = None if c.grad_error else jax.grad(_loss(jlax, f), tuple(range(n)))(*xs[:n])
            return jvp, grad

        return both

    # JAX's jvp and grad at the part's dtypes in one compiled function;
    # didax's grad under jit at the first (bfloat16 in the slice, where
    # NumPy's dtype kind is not 'f' and so where dtype tests go wrong).
    wanted = jax_each([jax_derivatives(dv) for dv in ds], [dv.primals + dv.tangents for dv in ds])
    fs = [dv.function(didax_fun(c)) for dv in ds]
    grads = [
        didax.grad(_loss(dlax, f), tuple(range(len(dv.nums)))) for f, dv in zip(fs, ds, strict=True)
    ]
    jitted = [] if c.grad_error else didax_jit_each(grads[:1], [ds[0].primals])
    report = Report(c)
    for k, (dtype, dv, f, grad) in enumerate(zip(floats, ds, fs, grads, strict=True)):
        want_jvp, want_grad = wanted[k]
        if c.jvp_error:
            report.check(
                dtype, "jvp", assert_raises, c.jvp_error, didax.jvp, f, dv.primals, dv.tangents
            )
        else:
            report.check(dtype, "jvp", _jvp_matches, want_jvp, f, dv)
        if c.grad_error:
            report.check(dtype, "grad", assert_raises, c.grad_error, grad, *dv.primals)
        else:
            report.check(dtype, "grad", _derivative_matches, want_grad, grad, *dv.primals)
            if k < len(jitted):
                report.check(dtype, "jit(grad)", _derivative_matches, want_grad, jitted[k])
    report.assert_ok()


# --- complex numbers ------------------------------------------------------------------------

Z: Final = np.ones(3, np.complex64) * (1 + 2j)
X: Final = np.ones(3, np.float32)


def _complex_uses(np_: Any, lax_: Any, lib: Any) -> dict[str, Thunk]:
    return {
        "eager": lambda: np_.sin(Z),
        "lax": lambda: lax_.sin(Z),
        "asarray": lambda: np_.asarray(Z),
        "mixed with a float": lambda: np_.multiply(X, Z),
        "python complex": lambda: np_.sin(1j),
        "jit": lambda: lib.jit(np_.sin)(Z),
        "jit closure": lambda: lib.jit(lambda x: np_.multiply(x, Z))(X),
        "grad of a complex output": lambda: lib.grad(lambda x: np_.sum(np_.sin(x)))(Z),
        "grad of a real output": lambda: lib.grad(lambda x: np_.sum(np_.abs(np_.sin(x))))(Z),
        "holomorphic grad": lambda: lib.grad(lambda x: np_.sum(np_.sin(x)), holomorphic=True)(Z),
        "grad of python complex": lambda: lib.grad(np_.sin)(1j),
        "jit of grad": lambda: lib.jit(lib.grad(lambda x: np_.sum(np_.abs(x) ** 2)))(Z),
        "jvp": lambda: lib.jvp(np_.sin, (Z,), (Z,)),
        "vmap": lambda: lib.vmap(np_.sin)(Z),
    }


COMPLEX_USES: Final = list(_complex_uses(dnp, dlax, didax))


@pytest.mark.parametrize("use", COMPLEX_USES)
def test_complex_inputs_work_as_in_jax(use: str) -> None:
    # Each use gives JAX's values (complex64 stays complex64), or the
    # TypeError JAX raises (grad of a complex output without holomorphic).
    want_thunk = _complex_uses(jnp, jax.lax, jax)[use]
    got_thunk = _complex_uses(dnp, dlax, didax)[use]
    try:
        want = want_thunk()
    except TypeError:
        with pytest.raises(TypeError, match="holomorphic"):
            got_thunk()
        return
    got = got_thunk()
    for w, g in zip(jax.tree_util.tree_leaves(want), jax.tree_util.tree_leaves(got), strict=True):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)
