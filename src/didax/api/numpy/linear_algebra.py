"""Products: ``dot``, ``matmul`` and ``outer``, each one ``dot_general``.

``einsum`` and ``tensordot`` are in ``contractions``.

Booleans multiply as NumPy does (an ``or`` of ``and``s), through the default int.
"""

from __future__ import annotations

import builtins
from typing import Any

from didax.api.numpy.elementwise import multiply, not_equal
from didax.api.numpy.manipulation import ravel, reshape
from didax.api.numpy.operands import (
    Array,
    ArrayLike,
    as_result,
    astype,
    broadcast_shapes,
    broadcast_to_shape,
    operand,
)
from didax.core import dtypes, lax
from didax.core.dtypes import DType
from didax.core.errors import ShapeError
from didax.core.promotion import result_type
from didax.core.source_info import user_frame_summary
from didax.core.values import get_aval

__all__ = [
    "dot",
    "matmul",
    "outer",
]


def _dot_general(a: Any, b: Any, dims: lax.DotDimensionNumbers, dt: DType) -> Array:
    """``lax.dot_general`` of operands already of dtype ``dt``; booleans as NumPy (any of ands)."""
    if dt == dtypes.bool_:
        ai, bi = astype(a, dtypes.default_int()), astype(b, dtypes.default_int())
        return not_equal(lax.dot_general(ai, bi, dims), 0)
    return lax.dot_general(a, b, dims)


def _promote_no_broadcast(name: str, *args: ArrayLike) -> tuple[list[Any], DType]:
    vals = [operand(x) for x in args]
    dt, weak = result_type(*vals)
    return [as_result(astype(v, dt, weak)) for v in vals], dt


def dot(a: ArrayLike, b: ArrayLike) -> Array:
    """NumPy's ``dot``: contracts ``a``'s last axis with ``b``'s second-to-last (or only) axis.

    >>> dot(np.array([[1.0, 2.0]]), np.array([3.0, 4.0]))
    Array([11.], dtype=float32)
    """
    (x, y), dt = _promote_no_broadcast("dot", a, b)
    ax, bx = get_aval(x), get_aval(y)
    if ax.ndim == 0 or bx.ndim == 0:
        return multiply(x, y)
    rc = 0 if bx.ndim == 1 else bx.ndim - 2
    if ax.shape[-1] != bx.shape[rc]:
        raise ShapeError(
            f"dot: shapes {ax.shape} and {bx.shape} not aligned: "
            f"{ax.shape[-1]} (dim {ax.ndim - 1}) != {bx.shape[rc]} (dim {rc}) "
            f"(at {user_frame_summary()})"
        )
    return _dot_general(x, y, (((ax.ndim - 1,), (rc,)), ((), ())), dt)


def matmul(a: ArrayLike, b: ArrayLike) -> Array:
    """NumPy's ``matmul`` (``@``): batched matrix product with broadcast batch axes.

    >>> matmul(np.ones((2, 1, 6, 3)), np.ones((4, 3, 5))).shape
    (2, 4, 6, 5)
    """
    (x, y), dt = _promote_no_broadcast("matmul", a, b)
    ax, bx = get_aval(x), get_aval(y)
    if ax.ndim == 0 or bx.ndim == 0:
        raise ValueError("matmul: operands must not be scalars (use multiply)")
    lc, rc = ax.ndim - 1, builtins.max(bx.ndim - 2, 0)
    if ax.shape[lc] != bx.shape[rc]:
        raise ShapeError(
            f"matmul: mismatch in its core dimension: {ax.shape} @ {bx.shape} "
            f"({ax.shape[lc]} != {bx.shape[rc]}) (at {user_frame_summary()})"
        )
    if bx.ndim <= 2:
        # b has no batch axes: a's leading axes are free axes of one dot_general.
        return _dot_general(x, y, (((lc,), (rc,)), ((), ())), dt)
    if ax.ndim <= 2:
        # (n, k) @ (..., k, m): the dot_general result is (n, ..., m).
        out = _dot_general(x, y, (((lc,), (rc,)), ((), ())), dt)
        if ax.ndim == 1:
            return out
        perm = (*range(1, bx.ndim - 1), 0, bx.ndim - 1)
        return lax.transpose(out, perm)
    batch = broadcast_shapes("matmul", ax.shape[:-2], bx.shape[:-2])
    x = broadcast_to_shape(x, batch + ax.shape[-2:])
    y = broadcast_to_shape(y, batch + bx.shape[-2:])
    nb = len(batch)
    return _dot_general(x, y, (((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb)))), dt)


def outer(a: ArrayLike, b: ArrayLike) -> Array:
    """``outer(a, b)[i, j] = ravel(a)[i] * ravel(b)[j]``."""
    x, y = ravel(a), ravel(b)
    return multiply(reshape(x, (-1, 1)), reshape(y, (1, -1)))
