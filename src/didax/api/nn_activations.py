"""``didax.nn``'s further activations: JAX's ``celu``, ``selu``, the hard and sparse ones, ...

Design rules:
- Each function is JAX's formula operation for operation (``jax._src.nn.functions``),
  so that values, dtypes (weak types included) and derivatives are JAX's:
  ``hard_sigmoid`` is ``relu6(x + 3) / 6`` and so inherits ``relu6``'s
  derivative of 0 at the kinks; ``selu`` is ``scale * elu(x, alpha)``;
  ``sparse_plus`` and ``hard_tanh`` are nested ``where``s, whose derivative
  at a boundary is that of the branch JAX picks there.
- ``log1mexp`` is ``custom_jvp`` as JAX's (its derivative ``1 / expm1(x)``),
  and switches formulas at ``log 2`` (Mächler's rule).
- ``logmeanexp`` is ``logsumexp - log(count)``, ``count`` the size of the
  reduced axes, or the number of entries ``where`` keeps.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Final

from didax.api.custom_derivatives import custom_jvp
from didax.api.nn import elu, relu6, sigmoid, softplus
from didax.api.numpy.array_types import Array, ArrayLike, Axis
from didax.api.numpy.elementwise import (
    add,
    clip,
    divide,
    exp,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    log1p,
    maximum,
    minimum,
    multiply,
    negative,
    sqrt,
    subtract,
    tanh,
    where,
)
from didax.api.numpy.joining import split
from didax.api.numpy.more_elementwise import absolute, expm1, square
from didax.api.numpy.operands import as_result, astype, broadcast_to_shape, operand
from didax.api.numpy.reductions import sum as _sum
from didax.api.scipy_special import logsumexp
from didax.core.values import get_aval

__all__ = [
    "celu",
    "glu",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "hard_tanh",
    "identity",
    "log1mexp",
    "logmeanexp",
    "mish",
    "selu",
    "soft_sign",
    "sparse_plus",
    "sparse_sigmoid",
    "squareplus",
]

_SELU_ALPHA: Final = 1.6732632423543772848170429916717
_SELU_SCALE: Final = 1.0507009873554804934193349852946


def identity(x: ArrayLike) -> Array:
    """``x`` unchanged (as an Array).

    >>> import numpy as np
    >>> identity(np.array([-1.0, 2.0]))
    Array([-1.,  2.], dtype=float32)
    """
    return as_result(operand(x))


def squareplus(x: ArrayLike, b: ArrayLike = 4) -> Array:
    """``(x + sqrt(x**2 + b)) / 2``, a smooth ``relu``.

    >>> squareplus(0.0)
    Array(1., dtype=float32, weak_type=True)
    """
    v = operand(x)
    return divide(add(v, sqrt(add(square(v), b))), 2)


def sparse_plus(x: ArrayLike) -> Array:
    """0 below -1, ``(x + 1)**2 / 4`` in between, ``x`` from 1 on."""
    v = operand(x)
    inner = divide(square(add(v, 1.0)), 4)
    return where(less_equal(v, -1.0), 0.0, where(greater_equal(v, 1.0), v, inner))


def sparse_sigmoid(x: ArrayLike) -> Array:
    """``clip(x + 1, 0, 2) / 2``: the derivative of ``sparse_plus``."""
    return multiply(0.5, clip(add(operand(x), 1.0), 0.0, 2.0))


def soft_sign(x: ArrayLike) -> Array:
    """``x / (|x| + 1)``."""
    v = operand(x)
    return divide(v, add(absolute(v), 1))


def mish(x: ArrayLike) -> Array:
    """``x * tanh(softplus(x))``."""
    v = operand(x)
    return multiply(v, tanh(softplus(v)))


def hard_tanh(x: ArrayLike) -> Array:
    """``x`` clipped to ``[-1, 1]`` (as two ``where``s, JAX's)."""
    v = operand(x)
    return where(greater(v, 1), 1, where(less(v, -1), -1, v))


def celu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    """``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``."""
    v = operand(x)
    return add(maximum(v, 0.0), multiply(alpha, expm1(divide(minimum(v, 0.0), alpha))))


def selu(x: ArrayLike) -> Array:
    """``scale * elu(x, alpha)`` with the self-normalising constants.

    >>> selu(1.0)
    Array(1.050701, dtype=float32, weak_type=True)
    """
    return multiply(_SELU_SCALE, elu(x, _SELU_ALPHA))


def hard_sigmoid(x: ArrayLike) -> Array:
    """``relu6(x + 3) / 6``."""
    return divide(relu6(add(operand(x), 3.0)), 6.0)


def hard_silu(x: ArrayLike) -> Array:
    """``x * hard_sigmoid(x)`` (also ``hard_swish``)."""
    v = operand(x)
    return multiply(v, hard_sigmoid(v))


hard_swish = hard_silu


def glu(x: ArrayLike, axis: int = -1) -> Array:
    """The gated linear unit: the first half along ``axis`` times ``sigmoid`` of the second.

    >>> import numpy as np
    >>> glu(np.array([2.0, 0.0]))
    Array([1.], dtype=float32)
    """
    v = as_result(operand(x))
    size = get_aval(v).shape[operator.index(axis)]
    if size % 2:
        raise ValueError(f"glu: the size of axis {axis} must be divisible by 2, got {size}")
    first, second = split(v, 2, axis)
    return multiply(first, sigmoid(second))


def logmeanexp(
    x: ArrayLike, axis: Axis = None, where: ArrayLike | None = None, keepdims: bool = False
) -> Array:
    """``log(mean(exp(x)))`` over ``axis``: ``logsumexp(x) - log(count)``.

    >>> import numpy as np
    >>> logmeanexp(np.log(np.array([1.0, 3.0])))
    Array(0.6931472, dtype=float32)
    """
    v = as_result(operand(x))
    lse = logsumexp(v, axis=axis, where=where, keepdims=keepdims)
    out_dtype = get_aval(lse).dtype
    shape = get_aval(v).shape
    if where is None:
        axes = range(len(shape)) if axis is None else _axis_tuple(axis)
        count = astype(math.prod(shape[a] for a in axes), out_dtype)
    else:
        kept = broadcast_to_shape(operand(where), shape)
        count = _sum(astype(kept, out_dtype), axis, keepdims=keepdims)
    return subtract(lse, log(count))


def _axis_tuple(axis: int | Sequence[int]) -> tuple[int, ...]:
    return (operator.index(axis),) if isinstance(axis, int) else tuple(axis)


@custom_jvp
def log1mexp(x: ArrayLike) -> Array:
    """``log(1 - exp(-x))`` for ``x >= 0``, accurate on both sides of ``log 2``.

    >>> log1mexp(1.0)
    Array(-0.4586751, dtype=float32, weak_type=True)
    """
    v = operand(x)
    minus = negative(v)
    return where(less(v, math.log(2.0)), log(negative(expm1(minus))), log1p(negative(exp(minus))))


log1mexp.defjvps(lambda t, out, x: divide(t, expm1(x)))
