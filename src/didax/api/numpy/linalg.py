"""``didax.numpy.linalg``: norms (the decompositions arrive with the linear-algebra issue).

``norm`` follows ``jax.numpy.linalg.norm``: vector norms of any order and
the matrix norms that need no decomposition (Frobenius, 1, -1, inf, -inf);
the spectral and nuclear norms need a singular value decomposition and
raise ``NotImplementedError`` until ``svd`` lands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from didax.api.numpy.elementwise import abs, multiply, power, sqrt
from didax.api.numpy.manipulation import squeeze
from didax.api.numpy.operands import Array, ArrayLike, astype, normalize_axes, operand
from didax.api.numpy.reductions import max, min, sum
from didax.api.numpy.statistics import count_nonzero
from didax.core import dtypes
from didax.core.values import get_aval

__all__ = ["norm"]


def norm(
    x: ArrayLike,
    ord: Any = None,
    axis: int | Sequence[int] | None = None,
    keepdims: bool = False,
) -> Array:
    """The vector norm (one axis) or matrix norm (two axes) of order ``ord``.

    >>> norm(np.array([3.0, 4.0]))
    Array(5., dtype=float64)
    >>> norm(np.array([[1.0, -2.0], [3.0, 4.0]]), ord=1)
    Array(6., dtype=float64)
    """
    v = operand(x)
    aval = get_aval(v)
    v = astype(v, dtypes.to_inexact(aval.dtype))
    if axis is None:
        if ord is None:
            return sqrt(sum(multiply(v, v), keepdims=keepdims))
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


def _vector_norm(v: Any, ord: Any, axes: tuple[int, ...], keepdims: bool) -> Array:
    if ord is None or ord == 2:
        return sqrt(sum(multiply(v, v), axis=axes, keepdims=keepdims))
    if ord == float("inf"):
        return max(abs(v), axis=axes, keepdims=keepdims)
    if ord == -float("inf"):
        return min(abs(v), axis=axes, keepdims=keepdims)
    if ord == 0:
        return astype(count_nonzero(v, axis=axes, keepdims=keepdims), get_aval(v).dtype)
    if ord == 1:
        return sum(abs(v), axis=axes, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid order {ord!r} for vector norm")
    p = float(ord)
    return power(sum(power(abs(v), p), axis=axes, keepdims=keepdims), 1.0 / p)


def _matrix_norm(v: Any, ord: Any, axes: tuple[int, ...], keepdims: bool) -> Array:
    row, col = axes
    if ord is None or ord in ("fro", "f"):
        return sqrt(sum(multiply(v, v), axis=axes, keepdims=keepdims))
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
        raise NotImplementedError(
            f"norm: ord={ord!r} needs a singular value decomposition, which didax does not have yet"
        )
    raise ValueError(f"Invalid order {ord!r} for matrix norm")


def _squeeze(v: Any, axes: tuple[int, ...]) -> Array:
    return squeeze(v, tuple(sorted(axes)))
