"""Abstract values: what a transformation knows about a value without its data.

Design rules:
- ``ShapedArray`` is a value (``attrs`` frozen, compared by value), so it can
  key caches and be compared in type checks.
- There is no ``ConcreteArray``: concreteness is a property of tracers (see
  ``trace.Tracer.to_concrete_value``), not of abstract values.
- Which Python objects are didax values, and their abstract values, is
  decided in ``core.values``.
"""

from __future__ import annotations

import math
from typing import final

import attrs
import numpy as np

from didax.core import dtypes
from didax.core.dtypes import DType
from didax.core.shape_poly import is_constant_shape


@final
@attrs.frozen(repr=False, cache_hash=True)
class ShapedArray:
    """The type of an array: shape, dtype and whether the dtype is weak.

    >>> ShapedArray((2, 3), dtypes.float32).str_short()
    'f32[2,3]'
    """

    # An int per axis, or a ``shape_poly.DimExpr`` for a symbolic dimension
    # (a batch-polymorphic export's): it compares and combines as an int does.
    shape: tuple[int, ...]
    dtype: DType
    weak_type: bool = False

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        if not is_constant_shape(self.shape):
            return math.prod(self.shape)  # a symbolic dimension (``shape_poly.DimExpr``)
        return int(np.prod(self.shape, dtype=np.int64))

    def str_short(self) -> str:
        return f"{dtypes.short_name(self.dtype)}[{','.join(map(str, self.shape))}]"

    def strip_weak(self) -> ShapedArray:
        return ShapedArray(self.shape, self.dtype) if self.weak_type else self

    def update(
        self,
        shape: tuple[int, ...] | None = None,
        dtype: DType | None = None,
        weak_type: bool | None = None,
    ) -> ShapedArray:
        return ShapedArray(
            self.shape if shape is None else shape,
            self.dtype if dtype is None else dtype,
            self.weak_type if weak_type is None else weak_type,
        )

    def __repr__(self) -> str:
        return f"ShapedArray({self.str_short()}{', weak' if self.weak_type else ''})"

    def __str__(self) -> str:
        return self.str_short()
