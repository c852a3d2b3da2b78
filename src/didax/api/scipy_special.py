"""``didax.scipy.special``: SciPy's special functions, as ``jax.scipy.special`` defines them.

Design rules:
- Each function follows JAX's definition operation for operation, so that
  values and derivatives are JAX's: integer arguments become floats
  (``to_inexact``); ``erf``, ``erfinv``, ``gammaln``, ... bind the
  primitives of ``core.lax.special``; ``logsumexp`` subtracts the
  (stop-gradient) maximum, with JAX's treatment of infinities, ``b=``
  scale factors, ``return_sign=`` and ``where=``.
- Where JAX gives a function a derivative of its own (``xlogy``,
  ``xlog1py``, ``logit``), so does this module, with JAX's rule: ``xlogy``
  is 0 at ``x == 0`` but its derivative in ``x`` is ``log(y)``. The rule
  sits behind the promotion of the arguments, so integer arguments work.
- ``logsumexp`` is shared with ``didax.nn``, as in JAX.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any, Final

from didax.api.custom_derivatives import custom_jvp
from didax.api.numpy.array_types import Array, ArrayLike, Axis
from didax.api.numpy.elementwise import (
    _inexact_function,
    _inexact_unary,
    add,
    divide,
    less,
    log,
    log1p,
    logical_or,
    multiply,
    not_equal,
    subtract,
    where,
)
from didax.api.numpy.elementwise import abs as _abs
from didax.api.numpy.more_elementwise import isfinite, isnan
from didax.api.numpy.operands import as_result, normalize_axes, promote
from didax.api.numpy.reductions import max as _max
from didax.api.numpy.reductions import sum as _sum
from didax.core import lax
from didax.core.values import get_aval

__all__ = [
    "logsumexp",
    "erf",
    "erfc",
    "erfinv",
    "gammaln",
    "digamma",
    "xlogy",
    "xlog1py",
    "expit",
    "logit",
]


_INF: Final = float("inf")
_select: Final = where


def erf(x: ArrayLike) -> Array:
    """The error function (``lax.erf``); integers become floats.

    >>> import numpy as np
    >>> erf(np.array([0.0, 1.0]))
    Array([0.        , 0.84270084], dtype=float32)
    """
    return _inexact_unary(lax.erf_p, x)


erfc = _inexact_function(
    lax.erfc_p, "erfc", "The complementary error function ``1 - erf(x)`` (``lax.erfc``)."
)
erfinv = _inexact_function(
    lax.erf_inv_p,
    "erfinv",
    "The inverse error function (``lax.erf_inv``): ``+-inf`` at ``+-1``, NaN beyond.",
)


def gammaln(x: ArrayLike) -> Array:
    """``log(|gamma(x)|)`` (``lax.lgamma``).

    >>> import numpy as np
    >>> gammaln(np.array([1.0, 5.0]))
    Array([4.7683716e-07, 3.1780548e+00], dtype=float32)
    """
    return _inexact_unary(lax.lgamma_p, x)


digamma = _inexact_function(
    lax.digamma_p,
    "digamma",
    "The digamma function, the derivative of ``gammaln`` (``lax.digamma``).",
)
expit = _inexact_function(
    lax.logistic_p, "expit", "The logistic sigmoid ``1 / (1 + exp(-x))`` (``lax.logistic``)."
)


@custom_jvp
def _logit(x: ArrayLike) -> Array:
    return log(divide(x, subtract(1, x)))


_logit.defjvps(lambda t, out, x: divide(t, multiply(x, subtract(1, x))))


def logit(x: ArrayLike) -> Array:
    """``log(x / (1 - x))``, the inverse of ``expit``, with JAX's derivative ``1 / (x (1 - x))``.

    >>> import numpy as np
    >>> logit(np.array([0.5, 0.75]))
    Array([0.       , 1.0986123], dtype=float32)
    """
    (v,), _, _ = promote("logit", x, inexact=True)
    return as_result(_logit(v))


def _x_times(fn: Callable[[ArrayLike], Array], x: ArrayLike, y: ArrayLike) -> Array:
    # 0 where x == 0 (whatever fn(y) is), except that a NaN y propagates (SciPy's rule).
    zero = lax.full_like(as_result(x), 0)
    return where(logical_or(not_equal(x, 0), isnan(y)), multiply(x, fn(y)), zero)


def _x_times_custom(
    name: str, fn: Callable[[ArrayLike], Array], fn_arg: Callable[[Array], ArrayLike]
) -> custom_jvp:
    """``_x_times(fn, x, y)`` with JAX's derivative ``tx fn(y) + ty x / fn_arg(y)``.

    ``fn`` is a logarithm and ``fn_arg(y)`` the number it takes the logarithm of
    (``y`` for ``log``, ``1 + y`` for ``log1p``).
    """

    def primal(x: ArrayLike, y: ArrayLike) -> Array:
        return _x_times(fn, x, y)

    primal.__name__ = primal.__qualname__ = name
    custom = custom_jvp(primal)

    def jvp(primals: Sequence[Array], tangents: Sequence[Array]) -> tuple[Array, Array]:
        (x, y), (tx, ty) = primals, tangents
        return custom(x, y), add(multiply(tx, fn(y)), divide(multiply(ty, x), fn_arg(y)))

    custom.defjvp(jvp)
    return custom


_xlogy = _x_times_custom("_xlogy", log, lambda y: y)


def xlogy(x: ArrayLike, y: ArrayLike) -> Array:
    """``x * log(y)``, 0 where ``x == 0`` (NaN ``y`` propagates), with JAX's derivative.

    >>> import numpy as np
    >>> xlogy(np.array([0.0, 2.0]), np.array([0.0, np.e]))
    Array([0., 2.], dtype=float32)
    """
    (a, b), _, _ = promote("xlogy", x, y, inexact=True)
    return as_result(_xlogy(a, b))


_xlog1py = _x_times_custom("_xlog1py", log1p, lambda y: add(1, y))


def xlog1py(x: ArrayLike, y: ArrayLike) -> Array:
    """``x * log1p(y)``, 0 where ``x == 0`` (NaN ``y`` propagates), with JAX's derivative."""
    (a, b), _, _ = promote("xlog1py", x, y, inexact=True)
    return as_result(_xlog1py(a, b))


def masked_max(
    x: ArrayLike, axes: tuple[int, ...], keepdims: bool, mask: ArrayLike | None
) -> Array:
    """The maximum over ``axes`` of the entries where ``mask`` holds, ``-inf`` if none.

    ``jnp.max(x, axes, where=mask, initial=-inf)`` (the reductions here take no
    ``where``); an empty reduction is ``-inf`` too.
    """
    aval = get_aval(x)
    if builtins.any(aval.shape[i] == 0 for i in axes):
        shape = tuple(1 if i in axes else s for i, s in enumerate(aval.shape))
        if not keepdims:
            shape = tuple(s for i, s in enumerate(aval.shape) if i not in axes)
        return as_result(lax.full(shape, -_INF, aval.dtype))
    if mask is not None:
        x = where(mask, x, -_INF)
    return _max(x, axes, keepdims=keepdims)


def masked_sum(
    x: ArrayLike, axes: tuple[int, ...], keepdims: bool, mask: ArrayLike | None
) -> Array:
    """``jnp.sum(x, axes, where=mask)``: the sum of the entries where ``mask`` holds."""
    if mask is not None:
        x = where(mask, x, 0)
    return _sum(x, axes, keepdims=keepdims)


def logsumexp(
    a: ArrayLike,
    axis: Axis = None,
    b: ArrayLike | None = None,
    keepdims: bool = False,
    return_sign: bool = False,
    where: ArrayLike | None = None,
) -> Any:
    """``log(sum(b * exp(a)))`` over ``axis``, computed stably (JAX's ``logsumexp``).

    The (stop-gradient) maximum is subtracted before ``exp`` and added back
    after ``log``; an infinite maximum is taken as 0, so that ``-inf`` entries
    contribute nothing and give no NaN gradients. ``b`` scales each term (a
    negative sum gives NaN, or with ``return_sign`` the log of its magnitude
    and its sign); ``where`` selects the entries summed.

    >>> import numpy as np
    >>> logsumexp(np.array([0.0, np.log(3.0), -np.inf]))
    Array(1.3862944, dtype=float32)
    >>> logsumexp(np.array([1.0, 2.0]), b=np.array([1.0, -1.0]), return_sign=True)
    (Array(1.541325, dtype=float32), Array(-1., dtype=float32))
    """
    select = _select  # (``where`` is the argument here)
    if where is not None:
        a = select(where, a, 0)
    if b is not None:
        (a_arr, b_arr), _, _ = promote("logsumexp", a, b, inexact=True)
        a_arr = select(not_equal(b_arr, 0), a_arr, -_INF)
    else:
        (a_arr,), _, _ = promote("logsumexp", a, inexact=True)
        b_arr = None
    a_arr = as_result(a_arr)
    dims = normalize_axes(axis, get_aval(a_arr).ndim, "logsumexp")
    amax = masked_max(a_arr, dims, keepdims, where)
    amax = lax.stop_gradient(select(isfinite(amax), amax, lax.full_like(as_result(amax), 0)))
    if get_aval(amax).weak_type:  # JAX's ``.astype`` makes it strongly typed
        amax = lax.convert_element_type(amax, get_aval(amax).dtype)
    amax_with_dims = amax if keepdims or not dims else lax.expand_dims(amax, dims)
    exp_a = lax.exp(subtract(a_arr, amax_with_dims))
    if b_arr is not None:
        exp_a = multiply(exp_a, b_arr)
    sumexp = masked_sum(exp_a, dims, keepdims, where)
    sign = lax.sign(sumexp)
    out = add(log(_abs(sumexp)), amax)
    if return_sign:
        return out, sign
    if b_arr is not None:
        out = select(less(sign, 0), lax.full_like(as_result(out), float("nan")), out)
    return out
