"""Products: ``dot`` and ``matmul``, each one ``dot_general``; ``outer``, a product.

``einsum`` and ``tensordot`` are in ``contractions``.

Design rules:
- As ``jax.numpy``'s, every product takes ``precision`` (see
  ``lax.Precision``) and ``preferred_element_type``, and binds
  ``dot_general`` with ``preferred_element_type`` set: to the promoted
  operands' dtype when none is given, so that jaxprs read as JAX's.
- Booleans multiply as NumPy does (an ``or`` of ``and``s), through the
  default int.
"""

from __future__ import annotations

import builtins
from typing import Any, Unpack

from didax.api.numpy.array_types import Array, ArrayLike, DotOptions
from didax.api.numpy.elementwise import multiply, not_equal
from didax.api.numpy.manipulation import ravel, reshape
from didax.api.numpy.operands import (
    as_result,
    astype,
    broadcast_shapes,
    broadcast_to_shape,
    dtype_arg,
    operand,
)
from didax.core import dtypes, lax
from didax.core.dtypes import DType, DTypeLike
from didax.core.errors import ShapeError
from didax.core.lax.precision import PrecisionLike
from didax.core.promotion import result_type
from didax.core.source_info import user_frame_summary
from didax.core.values import get_aval

__all__ = [
    "dot",
    "matmul",
    "outer",
]


def _dot_general(
    a: Any,
    b: Any,
    dims: lax.DotDimensionNumbers,
    dt: DType,
    precision: PrecisionLike = None,
    preferred: DType | None = None,
) -> Array:
    """``lax.dot_general`` of operands of dtype ``dt``, typed ``preferred`` (``dt`` if None).

    Booleans as NumPy (any of ands). Operands of two dtypes (an einsum's
    partial product, already of the preferred type, beside an operand) are
    both converted to the result's type first, as JAX's lowering does.
    """
    out = dt if preferred is None else preferred
    if get_aval(a).dtype != get_aval(b).dtype:
        a, b, dt = astype(a, out), astype(b, out), out
    if dt == dtypes.bool_:
        if out == dtypes.bool_:
            i = dtypes.default_int()
            ai, bi = astype(a, i), astype(b, i)
            return not_equal(lax.dot_general(ai, bi, dims, precision, i), 0)
        a, b = astype(a, out), astype(b, out)
    result: Array = lax.dot_general(a, b, dims, precision, out)
    return result


def _preferred(preferred_element_type: DTypeLike) -> DType | None:
    return dtype_arg(preferred_element_type)


def _strong_if(asked: DType | None, x: Array) -> Array:
    """``x``, strongly typed when a preferred type was asked for (JAX's results are then)."""
    aval = get_aval(x)
    if asked is not None and aval.weak_type:
        return as_result(astype(x, aval.dtype, False))
    return as_result(x)


def _promote_no_broadcast(name: str, *args: ArrayLike) -> tuple[list[Array], DType]:
    vals = [operand(x) for x in args]
    dt, weak = result_type(*vals)
    return [as_result(astype(v, dt, weak)) for v in vals], dt


def dot_options(
    *, precision: PrecisionLike = None, preferred_element_type: DTypeLike = None
) -> tuple[PrecisionLike, DTypeLike]:
    """A product's ``DotOptions``, read: ``(precision, preferred_element_type)``; others refused."""
    return precision, preferred_element_type


def dot(
    a: ArrayLike,
    b: ArrayLike,
    **options: Unpack[DotOptions],
) -> Array:
    """NumPy's ``dot``: contracts ``a``'s last axis with ``b``'s second-to-last (or only) axis.

    A scalar operand multiplies (a product contracting nothing, as JAX's).

    >>> dot(np.array([[1.0, 2.0]]), np.array([3.0, 4.0]))
    Array([11.], dtype=float32)
    >>> x = np.array([100, 100], np.int8)
    >>> dot(x, np.array([1, 2], np.int8), preferred_element_type=np.int32)
    Array(300, dtype=int32)
    """
    precision, preferred_element_type = dot_options(**options)
    (x, y), dt = _promote_no_broadcast("dot", a, b)
    asked = _preferred(preferred_element_type)
    ax, bx = get_aval(x), get_aval(y)
    contract: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    if ax.ndim > 0 and bx.ndim > 0:
        rc = 0 if bx.ndim == 1 else bx.ndim - 2
        if ax.shape[-1] != bx.shape[rc]:
            raise ShapeError(
                f"dot: shapes {ax.shape} and {bx.shape} not aligned: "
                f"{ax.shape[-1]} (dim {ax.ndim - 1}) != {bx.shape[rc]} (dim {rc}) "
                f"(at {user_frame_summary()})"
            )
        contract = ((ax.ndim - 1,), (rc,))
    return _strong_if(asked, _dot_general(x, y, (contract, ((), ())), dt, precision, asked))


def matmul(
    a: ArrayLike,
    b: ArrayLike,
    **options: Unpack[DotOptions],
) -> Array:
    """NumPy's ``matmul`` (``@``): batched matrix product with broadcast batch axes.

    >>> matmul(np.ones((2, 1, 6, 3)), np.ones((4, 3, 5))).shape
    (2, 4, 6, 5)
    """
    precision, preferred_element_type = dot_options(**options)
    (x, y), dt = _promote_no_broadcast("matmul", a, b)
    asked = _preferred(preferred_element_type)
    ax, bx = get_aval(x), get_aval(y)
    if ax.ndim == 0 or bx.ndim == 0:
        raise ValueError("matmul: operands must not be scalars (use multiply)")
    lc, rc = ax.ndim - 1, builtins.max(bx.ndim - 2, 0)
    if ax.shape[lc] != bx.shape[rc]:
        raise ShapeError(
            f"matmul: mismatch in its core dimension: {ax.shape} @ {bx.shape} "
            f"({ax.shape[lc]} != {bx.shape[rc]}) (at {user_frame_summary()})"
        )

    def product(x: ArrayLike, y: ArrayLike, dims: lax.DotDimensionNumbers) -> Array:
        return _dot_general(x, y, dims, dt, precision, asked)

    if bx.ndim <= 2:
        # b has no batch axes: a's leading axes are free axes of one dot_general.
        return _strong_if(asked, product(x, y, (((lc,), (rc,)), ((), ()))))
    if ax.ndim <= 2:
        # (n, k) @ (..., k, m): the dot_general result is (n, ..., m).
        out = product(x, y, (((lc,), (rc,)), ((), ())))
        if ax.ndim == 1:
            return _strong_if(asked, out)
        perm = (*range(1, bx.ndim - 1), 0, bx.ndim - 1)
        return _strong_if(asked, lax.transpose(out, perm))
    batch = broadcast_shapes("matmul", ax.shape[:-2], bx.shape[:-2])
    x = broadcast_to_shape(x, batch + ax.shape[-2:])
    y = broadcast_to_shape(y, batch + bx.shape[-2:])
    nb = len(batch)
    dims = (((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb))))
    return _strong_if(asked, product(x, y, dims))


def outer(a: ArrayLike, b: ArrayLike) -> Array:
    """``outer(a, b)[i, j] = ravel(a)[i] * ravel(b)[j]``."""
    x, y = ravel(a), ravel(b)
    return multiply(reshape(x, (-1, 1)), reshape(y, (1, -1)))
