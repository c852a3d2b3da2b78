"""Array manipulation: NumPy's shape functions (transpose, reshape, joining arrays).

Each is a composition of ``lax``'s structural primitives; a call that
changes nothing (an identity permutation, the same shape) binds nothing.
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Sequence

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.operands import (
    as_result,
    as_sequence,
    astype,
    broadcast_to_shape,
    dtype_arg,
    normalize_axes,
    operand,
    shape_arg,
    stack_along,
)
from didax.core import lax, shape_poly
from didax.core.dtypes import DTypeLike
from didax.core.promotion import result_type
from didax.core.values import get_aval

__all__ = [
    "transpose",
    "swapaxes",
    "moveaxis",
    "reshape",
    "ravel",
    "broadcast_to",
    "expand_dims",
    "squeeze",
    "concatenate",
    "stack",
]


def transpose(a: ArrayLike, axes: Sequence[int] | None = None) -> Array:
    """Permutes axes (reverses them by default); result axis i is ``a``'s axis ``axes[i]``."""
    v = as_result(operand(a))
    nd = get_aval(v).ndim
    perm = tuple(reversed(range(nd))) if axes is None else tuple(operator.index(i) for i in axes)
    if len(perm) != nd:
        raise ValueError(f"transpose: axes {axes} don't match an array of rank {nd}")
    perm = tuple(p % nd if -nd <= p < nd else p for p in perm)
    if sorted(perm) != list(range(nd)):
        raise ValueError(f"transpose: axes {axes} are not a permutation of {nd} axes")
    return v if perm == tuple(range(nd)) else lax.transpose(v, perm)


def swapaxes(a: ArrayLike, axis1: int, axis2: int) -> Array:
    """``a`` with axes ``axis1`` and ``axis2`` exchanged."""
    v = operand(a)
    nd = get_aval(v).ndim
    (i,), (j,) = normalize_axes(axis1, nd, "swapaxes"), normalize_axes(axis2, nd, "swapaxes")
    perm = list(range(nd))
    perm[i], perm[j] = j, i
    return transpose(v, perm)


def moveaxis(a: ArrayLike, source: int | Sequence[int], destination: int | Sequence[int]) -> Array:
    """``a`` with axes ``source`` moved to positions ``destination``, the others in order."""
    v = operand(a)
    nd = get_aval(v).ndim
    src = [operator.index(s) for s in as_sequence(source)]
    dst = [operator.index(d) for d in as_sequence(destination)]
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination must have the same number of axes")
    src_n = [normalize_axes(s, nd, "moveaxis")[0] for s in src]
    dst_n = [normalize_axes(d, nd, "moveaxis")[0] for d in dst]
    if len(set(src_n)) != len(src_n) or len(set(dst_n)) != len(dst_n):
        raise ValueError("moveaxis: repeated axis")
    order = [i for i in range(nd) if i not in src_n]
    for d, s in sorted(zip(dst_n, src_n, strict=True)):
        order.insert(d, s)
    return transpose(v, order)


def reshape(a: ArrayLike, shape: int | Sequence[int], order: str = "C") -> Array:
    """``a`` with a new shape of the same size; one entry may be -1 (inferred).

    >>> reshape(np.arange(6), (2, -1))
    Array([[0, 1, 2],
           [3, 4, 5]], dtype=int32)
    """
    if order != "C":
        raise NotImplementedError(f"reshape: only order='C' is supported, got {order!r}")
    v = as_result(operand(a))
    aval = get_aval(v)
    dims = list(shape_poly.dims(as_sequence(shape), operator.index))
    unknown = [i for i, d in enumerate(dims) if d == -1]
    if len(unknown) > 1 or builtins.any(d < -1 for d in dims):
        raise ValueError(f"reshape: invalid shape {tuple(dims)}")
    if unknown:
        known = math.prod(d for d in dims if d != -1)
        if known == 0 or aval.size % known:
            raise ValueError(f"cannot reshape array of size {aval.size} into shape {tuple(dims)}")
        dims[unknown[0]] = aval.size // known
    new = tuple(dims)
    if math.prod(new) != aval.size:
        raise ValueError(f"cannot reshape array of size {aval.size} into shape {new}")
    return v if new == aval.shape else lax.reshape(v, new)


def ravel(a: ArrayLike) -> Array:
    """``a`` flattened to one axis (row-major)."""
    return reshape(a, (-1,))


def broadcast_to(array: ArrayLike, shape: int | Sequence[int]) -> Array:
    """``array`` broadcast to ``shape`` by NumPy's rule.

    >>> broadcast_to(np.array([1, 2]), (2, 2))
    Array([[1, 2],
           [1, 2]], dtype=int32)
    """
    v = operand(array)
    return as_result(broadcast_to_shape(v, shape_arg(shape, "broadcast_to")))


def expand_dims(a: ArrayLike, axis: int | Sequence[int]) -> Array:
    """``a`` with size-1 axes inserted at positions ``axis`` of the result."""
    v = as_result(operand(a))
    n_new = 1 if isinstance(axis, (int, np.integer)) else len(axis)
    axes = normalize_axes(axis, get_aval(v).ndim + n_new, "expand_dims")
    out: Array = lax.expand_dims(v, axes)
    return out


def squeeze(a: ArrayLike, axis: int | Sequence[int] | None = None) -> Array:
    """``a`` without its size-1 axes (all of them, or those in ``axis``)."""
    v = as_result(operand(a))
    aval = get_aval(v)
    if axis is None:
        axes = tuple(i for i, s in enumerate(aval.shape) if s == 1)
    else:
        axes = normalize_axes(axis, aval.ndim, "squeeze")
        if builtins.any(aval.shape[i] != 1 for i in axes):
            raise ValueError(
                "squeeze: cannot select an axis to squeeze out which has size not equal to one"
            )
    return lax.squeeze(v, axes) if axes else v


def concatenate(
    arrays: Sequence[ArrayLike], axis: int | None = 0, dtype: DTypeLike = None
) -> Array:
    """``arrays`` joined along an existing ``axis`` (flattened first when ``axis`` is None).

    >>> concatenate([np.zeros(2, np.float32), np.array([1, 2])]).dtype  # JAX's lattice
    dtype('float32')
    """
    if len(arrays) == 0:
        raise ValueError("concatenate: need at least one array to concatenate")
    raw = [operand(x) for x in arrays]
    if axis is None:
        raw, axis = [ravel(v) for v in raw], 0
    dt, weak = result_type(*raw)
    dt = dtype_arg(dtype) or dt
    vals = [as_result(astype(v, dt, weak)) for v in raw]
    nd = get_aval(vals[0]).ndim
    if nd == 0:
        raise ValueError("concatenate: zero-dimensional arrays cannot be concatenated")
    (ax,) = normalize_axes(axis, nd, "concatenate")
    for v in vals:
        s, s0 = get_aval(v).shape, get_aval(vals[0]).shape
        if len(s) != nd:
            raise TypeError(
                "concatenate: cannot concatenate arrays with different numbers of dimensions: "
                f"got {s0} and {s}"
            )
        if builtins.any(p != q for i, (p, q) in enumerate(zip(s, s0, strict=True)) if i != ax):
            # JAX's type (a TypeError from lax.concatenate); NumPy's words.
            raise TypeError(
                f"concatenate: all input array dimensions except for the concatenation axis "
                f"must match, got shapes {s0} and {s}"
            )
    if len(vals) == 1:
        return vals[0]
    out: Array = lax.concatenate(vals, ax)
    return out


def stack(arrays: Sequence[ArrayLike], axis: int = 0, dtype: DTypeLike = None) -> Array:
    """``arrays`` (of one shape) joined along a new ``axis``.

    >>> stack([np.array([1, 2]), np.array([3, 4])], axis=1)
    Array([[1, 3],
           [2, 4]], dtype=int32)
    """
    if len(arrays) == 0:
        raise ValueError("stack: need at least one array to stack")
    vals = [operand(x) for x in arrays]
    (ax,) = normalize_axes(axis, get_aval(vals[0]).ndim + 1, "stack")
    return stack_along(vals, ax, dtype_arg(dtype))
