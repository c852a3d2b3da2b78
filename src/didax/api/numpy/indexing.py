"""Indexing: NumPy's basic indexing of arrays and tracers.

Static integers, slices (any step), ``None`` and ``...`` become one
``slice`` (plus ``rev``, ``squeeze`` and ``expand_dims`` as needed); a scalar
integer tracer becomes a size-1 ``dynamic_slice``, clamped in bounds as
XLA does.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np

from didax.api.numpy.operands import Array, ArrayLike, as_result, astype, is_static_int, operand
from didax.core import dtypes, lax
from didax.core.array import Array as DidaxArray
from didax.core.promotion import result_type
from didax.core.trace import Tracer
from didax.core.values import get_aval

__all__: list[str] = []


def _unsupported_index(i: Any) -> Exception:
    if isinstance(i, (bool, np.bool_)) or (
        isinstance(i, (Tracer, np.ndarray, DidaxArray)) and i.dtype == dtypes.bool_
    ):
        return NotImplementedError(
            "boolean (mask) indexing has a data-dependent shape and is not supported; "
            "use where(mask, x, y)"
        )
    if isinstance(i, (Tracer, np.ndarray, DidaxArray, list, tuple)):
        shape = get_aval(i).shape if isinstance(i, (Tracer, np.ndarray, DidaxArray)) else "a list"
        return NotImplementedError(
            f"advanced indexing with an array index ({shape}) is not supported; "
            "only integers, slices, None, Ellipsis and scalar integer tracers are"
        )
    return IndexError(
        f"only integers, slices (':'), ellipsis ('...'), None and scalar integer "
        f"tracers are valid indices, got {type(i).__name__} {i!r}"
    )


def _classify_index(i: Any) -> Any:
    """An index entry as None, Ellipsis, a slice of ints, an int, or a scalar integer tracer."""
    if i is None or i is Ellipsis:
        return i
    if isinstance(i, slice):
        for part in (i.start, i.stop, i.step):
            if isinstance(part, Tracer):
                raise NotImplementedError(
                    "slices with traced bounds have a data-dependent shape; use "
                    "lax.dynamic_slice with a static size instead"
                )
        try:
            return slice(
                *(None if p is None else operator.index(p) for p in (i.start, i.stop, i.step))
            )
        except TypeError:
            raise IndexError(f"slice indices must be integers or None, got {i}") from None
    if isinstance(i, Tracer):
        if i.ndim == 0 and dtypes.is_integer(i.dtype):
            return i
        raise _unsupported_index(i)
    if is_static_int(i):
        return operator.index(i)
    raise _unsupported_index(i)


def getitem(x: ArrayLike, index: Any) -> Array:
    """NumPy's basic indexing of ``x``: static ints, slices, None, Ellipsis, and
    scalar integer tracers (a ``dynamic_slice``, clamped in bounds as XLA does)."""
    v = as_result(operand(x))
    shape = get_aval(v).shape
    items = [_classify_index(i) for i in (index if isinstance(index, tuple) else (index,))]
    if builtins.sum(i is Ellipsis for i in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = builtins.sum(i is not None and i is not Ellipsis for i in items)
    if used > len(shape):
        raise IndexError(
            f"too many indices: array is {len(shape)}-dimensional, but {used} were indexed"
        )
    fill = [slice(None)] * (len(shape) - used)
    if Ellipsis in [i for i in items if not isinstance(i, Tracer)]:
        pos = next(k for k, i in enumerate(items) if i is Ellipsis)
        items = items[:pos] + fill + items[pos + 1 :]
    else:
        items = items + fill
    starts, limits, strides = [], [], []
    reverse, drop, dynamic, new_axes = [], [], {}, []
    dim = out_pos = 0
    for item in items:
        if item is None:
            new_axes.append(out_pos)
            out_pos += 1
            continue
        n = shape[dim]
        if isinstance(item, slice):
            start, stop, step = item.indices(n)
            count = len(range(start, stop, step))
            if count == 0:
                lo = hi = 0
            elif step > 0:
                lo, hi = start, start + (count - 1) * step + 1
            else:
                # Take the same elements in increasing order, then reverse them.
                lo, hi = start + (count - 1) * step, start + 1
                if count > 1:
                    reverse.append(dim)
            starts.append(lo)
            limits.append(hi)
            strides.append(builtins.abs(step) if count > 1 else 1)
            out_pos += 1
        elif isinstance(item, Tracer):
            starts.append(0)
            limits.append(n)
            strides.append(1)
            dynamic[dim] = item
            drop.append(dim)
        else:
            if not -n <= item < n:
                raise IndexError(f"index {item} is out of bounds for axis {dim} with size {n}")
            starts.append(item % n)
            limits.append(item % n + 1)
            strides.append(1)
            drop.append(dim)
        dim += 1
    if (starts, limits, strides) != ([0] * len(shape), list(shape), [1] * len(shape)):
        v = lax.slice(v, starts, limits, strides)
    if reverse:
        v = lax.rev(v, reverse)
    if dynamic:
        v = _dynamic_index(v, dynamic)
    if drop:
        v = lax.squeeze(v, drop)
    if new_axes:
        v = lax.expand_dims(v, new_axes)
    return v


def _dynamic_index(v: Any, dynamic: dict[int, Any]) -> Array:
    """A size-1 ``dynamic_slice`` at each traced index, negative indices counted from the end."""
    shape = get_aval(v).shape
    idx_dtype, _ = result_type(*dynamic.values())
    starts: list[Any] = []
    for d, n in enumerate(shape):
        i = dynamic.get(d)
        if i is None:
            starts.append(np.zeros((), idx_dtype))
            continue
        i = astype(i, idx_dtype)
        if dtypes.is_signed(idx_dtype):
            zero = lax.full_like(i, 0)
            i = lax.select(lax.lt(i, zero), lax.add(i, lax.full_like(i, n)), i)
        starts.append(i)
    sizes = [1 if d in dynamic else n for d, n in enumerate(shape)]
    return lax.dynamic_slice(v, starts, sizes)
