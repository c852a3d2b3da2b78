"""NumPy's index tricks: ``r_``, ``c_``, ``mgrid``, ``ogrid``, ``s_`` and ``index_exp``.

Objects indexed with slices rather than functions, as ``jax.numpy``'s:
``r_[1:4, 0, arr]`` concatenates (a slice is an ``arange``, or a
``linspace`` when its step is imaginary: ``0:1:5j``), and a leading string
directive (``"r"``, ``"c"``, or ``"axis,ndmin,trans1d"``) says how, with
NumPy's rules. Slice bounds must be static.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from didax.api.numpy.creation import arange, array, linspace
from didax.api.numpy.manipulation import concatenate, expand_dims, stack, transpose
from didax.api.numpy.matrices import meshgrid
from didax.api.numpy.operands import Array
from didax.core import dtypes
from didax.core.values import get_aval

__all__ = ["r_", "c_", "mgrid", "ogrid", "s_", "index_exp"]


def _grid_from_slice(s: slice) -> Array:
    start = 0 if s.start is None else s.start
    step = 1 if s.step is None else s.step
    if s.stop is None:
        raise ValueError("an index trick's slice needs a stop")
    if isinstance(step, complex) or np.iscomplexobj(step):
        return linspace(start, s.stop, int(abs(step)))
    return arange(start, s.stop, step)


class _AxisConcat:
    """``r_``/``c_``: concatenation of slices, scalars and arrays along ``axis``."""

    def __init__(self, name: str, axis: int, ndmin: int, trans1d: int) -> None:
        self._name, self._axis, self._ndmin, self._trans1d = name, axis, ndmin, trans1d

    def __repr__(self) -> str:
        return f"didax.numpy.{self._name}"

    def __len__(self) -> int:
        return 0

    def __getitem__(self, key: Any) -> Array:
        items = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d, matrix = self._axis, self._ndmin, self._trans1d, -1
        if items and isinstance(items[0], str):
            directive, items = items[0], items[1:]
            if directive == "r":
                matrix = 0
            elif directive == "c":
                matrix = 1
            else:
                fields = directive.split(",")
                defaults = [axis, ndmin, trans1d]
                try:
                    values = [int(f) for f in fields[:3]]
                except ValueError as err:
                    raise ValueError(f"could not understand directive {directive!r}") from err
                axis, ndmin, trans1d = values + defaults[len(values) :]
        pieces = []
        for item in items:
            if isinstance(item, slice):
                new, item_ndim = _grid_from_slice(item), 0
            elif isinstance(item, str):
                raise ValueError("string directive must be placed at the beginning")
            else:
                new = array(item, copy=False)
                item_ndim = get_aval(new).ndim
            new = array(new, copy=False, ndmin=ndmin)
            if trans1d != -1 and ndmin - item_ndim > 0:
                order = tuple(range(ndmin))
                shifts = ndmin - abs(ndmin + trans1d + 1) % ndmin
                new = transpose(new, order[shifts:] + order[:shifts])
            pieces.append(new)
        out = concatenate(pieces, axis=axis)
        if matrix != -1 and get_aval(out).ndim == 1:
            out = expand_dims(out, matrix)
        return out


class _Grid:
    """``mgrid`` (dense) and ``ogrid`` (sparse): ``meshgrid`` of slices, ``indexing='ij'``."""

    def __init__(self, name: str, sparse: bool) -> None:
        self._name, self._sparse = name, sparse

    def __repr__(self) -> str:
        return f"didax.numpy.{self._name}"

    def __getitem__(self, key: slice | tuple[slice, ...]) -> Any:
        if isinstance(key, slice):
            return _grid_from_slice(key)
        vectors = [_grid_from_slice(k) for k in key]
        dtype, _ = dtypes.result_type((v.dtype, v.weak_type) for v in vectors)
        vectors = [v.astype(dtype) for v in vectors]
        grids = meshgrid(*vectors, indexing="ij", sparse=self._sparse)
        if self._sparse:
            return grids
        return stack(grids, 0) if grids else arange(0)


class _IndexExpression:
    """``s_``/``index_exp``: the index itself (a tuple for ``index_exp``)."""

    def __init__(self, name: str, maketuple: bool) -> None:
        self._name, self._maketuple = name, maketuple

    def __repr__(self) -> str:
        return f"didax.numpy.{self._name}"

    def __getitem__(self, item: Any) -> Any:
        if self._maketuple and not isinstance(item, tuple):
            return (item,)
        return item


r_: Any = _AxisConcat("r_", axis=0, ndmin=1, trans1d=-1)
c_: Any = _AxisConcat("c_", axis=-1, ndmin=2, trans1d=0)
mgrid: Any = _Grid("mgrid", sparse=False)
ogrid: Any = _Grid("ogrid", sparse=True)
s_: Any = _IndexExpression("s_", maketuple=False)
index_exp: Any = _IndexExpression("index_exp", maketuple=True)
