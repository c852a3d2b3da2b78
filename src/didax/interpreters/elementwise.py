"""The interpreters' rules for the element-wise primitives (``core.lax.elementwise``).

Design rules:
- Impls are NumPy's ufuncs where they compute what XLA does (the ufunc is
  the rule itself: no wrapper on the eager hot path), and small functions
  where they do not: integer division truncates toward zero and ``x / 0``
  has every bit set, ``x % 0`` is ``x``, ``round`` rounds halves away from
  zero, ``max``/``min`` of complex numbers pick lexicographically,
  ``logistic`` and ``rsqrt`` of 16-bit floats are computed in float32
  (``in_float32``), a complex ``square`` is chlo's ``(a - b)(a + b) + 2ab i``.
  ``cbrt`` has none: eager evaluation compiles it.
- Jvps are JAX's: ``defjvp`` with one Jacobian-times-tangent function per
  operand (Jacobian first, tangent second where Autodidax writes it so:
  golden jaxprs follow the tutorial); piecewise-constant primitives have
  zero tangents (``zero_jvp``); ``neg`` and the complex parts are linear
  (``linear_jvp``).
- Transposes exist for the uses that can be linear: ``add``, ``sub``,
  ``neg``, ``mul`` and ``div`` by a defined operand, ``select`` of defined
  predicates, and the complex parts (without conjugation: the pairing is
  ``Re(a * b)``, as JAX's).
- Batching aligns the operands' batch axes (``elementwise_batcher``).
- Flops are XLA's cost analysis: one per element, transcendental
  functions counted apart, ``logistic`` three flops and one
  transcendental, ``conj`` two.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import HostArray, Value
from didax.core.lax.elementwise import (
    COMPARISONS,
    COMPLEX_PARTS,
    ELEMENTWISE,
    LOGICAL_BINARY,
    NUMERIC_UNARY,
    ROUND_TO_NEAREST_EVEN,
)
from didax.core.primitive import Primitive
from didax.core.values import ArrayLike, get_aval
from didax.interpreters.batching import elementwise_batcher
from didax.interpreters.evaluation import IMPL_RULES, ImplRule, in_float32
from didax.interpreters.flops import FLOPS_RULES, Cost, Operand, integer_pow_multiplies, per_element
from didax.interpreters.jvp import (
    JVP_RULES,
    Zero,
    defjvp,
    instantiate_zeros,
    linear_jvp,
    zero_jvp,
)
from didax.interpreters.transpose import (
    TRANSPOSE_RULES,
    PrimalOrUndefined,
    UndefinedPrimal,
    aval_of,
    is_undefined,
    not_linear,
    zeros_of,
)

__all__: list[str] = []

Array = HostArray

# --- impl -----------------------------------------------------------------------------------


def _register_numpy(prim: Primitive, fn: Callable[..., Array]) -> None:
    # Element-wise primitives have no params: the NumPy function is the rule
    # itself, with no wrapper to call on the eager hot path.
    IMPL_RULES.register(prim, fn)


def _int_div(x: Array, y: Array) -> Array:
    if dtypes.kind(x.dtype) in "iu":
        # C semantics (truncation toward zero), as XLA; NumPy floors instead.
        # XLA's x / 0 has every bit set (-1, or the unsigned maximum).
        q = np.abs(x) // np.where(y == 0, 1, np.abs(y))
        q = np.where((x < 0) != (y < 0), -q, q)
        return np.where(y == 0, ~np.zeros_like(x), q).astype(x.dtype)
    return np.divide(x, y)


def _rem(x: Array, y: Array) -> Array:
    if dtypes.kind(x.dtype) in "iu":
        # XLA's x % 0 is x.
        safe = np.where(y == 0, 1, y)
        return np.where(y == 0, x, np.fmod(x, safe)).astype(x.dtype)
    return np.fmod(x, y)


@in_float32
def _logistic(x: Array) -> Array:
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


@in_float32
def _rsqrt(x: Array) -> Array:
    return 1 / np.sqrt(x)


def _round(x: Array, *, rounding_method: int) -> Array:
    if rounding_method == ROUND_TO_NEAREST_EVEN:
        return np.round(x)
    # x - trunc(x) is exact; x + 0.5 is not (it rounds 0.49999999999999994 up to 1,
    # and 2**52 + 1 to even). copysign keeps the sign of zeros, as C's round.
    whole = np.trunc(x)
    with np.errstate(invalid="ignore"):  # inf - inf
        up = np.abs(x - whole) >= 0.5
    return np.copysign(np.where(up, whole + np.sign(x), whole), x).astype(x.dtype)


def _integer_pow(x: Array, *, y: int) -> Array:
    if dtypes.kind(x.dtype) in "iu":
        return np.asarray(np.power(x, y))
    return np.asarray(np.power(x, x.dtype.type(y)))


def _sign(x: Array) -> Array:
    return np.sign(x) if dtypes.kind(x.dtype) != "u" else (x > 0).astype(x.dtype)


def _complex_pick(x: Array, y: Array, cmp: np.ufunc) -> Array:
    # JAX's lexicographic order of complex numbers: real parts, then imaginary.
    pick = np.where(x.real == y.real, cmp(x.imag, y.imag), cmp(x.real, y.real))
    return np.where(pick, x, y)


def _logical(bool_fn: np.ufunc, int_fn: np.ufunc) -> ImplRule:
    def impl(*args: Array, **_: object) -> Array:
        fn = bool_fn if dtypes.kind(args[0].dtype) == "b" else int_fn
        return np.asarray(fn(*args))

    return impl


_NUMPY_ELEMENTWISE: Final[dict[Primitive, Callable[..., Array]]] = {
    lax.add_p: np.add,
    lax.sub_p: np.subtract,
    lax.mul_p: np.multiply,
    lax.div_p: _int_div,
    lax.rem_p: _rem,
    lax.pow_p: np.power,
    lax.max_p: lambda x, y: (
        _complex_pick(x, y, np.greater) if dtypes.kind(x.dtype) == "c" else np.maximum(x, y)
    ),
    lax.min_p: lambda x, y: (
        _complex_pick(x, y, np.less) if dtypes.kind(x.dtype) == "c" else np.minimum(x, y)
    ),
    lax.neg_p: np.negative,
    lax.sign_p: _sign,
    lax.abs_p: np.abs,
    lax.exp_p: np.exp,
    lax.log_p: np.log,
    lax.log1p_p: np.log1p,
    lax.expm1_p: np.expm1,
    lax.sin_p: np.sin,
    lax.cos_p: np.cos,
    lax.tan_p: np.tan,
    lax.tanh_p: np.tanh,
    lax.logistic_p: _logistic,
    lax.sqrt_p: np.sqrt,
    lax.rsqrt_p: _rsqrt,
    lax.floor_p: np.floor,
    lax.ceil_p: np.ceil,
    lax.eq_p: np.equal,
    lax.ne_p: np.not_equal,
    lax.lt_p: np.less,
    lax.le_p: np.less_equal,
    lax.gt_p: np.greater,
    lax.ge_p: np.greater_equal,
    lax.select_p: np.where,
    lax.stop_gradient_p: lambda x: x,
    lax.real_p: lambda x: np.real(x).copy(),
    lax.imag_p: lambda x: np.imag(x).copy(),
}
for _prim, _fn in _NUMPY_ELEMENTWISE.items():
    _register_numpy(_prim, _fn)
IMPL_RULES.register(lax.and_p, _logical(np.logical_and, np.bitwise_and))
IMPL_RULES.register(lax.or_p, _logical(np.logical_or, np.bitwise_or))
IMPL_RULES.register(lax.not_p, _logical(np.logical_not, np.invert))
IMPL_RULES.register(lax.round_p, _round)
IMPL_RULES.register(lax.integer_pow_p, _integer_pow)
# cbrt has no impl rule: NumPy's float32 cbrt is off by an ulp where XLA's is
# exact (cbrt(27) is 3), so eager evaluation compiles it, as the special functions.


@IMPL_RULES.defines(lax.square_p)
def _square_impl(x: Array) -> Array:
    if not dtypes.is_complex(x.dtype):
        return np.asarray(np.square(x))
    # chlo.square's complex square, (a - b)(a + b) + 2ab i: more accurate than x * x.
    a, b = x.real, x.imag
    out = np.empty_like(x)
    with np.errstate(over="ignore", invalid="ignore"):
        out.real, out.imag = (a - b) * (a + b), 2 * a * b
    return out


@IMPL_RULES.defines(lax.conj_p)
def _conj_impl(x: Array, *, input_dtype: np.dtype[Any]) -> Array:
    return np.conj(x.astype(dtypes.complex_dtype(x.dtype)))


@IMPL_RULES.defines(lax.complex_p)
def _complex_impl(x: Array, y: Array) -> Array:
    # Part by part, not x + 1j * y (which would turn inf * 0 into NaN).
    out = np.empty(x.shape, dtypes.complex_dtype(x.dtype))
    out.real, out.imag = x, y
    return out


# --- jvp ------------------------------------------------------------------------------------

for _p in (
    lax.sign_p,
    lax.floor_p,
    lax.ceil_p,
    lax.round_p,
    *COMPARISONS,
    lax.and_p,
    lax.or_p,
    lax.not_p,
    lax.stop_gradient_p,
):
    zero_jvp(_p)
for _p in (
    lax.neg_p,
    *COMPLEX_PARTS,
):
    linear_jvp(_p)

defjvp(lax.add_p, lambda t, x, y, out: t, lambda t, x, y, out: t)
defjvp(lax.sub_p, lambda t, x, y, out: t, lambda t, x, y, out: lax.neg(t))
defjvp(lax.mul_p, lambda t, x, y, out: lax.mul(t, y), lambda t, x, y, out: lax.mul(x, t))
defjvp(
    lax.div_p,
    lambda t, x, y, out: lax.div(t, y),
    lambda t, x, y, out: lax.neg(lax.mul(t, lax.div(out, y))),
)
defjvp(
    lax.rem_p,
    lambda t, x, y, out: t,
    lambda t, x, y, out: lax.mul(
        lax.neg(t), lax.mul(lax.sign(lax.div(x, y)), lax.floor(lax.abs(lax.div(x, y))))
    ),
)


def _pow_jvp_lhs(t: ArrayLike, x: ArrayLike, y: ArrayLike, out: Value) -> Value:
    # y * x ** (y - 1), written so that y == 0 gives 0 even at x == 0 (JAX).
    one = lax.full_like(y, 1)
    exponent = lax.select(lax.eq(y, lax.full_like(y, 0)), one, lax.sub(y, one))
    return lax.mul(t, lax.mul(y, lax.pow(x, exponent)))


def _pow_jvp_rhs(t: ArrayLike, x: ArrayLike, y: ArrayLike, out: Value) -> Value:
    # log(x) * out, with x == 0 treated as log(1) so that 0 ** y contributes 0 (JAX).
    safe_x = lax.select(lax.eq(x, lax.full_like(x, 0)), lax.full_like(x, 1), x)
    return lax.mul(t, lax.mul(lax.log(safe_x), out))


defjvp(lax.pow_p, _pow_jvp_lhs, _pow_jvp_rhs)


def _balanced_eq(x: ArrayLike, z: ArrayLike, y: ArrayLike) -> Value:
    """1 where x is the extremum z alone, 1/2 on ties with y, 0 elsewhere (JAX's rule)."""
    one, zero = lax.full_like(z, 1), lax.full_like(z, 0)
    x_is = lax.select(lax.eq(x, z), one, zero)
    y_is = lax.select(lax.eq(y, z), one, zero)
    return lax.div(x_is, lax.add(one, y_is))


defjvp(
    lax.max_p,
    lambda t, x, y, out: lax.mul(t, _balanced_eq(x, out, y)),
    lambda t, x, y, out: lax.mul(t, _balanced_eq(y, out, x)),
)
defjvp(
    lax.min_p,
    lambda t, x, y, out: lax.mul(t, _balanced_eq(x, out, y)),
    lambda t, x, y, out: lax.mul(t, _balanced_eq(y, out, x)),
)


def _integer_pow_jvp(t: ArrayLike, x: ArrayLike, out: Value, *, y: int) -> Value | Zero:
    if y == 0:
        return Zero.like(get_aval(x))
    factor = lax.full_like(x, y) if y == 1 else lax.mul(lax.integer_pow(x, y - 1), float(y))
    return lax.mul(t, factor)


defjvp(lax.integer_pow_p, _integer_pow_jvp)


def _abs_jvp(t: ArrayLike, x: ArrayLike, out: Value) -> Value:
    if dtypes.is_complex(get_aval(x).dtype):
        # d|z| = Re(conj(z) dz) / |z|, with |z| = 0 read as 1 (JAX's rule).
        modulus = lax.convert_element_type_p.bind(
            out, new_dtype=get_aval(x).dtype, weak_type=get_aval(x).weak_type
        )
        safe = lax.select(
            lax.eq(modulus, lax.full_like(modulus, 0)), lax.full_like(modulus, 1), modulus
        )
        return lax.real(lax.mul(t, lax.div(lax.conj(x), safe)))
    # As JAX's: the derivative at 0 is 1 (the right derivative), not sign(0) = 0.
    return lax.select(lax.ge(x, lax.full_like(x, 0)), t, lax.neg(t))


defjvp(lax.abs_p, _abs_jvp)
defjvp(lax.exp_p, lambda t, x, out: lax.mul(t, out))
defjvp(lax.log_p, lambda t, x, out: lax.div(t, x))
defjvp(lax.log1p_p, lambda t, x, out: lax.div(t, lax.add(x, 1.0)))
defjvp(lax.expm1_p, lambda t, x, out: lax.mul(t, lax.add(out, 1.0)))
# Jacobian first, tangent second, as Autodidax writes it (golden jaxprs follow the tutorial).
defjvp(lax.sin_p, lambda t, x, out: lax.mul(lax.cos(x), t))
defjvp(lax.cos_p, lambda t, x, out: lax.neg(lax.mul(t, lax.sin(x))))
defjvp(lax.tan_p, lambda t, x, out: lax.mul(t, lax.add(1.0, lax.mul(out, out))))
defjvp(lax.tanh_p, lambda t, x, out: lax.mul(t, lax.sub(1.0, lax.mul(out, out))))
defjvp(lax.logistic_p, lambda t, x, out: lax.mul(t, lax.mul(out, lax.sub(1.0, out))))
defjvp(lax.sqrt_p, lambda t, x, out: lax.div(t, lax.mul(out, 2.0)))
defjvp(lax.rsqrt_p, lambda t, x, out: lax.mul(t, lax.mul(lax.div(out, x), -0.5)))
defjvp(lax.cbrt_p, lambda t, x, out: lax.mul(t, lax.mul(1.0 / 3.0, lax.integer_pow(out, -2))))
defjvp(lax.square_p, lambda t, x, out: lax.mul(t, lax.mul(2, x)))


@JVP_RULES.defines(lax.select_p)
def _select_jvp(
    primals: Sequence[ArrayLike], tangents: Sequence[ArrayLike | Zero]
) -> tuple[Value, Value]:
    pred, on_true, on_false = primals
    _, t_true, t_false = tangents
    out = lax.select(pred, on_true, on_false)
    return out, lax.select(pred, instantiate_zeros(t_true), instantiate_zeros(t_false))


# --- batching -------------------------------------------------------------------------------

for _p in ELEMENTWISE:
    if _p is not lax.convert_element_type_p:
        elementwise_batcher(_p)


# --- transpose ------------------------------------------------------------------------------


@TRANSPOSE_RULES.defines(lax.add_p)
def _add_transpose(
    ct: ArrayLike, x: PrimalOrUndefined, y: PrimalOrUndefined
) -> list[ArrayLike | None]:
    return [ct if is_undefined(x) else None, ct if is_undefined(y) else None]


@TRANSPOSE_RULES.defines(lax.sub_p)
def _sub_transpose(
    ct: ArrayLike, x: PrimalOrUndefined, y: PrimalOrUndefined
) -> list[ArrayLike | None]:
    return [ct if is_undefined(x) else None, lax.neg(ct) if is_undefined(y) else None]


@TRANSPOSE_RULES.defines(lax.neg_p)
def _neg_transpose(ct: ArrayLike, x: PrimalOrUndefined) -> list[ArrayLike | None]:
    return [lax.neg(ct)]


@TRANSPOSE_RULES.defines(lax.mul_p)
def _mul_transpose(
    ct: ArrayLike, x: PrimalOrUndefined, y: PrimalOrUndefined
) -> list[ArrayLike | None]:
    if isinstance(x, UndefinedPrimal):
        if isinstance(y, UndefinedPrimal):
            raise not_linear(lax.mul_p, "both factors are linear inputs")
        return [lax.mul(ct, y), None]
    return [None, lax.mul(x, ct)]


@TRANSPOSE_RULES.defines(lax.div_p)
def _div_transpose(
    ct: ArrayLike, x: PrimalOrUndefined, y: PrimalOrUndefined
) -> list[ArrayLike | None]:
    if isinstance(y, UndefinedPrimal):
        raise not_linear(lax.div_p, "the divisor is a linear input")
    return [lax.div(ct, y), None]


# JAX's transposes of the complex parts: linear maps are transposed without
# conjugation (the pairing is Re(a * b)), so real's transpose is (ct, 0),
# imag's is (0, -ct), conj's is conj (or the real part, for a real operand)
# and complex's is (real(ct), -imag(ct)).
@TRANSPOSE_RULES.defines(lax.real_p)
def _real_transpose(ct: ArrayLike, x: PrimalOrUndefined) -> list[ArrayLike | None]:
    return [lax.complex(ct, lax.full_like(ct, 0))]


@TRANSPOSE_RULES.defines(lax.imag_p)
def _imag_transpose(ct: ArrayLike, x: PrimalOrUndefined) -> list[ArrayLike | None]:
    return [lax.complex(lax.full_like(ct, 0), lax.neg(ct))]


@TRANSPOSE_RULES.defines(lax.conj_p)
def _conj_transpose(
    ct: ArrayLike, x: PrimalOrUndefined, *, input_dtype: np.dtype[Any]
) -> list[ArrayLike | None]:
    return [lax.conj(ct) if dtypes.is_complex(input_dtype) else lax.real(ct)]


@TRANSPOSE_RULES.defines(lax.complex_p)
def _complex_transpose(
    ct: ArrayLike, x: PrimalOrUndefined, y: PrimalOrUndefined
) -> list[ArrayLike | None]:
    return [
        lax.real(ct) if is_undefined(x) else None,
        lax.neg(lax.imag(ct)) if is_undefined(y) else None,
    ]


@TRANSPOSE_RULES.defines(lax.select_p)
def _select_transpose(
    ct: ArrayLike, pred: PrimalOrUndefined, on_true: PrimalOrUndefined, on_false: PrimalOrUndefined
) -> list[ArrayLike | None]:
    if isinstance(pred, UndefinedPrimal):
        raise not_linear(lax.select_p, "the predicate is a linear input")
    # The rule runs only for a linear use, so one of the cases is undefined.
    zeros = zeros_of(aval_of(ct))
    return [
        None,
        lax.select(pred, ct, zeros) if is_undefined(on_true) else None,
        lax.select(pred, zeros, ct) if is_undefined(on_false) else None,
    ]


# --- flops ----------------------------------------------------------------------------------

_ONE_FLOP: Final = (
    lax.add_p,
    lax.sub_p,
    lax.mul_p,
    lax.div_p,
    lax.rem_p,
    lax.max_p,
    lax.min_p,
    *NUMERIC_UNARY,
    lax.floor_p,
    lax.ceil_p,
    lax.round_p,
    *COMPARISONS,
    *LOGICAL_BINARY,
    lax.not_p,
    lax.select_p,
    lax.complex_p,
)
# XLA's transcendental opcodes (HloCostAnalysis::HandleElementwiseOp).
_TRANSCENDENTAL: Final = (
    lax.exp_p,
    lax.log_p,
    lax.log1p_p,
    lax.expm1_p,
    lax.sin_p,
    lax.cos_p,
    lax.tan_p,
    lax.tanh_p,
    lax.sqrt_p,
    lax.rsqrt_p,
    lax.cbrt_p,
    lax.pow_p,
)
_FREE: Final = (
    lax.stop_gradient_p,
    # XLA's cost analysis counts no flops for taking a complex number's parts.
    lax.real_p,
    lax.imag_p,
)

for _p in _ONE_FLOP:
    if _p is not lax.square_p:
        FLOPS_RULES.register(_p, per_element(1))
for _p in _TRANSCENDENTAL:
    FLOPS_RULES.register(_p, per_element(0, 1))
for _p in _FREE:
    FLOPS_RULES.register(_p, per_element(0))
# complex(real(x), -imag(x)): the negation and the complex (the parts are free).
FLOPS_RULES.register(lax.conj_p, per_element(2))
# 1 / (1 + exp(-x)): a negation, an addition and a division, and one exp.
FLOPS_RULES.register(lax.logistic_p, per_element(3, 1))


@FLOPS_RULES.defines(lax.square_p)
def _square_flops(operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /) -> Cost:
    # One multiply; chlo.square of a complex number expands into 14 real operations.
    return Cost((14 if dtypes.is_complex(out_avals[0].dtype) else 1) * out_avals[0].size)


@FLOPS_RULES.defines(lax.integer_pow_p)
def _integer_pow_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, *, y: int
) -> Cost:
    return Cost(integer_pow_multiplies(y) * out_avals[0].size)
