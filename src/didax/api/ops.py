"""``didax.ops``: JAX's segment reductions (``jax.ops.segment_sum`` and its kin).

Design rules:
- A segment reduction is a scatter into ``num_segments`` rows filled with
  the reduction's identity, as JAX's: ``x.at[ids].add(data)`` and its
  kin, so it differentiates, batches and jits as the scatter does.
- Segment ids out of ``[0, num_segments)`` (negative ones included) are
  dropped by default (JAX's ``FILL_OR_DROP``); ``mode`` chooses otherwise.
- ``bucket_size`` scatters each bucket of ids into its own row and reduces
  the rows, as JAX's does (a more accurate sum of many terms).
"""

from __future__ import annotations

from typing import Any, Final, Literal, Protocol

import numpy as np

from didax.api.numpy import creation, reductions
from didax.api.numpy import methods as _methods  # noqa: F401  (Arrays' .at, .astype)
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.operands import asarray
from didax.core import dtypes

__all__ = ["segment_sum", "segment_prod", "segment_max", "segment_min"]

_Kind = Literal["add", "multiply", "max", "min"]
_REDUCERS: dict[_Kind, Any] = {
    "add": reductions.sum,
    "multiply": reductions.prod,
    "max": reductions.max,
    "min": reductions.min,
}


def _identity(kind: _Kind, dtype: np.dtype[Any]) -> Any:
    """The value a segment with no element takes: the reduction's identity (JAX's)."""
    if kind == "add":
        return 0
    if kind == "multiply":
        return 1
    if dtypes.is_bool(dtype):
        return kind == "min"
    if dtypes.is_integer(dtype):
        info = np.iinfo(dtype)
        return info.min if kind == "max" else info.max
    return -np.inf if kind == "max" else np.inf


def _segment(
    name: str,
    kind: _Kind,
    data: ArrayLike,
    segment_ids: ArrayLike,
    num_segments: int | None,
    indices_are_sorted: bool,
    unique_indices: bool,
    bucket_size: int | None,
    mode: Any,
) -> Array:
    x, ids = asarray(data), asarray(segment_ids)
    if not dtypes.is_integer(ids.dtype):
        raise TypeError(f"{name}: segment_ids must be integers, got dtype {ids.dtype}")
    if num_segments is None:
        # As JAX's: the default needs concrete ids (a static size under jit).
        num_segments = int(np.max(np.asarray(ids))) + 1
    num_segments = int(num_segments)
    if num_segments < 0:
        raise ValueError("num_segments must be non-negative.")
    options: dict[str, Any] = {
        "indices_are_sorted": indices_are_sorted,
        "unique_indices": unique_indices,
        "mode": "drop" if mode is None else mode,
        "wrap_negative_indices": False,
    }
    fill = _identity(kind, x.dtype)
    if bucket_size is None:
        out = creation.full((num_segments, *x.shape[1:]), fill, dtype=x.dtype)
        result: Array = getattr(out.at[ids], kind)(x, **options)
        return result
    buckets = -(-ids.size // bucket_size)
    out = creation.full((buckets, num_segments, *x.shape[1:]), fill, dtype=x.dtype)
    rows = creation.arange(ids.shape[0]) // bucket_size
    scattered = getattr(out.at[rows, ids], kind)(x, **options)
    reduced: Array = _REDUCERS[kind](scattered, axis=0).astype(x.dtype)
    return reduced


class SegmentReduction(Protocol):
    def __call__(
        self,
        data: ArrayLike,
        segment_ids: ArrayLike,
        num_segments: int | None = None,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        bucket_size: int | None = None,
        mode: Any = None,
    ) -> Array: ...


def _reduction(name: str, kind: _Kind, what: str, doc_example: str) -> SegmentReduction:
    def reduce(
        data: ArrayLike,
        segment_ids: ArrayLike,
        num_segments: int | None = None,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        bucket_size: int | None = None,
        mode: Any = None,
    ) -> Array:
        return _segment(
            name,
            kind,
            data,
            segment_ids,
            num_segments,
            indices_are_sorted,
            unique_indices,
            bucket_size,
            mode,
        )

    reduce.__name__ = reduce.__qualname__ = name
    reduce.__doc__ = f"""The {what} of ``data``'s rows within each segment (``jax.ops.{name}``).

    ``segment_ids[i]`` is the segment of ``data[i]``; the result has
    ``num_segments`` rows (by default ``max(segment_ids) + 1``, which needs
    concrete ids: pass it under ``jit``), an empty segment holding the
    reduction's identity.

    >>> import didax as dx
    >>> dx.ops.{name}(dx.numpy.arange(5), dx.numpy.array([0, 0, 1, 1, 2]))
    {doc_example}
    """
    return reduce


segment_sum: Final = _reduction("segment_sum", "add", "sum", "Array([1, 5, 4], dtype=int32)")
segment_prod: Final = _reduction(
    "segment_prod", "multiply", "product", "Array([0, 6, 4], dtype=int32)"
)
segment_max: Final = _reduction("segment_max", "max", "maximum", "Array([1, 3, 4], dtype=int32)")
segment_min: Final = _reduction("segment_min", "min", "minimum", "Array([0, 2, 4], dtype=int32)")
