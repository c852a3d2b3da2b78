"""``didax.nn``: activation functions and friends, as ``jax.nn`` defines them.

Design rules:
- Each function follows JAX's definition operation for operation, with
  JAX's signature (``axis=-1``, ``where=None`` where JAX has them), so that
  values, dtypes and derivatives are JAX's: ``softplus`` is
  ``logaddexp(x, 0)`` (whose custom derivative is finite at infinities),
  ``gelu`` is the tanh approximation or ``x/2 * erfc(-x/sqrt(2))``, and
  ``relu``/``relu6`` are ``custom_jvp`` functions whose derivative at the
  kinks is 0, as JAX's.
- ``softmax``, ``log_softmax`` and ``logsumexp`` subtract the maximum
  (under ``stop_gradient``) before ``exp``: no overflow, and ``-inf``
  entries (masked logits) contribute exact zeros to values and gradients.
  ``softmax`` is JAX's default one (``jax_softmax_custom_jvp`` off): its
  derivative is that of its formula; ``softmax_custom_jvp`` (not public,
  for the dirichlet sampler) is the other, with JAX's rule.
- ``where=`` masks are applied as JAX's reductions apply them: masked
  entries are left out of the maximum and of the sums (``-inf`` and 0
  stand in for them), and come out as 0 (``softmax``) or ``-inf``
  (``log_softmax``).
"""

from __future__ import annotations

import operator
from typing import Final

import numpy as np

from didax.api.custom_derivatives import custom_jvp
from didax.api.numpy.array_types import Array, ArrayLike, Axis
from didax.api.numpy.elementwise import (
    add,
    divide,
    equal,
    exp,
    greater,
    greater_equal,
    less,
    log,
    logical_and,
    maximum,
    minimum,
    multiply,
    negative,
    power,
    subtract,
    tanh,
    where,
)
from didax.api.numpy.more_elementwise import expm1, logaddexp, square
from didax.api.numpy.operands import (
    as_result,
    astype,
    broadcast_to_shape,
    dtype_arg,
    normalize_axes,
    operand,
    promote,
)
from didax.api.numpy.reductions import mean as _mean
from didax.api.numpy.reductions import sum as _sum
from didax.api.scipy_special import logsumexp, masked_max, masked_sum
from didax.core import dtypes, lax
from didax.core.dtypes import DTypeLike
from didax.core.values import get_aval

__all__ = [
    "relu",
    "relu6",
    "sigmoid",
    "softplus",
    "silu",
    "swish",
    "gelu",
    "elu",
    "leaky_relu",
    "tanh",
    "log_sigmoid",
    "softmax",
    "log_softmax",
    "logsumexp",
    "one_hot",
    "standardize",
]


_INF: Final = float("inf")
_select: Final = where  # (``where`` is an argument of several functions here)


def _zero_unless(keep: Array, t: Array) -> Array:
    out: Array = lax.select(keep, t, lax.full_like(t, 0))
    return out


@custom_jvp
def relu(x: ArrayLike) -> Array:
    """``max(x, 0)``; its derivative at 0 is 0, as JAX's.

    >>> import numpy as np
    >>> relu(np.array([-1.0, 0.0, 2.0]))
    Array([0., 0., 2.], dtype=float32)
    """
    return maximum(x, 0)


relu.defjvps(lambda t, out, x: _zero_unless(greater(x, 0), t))


@custom_jvp
def relu6(x: ArrayLike) -> Array:
    """``min(max(x, 0), 6)``; its derivative is 1 strictly inside ``(0, 6)``, else 0."""
    return minimum(maximum(x, 0), 6.0)


relu6.defjvps(lambda t, out, x: _zero_unless(logical_and(greater(x, 0), less(x, 6)), t))


def sigmoid(x: ArrayLike) -> Array:
    """The logistic function ``1 / (1 + exp(-x))`` (``lax.logistic``)."""
    return as_result(lax.logistic(operand(x)))


def softplus(x: ArrayLike) -> Array:
    """``log(1 + exp(x))``, computed as ``logaddexp(x, 0)``.

    >>> import numpy as np
    >>> softplus(np.array([0.0, 1000.0]))
    Array([6.931472e-01, 1.000000e+03], dtype=float32)
    """
    return logaddexp(x, 0)


def silu(x: ArrayLike) -> Array:
    """``x * sigmoid(x)`` (also ``swish``)."""
    v = operand(x)
    return multiply(v, sigmoid(v))


swish = silu


def gelu(x: ArrayLike, approximate: bool = True) -> Array:
    """The Gaussian error linear unit: ``x * Phi(x)``, or its tanh approximation (the default).

    >>> import numpy as np
    >>> gelu(np.array([-1.0, 0.0, 1.0]), approximate=False)
    Array([-0.15865527,  0.        ,  0.8413447 ], dtype=float32)
    """
    (v,), dt, _ = promote("gelu", x, inexact=True)
    if approximate:
        sqrt_2_over_pi = np.asarray(np.sqrt(2 / np.pi), dt)
        cube = power(v, 3)
        inner = multiply(sqrt_2_over_pi, add(v, multiply(0.044715, cube)))
        cdf = multiply(0.5, add(1.0, tanh(inner)))
        return multiply(v, cdf)
    sqrt_half = np.asarray(np.sqrt(0.5), dt)
    erfc = as_result(lax.erfc(multiply(negative(v), sqrt_half)))
    # As JAX: the result is strongly typed (jnp.array(..., dtype=x.dtype)).
    return astype(multiply(multiply(0.5, v), erfc), dt, False)


def elu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""
    v = operand(x)
    positive = greater(v, 0)
    return _select(positive, v, multiply(alpha, expm1(_select(positive, 0.0, v))))


def leaky_relu(x: ArrayLike, negative_slope: ArrayLike = 1e-2) -> Array:
    """``x`` where non-negative, ``negative_slope * x`` elsewhere."""
    v = operand(x)
    return _select(greater_equal(v, 0), v, multiply(negative_slope, v))


def log_sigmoid(x: ArrayLike) -> Array:
    """``log(sigmoid(x))``, computed as ``-softplus(-x)``."""
    return negative(softplus(negative(operand(x))))


def _axes(x: ArrayLike, axis: Axis, name: str) -> tuple[int, ...]:
    return normalize_axes(axis, get_aval(x).ndim, name)


def softmax(x: ArrayLike, axis: Axis = -1, where: ArrayLike | None = None) -> Array:
    """``exp(x) / sum(exp(x))`` along ``axis``, the (stop-gradient) maximum subtracted first.

    ``-inf`` entries get probability 0; entries outside ``where`` too.

    >>> import numpy as np
    >>> softmax(np.array([0.0, np.log(3.0), -np.inf]))
    Array([0.25, 0.75, 0.  ], dtype=float32)
    """
    v = as_result(operand(x))
    axes = _axes(v, axis, "softmax")
    x_max = masked_max(v, axes, True, where)
    x_safe = v if where is None else _select(where, v, -_INF)
    unnormalized = exp(subtract(x_safe, lax.stop_gradient(x_max)))
    result = divide(unnormalized, masked_sum(unnormalized, axes, True, where))
    if where is not None:
        result = _select(where, result, 0)
    return result


@custom_jvp
def softmax_custom_jvp(x: Array) -> Array:
    """``softmax`` over the last axis with JAX's custom jvp (``jax_softmax_custom_jvp`` on).

    Its values are ``softmax``'s; its derivative is JAX's rule
    ``y * (x_dot - sum(y * x_dot))`` rather than the formula's (the rounding
    differs): JAX's ``random.dirichlet`` differentiates by it.
    """
    return softmax(x)


@softmax_custom_jvp.defjvp
def _softmax_jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[Array, Array]:
    (x,), (x_dot,) = primals, tangents
    y = softmax_custom_jvp(x)
    mean_dot = _sum(multiply(y, x_dot), axis=-1, keepdims=True)
    return y, multiply(y, subtract(x_dot, mean_dot))


def log_softmax(x: ArrayLike, axis: Axis = -1, where: ArrayLike | None = None) -> Array:
    """``x - logsumexp(x)`` along ``axis``, computed stably; ``-inf`` outside ``where``.

    >>> import numpy as np
    >>> log_softmax(np.array([0.0, np.log(3.0)]))
    Array([-1.3862944 , -0.28768212], dtype=float32)
    """
    v = as_result(operand(x))
    axes = _axes(v, axis, "log_softmax")
    x_max = masked_max(v, axes, True, where)
    x_safe = v if where is None else _select(where, v, -_INF)
    shifted = subtract(x_safe, lax.stop_gradient(x_max))
    shifted_logsumexp = log(masked_sum(exp(shifted), axes, True, where))
    result = subtract(shifted, shifted_logsumexp)
    if where is not None:
        return _select(where, result, -_INF)
    return result


def one_hot(x: ArrayLike, num_classes: int, *, dtype: DTypeLike = None, axis: int = -1) -> Array:
    """A one-hot encoding of the integers ``x``: a new axis of ``num_classes`` at ``axis``.

    Entries out of range (negative, or ``num_classes`` or more) give all zeros.

    >>> import numpy as np
    >>> one_hot(np.array([0, 2, -1]), 3)
    Array([[1., 0., 0.],
           [0., 0., 1.],
           [0., 0., 0.]], dtype=float32)
    """
    n = operator.index(num_classes)
    v = as_result(operand(x))
    aval = get_aval(v)
    out_dtype = dtype_arg(dtype) or dtypes.default_float()
    (pos,) = normalize_axes(axis, aval.ndim + 1, "one_hot")
    lhs = lax.expand_dims(v, (pos,))
    shape = list(aval.shape)
    shape.insert(pos, n)
    rhs = lax.broadcast_in_dim(lax.iota(aval.dtype, n), tuple(shape), (pos,))
    return astype(equal(broadcast_to_shape(lhs, tuple(shape)), rhs), out_dtype)


def _masked_mean(x: ArrayLike, axes: tuple[int, ...], where: ArrayLike | None) -> Array:
    """``jnp.mean(x, axes, keepdims=True, where=where)``."""
    if where is None:
        return _mean(x, axes, keepdims=True)
    (v,), dt, _ = promote("mean", x, inexact=True)
    count = astype(broadcast_to_shape(operand(where), get_aval(v).shape), dt)
    return divide(masked_sum(v, axes, True, where), _sum(count, axes, keepdims=True))


def standardize(
    x: ArrayLike,
    axis: Axis = -1,
    mean: ArrayLike | None = None,
    variance: ArrayLike | None = None,
    epsilon: ArrayLike = 1e-5,
    where: ArrayLike | None = None,
    *,
    algorithm: str = "fast",
) -> Array:
    """``(x - mean) / sqrt(variance + epsilon)`` along ``axis`` (statistics computed if not given).

    ``algorithm="fast"`` computes the variance as ``mean(x**2) - mean(x)**2``
    (clipped at 0), ``"stable"`` as ``mean((x - mean)**2)``, as JAX's.

    >>> import numpy as np
    >>> standardize(np.array([1.0, 3.0]), epsilon=0.0)
    Array([-1.,  1.], dtype=float32)
    """
    v = as_result(operand(x))
    axes = _axes(v, axis, "standardize")
    if mean is None:
        mean = _masked_mean(v, axes, where)
    if variance is None:
        if algorithm == "stable":
            variance = _masked_mean(square(subtract(v, mean)), axes, where)
        elif algorithm == "fast":
            variance = subtract(_masked_mean(square(v), axes, where), square(mean))
            # The fast form can come out slightly negative: rsqrt needs >= 0.
            variance = maximum(variance, 0)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return multiply(subtract(v, mean), as_result(lax.rsqrt(add(variance, epsilon))))
