"""NumPy's index tricks and index arithmetic: ``r_``, ``c_``, ``mgrid``, ``unravel_index``...

Objects indexed with slices rather than functions, as ``jax.numpy``'s:
``r_[1:4, 0, arr]`` concatenates (a slice is an ``arange``, or a
``linspace`` when its step is imaginary: ``0:1:5j``), and a leading string
directive (``"r"``, ``"c"``, or ``"axis,ndmin,trans1d"``) says how, with
NumPy's rules. Slice bounds must be static. Index arithmetic
(``unravel_index``, ``ravel_multi_index``, ``indices``, ``ix_``, the
``*_indices_from`` functions) converts between flat indices, coordinates
and index grids; shapes are static, and ``ravel_multi_index``'s default
``mode="raise"`` needs concrete indices, as JAX's.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.creation import arange, array, asarray, linspace, zeros
from didax.api.numpy.elementwise import floor_divide, remainder, where
from didax.api.numpy.manipulation import concatenate, expand_dims, reshape, stack, transpose
from didax.api.numpy.matrices import diag_indices, meshgrid, tril_indices, triu_indices
from didax.api.numpy.operands import as_result, concrete_value, dtype_arg, operand
from didax.core import dtypes, lax
from didax.core.dtypes import DTypeLike
from didax.core.promotion import result_type as _result_type
from didax.core.values import get_aval

__all__ = [
    "r_",
    "c_",
    "mgrid",
    "ogrid",
    "s_",
    "index_exp",
    "unravel_index",
    "ravel_multi_index",
    "indices",
    "ix_",
    "diag_indices_from",
    "tril_indices_from",
    "triu_indices_from",
]


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
        dtype, _ = dtypes.result_type((v.dtype, v.aval.weak_type) for v in vectors)
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


# --- index arithmetic ----------------------------------------------------------------------


def unravel_index(indices: ArrayLike, shape: Sequence[int] | int) -> tuple[Array, ...]:
    """The coordinates in an array of ``shape`` of flat ``indices`` (clamped, as JAX's)."""
    idx = as_result(operand(indices))
    dims = list(shape) if isinstance(shape, Sequence) else [shape]
    out: list[Any] = [0] * len(dims)
    for i, s in reversed(list(enumerate(dims))):
        idx, out[i] = floor_divide(idx, s), remainder(idx, s)
    oob_pos = idx > 0
    oob_neg = idx < -1 if not dtypes.is_unsigned(idx.dtype) else asarray(False)
    return tuple(
        where(oob_pos, s - 1, where(oob_neg, 0, i)) for s, i in zip(dims, out, strict=True)
    )


def ravel_multi_index(
    multi_index: Sequence[ArrayLike],
    dims: Sequence[int],
    mode: str = "raise",
    order: str = "C",
) -> Array:
    """Flat indices of coordinate arrays in an array of shape ``dims``.

    ``mode`` is ``"raise"`` (concrete indices only), ``"wrap"``, ``"clip"`` or ``"ignore"``.
    """
    if len(multi_index) != len(dims):
        raise ValueError(f"ravel_multi_index: {len(multi_index)} index arrays for {len(dims)} dims")
    sizes = tuple(operator.index(d) for d in dims)
    arrays = [as_result(operand(i)) for i in multi_index]
    for a in arrays:
        if not dtypes.is_integer(a.dtype):
            raise TypeError("ravel_multi_index: only int indices permitted")
    dtype = _result_type(0, *arrays)[0]  # a weak int: the indices' dtype, or the default int
    if mode == "raise":
        for a, d in zip(arrays, sizes, strict=True):
            concrete = concrete_value(
                a, "ravel_multi_index: mode='raise' needs concrete indices; use 'wrap' or 'clip'"
            )
            if np.any((concrete < 0) | (concrete >= d)):
                raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        arrays = [
            where(a < 0, 0, where(a > d - 1, d - 1, a)) for a, d in zip(arrays, sizes, strict=True)
        ]
    elif mode == "wrap":
        arrays = [remainder(a, d) for a, d in zip(arrays, sizes, strict=True)]
    elif mode != "ignore":
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or 'ignore'.")
    if order == "F":
        strides = np.cumprod((1, *sizes[:-1]))
    elif order == "C":
        strides = np.cumprod((1, *sizes[1:][::-1]))[::-1]
    else:
        raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    result: Any = asarray(np.array(0, dtype))
    for a, s in zip(arrays, strides, strict=True):
        result = result + a.astype(dtype) * int(s)
    return as_result(result)


def indices(dimensions: Sequence[int], dtype: DTypeLike = None, sparse: bool = False) -> Any:
    """The index grids of an array of shape ``dimensions`` (stacked, or sparse as a tuple)."""
    dims = tuple(operator.index(d) for d in dimensions)
    dt = dtype_arg(dtype) or dtypes.default_int()
    grids = []
    for i, d in enumerate(dims):
        shape = tuple(d if j == i else 1 for j in range(len(dims)))
        g = lax.broadcast_in_dim(lax.iota(dt, d), shape, (i,))
        grids.append(
            as_result(g if sparse else lax.broadcast_in_dim(g, dims, tuple(range(len(dims)))))
        )
    if sparse:
        return tuple(grids)
    return stack(grids, 0) if grids else zeros((0,), dt)


def ix_(*args: ArrayLike) -> tuple[Array, ...]:
    """Open-mesh index arrays from 1-d sequences (for ``x[ix_(rows, cols)]``)."""
    n = len(args)
    out = []
    for i, a in enumerate(args):
        v = as_result(operand(a))
        if v.ndim != 1:
            raise ValueError(
                f"ix_: arguments must be 1-dimensional, got an argument of rank {v.ndim}"
            )
        shape = tuple(v.shape[0] if j == i else 1 for j in range(n))
        out.append(reshape(v, shape))
    return tuple(out)


def diag_indices_from(arr: ArrayLike) -> tuple[Array, ...]:
    """``diag_indices`` of a square array's size and rank."""
    shape = get_aval(operand(arr)).shape
    if len(shape) < 2 or len(set(shape)) != 1:
        raise ValueError("diag_indices_from: input array must be at least 2-d and square")
    return tuple(diag_indices(shape[0], len(shape)))


def _matrix_shape(name: str, arr: ArrayLike) -> tuple[int, ...]:
    shape = get_aval(operand(arr)).shape
    if len(shape) != 2:
        raise ValueError(f"{name}: input array must be 2-d")
    return shape


def tril_indices_from(arr: ArrayLike, k: int = 0) -> tuple[Array, Array]:
    """``tril_indices`` of a 2-d array's shape."""
    n, m = _matrix_shape("tril_indices_from", arr)
    rows, cols = tril_indices(n, k, m)
    return rows, cols


def triu_indices_from(arr: ArrayLike, k: int = 0) -> tuple[Array, Array]:
    """``triu_indices`` of a 2-d array's shape."""
    n, m = _matrix_shape("triu_indices_from", arr)
    rows, cols = triu_indices(n, k, m)
    return rows, cols
