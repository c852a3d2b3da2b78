"""``didax.numpy.linalg``'s norms: ``norm`` and the Array API's ``vector_norm``, ``matrix_norm``.

Design rules:
- Every norm is a composite of reductions (and ``svd`` for the spectral and
  nuclear matrix norms), so it differentiates, batches and compiles through
  their rules; ``api.numpy.linalg`` re-exports them.
- ``norm`` takes integer operands to floats first (as JAX); ``vector_norm``
  keeps JAX's promotion, which differs: its orders 1 and ±inf keep an
  integer operand's dtype, order 2 takes the square root's float. Its order
  0 and the general ``p`` orders take floats (JAX refuses integers at 0 and
  computes ``p`` powers in integer arithmetic, which truncates ``1 / p``).
- Complex operands give real norms: of ``|x|``, with ``|x|^2`` as
  ``Re(x conj(x))`` so the gradient is JAX's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.decompositions import svd
from didax.api.numpy.elementwise import abs, multiply, power, sqrt
from didax.api.numpy.manipulation import expand_dims, moveaxis, squeeze
from didax.api.numpy.more_elementwise import conj, real
from didax.api.numpy.operands import as_result, astype, normalize_axes, operand
from didax.api.numpy.reductions import max, min, sum
from didax.api.numpy.statistics import count_nonzero
from didax.core import dtypes
from didax.core.values import get_aval

__all__ = ["norm", "vector_norm", "matrix_norm"]

_MATRIX_ORDERS: Final = (None, "fro", "f", "nuc", 1, -1, 2, -2, float("inf"), -float("inf"))


def norm(
    x: ArrayLike,
    ord: int | float | str | None = None,
    axis: int | Sequence[int] | None = None,
    keepdims: bool = False,
) -> Array:
    """The vector norm (one axis) or matrix norm (two axes) of order ``ord``.

    >>> norm(np.array([3.0, 4.0]))
    Array(5., dtype=float32)
    >>> norm(np.array([[1.0, -2.0], [3.0, 4.0]]), ord=1)
    Array(6., dtype=float32)
    >>> norm(np.array([3 + 4j]))
    Array(5., dtype=float32)
    """
    v = operand(x)
    aval = get_aval(v)
    v = astype(v, dtypes.to_inexact(aval.dtype))
    if axis is None:
        if ord is None:
            return sqrt(sum(_abs2(v), keepdims=keepdims))
        axes = tuple(range(aval.ndim))
        if len(axes) not in (1, 2):
            raise ValueError("Improper number of axes for norm")
    else:
        raw = (axis,) if isinstance(axis, int) else tuple(axis)
        axes = tuple(normalize_axes(a, aval.ndim, "norm")[0] for a in raw)
        if len(set(axes)) != len(axes):
            raise ValueError(f"norm: duplicate axes {axis}")
    if len(axes) == 1:
        return _vector_norm(v, ord, axes, keepdims)
    if len(axes) == 2:
        return _matrix_norm(v, ord, axes, keepdims)
    raise ValueError(f"Invalid axis {axis!r} for norm: give one axis or two")


def _abs2(v: ArrayLike) -> Array:
    """``|v|^2``, real: ``Re(v conj(v))`` (``v * v`` for a real ``v``)."""
    return real(multiply(v, conj(v)))


def _vector_norm(
    v: Array, ord: int | float | str | None, axes: tuple[int, ...], keepdims: bool
) -> Array:
    if ord is None or ord == 2:
        return sqrt(sum(_abs2(v), axis=axes, keepdims=keepdims))
    if ord == float("inf"):
        return max(abs(v), axis=axes, keepdims=keepdims)
    if ord == -float("inf"):
        return min(abs(v), axis=axes, keepdims=keepdims)
    if ord == 0:
        real_dtype = dtypes.real_dtype(get_aval(v).dtype)
        return astype(count_nonzero(v, axis=axes, keepdims=keepdims), real_dtype)
    if ord == 1:
        return sum(abs(v), axis=axes, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid order {ord!r} for vector norm")
    p = float(ord)
    return power(sum(power(abs(v), p), axis=axes, keepdims=keepdims), 1.0 / p)


def _matrix_norm(
    v: Array, ord: int | float | str | None, axes: tuple[int, ...], keepdims: bool
) -> Array:
    row, col = axes
    if ord is None or ord in ("fro", "f"):
        return sqrt(sum(_abs2(v), axis=axes, keepdims=keepdims))
    if ord in (1, -1, float("inf"), -float("inf")):
        # 1: the largest column sum of |v|; inf: the largest row sum (min for negatives).
        summed_axis, reduced_axis = (row, col) if ord in (1, -1) else (col, row)
        sums = sum(abs(v), axis=summed_axis, keepdims=True)
        pick = max if ord in (1, float("inf")) else min
        out = pick(sums, axis=(summed_axis, reduced_axis), keepdims=True)
        if keepdims:
            return out
        return _squeeze(out, axes)
    if ord in (2, -2, "nuc"):
        s = svd(moveaxis(v, axes, (-2, -1)), compute_uv=False)
        if ord == 2:
            out = max(s, axis=-1)
        elif ord == -2:
            out = min(s, axis=-1)
        else:
            out = sum(s, axis=-1)
        if keepdims:
            return expand_dims(out, tuple(sorted(axes)))
        return out
    raise ValueError(f"Invalid order {ord!r} for matrix norm")


def _squeeze(v: Array, axes: tuple[int, ...]) -> Array:
    return squeeze(v, tuple(sorted(axes)))


def vector_norm(
    x: ArrayLike,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    ord: int | float | str = 2,
) -> Array:
    """The vector norm of order ``ord`` over ``axis`` (all axes, as one vector, by default).

    >>> vector_norm(np.array([[3.0, 0.0], [0.0, 4.0]]))
    Array(5., dtype=float32)
    >>> vector_norm(np.array([1, -2, 3]), ord=1)
    Array(6, dtype=int32)
    """
    v = as_result(operand(x))
    aval = get_aval(v)
    if axis is None:
        axes = tuple(range(aval.ndim))
    else:
        raw = (axis,) if isinstance(axis, int) else tuple(axis)
        axes = tuple(normalize_axes(a, aval.ndim, "vector_norm")[0] for a in raw)
    if isinstance(ord, str):
        hint = " (use numpy.inf, not a string)" if ord in ("inf", "-inf") else ""
        raise ValueError(f"vector_norm: invalid order {ord!r} for a vector norm{hint}")
    if ord not in (1, 2, float("inf"), -float("inf")):
        v = astype(v, dtypes.to_inexact(aval.dtype))
    return _vector_norm(v, ord, axes, keepdims)


def matrix_norm(x: ArrayLike, /, *, keepdims: bool = False, ord: int | str = "fro") -> Array:
    """The matrix norm of order ``ord`` over the last two axes (``norm`` with ``axis=(-2, -1)``).

    >>> matrix_norm(np.array([[1.0, -2.0], [3.0, 4.0]]), ord=1)
    Array(6., dtype=float32)
    """
    if ord not in _MATRIX_ORDERS:
        raise ValueError(f"matrix_norm: invalid order {ord!r} for a matrix norm")
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)
