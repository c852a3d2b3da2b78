"""``didax.numpy.linalg``'s Array API names: the products and transposes of ``didax.numpy``
with the Array API's stricter signatures, and ``svdvals``.

Design rules:
- Each is ``didax.numpy``'s function of the same name (``jax.numpy.linalg``
  forwards the same way), with the Array API's checks first: ``cross``
  takes 3-vectors only (``numpy.cross`` also takes 2-vectors), ``outer``
  1-D operands only (``numpy.outer`` ravels), ``matrix_transpose`` at least
  two axes; ``tensordot``'s ``axes`` and ``vecdot``'s ``axis`` are
  keyword-only. ``api.numpy.linalg`` re-exports them.
- A refusal is a ``ValueError`` naming the function and the operand shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Unpack

from didax.api.numpy import contractions, more_routines
from didax.api.numpy.array_types import Array, ArrayLike, DotOptions
from didax.api.numpy.decompositions import svd
from didax.api.numpy.linear_algebra import outer as _outer
from didax.api.numpy.operands import normalize_axes, operand
from didax.core.values import get_aval

__all__ = ["svdvals", "cross", "outer", "matrix_transpose", "tensordot", "vecdot"]


def svdvals(x: ArrayLike, /) -> Array:
    """The singular values of (a stack of) matrices, in descending order.

    >>> svdvals(np.array([[3.0, 0.0], [0.0, -4.0]]))
    Array([4., 3.], dtype=float32)
    """
    out: Array = svd(x, compute_uv=False)
    return out


def cross(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1) -> Array:
    """The cross products of 3-vectors along ``axis`` (broadcast over the others).

    >>> cross(np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]))
    Array([0., 0., 1.], dtype=float32)
    """
    a, b = operand(x1), operand(x2)
    shape_a, shape_b = get_aval(a).shape, get_aval(b).shape
    lengths = [s[normalize_axes(axis, len(s), "cross")[0]] for s in (shape_a, shape_b)]
    if lengths != [3, 3]:
        raise ValueError(
            "linalg.cross: both operands must be (arrays of) 3-vectors along axis "
            f"{axis}; got shapes {shape_a} and {shape_b}"
        )
    return contractions.cross(a, b, axis=axis)


def outer(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """The outer product of two vectors: ``out[i, j] = x1[i] * x2[j]``.

    >>> outer(np.array([1.0, 2.0]), np.array([1.0, 10.0, 100.0])).shape
    (2, 3)
    """
    a, b = operand(x1), operand(x2)
    shape_a, shape_b = get_aval(a).shape, get_aval(b).shape
    if len(shape_a) != 1 or len(shape_b) != 1:
        raise ValueError(
            f"linalg.outer: both operands must be 1-dimensional; got shapes {shape_a} and {shape_b}"
        )
    return _outer(a, b)


def matrix_transpose(x: ArrayLike, /) -> Array:
    """The last two axes swapped (``didax.numpy.matrix_transpose``).

    >>> matrix_transpose(np.ones((2, 3, 4))).shape
    (2, 4, 3)
    """
    return more_routines.matrix_transpose(x)


def tensordot(
    x1: ArrayLike,
    x2: ArrayLike,
    /,
    *,
    axes: int | tuple[Sequence[int], Sequence[int]] = 2,
    **options: Unpack[DotOptions],
) -> Array:
    """``didax.numpy.tensordot`` with ``axes`` keyword-only.

    >>> tensordot(np.ones((2, 3)), np.ones((3, 4)), axes=1).shape
    (2, 4)
    """
    return contractions.tensordot(x1, x2, axes, **options)


def vecdot(
    x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1, **options: Unpack[DotOptions]
) -> Array:
    """The dot products of vectors along ``axis``, ``x1`` conjugated (``didax.numpy.vecdot``).

    >>> vecdot(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    Array(11., dtype=float32)
    """
    return more_routines.vecdot(x1, x2, axis=axis, **options)
