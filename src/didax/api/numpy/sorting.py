"""Sorting: ``sort`` and ``argsort``, as ``jax.numpy``'s, over the ``sort`` primitive.

Design rules:
- The order is JAX's total order (``core.lax.sorting``): NaNs last, ``-0.0``
  equal to ``0.0``; sorts are stable unless ``stable=False`` is asked.
- ``axis=None`` sorts the flattened array; ``descending`` reverses the
  result, and ``argsort`` keeps equal elements in their original order
  then (by sorting the reversed array, as JAX does).
- ``argsort`` gives indices of the default integer dtype, or ``dtype``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, TypedDict, Unpack

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import equal
from didax.api.numpy.operands import as_result, dtype_arg, operand
from didax.core import dtypes, lax
from didax.core.dtypes import DTypeLike
from didax.core.values import get_aval

__all__ = ["sort", "argsort", "partition", "argpartition", "lexsort"]


class SortOptions(TypedDict, total=False):
    """``sort``'s and ``argsort``'s keyword options (JAX's), read by ``_prepare``.

    ``kind`` and ``order`` are NumPy's and refused; ``stable`` (default True)
    keeps equal elements in order; ``descending`` (default False) sorts from
    the largest.
    """

    kind: object
    order: object
    stable: bool
    descending: bool


def _prepare(
    name: str,
    a: ArrayLike,
    axis: int | None,
    *,
    kind: object = None,
    order: object = None,
    stable: bool = True,
    descending: bool = False,
) -> tuple[Any, int, bool, bool]:
    """The operand and the axis to sort along, and ``stable`` and ``descending``."""
    if kind is not None:
        raise TypeError(
            f"{name}: the 'kind' argument is not supported; use stable=True or stable=False"
        )
    if order is not None:
        raise TypeError(f"{name}: the 'order' argument is not supported")
    v = operand(a)
    aval = get_aval(v)
    if axis is None:
        v = lax.reshape(v, (aval.size,))
        return v, 0, stable, descending
    if aval.ndim == 0:
        raise ValueError(f"{name}: axis {axis} is out of bounds for a 0-d array")
    if not -aval.ndim <= axis < aval.ndim:
        raise ValueError(f"{name}: axis {axis} is out of bounds for an array of rank {aval.ndim}")
    return v, axis % aval.ndim, stable, descending


def sort(a: ArrayLike, axis: int | None = -1, **options: Unpack[SortOptions]) -> Array:
    """``a`` sorted along ``axis`` (flattened when ``axis`` is None).

    >>> import numpy as np
    >>> sort(np.array([[3, 1, 2], [0, 5, 4]]))
    Array([[1, 2, 3],
           [0, 4, 5]], dtype=int32)
    >>> sort(np.array([2.0, np.nan, -1.0]), descending=True)
    Array([nan,  2., -1.], dtype=float32)
    """
    v, dim, stable, descending = _prepare("sort", a, axis, **options)
    out = lax.sort_p.bind(v, dimension=dim, is_stable=bool(stable), num_keys=1)[0]
    return as_result(lax.rev(out, (dim,)) if descending else out)


def argsort(
    a: ArrayLike,
    axis: int | None = -1,
    *,
    dtype: DTypeLike = None,
    **options: Unpack[SortOptions],
) -> Array:
    """The indices that sort ``a`` along ``axis`` (of the flattened ``a`` when None).

    >>> import numpy as np
    >>> argsort(np.array([3.0, 1.0, 2.0, 1.0]))
    Array([1, 3, 2, 0], dtype=int32)
    >>> argsort(np.array([3.0, 1.0, 2.0, 1.0]), descending=True)
    Array([0, 2, 1, 3], dtype=int32)
    """
    v, dim, stable, descending = _prepare("argsort", a, axis, **options)
    shape = get_aval(v).shape
    index_dtype = dtype_arg(dtype)
    if index_dtype is None:
        index_dtype = dtypes.default_int() if shape[dim] < 2**31 else dtypes.int64
    elif not dtypes.is_integer(index_dtype):
        raise TypeError(f"argsort: dtype must be an integer type, got {index_dtype}")
    iota = lax.broadcast_in_dim(lax.iota(index_dtype, shape[dim]), shape, (dim,))
    if descending and stable:
        # Reversed first, so that equal elements keep their order once reversed back.
        v, iota = lax.rev(v, (dim,)), lax.rev(iota, (dim,))
    _, indices = lax.sort_p.bind(v, iota, dimension=dim, is_stable=bool(stable), num_keys=1)
    return as_result(lax.rev(indices, (dim,)) if descending else indices)


def _last_axis(name: str, a: ArrayLike, axis: int) -> tuple[Any, tuple[int, ...]]:
    """``a`` with ``axis`` swapped with the last (complex refused, as by JAX), and that swap."""
    v = operand(a)
    aval = get_aval(v)
    if dtypes.is_complex(aval.dtype):
        raise NotImplementedError(f"{name}: complex dtypes are not supported (as in JAX)")
    if not -aval.ndim <= axis < aval.ndim:
        raise ValueError(f"{name}: axis {axis} is out of bounds for an array of rank {aval.ndim}")
    axis %= aval.ndim
    perm = list(range(aval.ndim))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return lax.transpose(v, tuple(perm)), tuple(perm)


def _kth(name: str, kth: int, n: int) -> int:
    kth = operator.index(kth)
    if not -n <= kth < n:
        raise ValueError(f"{name}: kth {kth} is out of bounds for an axis of length {n}")
    return kth % n


def _bottom_key(v: Any) -> Any:
    """A key whose largest entries are ``v``'s smallest (unsigned: shifted so that 0 is kept)."""
    if dtypes.is_unsigned(get_aval(v).dtype):
        one = lax.full_like(v, 1)
        return lax.neg(lax.add(v, one))
    return lax.neg(v)


def partition(a: ArrayLike, kth: int, axis: int = -1) -> Array:
    """``a`` with its ``kth`` smallest element in place along ``axis``, smaller ones before it.

    As JAX's: the smaller elements come sorted, and the larger ones in descending order.

    >>> partition(np.array([5, 1, 4, 2, 3]), 2)
    Array([1, 2, 3, 5, 4], dtype=int32)
    """
    v, swap = _last_axis("partition", a, axis)
    n = get_aval(v).shape[-1]
    kth = _kth("partition", kth, n)
    bottom = _bottom_key(lax.top_k(_bottom_key(v), kth + 1)[0])
    top = lax.top_k(v, n - kth - 1)[0]
    out = lax.concatenate([bottom, top], get_aval(v).ndim - 1)
    return as_result(lax.transpose(out, swap))


def argpartition(a: ArrayLike, kth: int, axis: int = -1) -> Array:
    """The indices that ``partition`` ``a`` along ``axis`` (JAX's order)."""
    v, swap = _last_axis("argpartition", a, axis)
    shape = get_aval(v).shape
    n = shape[-1]
    kth = _kth("argpartition", kth, n)
    bottom_index = lax.top_k(_bottom_key(v), kth + 1)[1]
    # The others, in index order: top_k of a 0/1 proxy that is 0 at the bottom indices (JAX's).
    positions = lax.iota(get_aval(bottom_index).dtype, n)
    chosen = equal(lax.expand_dims(bottom_index, (len(shape),)), positions)
    taken = lax.reduce_or(chosen, (len(shape) - 1,))
    proxy = lax.convert_element_type(lax.bitwise_not(taken), dtypes.float32)
    top_index = lax.top_k(proxy, n - kth - 1)[1]
    out = lax.concatenate([bottom_index, top_index], len(shape) - 1)
    return as_result(lax.transpose(out, swap))


def lexsort(keys: Sequence[ArrayLike], axis: int = -1) -> Array:
    """The indices that sort by the last key, then by the one before it, ... (stable).

    >>> lexsort([np.array([1, 2, 3]), np.array([0, 0, 1])])
    Array([0, 1, 2], dtype=int32)
    """
    operands = [operand(k) for k in keys]
    if not operands:
        raise TypeError("lexsort: need sequence of keys with len > 0")
    shapes = {get_aval(k).shape for k in operands}
    if len(shapes) != 1:
        raise ValueError(f"lexsort: all keys need to be the same shape, got {sorted(shapes)}")
    (shape,) = shapes
    if not shape:
        raise TypeError("lexsort: the keys must have at least one dimension")
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"lexsort: axis {axis} is out of bounds for keys of rank {len(shape)}")
    dim = axis % len(shape)
    index_dtype = dtypes.default_int() if shape[dim] < 2**31 else dtypes.int64
    iota = lax.broadcasted_iota(index_dtype, shape, dim)
    out = lax.sort_p.bind(
        *operands[::-1], iota, dimension=dim, is_stable=True, num_keys=len(operands)
    )
    return as_result(out[-1])
