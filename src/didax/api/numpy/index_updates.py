"""``x.at[idx]``: functionally pure indexed updates, as scatters (JAX's ``_scatter_update``).

Design rules:
- ``x.at[idx].set(y)`` and its siblings build the same gather description
  as ``x[idx]`` (``gathering``) and transpose it into a scatter: ``y`` is
  broadcast to the indexed shape, repeated indices accumulate for ``add``,
  and out-of-bounds updates are dropped unless ``mode`` says otherwise.
- None modifies ``x``: each returns a new array. ``x.at[idx].get()`` is
  ``x[idx]`` (``indexing.rewriting_take``), with ``mode`` and
  ``fill_value``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any, TypedDict, Unpack, final

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import divide, power
from didax.api.numpy.gathering import _to_gather
from didax.api.numpy.index_parsing import (
    _expand_bool,
    _parse,
)
from didax.api.numpy.indexing import rewriting_take
from didax.api.numpy.manipulation import broadcast_to
from didax.api.numpy.operands import as_result, asarray, astype, operand
from didax.core import dtypes, lax, values
from didax.core.basearray import Value
from didax.core.dtypes import DType
from didax.core.lax.indexing import (
    GatherScatterMode,
    ScatterDimensionNumbers,
    scatter_dnums_of_gather,
)
from didax.core.promotion import result_type
from didax.core.values import get_aval

ScatterFn = Callable[..., Any]


def _safe_to_cast(y: object, dtype: DType) -> bool:
    aval = get_aval(y)
    if aval.dtype == dtype:
        return True
    return dtypes.result_type([(aval.dtype, aval.weak_type), (dtype, False)])[0] == dtype


def scatter_update(
    x: ArrayLike,
    index: Any,
    y: ArrayLike,
    scatter_op: ScatterFn,
    *,
    indices_are_sorted: bool,
    unique_indices: bool,
    mode: str | GatherScatterMode | None,
    normalize_indices: bool,
) -> Array:
    """``x`` with ``x[index] op= y`` applied, functionally (JAX's ``_scatter_update``)."""
    arr = asarray(x)
    aval = get_aval(arr)
    updates: Any
    if (
        type(y) is int
        and dtypes.is_integer(aval.dtype)
        and np.iinfo(aval.dtype.name).min <= y <= np.iinfo(aval.dtype.name).max
    ):
        updates = asarray(y, aval.dtype)
    else:
        updates = asarray(y)  # a list too, as JAX's
    parsed = _expand_bool(_parse(index, aval.shape), aval.shape)
    indexer = _to_gather(parsed, aval.shape, normalize_indices)
    if math.prod(indexer.slice_shape) == 0:
        return arr
    if not _safe_to_cast(updates, aval.dtype):
        warnings.warn(
            "scatter inputs have incompatible types: cannot safely cast value from "
            f"dtype={get_aval(updates).dtype} to dtype={aval.dtype}. In future JAX releases "
            "this will result in an error.",
            FutureWarning,
            stacklevel=3,
        )
    dtype, weak = result_type(arr, updates)
    xs, ys = astype(arr, dtype, weak), astype(updates, dtype, weak)
    ys = broadcast_to(ys, indexer.slice_shape)
    if indexer.newaxis_dims:
        ys = lax.squeeze(ys, indexer.newaxis_dims)
    if indexer.reversed_y_dims:
        ys = lax.rev(ys, indexer.reversed_y_dims)
    if indexer.scalar_bool_dims:
        xs = lax.expand_dims(xs, indexer.scalar_bool_dims)
    out = scatter_op(
        xs,
        indexer.gather_indices,
        ys,
        scatter_dnums_of_gather(indexer.dnums),
        indices_are_sorted=indexer.indices_are_sorted or indices_are_sorted,
        unique_indices=indexer.unique_indices or unique_indices,
        mode=mode,
    )
    if indexer.scalar_bool_dims:
        out = lax.squeeze(out, indexer.scalar_bool_dims)
    out_aval = get_aval(out)
    if out_aval.dtype != aval.dtype or out_aval.weak_type != aval.weak_type:
        out = lax.convert_element_type(out, aval.dtype, aval.weak_type)
    return as_result(out)


class UpdateOptions(TypedDict, total=False):
    """The options each update of ``x.at[idx]`` takes, keyword-only (JAX's).

    ``indices_are_sorted`` and ``unique_indices`` promise what the scatter
    may assume (default False); ``mode`` says what out-of-bounds indices do
    (default: dropped); ``wrap_negative_indices`` (default True) counts
    negative indices from the end, as NumPy's.
    """

    indices_are_sorted: bool
    unique_indices: bool
    mode: str | GatherScatterMode | None
    wrap_negative_indices: bool


def _scatter_sub(
    operand: values.ArrayLike,
    indices: values.ArrayLike,
    updates: values.ArrayLike,
    dnums: ScatterDimensionNumbers,
    **kw: Any,
) -> Value:
    return lax.scatter_add(operand, indices, lax.neg(updates), dnums, **kw)


@final
class IndexUpdateHelper:
    """``x.at``: functionally pure indexed updates (JAX's ``x.at``).

    ============================  ==================================
    ``x.at[idx].set(y)``          ``x[idx] = y``
    ``x.at[idx].add(y)``          ``x[idx] += y`` (repeated indices accumulate)
    ``x.at[idx].subtract(y)``     ``x[idx] -= y``
    ``x.at[idx].multiply(y)``     ``x[idx] *= y`` (also ``mul``)
    ``x.at[idx].divide(y)``       ``x[idx] /= y``
    ``x.at[idx].power(y)``        ``x[idx] **= y``
    ``x.at[idx].min(y)``          ``x[idx] = minimum(x[idx], y)``
    ``x.at[idx].max(y)``          ``x[idx] = maximum(x[idx], y)``
    ``x.at[idx].get()``           ``x[idx]``
    ============================  ==================================

    None modifies ``x``: each returns a new array. Out-of-bounds updates are
    dropped, and ``get`` clamps, unless ``mode`` says otherwise (``"clip"``,
    ``"fill"``/``"drop"``, ``"promise_in_bounds"``).

    >>> import didax.numpy as dnp
    >>> x = dnp.zeros(4)
    >>> x.at[dnp.array([0, 0, 2, 9])].add(1.0)
    Array([2., 0., 1., 0.], dtype=float32)
    """

    __slots__ = ("array",)

    def __init__(self, array: ArrayLike) -> None:
        self.array = array

    def __getitem__(self, index: object) -> IndexUpdateRef:
        return IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


@final
class IndexUpdateRef:
    """``x.at[idx]``: the array and the index that its methods update."""

    __slots__ = ("array", "index")

    def __init__(self, array: ArrayLike, index: object) -> None:
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(
        self,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
        fill_value: Any = None,
        wrap_negative_indices: bool = True,
    ) -> Array:
        """``x[idx]``, with the gather's options (``mode="fill"`` and ``fill_value``)."""
        return rewriting_take(
            self.array,
            self.index,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=mode,
            fill_value=fill_value,
            normalize_indices=wrap_negative_indices,
        )

    def _update(
        self,
        values: ArrayLike,
        op: ScatterFn,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
        wrap_negative_indices: bool = True,
        target: ArrayLike | None = None,
    ) -> Array:
        return scatter_update(
            self.array if target is None else target,
            self.index,
            values,
            op,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=mode,
            normalize_indices=wrap_negative_indices,
        )

    def _factors(self, values: ArrayLike, options: UpdateOptions) -> Array:
        """Ones, times ``values`` at the index (repeats multiply): ``divide``'s and ``power``'s."""
        ones = lax.full_like(as_result(operand(self.array)), 1)
        return self._update(values, lax.scatter_mul, target=ones, **options)

    def set(self, values: ArrayLike, **options: Unpack[UpdateOptions]) -> Array:
        """``x[idx] = values``; of repeated indices the last update stays (XLA on CPUs)."""
        return self._update(values, lax.scatter, **options)

    def add(self, values: ArrayLike, **options: Unpack[UpdateOptions]) -> Array:
        """``x[idx] += values``; repeated indices accumulate."""
        return self._update(values, lax.scatter_add, **options)

    def subtract(self, values: ArrayLike, **options: Unpack[UpdateOptions]) -> Array:
        """``x[idx] -= values``; repeated indices accumulate."""
        return self._update(values, _scatter_sub, **options)

    def multiply(self, values: ArrayLike, **options: Unpack[UpdateOptions]) -> Array:
        """``x[idx] *= values``; repeated indices multiply."""
        return self._update(values, lax.scatter_mul, **options)

    mul = multiply

    def divide(self, values: ArrayLike, **options: Unpack[UpdateOptions]) -> Array:
        """``x[idx] /= values`` (a true division, as JAX's)."""
        return divide(self.array, self._factors(values, options))

    def power(self, values: ArrayLike, **options: Unpack[UpdateOptions]) -> Array:
        """``x[idx] **= values``."""
        return power(self.array, self._factors(values, options))

    def min(self, values: ArrayLike, **options: Unpack[UpdateOptions]) -> Array:
        """``x[idx] = minimum(x[idx], values)``."""
        return self._update(values, lax.scatter_min, **options)

    def max(self, values: ArrayLike, **options: Unpack[UpdateOptions]) -> Array:
        """``x[idx] = maximum(x[idx], values)``."""
        return self._update(values, lax.scatter_max, **options)
