"""The parsed form of an index: one entry per index element, and what is refused.

Design rules:
- An index is parsed once (``_parse``) into ``_Index`` entries, each of one
  ``_Kind`` (an integer, a slice, ``None``, ``...``, an integer array, a
  boolean mask), whatever route then takes it (``slicing`` or
  ``gathering``); ``...`` and boolean masks are expanded here.
- What is refused is refused as in JAX: a Python list as the whole index
  (``TypeError``), a float or string index (``TypeError``), a boolean mask
  that is not concrete (``NonConcreteBooleanIndexError``, an
  ``IndexError``), slice bounds that are not static (``IndexError``).
- Index arithmetic is in int32 when every axis fits (JAX's
  ``int_dtype_for_shape``, here ``index_dtype_for_shape``), so jaxprs have
  JAX's index types.
"""

from __future__ import annotations

import builtins
import enum
import operator
from collections.abc import Sequence
from typing import Any, Final, final

import attrs
import numpy as np

from didax.api.numpy.operands import (
    asarray,
    operand,
)
from didax.core import dtypes, lax
from didax.core.dtypes import DType
from didax.core.errors import NonConcreteBooleanIndexError as NonConcreteBooleanIndexError
from didax.core.lax.indexing import (
    GatherScatterMode,
)
from didax.core.trace import Tracer
from didax.core.values import ValueKind, get_aval, kind_or_none

_INT32_MAX: Final = int(np.iinfo(np.int32).max)


class _Kind(enum.Enum):
    NONE = "none"
    SLICE = "slice"
    ELLIPSIS = "ellipsis"
    INTEGER = "integer"  # a static Python or NumPy integer
    BOOLEAN = "boolean"
    ARRAY = "array"  # an integer array (or tracer), of any rank


@final
@attrs.frozen(eq=False)
class _Index:
    """One entry of an index, and the axes of the indexed array it consumes."""

    index: Any
    kind: _Kind
    axes: tuple[int, ...]


def index_dtype_for_shape(shape: Sequence[int]) -> DType:
    """int32 when every axis fits in it, the default int otherwise (JAX's rule)."""
    return dtypes.int32 if builtins.all(d <= _INT32_MAX for d in shape) else dtypes.default_int()


def _array_kind(dtype: DType) -> _Kind:
    if dtype == dtypes.bool_:
        return _Kind.BOOLEAN
    if dtypes.is_integer(dtype):
        return _Kind.ARRAY
    raise TypeError(f"Indexer must have integer or boolean type, got indexer with type {dtype}")


def _static_bound(x: Any) -> int | None:
    """A slice bound as a Python int (a concrete array or tracer will do)."""
    if x is None:
        return None
    if isinstance(x, Tracer) and x.to_concrete_value() is None:
        raise IndexError(f"Slice entries must be static integers. Got {x}")
    return operator.index(x)


def _entry(i: Any) -> tuple[Any, _Kind]:
    """An index entry in canonical form (arrays as operands), and its kind."""
    if i is None:
        return None, _Kind.NONE
    if i is Ellipsis:
        return i, _Kind.ELLIPSIS
    if isinstance(i, slice):
        return slice(_static_bound(i.start), _static_bound(i.stop), _static_bound(i.step)), (
            _Kind.SLICE
        )
    if isinstance(i, (bool, np.bool_)):
        return bool(i), _Kind.BOOLEAN
    if isinstance(i, (int, np.integer)):
        return i, _Kind.INTEGER
    if isinstance(i, str):
        raise TypeError(f"didax does not support string indexing; got idx={i!r}")
    kind = kind_or_none(i)
    if kind is not None and kind is not ValueKind.SCALAR:
        value = operand(i)
        return value, _array_kind(get_aval(value).dtype)
    if isinstance(i, Sequence):
        if not i:
            return np.zeros((0,), dtypes.default_int()), _Kind.ARRAY
        value = operand(asarray(list(i)))
        return value, _array_kind(get_aval(value).dtype)
    if isinstance(i, (float, complex)):
        raise TypeError(
            f"Indexer must have integer or boolean type, got indexer with type {np.dtype(type(i))}"
        )
    raise IndexError(
        "only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and integer or "
        f"boolean arrays are valid indices. Got {i}"
    )


def _ndim(x: Any) -> int:
    return 0 if isinstance(x, (bool, int, np.integer)) else get_aval(x).ndim


def _parse(index: Any, shape: tuple[int, ...]) -> list[_Index]:
    """The entries of ``index`` with the axes each consumes (JAX's ``NDIndexer``)."""
    if not isinstance(index, tuple):
        if isinstance(index, Sequence) and not isinstance(index, str):
            raise TypeError(
                "Using a non-tuple sequence for multidimensional indexing is not allowed; "
                "use `arr[tuple(seq)]` (several indices) or `arr[array(seq)]` (an index "
                "array) instead of `arr[seq]`, as in JAX"
            )
        index = (index,)
    entries = [_entry(i) for i in index]
    consumed: list[int] = []
    for value, kind in entries:
        if kind is _Kind.BOOLEAN:
            consumed.append(_ndim(value))
        elif kind in (_Kind.NONE, _Kind.ELLIPSIS):
            consumed.append(0)
        else:
            consumed.append(1)
    ellipses = [n for n, (_, kind) in enumerate(entries) if kind is _Kind.ELLIPSIS]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    total = builtins.sum(consumed)
    if total > len(shape):
        raise IndexError(
            f"Too many indices: array is {len(shape)}-dimensional, but {total} were indexed"
        )
    if ellipses:
        consumed[ellipses[0]] = len(shape) - total
    parsed = []
    axis = 0
    for (value, kind), n in zip(entries, consumed, strict=True):
        parsed.append(_Index(value, kind, tuple(range(axis, axis + n))))
        axis += n
    return parsed


def _expand_ellipsis(parsed: list[_Index], shape: tuple[int, ...]) -> list[_Index]:
    """The ellipsis and the implicit trailing axes as explicit full slices."""
    out: list[_Index] = []
    consumed = 0
    for p in parsed:
        consumed += len(p.axes)
        if p.kind is _Kind.ELLIPSIS:
            out.extend(_Index(slice(None), _Kind.SLICE, (a,)) for a in p.axes)
        else:
            out.append(p)
    out.extend(_Index(slice(None), _Kind.SLICE, (a,)) for a in range(consumed, len(shape)))
    return out


def _is_concrete(x: Any) -> bool:
    return not isinstance(x, Tracer) or x.to_concrete_value() is not None


def _expand_bool(parsed: list[_Index], shape: tuple[int, ...]) -> list[_Index]:
    """Boolean masks as the integer arrays of their ``nonzero`` (scalar booleans stay)."""
    out: list[_Index] = []
    for n, p in enumerate(parsed):
        if p.kind is not _Kind.BOOLEAN:
            out.append(p)
            continue
        if not _is_concrete(p.index):
            raise NonConcreteBooleanIndexError(
                f"Array boolean indices must be concrete; got {get_aval(p.index).str_short()}. "
                "A mask's True count is the result's shape, which must be known while "
                "tracing: use where(mask, x, y), or x.at[...] with integer indices"
            )
        mask = np.asarray(p.index)
        if mask.ndim == 0:  # a scalar boolean stays (a new axis of size 1 or 0)
            out.append(_Index(bool(mask), p.kind, p.axes))
            continue
        expected = [shape[a] for a in p.axes]
        if not builtins.all(s in (0, e) for s, e in zip(mask.shape, expected, strict=True)):
            raise IndexError(
                f"boolean index did not match shape of indexed array in index {n}: "
                f"got {list(mask.shape)}, expected {expected}"
            )
        out.extend(
            _Index(i, _Kind.ARRAY, (a,)) for i, a in zip(np.nonzero(mask), p.axes, strict=True)
        )
    return out


def _full_slice(s: slice) -> bool:
    return s.start is None and s.stop is None and s.step is None


def _mode(mode: str | GatherScatterMode | None) -> GatherScatterMode:
    """``None`` is ``PROMISE_IN_BOUNDS`` for indexing (gathers clamp)."""
    return GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)


def _full_like(x: Any, value: int) -> Any:
    """``value`` in ``x``'s dtype and shape (wrapping around as a conversion does)."""
    aval = get_aval(x)
    scalar = np.asarray(value, np.int64).astype(aval.dtype)
    return scalar if aval.shape == () else lax.broadcast_in_dim(scalar, aval.shape, ())


def _wrap_negative(i: Any, n: int) -> Any:
    """``i + n`` where ``i < 0`` (for a signed ``i``)."""
    if not dtypes.is_signed(get_aval(i).dtype):
        return i
    return lax.select(lax.lt(i, _full_like(i, 0)), lax.add(i, _full_like(i, n)), i)
