"""The ``didax.lax`` functions: one bind wrapper per primitive, with strict types.

Design rules:
- Primitives are strict (element-wise operands have one shape and one
  dtype). The wrappers relax that only for weakly typed values, through
  ``core.promotion.coerce_weak``: a Python scalar or a weakly typed tracer
  takes its strong partner's dtype, and a Python scalar its shape (an
  explicit ``broadcast_in_dim``). NumPy-style broadcasting and promotion
  belong to ``didax.numpy``.
- Wrappers normalise their arguments (negative axes, defaults, dtypes) so
  that a primitive's params have exactly one spelling; that keeps
  fingerprints and caches exact.
- Interpreters' rules call these wrappers too (``lax.mul(t, y)`` in a jvp
  rule), so the rules read like the math.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from didax.core import dtypes
from didax.core.lax.primitives import (
    ROUND_AWAY_FROM_ZERO,
    ROUND_TO_NEAREST_EVEN,
    abs_p,
    add_p,
    and_p,
    ceil_p,
    complex_p,
    conj_p,
    cos_p,
    div_p,
    eq_p,
    exp_p,
    expm1_p,
    floor_p,
    ge_p,
    gt_p,
    imag_p,
    integer_pow_p,
    le_p,
    log1p_p,
    log_p,
    logistic_p,
    lt_p,
    max_p,
    min_p,
    mul_p,
    ne_p,
    neg_p,
    not_p,
    or_p,
    pow_p,
    real_p,
    rem_p,
    round_p,
    rsqrt_p,
    select_p,
    sign_p,
    sin_p,
    sqrt_p,
    stop_gradient_p,
    sub_p,
    tan_p,
    tanh_p,
)
from didax.core.primitive import Primitive
from didax.core.promotion import coerce_weak
from didax.core.values import (
    ArrayLike,
    get_aval,
    is_python_scalar,
)

__all__ = [
    "add",
    "sub",
    "mul",
    "div",
    "rem",
    "pow",
    "max",
    "min",
    "integer_pow",
    "neg",
    "sign",
    "abs",
    "exp",
    "log",
    "log1p",
    "expm1",
    "sin",
    "cos",
    "tan",
    "tanh",
    "logistic",
    "sqrt",
    "rsqrt",
    "floor",
    "ceil",
    "round",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "and_",
    "or_",
    "not_",
    "select",
    "stop_gradient",
    "real",
    "imag",
    "conj",
    "complex",
]


def _nary(prim: Primitive, *args: ArrayLike, **params: Any) -> Any:
    return prim.bind(*coerce_weak(prim, args), **params)


def add(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x + y``.

    >>> add(np.float32(1), 2.0)
    Array(3., dtype=float32)
    """
    return _nary(add_p, x, y)


def sub(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x - y``."""
    return _nary(sub_p, x, y)


def mul(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x * y``."""
    return _nary(mul_p, x, y)


def div(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise division; integers round toward zero (as C and XLA)."""
    return _nary(div_p, x, y)


def rem(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise remainder with the sign of ``x`` (C's ``fmod``)."""
    return _nary(rem_p, x, y)


def pow(x: ArrayLike, y: ArrayLike) -> Any:  # noqa: A001 - lax's name
    """Element-wise ``x ** y`` for floating-point ``x`` and ``y``."""
    return _nary(pow_p, x, y)


def max(x: ArrayLike, y: ArrayLike) -> Any:  # noqa: A001 - lax's name
    """Element-wise maximum."""
    return _nary(max_p, x, y)


def min(x: ArrayLike, y: ArrayLike) -> Any:  # noqa: A001 - lax's name
    """Element-wise minimum."""
    return _nary(min_p, x, y)


def integer_pow(x: ArrayLike, y: int) -> Any:
    """Element-wise ``x ** y`` for a static Python integer ``y``."""
    return _nary(integer_pow_p, x, y=int(y))


def neg(x: ArrayLike) -> Any:
    """Element-wise ``-x``."""
    return _nary(neg_p, x)


def sign(x: ArrayLike) -> Any:
    """Element-wise sign: -1, 0 or 1."""
    return _nary(sign_p, x)


def abs(x: ArrayLike) -> Any:  # noqa: A001 - lax's name
    """Element-wise absolute value."""
    return _nary(abs_p, x)


def exp(x: ArrayLike) -> Any:
    """Element-wise exponential."""
    return _nary(exp_p, x)


def log(x: ArrayLike) -> Any:
    """Element-wise natural logarithm."""
    return _nary(log_p, x)


def log1p(x: ArrayLike) -> Any:
    """Element-wise ``log(1 + x)``, accurate near 0."""
    return _nary(log1p_p, x)


def expm1(x: ArrayLike) -> Any:
    """Element-wise ``exp(x) - 1``, accurate near 0."""
    return _nary(expm1_p, x)


def sin(x: ArrayLike) -> Any:
    """Element-wise sine."""
    return _nary(sin_p, x)


def cos(x: ArrayLike) -> Any:
    """Element-wise cosine."""
    return _nary(cos_p, x)


def tan(x: ArrayLike) -> Any:
    """Element-wise tangent."""
    return _nary(tan_p, x)


def tanh(x: ArrayLike) -> Any:
    """Element-wise hyperbolic tangent."""
    return _nary(tanh_p, x)


def logistic(x: ArrayLike) -> Any:
    """Element-wise logistic sigmoid ``1 / (1 + exp(-x))``."""
    return _nary(logistic_p, x)


def sqrt(x: ArrayLike) -> Any:
    """Element-wise square root."""
    return _nary(sqrt_p, x)


def rsqrt(x: ArrayLike) -> Any:
    """Element-wise reciprocal square root."""
    return _nary(rsqrt_p, x)


def floor(x: ArrayLike) -> Any:
    """Element-wise floor."""
    return _nary(floor_p, x)


def ceil(x: ArrayLike) -> Any:
    """Element-wise ceiling."""
    return _nary(ceil_p, x)


def round(x: ArrayLike, rounding_method: int = ROUND_AWAY_FROM_ZERO) -> Any:  # noqa: A001
    """Element-wise rounding; halves go away from zero (lax's default) or to even."""
    if rounding_method not in (ROUND_AWAY_FROM_ZERO, ROUND_TO_NEAREST_EVEN):
        raise ValueError(f"unknown rounding_method {rounding_method}")
    return _nary(round_p, x, rounding_method=int(rounding_method))


def eq(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x == y``."""
    return _nary(eq_p, x, y)


def ne(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x != y``."""
    return _nary(ne_p, x, y)


def lt(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x < y``."""
    return _nary(lt_p, x, y)


def le(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x <= y``."""
    return _nary(le_p, x, y)


def gt(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x > y``."""
    return _nary(gt_p, x, y)


def ge(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise ``x >= y``."""
    return _nary(ge_p, x, y)


def and_(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise logical (booleans) or bitwise (integers) and."""
    return _nary(and_p, x, y)


def or_(x: ArrayLike, y: ArrayLike) -> Any:
    """Element-wise logical (booleans) or bitwise (integers) or."""
    return _nary(or_p, x, y)


def not_(x: ArrayLike) -> Any:
    """Element-wise logical (booleans) or bitwise (integers) not."""
    return _nary(not_p, x)


def select(pred: ArrayLike, on_true: ArrayLike, on_false: ArrayLike) -> Any:
    """Element-wise ``on_true if pred else on_false``; ``pred`` is boolean of the same shape."""
    on_true, on_false = coerce_weak(select_p, (on_true, on_false))
    if is_python_scalar(pred):
        pred = np.asarray(pred, dtypes.bool_)
    return select_p.bind(pred, on_true, on_false)


def stop_gradient(x: ArrayLike) -> Any:
    """The identity, whose derivative is zero."""
    return _nary(stop_gradient_p, x)


def real(x: ArrayLike) -> Any:
    """The real part of a complex ``x``.

    >>> real(np.array([1 + 2j]))
    Array([1.], dtype=float32)
    """
    return _nary(real_p, x)


def imag(x: ArrayLike) -> Any:
    """The imaginary part of a complex ``x``.

    >>> imag(np.array([1 + 2j]))
    Array([2.], dtype=float32)
    """
    return _nary(imag_p, x)


def conj(x: ArrayLike) -> Any:
    """The complex conjugate of ``x``; as JAX's, a real ``x`` gives a complex result.

    >>> conj(np.array([1 + 2j]))
    Array([1.-2.j], dtype=complex64)
    """
    return conj_p.bind(x, input_dtype=get_aval(x).dtype)


def complex(x: ArrayLike, y: ArrayLike) -> Any:  # noqa: A001 - lax's name
    """The complex number ``x + i y`` of two real arrays of one dtype.

    >>> complex(np.array([1.0]), np.array([2.0]))
    Array([1.+2.j], dtype=complex64)
    """
    return _nary(complex_p, x, y)
