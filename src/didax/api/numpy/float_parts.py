"""Floating-point parts and neighbours, ``i0``, phase unwrapping and NumPy's windows.

``cbrt``, ``nextafter`` (XLA's own), ``spacing``, ``frexp`` and ``ldexp``
(JAX's bit formulas: XLA has no frexp), ``i0`` (``exp(|x|) * i0e(|x|)``),
``unwrap``, ``sort_complex`` and the window functions ``bartlett``,
``blackman``, ``hamming``, ``hanning`` and ``kaiser``.

Design rules:
- Each function is ``jax.numpy``'s formula over didax's primitives, so
  dtypes (inexact promotion, int32 exponents) and values follow JAX's.
- Where JAX defines a derivative by hand (``frexp``: the mantissa's
  tangent is ``t * 2**-e``; ``i0``: zero slope at 0, where ``|x|`` has
  none), didax defines the same with ``custom_jvp``.
- A window's length ``M`` is static (it is the result's shape).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, Final

import ml_dtypes
import numpy as np

from didax.api.custom_derivatives import custom_jvp
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import (
    abs,
    add,
    bitwise_and,
    bitwise_or,
    cos,
    divide,
    equal,
    exp,
    floor_divide,
    greater,
    less,
    logical_and,
    logical_or,
    multiply,
    remainder,
    sqrt,
    subtract,
    where,
)
from didax.api.numpy.manipulation import concatenate
from didax.api.numpy.more_elementwise import copysign, exp2, isinf, isnan
from didax.api.numpy.operands import as_result, astype, operand, promote
from didax.api.numpy.rearranging import diff
from didax.api.numpy.reductions import cumsum
from didax.core import dtypes, lax
from didax.core.dtypes import DType
from didax.core.promotion import result_type
from didax.core.values import get_aval

__all__ = [
    "cbrt",
    "nextafter",
    "spacing",
    "frexp",
    "ldexp",
    "i0",
    "unwrap",
    "sort_complex",
    "bartlett",
    "blackman",
    "hamming",
    "hanning",
    "kaiser",
]


def _real_inexact(name: str, *args: ArrayLike) -> list[Array]:
    """The arguments promoted together to an inexact dtype; complex ones refused."""
    vals, dt, _ = promote(name, *args, inexact=True)
    if dtypes.is_complex(dt):
        raise TypeError(f"{name} does not support complex-valued inputs, got {dt}")
    return [as_result(v) for v in vals]


def cbrt(x: ArrayLike) -> Array:
    """Element-wise cube root (real: ``cbrt(-8) == -2``).

    >>> cbrt(np.array([-8.0, 27.0]))
    Array([-2.,  3.], dtype=float32)
    """
    (v,) = _real_inexact("cbrt", x)
    return as_result(lax.cbrt(v))


def nextafter(x1: ArrayLike, x2: ArrayLike) -> Array:
    """The next representable number after ``x1`` toward ``x2``."""
    a, b = _real_inexact("nextafter", x1, x2)
    return as_result(lax.nextafter(a, b))


def spacing(x: ArrayLike) -> Array:
    """The distance from ``x`` to its neighbour away from 0 (NumPy's ``spacing``, as JAX's)."""
    (v,) = _real_inexact("spacing", x)
    dt = get_aval(v).dtype
    inf = lax.full_like(v, np.inf)
    if dt == dtypes.float16:  # NumPy's float16 spacing is toward +inf (JAX follows it)
        return subtract(as_result(lax.nextafter(v, inf)), v)
    result = subtract(as_result(lax.nextafter(v, copysign(inf, v))), v)
    info: Any = ml_dtypes.finfo(dt)
    tiny = info.smallest_subnormal
    return where(equal(result, 0), copysign(astype(tiny, dt), v), result)


# The signed integer type of each float width (frexp reads the bits).
_INT_OF_WIDTH: Final[dict[int, DType]] = {16: dtypes.int16, 32: dtypes.int32, 64: dtypes.int64}


@custom_jvp
def _frexp(x: Array) -> tuple[Array, Array]:
    dt = get_aval(x).dtype
    info: Any = ml_dtypes.finfo(dt)  # (ml_dtypes' finfo is not typed with nexp, nmant, ...)
    int_t = _INT_OF_WIDTH[info.bits]
    mask = (1 << info.nexp) - 1
    bias = 1 - info.minexp
    # Subnormals are scaled up into the normal range first (their exponent corrected after).
    subnormal = less(abs(x), float(info.tiny))
    scaled = where(subnormal, multiply(x, astype(float(1 << info.nmant), dt)), x)
    bits = as_result(lax.bitcast_convert_type(scaled, int_t))
    exponent = where(subnormal, astype(-info.nmant, int_t), astype(0, int_t))
    shifted = as_result(lax.shift_right_logical(bits, lax.full_like(bits, info.nmant)))
    exponent = add(exponent, astype(add(bitwise_and(shifted, mask), 1 - bias), int_t))
    mantissa_bits = bitwise_and(bits, astype(~(mask << info.nmant), int_t))
    mantissa_bits = bitwise_or(mantissa_bits, astype((bias - 1) << info.nmant, int_t))
    mantissa = as_result(lax.bitcast_convert_type(mantissa_bits, dt))
    special = logical_or(logical_or(isinf(x), isnan(x)), equal(x, 0))
    exponent = where(special, astype(0, int_t), exponent)
    return where(special, x, mantissa), astype(exponent, dtypes.int32)


@_frexp.defjvp
def _frexp_jvp(primals: Sequence[Array], tangents: Sequence[Array]) -> tuple[object, object]:
    (x,), (t,) = primals, tangents
    m, e = _frexp(x)
    m_dot = multiply(t, exp2(astype(multiply(e, -1), get_aval(t).dtype)))
    return (m, e), (m_dot, np.zeros(get_aval(e).shape, dtypes.float0))


def frexp(x: ArrayLike) -> tuple[Array, Array]:
    """``x`` as ``mantissa * 2**exponent``, ``0.5 <= |mantissa| < 1`` and an int32 exponent.

    >>> frexp(np.array([8.0, 0.0]))
    (Array([0.5, 0. ], dtype=float32), Array([4, 0], dtype=int32))
    """
    (v,) = _real_inexact("frexp", x)
    m, e = _frexp(v)
    return as_result(m), as_result(e)


def ldexp(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``x1 * 2**x2`` for an integer ``x2``, without overflow for small ``x1`` and large ``x2``."""
    a, b = operand(x1), operand(x2)
    a_dt, b_dt = get_aval(a).dtype, get_aval(b).dtype
    if dtypes.is_complex(a_dt) or dtypes.is_inexact(b_dt):
        raise ValueError(f"ldexp not supported for input types {(a_dt, b_dt)}")
    (a,) = _real_inexact("ldexp", a)
    dt = get_aval(a).dtype
    m, e = frexp(a)
    e = astype(add(astype(e, get_aval(as_result(b)).dtype), b), dt)
    # The exponent may overflow by one with a finite result: move a factor 2 into m.
    positive = greater(e, 0)
    m = where(positive, multiply(m, 2), m)
    e = where(positive, subtract(e, 1), e)
    out = multiply(m, as_result(lax.pow(astype(2, dt), e)))
    return where(logical_or(isinf(a), equal(a, 0)), a, out)


@custom_jvp
def _i0(x: Array) -> Array:
    ax = abs(x)
    return multiply(exp(ax), as_result(lax.bessel_i0e(ax)))


@_i0.defjvp
def _i0_jvp(primals: Sequence[Array], tangents: Sequence[Array]) -> tuple[Array, Array]:
    (x,), (t,) = primals, tangents
    ax = abs(x)
    # d/dx i0(x) = i1(x) = exp(|x|) i1e(|x|) sign(x): zero at 0, as JAX's rule.
    slope = multiply(exp(ax), as_result(lax.bessel_i1e(x)))
    return _i0(x), where(equal(x, 0), multiply(t, 0), multiply(slope, t))


def i0(x: ArrayLike) -> Array:
    """The modified Bessel function of the first kind, order 0 (real floats only).

    >>> i0(np.array([0.0, 1.0]))
    Array([1.0000001, 1.2660661], dtype=float32)
    """
    (v,) = _real_inexact("i0", x)
    return as_result(_i0(v))


def unwrap(
    p: ArrayLike, discont: ArrayLike | None = None, axis: int = -1, period: ArrayLike = 2 * np.pi
) -> Array:
    """``p`` with jumps larger than ``discont`` replaced by their complement modulo ``period``."""
    v, per = operand(p), operand(period)
    dt, weak = result_type(v, per)  # promoted together, but not broadcast together
    if dtypes.is_complex(dt):
        raise ValueError("unwrap does not support complex inputs")
    v, per = as_result(astype(v, dt, weak)), as_result(astype(per, dt))
    if get_aval(v).shape[axis] == 0:
        return v
    if discont is None:
        discont = divide(per, 2)
    # Integers keep an integer half period, as NumPy's (and JAX's).
    interval = floor_divide(per, 2) if dtypes.is_integer(dt) else divide(per, 2)
    dd = diff(v, axis=axis)
    ddmod = subtract(remainder(add(dd, interval), per), interval)
    ddmod = where(
        logical_and(equal(ddmod, multiply(interval, -1)), greater(dd, 0)), interval, ddmod
    )
    correction = where(less(abs(dd), discont), 0, subtract(ddmod, dd))
    n = get_aval(v).shape[axis]
    head = as_result(lax.slice_in_dim(v, 0, 1, axis=axis))
    tail = as_result(lax.slice_in_dim(v, 1, n, axis=axis))
    return concatenate([head, add(tail, cumsum(correction, axis=axis))], axis=axis)


def sort_complex(a: ArrayLike) -> Array:
    """``a`` sorted along its last axis (complex: by real, then imaginary part), made complex."""
    v = operand(a)
    aval = get_aval(v)
    if aval.ndim == 0:
        raise ValueError("sort_complex: a 0-d array cannot be sorted")
    (out,) = lax.sort_p.bind(v, dimension=aval.ndim - 1, is_stable=True, num_keys=1)
    return as_result(astype(out, dtypes.complex_dtype(aval.dtype)))


# --- window functions ----------------------------------------------------------------------


def _window(M: int, values: Callable[[Array, int], Array]) -> Array:
    """``values(n, M)`` of the positions ``n = 0..M-1`` in the default float: a window of
    ``M`` points (all ones where ``M <= 1``, as NumPy's)."""
    M = operator.index(M)
    if M <= 1:
        return as_result(lax.full((M,), 1, dtypes.default_float()))
    return values(as_result(lax.iota(dtypes.default_float(), M)), M)


def _phase(n: Array, M: int) -> Array:
    """``2 pi n / (M - 1)``: the cosine windows' argument."""
    return divide(multiply(2 * np.pi, n), M - 1)


def bartlett(M: int) -> Array:
    """The Bartlett (triangular) window of ``M`` points."""
    return _window(M, lambda n, M: subtract(1, divide(abs(add(multiply(2, n), 1 - M)), M - 1)))


def blackman(M: int) -> Array:
    """The Blackman window of ``M`` points."""

    def values(n: Array, M: int) -> Array:
        phase = _phase(n, M)
        return add(
            subtract(0.42, multiply(0.5, cos(phase))), multiply(0.08, cos(multiply(2, phase)))
        )

    return _window(M, values)


def hamming(M: int) -> Array:
    """The Hamming window of ``M`` points."""
    return _window(M, lambda n, M: subtract(0.54, multiply(0.46, cos(_phase(n, M)))))


def hanning(M: int) -> Array:
    """The Hann window of ``M`` points."""
    return _window(M, lambda n, M: multiply(0.5, subtract(1, cos(_phase(n, M)))))


def kaiser(M: int, beta: ArrayLike) -> Array:
    """The Kaiser window of ``M`` points and shape ``beta``."""

    def values(n: Array, M: int) -> Array:
        alpha = 0.5 * (M - 1)
        ratio = divide(subtract(n, alpha), alpha)
        return divide(i0(multiply(beta, sqrt(subtract(1, multiply(ratio, ratio))))), i0(beta))

    return _window(M, values)
