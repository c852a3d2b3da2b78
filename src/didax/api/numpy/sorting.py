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

from typing import Any, TypedDict, Unpack

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.operands import as_result, dtype_arg, operand
from didax.core import dtypes, lax
from didax.core.dtypes import DTypeLike
from didax.core.values import get_aval

__all__ = ["sort", "argsort"]


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
