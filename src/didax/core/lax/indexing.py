"""Gather, and what it shares with the scatters: XLA's indexing, with JAX's dimension numbers.

``gather_p`` takes slices of an operand at positions read from an index
array; the scatter family (``core.lax.scatter``: ``scatter_p`` replaces,
``scatter_add_p``, ``scatter_mul_p``, ``scatter_min_p``, ``scatter_max_p``
combine) writes slices of an update array at such positions. Everything NumPy indexing
does beyond static slices (integer arrays, boolean masks, traced indices)
and every functional update ``x.at[idx]`` is one of them.

Design rules:
- The dimension numbers are JAX's (``GatherDimensionNumbers``,
  ``ScatterDimensionNumbers``), as frozen ``attrs`` values of tuples, so
  that params hash and compare by value; the index vector is always the
  last axis of the indices (JAX's implicit ``index_vector_dim``).
- Out-of-bounds indices follow ``GatherScatterMode``: ``CLIP`` clamps the
  start of each slice so that it lies inside the operand; ``FILL_OR_DROP``
  gives ``fill_value`` for a gathered slice that is not wholly inside and
  drops such an update; ``PROMISE_IN_BOUNDS`` is what XLA does by itself:
  gathers clamp and scatters drop. ``lax.gather`` defaults to
  ``PROMISE_IN_BOUNDS`` and the scatters to ``FILL_OR_DROP``, as JAX's.
- ``fill_value`` is a param only in ``FILL_OR_DROP`` mode, and ``None``
  there means the dtype's default (NaN, the least signed or the greatest
  unsigned integer, True), so that a NaN never sits in params (it would
  compare unequal to itself in caches and fingerprints).
- The scatters have no ``update_jaxpr`` param: each primitive is one
  combiner (replace, +, *, min, max), which its lowering writes as the
  scatter's update region.
- The typing rules are XLA's shape inference, as JAX checks it, and the
  operand and updates of a scatter have one dtype (the wrappers give a
  weakly typed update the operand's dtype).
- This module declares ``gather_p`` with its typing rule and wrapper, and
  holds what gather and the scatters share (both dimension numbers, the
  modes, the checks); the scatter family is declared and typed in
  ``core.lax.scatter``, which builds on them (a scatter's dimension
  numbers are those of the gather that reads back what it writes).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from typing import Final, TypedDict, TypeVar, Unpack, final

import attrs
import numpy as np

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, dtype_failure, shape_failure
from didax.core.array import Array
from didax.core.basearray import Value
from didax.core.dtypes import DType
from didax.core.lax.elementwise import add, lt, rem, select
from didax.core.lax.operands import bind_value
from didax.core.lax.structural import concatenate, expand_dims
from didax.core.primitive import Primitive
from didax.core.trace import Tracer
from didax.core.values import ArrayLike, as_array, get_aval, is_python_scalar, wrap_host

__all__ = [
    "gather_p",
    "GatherDimensionNumbers",
    "ScatterDimensionNumbers",
    "GatherScatterMode",
    "gather",
    "index_take",
]

gather_p: Final = Primitive("gather")


# --- params ----------------------------------------------------------------------------


def _ints(values: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


@final
@attrs.frozen
class GatherDimensionNumbers:
    """How the axes of a gather's operand, indices and result relate (XLA's ``Gather``).

    ``offset_dims``: the result axes that index into a slice (ascending);
    ``collapsed_slice_dims``: operand axes of slice size 1 with no result
    axis; ``start_index_map``: the operand axis each entry of an index
    vector (the indices' last axis) starts; ``operand_batching_dims`` and
    ``start_indices_batching_dims``: operand and indices axes indexed
    together (slice size 1 in the operand).

    >>> GatherDimensionNumbers(offset_dims=[1], collapsed_slice_dims=[0], start_index_map=[0])
    GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), \
operand_batching_dims=(), start_indices_batching_dims=())
    """

    offset_dims: tuple[int, ...] = attrs.field(converter=_ints)
    collapsed_slice_dims: tuple[int, ...] = attrs.field(converter=_ints)
    start_index_map: tuple[int, ...] = attrs.field(converter=_ints)
    operand_batching_dims: tuple[int, ...] = attrs.field(default=(), converter=_ints)
    start_indices_batching_dims: tuple[int, ...] = attrs.field(default=(), converter=_ints)


@final
@attrs.frozen
class ScatterDimensionNumbers:
    """How the axes of a scatter's operand, indices and updates relate (XLA's ``Scatter``).

    ``update_window_dims``: the updates' axes that lie in a window
    (ascending); ``inserted_window_dims``: operand axes of window size 1
    that the updates lack; ``scatter_dims_to_operand_dims``: the operand
    axis each entry of an index vector starts; ``operand_batching_dims`` and
    ``scatter_indices_batching_dims``: operand and indices axes indexed
    together. The mirror image of ``GatherDimensionNumbers``.
    """

    update_window_dims: tuple[int, ...] = attrs.field(converter=_ints)
    inserted_window_dims: tuple[int, ...] = attrs.field(converter=_ints)
    scatter_dims_to_operand_dims: tuple[int, ...] = attrs.field(converter=_ints)
    operand_batching_dims: tuple[int, ...] = attrs.field(default=(), converter=_ints)
    scatter_indices_batching_dims: tuple[int, ...] = attrs.field(default=(), converter=_ints)


class GatherScatterMode(enum.Enum):
    """What out-of-bounds indices do (JAX's ``GatherScatterMode``).

    ``CLIP``: a slice's start is clamped so that the slice lies inside the
    operand. ``FILL_OR_DROP``: a gathered slice not wholly inside is
    ``fill_value``; such an update of a scatter is dropped.
    ``PROMISE_IN_BOUNDS``: no checks; XLA clamps gathers and drops scatter
    updates.

    >>> GatherScatterMode.from_any("drop")
    GatherScatterMode.FILL_OR_DROP
    """

    CLIP = "clip"
    FILL_OR_DROP = "fill"
    PROMISE_IN_BOUNDS = "promise_in_bounds"

    @staticmethod
    def from_any(mode: str | GatherScatterMode | None) -> GatherScatterMode:
        """A mode from its name (``"clip"``, ``"fill"``/``"drop"``, ``"promise_in_bounds"``).

        ``None`` is ``FILL_OR_DROP``, as in JAX (``lax.gather`` itself
        defaults to ``PROMISE_IN_BOUNDS``).
        """
        if isinstance(mode, GatherScatterMode):
            return mode
        if mode is None or mode in ("fill", "drop"):
            return GatherScatterMode.FILL_OR_DROP
        if mode == "clip":
            return GatherScatterMode.CLIP
        if mode == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise ValueError(f'Unknown gather mode "{mode}"')

    def __repr__(self) -> str:
        return f"GatherScatterMode.{self.name}"


class GatherParams(TypedDict):
    """``gather_p``'s params, as its rules receive them (``**params: Unpack[GatherParams]``).

    ``dimension_numbers`` and ``slice_sizes`` say which windows are read;
    ``unique_indices`` and ``indices_are_sorted`` are promises XLA may use;
    ``mode`` says what out-of-bounds windows do, ``fill_value`` what
    ``FILL_OR_DROP`` gives there (None: ``default_fill_value``).
    """

    dimension_numbers: GatherDimensionNumbers
    slice_sizes: tuple[int, ...]
    unique_indices: bool
    indices_are_sorted: bool
    mode: GatherScatterMode
    fill_value: bool | int | float | None


def default_fill_value(dtype: DType) -> bool | int | float:
    """What a ``FILL_OR_DROP`` gather gives out of bounds unless told otherwise (JAX's).

    >>> default_fill_value(dtypes.float32), default_fill_value(dtypes.uint8)
    (nan, 255)
    """
    if dtypes.is_inexact(dtype):
        return math.nan
    if dtype.kind == "i":
        return int(np.iinfo(dtype.name).min)
    if dtype.kind == "u":
        return int(np.iinfo(dtype.name).max)
    return True


# The two dimension-number classes are mirror images field by field, in order
# (update_window_dims is offset_dims's mirror, and so on): each converts to
# the other by position.


def gather_dnums_of_scatter(dnums: ScatterDimensionNumbers) -> GatherDimensionNumbers:
    """The gather that reads what the scatter ``dnums`` writes (its transpose, for scatter-add)."""
    return GatherDimensionNumbers(*attrs.astuple(dnums, recurse=False))


def scatter_dnums_of_gather(dnums: GatherDimensionNumbers) -> ScatterDimensionNumbers:
    """The scatter that writes where the gather ``dnums`` reads (its transpose is a scatter-add)."""
    return ScatterDimensionNumbers(*attrs.astuple(dnums, recurse=False))


def scatter_slice_sizes(
    operand_shape: Sequence[int], updates_shape: Sequence[int], dnums: ScatterDimensionNumbers
) -> tuple[int, ...]:
    """The window size of a scatter along each operand axis (1 where inserted or batching)."""
    sizes = []
    windows = iter(dnums.update_window_dims)
    for d in range(len(operand_shape)):
        if d in dnums.inserted_window_dims or d in dnums.operand_batching_dims:
            sizes.append(1)
        else:
            sizes.append(updates_shape[next(windows)])
    return tuple(sizes)


def gather_shape(
    indices_shape: Sequence[int], dnums: GatherDimensionNumbers, slice_sizes: Sequence[int]
) -> tuple[int, ...]:
    """The result shape of a gather: batch axes (the indices' but the last) and offset axes."""
    rank = len(dnums.offset_dims) + len(indices_shape) - 1
    batch = iter(indices_shape[:-1])
    offsets = iter(
        s
        for d, s in enumerate(slice_sizes)
        if d not in dnums.collapsed_slice_dims and d not in dnums.operand_batching_dims
    )
    return tuple(next(offsets) if i in dnums.offset_dims else next(batch) for i in range(rank))


# --- typing rules ----------------------------------------------------------------------


def _sorted(dims: tuple[int, ...], name: str) -> None:
    if list(dims) != sorted(dims):
        raise shape_failure(f"{name} must be sorted, got {dims}")


def _distinct(dims: tuple[int, ...], name: str) -> None:
    if len(set(dims)) != len(dims):
        raise shape_failure(f"{name} must not repeat, got {dims}")


def _in_range(dims: tuple[int, ...], rank: int, name: str) -> None:
    for d in dims:
        if not 0 <= d < rank:
            raise shape_failure(f"{name} {dims} is out of range [0, {rank})")


def _disjoint(a: tuple[int, ...], b: tuple[int, ...], name_a: str, name_b: str) -> None:
    if set(a) & set(b):
        raise shape_failure(f"{name_a} {a} and {name_b} {b} must be disjoint")


def _check_indices(indices: ShapedArray) -> None:
    if not dtypes.is_integer(indices.dtype):
        raise dtype_failure(f"indices must have an integer type, got {indices.dtype}")
    if indices.ndim < 1:
        raise shape_failure(
            "indices need at least one axis: the last holds the index vectors "
            "(add a trailing axis of size 1 to index with scalars)"
        )


def _check_batching(
    operand: ShapedArray,
    indices: ShapedArray,
    operand_batching_dims: tuple[int, ...],
    indices_batching_dims: tuple[int, ...],
    indices_name: str,
) -> None:
    _distinct(operand_batching_dims, "operand_batching_dims")
    _sorted(operand_batching_dims, "operand_batching_dims")
    _in_range(operand_batching_dims, operand.ndim, "operand_batching_dims")
    _distinct(indices_batching_dims, indices_name)
    _in_range(indices_batching_dims, indices.ndim, indices_name)
    if indices.ndim - 1 in indices_batching_dims:
        raise shape_failure(f"the index vector axis cannot be one of {indices_name}")
    if len(operand_batching_dims) != len(indices_batching_dims):
        raise shape_failure(
            f"operand_batching_dims {operand_batching_dims} and {indices_name} "
            f"{indices_batching_dims} must have equal lengths"
        )
    op_batch = tuple(operand.shape[d] for d in operand_batching_dims)
    idx_batch = tuple(indices.shape[d] for d in indices_batching_dims)
    if op_batch != idx_batch:
        raise shape_failure(
            f"the operand's batching axes have sizes {op_batch}, the indices' {idx_batch}"
        )


def _check_index_map(
    index_map: tuple[int, ...], name: str, operand: ShapedArray, indices: ShapedArray
) -> None:
    """``index_map`` (gather's ``start_index_map``, scatter's ``scatter_dims_to_operand_dims``):
    distinct operand axes, one per entry of an index vector."""
    if len(index_map) != indices.shape[-1]:
        raise shape_failure(
            f"{name} {index_map} needs one entry per index vector "
            f"element ({indices.shape[-1]}, the indices' last axis)"
        )
    _in_range(index_map, operand.ndim, name)
    _distinct(index_map, name)


def _check_fill_value(mode: GatherScatterMode, fill_value: object) -> None:
    if not isinstance(mode, GatherScatterMode):
        raise shape_failure(f"mode must be a GatherScatterMode, got {mode!r}")
    if fill_value is not None and mode is not GatherScatterMode.FILL_OR_DROP:
        raise shape_failure(f"fill_value is only meaningful in FILL_OR_DROP mode, not {mode}")


@ABSTRACT_EVAL.defines(gather_p)
def _gather_abstract_eval(
    operand: ShapedArray, indices: ShapedArray, **params: Unpack[GatherParams]
) -> ShapedArray:
    dn, slice_sizes = params["dimension_numbers"], params["slice_sizes"]
    _check_indices(indices)
    _check_fill_value(params["mode"], params["fill_value"])
    out_rank = len(dn.offset_dims) + indices.ndim - 1
    _sorted(dn.offset_dims, "offset_dims")
    _distinct(dn.offset_dims, "offset_dims")
    _in_range(dn.offset_dims, out_rank, "offset_dims")
    _check_index_map(dn.start_index_map, "start_index_map", operand, indices)
    _sorted(dn.collapsed_slice_dims, "collapsed_slice_dims")
    _in_range(dn.collapsed_slice_dims, operand.ndim, "collapsed_slice_dims")
    _distinct(dn.collapsed_slice_dims, "collapsed_slice_dims")
    _check_batching(
        operand,
        indices,
        dn.operand_batching_dims,
        dn.start_indices_batching_dims,
        "start_indices_batching_dims",
    )
    _disjoint(
        dn.collapsed_slice_dims,
        dn.operand_batching_dims,
        "collapsed_slice_dims",
        "operand_batching_dims",
    )
    _disjoint(
        dn.start_index_map, dn.operand_batching_dims, "start_index_map", "operand_batching_dims"
    )
    if len(slice_sizes) != operand.ndim:
        raise shape_failure(f"slice_sizes {slice_sizes} needs one entry per operand axis")
    if len(slice_sizes) != (
        len(dn.offset_dims) + len(dn.collapsed_slice_dims) + len(dn.operand_batching_dims)
    ):
        raise shape_failure(
            "every operand axis must be an offset, collapsed or batching axis: "
            f"{len(slice_sizes)} axes, offset_dims {dn.offset_dims}, collapsed_slice_dims "
            f"{dn.collapsed_slice_dims}, operand_batching_dims {dn.operand_batching_dims}"
        )
    if indices.size:
        for d, (s, n) in enumerate(zip(slice_sizes, operand.shape, strict=True)):
            if not 0 <= s <= n:
                raise shape_failure(
                    f"slice size {s} of axis {d} is out of range for operand shape {operand.shape}"
                )
    for d in dn.collapsed_slice_dims:
        if slice_sizes[d] != 1:
            raise shape_failure(f"collapsed axis {d} must have slice size 1, got {slice_sizes[d]}")
    for d in dn.operand_batching_dims:
        if slice_sizes[d] > 1:
            raise shape_failure(f"batching axis {d} must have slice size 0 or 1")
    shape = gather_shape(indices.shape, dn, slice_sizes)
    return ShapedArray(shape, operand.dtype, operand.weak_type)


# --- didax.lax wrappers ----------------------------------------------------------------


def _operand(x: ArrayLike) -> ArrayLike:
    """A Python scalar as a weakly typed Array; anything else as it is."""
    return wrap_host(as_array(x), type(x) is not bool) if is_python_scalar(x) else x


def _indices(i: object) -> ArrayLike:
    """Indices as an operand: tracers and Arrays as they are, the rest through NumPy."""
    if isinstance(i, (Tracer, Array)):
        return i
    if is_python_scalar(i):
        return np.asarray(i, dtypes.python_scalar_dtype(i))
    return as_array(np.asarray(i))


_Dnums = TypeVar("_Dnums", GatherDimensionNumbers, ScatterDimensionNumbers)


def _dnums(cls: type[_Dnums], d: object) -> _Dnums:
    """``d`` as ``cls``: JAX's NamedTuple, or anything with the same fields (the batching
    ones optional, as in JAX's before batching dims)."""
    if isinstance(d, cls):
        return d
    try:
        fields = {
            f.name: getattr(d, f.name) if f.default is attrs.NOTHING else getattr(d, f.name, ())
            for f in attrs.fields(cls)
        }
    except AttributeError:
        raise TypeError(
            f"dimension_numbers must be a {cls.__name__}, got {type(d).__name__}"
        ) from None
    return cls(**fields)


def fill_value_param(fill_value: object, dtype: DType) -> bool | int | float | None:
    """A user's ``fill_value`` as the param: a Python scalar of ``dtype``, None for the default."""
    if fill_value is None:
        return None
    if isinstance(fill_value, Tracer):
        fill_value = fill_value.__array__()  # a concrete value, or ConcretizationTypeError
    arr = np.asarray(fill_value)
    if arr.ndim != 0:
        raise ValueError("fill_value must be a scalar")
    with np.errstate(all="ignore"):
        value = arr.astype(dtype)[()].item()
    if isinstance(value, float) and math.isnan(value):
        return None  # the default of every float dtype
    result: bool | int | float = value
    return result


def gather(
    operand: ArrayLike,
    start_indices: ArrayLike,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: Sequence[int],
    *,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    mode: str | GatherScatterMode | None = None,
    fill_value: ArrayLike | None = None,
) -> Value:
    """XLA's gather: slices of ``slice_sizes`` at the index vectors of ``start_indices``.

    ``mode`` says what out-of-bounds indices do (``GatherScatterMode``;
    the default, ``PROMISE_IN_BOUNDS``, clamps); ``fill_value`` is what a
    ``"fill"`` gather gives out of bounds (NaN for floats by default).

    >>> from didax import lax
    >>> dnums = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
    ...                                    start_index_map=(0,))
    >>> lax.gather(np.array([10, 11, 12]), np.array([[2], [0], [2]]), dnums, (1,))
    Array([12, 10, 12], dtype=int32)
    """
    parsed = (
        GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)
    )
    operand = _operand(operand)
    dtype = get_aval(operand).dtype
    fill = fill_value_param(fill_value, dtype) if parsed is GatherScatterMode.FILL_OR_DROP else None
    return bind_value(
        gather_p,
        operand,
        _indices(start_indices),
        dimension_numbers=_dnums(GatherDimensionNumbers, dimension_numbers),
        slice_sizes=_ints(slice_sizes),
        unique_indices=bool(unique_indices),
        indices_are_sorted=bool(indices_are_sorted),
        mode=parsed,
        fill_value=fill,
    )


def index_take(src: ArrayLike, idxs: Sequence[ArrayLike], axes: Sequence[int]) -> Value:
    """``src`` at the index arrays ``idxs`` along ``axes`` (indices modulo each size).

    Indices wrap as Python's ``%``: -1 is the last. Result axis 0 runs over
    the index arrays' (equal) length; ``src``'s other axes follow, in order
    (JAX's ``index_take``: a gather).

    >>> index_take(np.arange(6).reshape(2, 3), [np.array([1, -1])], [1])
    Array([[1, 4],
           [2, 5]], dtype=int32)
    """
    src_shape = get_aval(src).shape
    axes = tuple(int(a) for a in axes)
    indices = concatenate([expand_dims(_indices(i), (1,)) for i in idxs], 1)
    aval = get_aval(indices)
    sizes = np.asarray([src_shape[a] for a in axes], aval.dtype)
    sizes = np.broadcast_to(sizes, aval.shape)
    # Python's (floor) modulo, as JAX's ``%`` on arrays: -1 is the last.
    wrapped = rem(indices, sizes)
    indices = select(lt(wrapped, np.zeros_like(sizes)), add(wrapped, sizes), wrapped)
    slice_sizes = tuple(1 if d in axes else n for d, n in enumerate(src_shape))
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(range(1, len(src_shape) - len(axes) + 1)),
        collapsed_slice_dims=axes,
        start_index_map=axes,
    )
    return gather(src, indices, dnums, slice_sizes)
