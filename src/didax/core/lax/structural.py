"""Structural primitives: declarations, typing rules and ``didax.lax`` wrappers.

The primitives that move, replicate or make elements without computing on
them and without picking a window of them: ``broadcast_in_dim``,
``reshape``, ``transpose``, ``squeeze``, ``expand_dims``, ``concatenate``,
``rev``, ``iota``, ``split``, ``tile``, ``stack``, ``unstack``,
``optimization_barrier`` and ``copy`` (JAX's of those names), and the helpers JAX
writes over them (``broadcasted_iota``, ``broadcast_to_rank``,
``collapse``, ...). Windows of an array
(``slice``, the dynamic slices, ``pad``) are ``core.lax.slicing``'s. The
interpreters' rules are in ``interpreters.structural``, the lowerings in
``lowering.structural``.

Design rules:
- Params have one spelling: axes are non-negative (and sorted where their
  order means nothing), shapes are tuples of ints; the wrappers normalise.
- A result has its operand's dtype and weak type (``concatenate``'s is weak
  only if every operand is); ``iota`` makes a strong array of ``dtype``.
- ``split``, ``unstack`` and ``optimization_barrier`` have several results
  (``multiple_results``); ``optimization_barrier`` is the identity on
  values that XLA may not move computations across (its pytree form is
  ``api.lax_extras``').
- ``core.promotion`` binds ``broadcast_in_dim`` (a Python scalar taking its
  partner's shape), so this module imports no promotion: no wrapper here
  converts a dtype.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Final, TypedDict

import numpy as np
from numpy.typing import DTypeLike

from didax.core import dtypes, shape_poly
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, check_axes, dtype_failure, shape_failure
from didax.core.basearray import Value
from didax.core.dtypes import DType
from didax.core.lax.operands import as_operand, bind_value, ndim, normalize_axes, normalize_axis
from didax.core.primitive import Primitive, primitives
from didax.core.values import ArrayLike, get_aval, to_array, wrap_host
from didax.core.values import PythonScalar as Scalar

__all__ = [
    "broadcast_in_dim_p",
    "reshape_p",
    "transpose_p",
    "squeeze_p",
    "expand_dims_p",
    "concatenate_p",
    "rev_p",
    "iota_p",
    "split_p",
    "tile_p",
    "stack_p",
    "unstack_p",
    "optimization_barrier_p",
    "copy_p",
    "broadcast_in_dim",
    "full",
    "full_like",
    "broadcast",
    "reshape",
    "transpose",
    "squeeze",
    "expand_dims",
    "concatenate",
    "rev",
    "iota",
    "split",
    "tile",
    "stack",
    "unstack",
    "broadcasted_iota",
    "broadcast_like",
    "broadcast_shapes",
    "broadcast_to_rank",
    "collapse",
    "empty",
    "shape_as_value",
    "dtype",
]

broadcast_in_dim_p, reshape_p, transpose_p = primitives("broadcast_in_dim", "reshape", "transpose")
squeeze_p, expand_dims_p = primitives("squeeze", "expand_dims")
concatenate_p, rev_p, iota_p = primitives("concatenate", "rev", "iota")
split_p: Final = Primitive("split", multiple_results=True)
tile_p, stack_p = primitives("tile", "stack")
unstack_p, optimization_barrier_p = primitives(
    "unstack", "optimization_barrier", multiple_results=True
)
# JAX's copy of a runtime array (jnp.array(x, copy=True)): the identity, kept in programs.
copy_p: Final = Primitive("copy")


class BroadcastInDimParams(TypedDict):
    """``broadcast_in_dim_p``'s params, as its rules receive them (``**params: Unpack[...]``)."""

    shape: tuple[int, ...]
    broadcast_dimensions: tuple[int, ...]


# --- typing ---------------------------------------------------------------------------


@ABSTRACT_EVAL.defines(broadcast_in_dim_p)
def _broadcast_in_dim_abstract_eval(
    x: ShapedArray, *, shape: tuple[int, ...], broadcast_dimensions: tuple[int, ...]
) -> ShapedArray:
    if len(broadcast_dimensions) != x.ndim:
        raise shape_failure(
            f"broadcast_dimensions {broadcast_dimensions} must have one entry per operand axis"
        )
    check_axes(broadcast_dimensions, len(shape), "broadcast_dimensions")
    if list(broadcast_dimensions) != sorted(broadcast_dimensions):
        raise shape_failure(f"broadcast_dimensions {broadcast_dimensions} must be increasing")
    for d, size in zip(broadcast_dimensions, x.shape, strict=True):
        if size not in (1, shape[d]):
            raise shape_failure(f"operand shape {x.shape} cannot broadcast to {shape}")
    return ShapedArray(shape, x.dtype, x.weak_type)


@ABSTRACT_EVAL.defines(reshape_p)
def _reshape_abstract_eval(x: ShapedArray, *, new_sizes: tuple[int, ...]) -> ShapedArray:
    if builtins.any(s < 0 for s in new_sizes) or math.prod(new_sizes) != x.size:
        raise shape_failure(f"cannot reshape {x.shape} to {new_sizes}")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


@ABSTRACT_EVAL.defines(transpose_p)
def _transpose_abstract_eval(x: ShapedArray, *, permutation: tuple[int, ...]) -> ShapedArray:
    if sorted(permutation) != list(range(x.ndim)):
        raise shape_failure(f"{permutation} is not a permutation of the operand's axes")
    return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)


@ABSTRACT_EVAL.defines(squeeze_p)
def _squeeze_abstract_eval(x: ShapedArray, *, dimensions: tuple[int, ...]) -> ShapedArray:
    check_axes(dimensions, x.ndim, "dimensions")
    if builtins.any(x.shape[d] != 1 for d in dimensions):
        raise shape_failure(f"cannot squeeze axes {dimensions} of shape {x.shape}")
    shape = tuple(s for i, s in enumerate(x.shape) if i not in dimensions)
    return ShapedArray(shape, x.dtype, x.weak_type)


@ABSTRACT_EVAL.defines(expand_dims_p)
def _expand_dims_abstract_eval(x: ShapedArray, *, dimensions: tuple[int, ...]) -> ShapedArray:
    ndim = x.ndim + len(dimensions)
    check_axes(dimensions, ndim, "dimensions")
    rest = iter(x.shape)
    shape = tuple(1 if i in dimensions else next(rest) for i in range(ndim))
    return ShapedArray(shape, x.dtype, x.weak_type)


def _first_of_one_dtype(xs: tuple[ShapedArray, ...]) -> ShapedArray:
    """The first of ``xs`` (concatenate's or stack's operands): at least one, all of its dtype."""
    if not xs:
        raise shape_failure("needs at least one operand")
    first = xs[0]
    if builtins.any(x.dtype != first.dtype for x in xs):
        raise dtype_failure("operands must have equal dtypes")
    return first


@ABSTRACT_EVAL.defines(concatenate_p)
def _concatenate_abstract_eval(*xs: ShapedArray, dimension: int) -> ShapedArray:
    first = _first_of_one_dtype(xs)
    check_axes((dimension,), first.ndim, "dimension")
    for x in xs:
        if x.ndim != first.ndim or builtins.any(
            a != b
            for i, (a, b) in enumerate(zip(x.shape, first.shape, strict=True))
            if i != dimension
        ):
            raise shape_failure(f"operands must agree on all axes but {dimension}")
    shape = list(first.shape)
    shape[dimension] = builtins.sum(x.shape[dimension] for x in xs)
    return ShapedArray(tuple(shape), first.dtype, builtins.all(x.weak_type for x in xs))


@ABSTRACT_EVAL.defines(rev_p)
def _rev_abstract_eval(x: ShapedArray, *, dimensions: tuple[int, ...]) -> ShapedArray:
    check_axes(dimensions, x.ndim, "dimensions")
    return x


@ABSTRACT_EVAL.defines(iota_p)
def _iota_abstract_eval(*, dtype: DType, size: int) -> ShapedArray:
    if size < 0:
        raise shape_failure(f"size must be non-negative, got {size}")
    return ShapedArray((size,), dtype)


@ABSTRACT_EVAL.defines(split_p)
def _split_abstract_eval(x: ShapedArray, *, sizes: tuple[int, ...], axis: int) -> list[ShapedArray]:
    check_axes((axis,), x.ndim, "axis")
    if builtins.any(s < 0 for s in sizes):
        raise shape_failure(f"sizes must be non-negative, got {list(sizes)}")
    if builtins.sum(sizes) != x.shape[axis]:
        raise shape_failure(
            f"sum of sizes {builtins.sum(sizes)} must equal dimension {axis} of the "
            f"operand shape {list(x.shape)}"
        )
    return [
        ShapedArray((*x.shape[:axis], s, *x.shape[axis + 1 :]), x.dtype, x.weak_type) for s in sizes
    ]


@ABSTRACT_EVAL.defines(tile_p)
def _tile_abstract_eval(x: ShapedArray, *, reps: tuple[int, ...]) -> ShapedArray:
    if len(reps) != x.ndim:
        raise shape_failure(f"reps length {len(reps)} must equal the operand's rank {x.ndim}")
    if builtins.any(r < 0 for r in reps):
        raise shape_failure(f"reps must be non-negative, got {reps}")
    shape = tuple(n * r for n, r in zip(x.shape, reps, strict=True))
    return ShapedArray(shape, x.dtype, x.weak_type)


@ABSTRACT_EVAL.defines(stack_p)
def _stack_abstract_eval(*xs: ShapedArray, axis: int) -> ShapedArray:
    first = _first_of_one_dtype(xs)
    check_axes((axis,), first.ndim + 1, "axis")
    if builtins.any(x.shape != first.shape for x in xs):
        shapes = ", ".join(str(x.shape) for x in xs)
        raise shape_failure(f"all operands must have the same shape, got {shapes}")
    shape = (*first.shape[:axis], len(xs), *first.shape[axis:])
    return ShapedArray(shape, first.dtype, builtins.all(x.weak_type for x in xs))


@ABSTRACT_EVAL.defines(unstack_p)
def _unstack_abstract_eval(x: ShapedArray, *, axis: int) -> list[ShapedArray]:
    if x.ndim == 0:
        raise shape_failure("cannot unstack a scalar (rank 0)")
    check_axes((axis,), x.ndim, "axis")
    out = ShapedArray(x.shape[:axis] + x.shape[axis + 1 :], x.dtype, x.weak_type)
    return [out] * x.shape[axis]


@ABSTRACT_EVAL.defines(copy_p)
def _copy_abstract_eval(x: ShapedArray) -> ShapedArray:
    return x


@ABSTRACT_EVAL.defines(optimization_barrier_p)
def _optimization_barrier_abstract_eval(*xs: ShapedArray) -> list[ShapedArray]:
    return list(xs)


# --- wrappers -------------------------------------------------------------------------


def broadcast_in_dim(
    operand: ArrayLike, shape: Sequence[int], broadcast_dimensions: Sequence[int]
) -> Value:
    """Broadcasts ``operand`` to ``shape``; operand axis i becomes axis ``broadcast_dimensions[i]``.

    >>> broadcast_in_dim(np.array([1, 2]), (3, 2), (1,)).shape
    (3, 2)
    """
    return bind_value(
        broadcast_in_dim_p,
        as_operand(operand),
        shape=shape_poly.dims(shape),
        broadcast_dimensions=tuple(int(d) for d in broadcast_dimensions),
    )


def full(shape: Sequence[int], fill_value: Scalar, dtype: DTypeLike) -> Value:
    """An array of ``shape`` and ``dtype`` filled with ``fill_value`` (a broadcast scalar).

    >>> full((2,), 1.5, np.float32)
    Array([1.5, 1.5], dtype=float32)
    """
    value = np.asarray(fill_value, dtypes.canonicalize(dtype))
    shape = shape_poly.dims(shape)
    return wrap_host(value) if shape == () else broadcast_in_dim(value, shape, ())


def full_like(x: ArrayLike, fill_value: Scalar) -> Value:
    """An array of ``x``'s shape and dtype (and weak type, as JAX's) filled with ``fill_value``."""
    aval = get_aval(x)
    value = wrap_host(np.asarray(fill_value, aval.dtype), aval.weak_type)
    return value if aval.shape == () else broadcast_in_dim(value, aval.shape, ())


def broadcast(operand: ArrayLike, sizes: Sequence[int]) -> Value:
    """Adds leading axes of ``sizes`` to ``operand``."""
    nd = ndim(operand)
    shape = (*sizes, *get_aval(operand).shape)
    return broadcast_in_dim(operand, shape, tuple(range(len(sizes), len(sizes) + nd)))


def reshape(
    operand: ArrayLike, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None
) -> Value:
    """Reshapes ``operand`` (after transposing it by ``dimensions`` if given)."""
    operand = as_operand(operand)
    if dimensions is not None:
        operand = transpose(operand, dimensions)
    return bind_value(reshape_p, operand, new_sizes=shape_poly.dims(new_sizes))


def transpose(operand: ArrayLike, permutation: Sequence[int]) -> Value:
    """Permutes the axes of ``operand``: result axis i is operand axis ``permutation[i]``."""
    nd = ndim(operand)
    return bind_value(transpose_p, as_operand(operand), permutation=normalize_axes(permutation, nd))


def squeeze(array: ArrayLike, dimensions: Sequence[int]) -> Value:
    """Removes the size-1 axes ``dimensions``."""
    nd = ndim(array)
    dims = tuple(sorted(normalize_axes(dimensions, nd)))
    return bind_value(squeeze_p, as_operand(array), dimensions=dims)


def expand_dims(array: ArrayLike, dimensions: Sequence[int]) -> Value:
    """Inserts size-1 axes at positions ``dimensions`` of the result."""
    nd = ndim(array) + len(dimensions)
    dims = tuple(sorted(normalize_axes(dimensions, nd)))
    return bind_value(expand_dims_p, as_operand(array), dimensions=dims)


def concatenate(operands: Sequence[ArrayLike], dimension: int) -> Value:
    """Joins ``operands`` along axis ``dimension``."""
    if not operands:
        raise ValueError("concatenate needs at least one operand")
    ops = [as_operand(o) for o in operands]
    return bind_value(concatenate_p, *ops, dimension=normalize_axis(dimension, ndim(ops[0])))


def rev(operand: ArrayLike, dimensions: Sequence[int]) -> Value:
    """Reverses ``operand`` along ``dimensions``."""
    dims = tuple(sorted(normalize_axes(dimensions, ndim(operand))))
    return bind_value(rev_p, as_operand(operand), dimensions=dims)


def iota(dtype: DTypeLike, size: int) -> Value:
    """``[0, 1, ..., size - 1]`` of ``dtype``."""
    return bind_value(iota_p, dtype=dtypes.canonicalize(dtype), size=int(size))


def split(operand: ArrayLike, sizes: Sequence[int], axis: int = 0) -> list[Value]:
    """``operand`` cut along ``axis`` into pieces of ``sizes`` (which sum to that axis' size).

    >>> [p.shape for p in split(np.zeros((5, 2)), (2, 3))]
    [(2, 2), (3, 2)]
    """
    x = as_operand(operand)
    outs: list[Value] = split_p.bind(
        x, sizes=tuple(int(s) for s in sizes), axis=normalize_axis(axis, ndim(x))
    )
    return outs


def tile(operand: ArrayLike, reps: Sequence[int]) -> Value:
    """``operand`` repeated ``reps[i]`` times along each axis i (``len(reps)`` is its rank).

    >>> tile(np.array([1, 2]), (2,))
    Array([1, 2, 1, 2], dtype=int32)
    """
    return bind_value(tile_p, as_operand(operand), reps=tuple(int(r) for r in reps))


def stack(operands: Sequence[ArrayLike], axis: int = 0) -> Value:
    """Joins ``operands`` (of one shape) along a new axis ``axis``.

    >>> stack([np.array([1, 2]), np.array([3, 4])], axis=1).shape
    (2, 2)
    """
    if not operands:
        raise ValueError("stack needs at least one operand")
    ops = [as_operand(o) for o in operands]
    return bind_value(stack_p, *ops, axis=normalize_axis(axis, ndim(ops[0]) + 1))


def unstack(x: ArrayLike, axis: int = 0) -> tuple[Value, ...]:
    """The slices of ``x`` along ``axis``, that axis removed."""
    x = as_operand(x)
    if ndim(x) == 0:
        raise ValueError("unstack requires arrays with rank > 0, got a scalar")
    return tuple(unstack_p.bind(x, axis=normalize_axis(axis, ndim(x))))


def broadcasted_iota(dtype: DTypeLike, shape: Sequence[int], dimension: int) -> Value:
    """An array of ``shape`` counting ``0, 1, ...`` along ``dimension`` (an iota broadcast).

    >>> broadcasted_iota(np.int32, (2, 3), 1)
    Array([[0, 1, 2],
           [0, 1, 2]], dtype=int32)
    """
    shape = tuple(int(s) for s in shape)
    dim = normalize_axis(int(dimension), len(shape))
    return broadcast_in_dim(iota(dtype, shape[dim]), shape, (dim,))


def broadcast_to_rank(x: ArrayLike, rank: int) -> Value:
    """``x`` with leading axes of size 1 added up to rank ``rank``."""
    nd = ndim(x)
    if nd == rank:
        out: Value = to_array(x)
        return out
    return broadcast(x, (1,) * (rank - nd))


def broadcast_like(arr: ArrayLike, like_arr: ArrayLike) -> Value:
    """``arr`` broadcast (NumPy's trailing-axes rule) to the shape of ``like_arr``."""
    shape = get_aval(like_arr).shape
    nd = ndim(arr)
    if nd > len(shape):
        raise ValueError(f"cannot broadcast rank {nd} to shape {shape}")
    return broadcast_in_dim(arr, shape, tuple(range(len(shape) - nd, len(shape))))


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The shape NumPy's broadcasting gives ``shapes``; a ``ValueError`` if they do not agree.

    >>> broadcast_shapes((3, 1), (1, 4), (5, 1, 1))
    (5, 3, 4)
    """
    if not shapes:
        raise TypeError("broadcast_shapes needs at least one shape")
    rank = builtins.max(len(s) for s in shapes)
    padded = [(1,) * (rank - len(s)) + tuple(int(d) for d in s) for s in shapes]
    out = []
    for sizes in zip(*padded, strict=True):
        big = {d for d in sizes if d != 1}
        if len(big) > 1:
            raise ValueError(
                f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}"
            )
        out.append(big.pop() if big else 1)
    return tuple(out)


def collapse(operand: ArrayLike, start_dimension: int, stop_dimension: int | None = None) -> Value:
    """``operand`` with axes ``[start_dimension, stop_dimension)`` merged into one (row-major).

    >>> collapse(np.zeros((2, 3, 4)), 0, 2).shape
    (6, 4)
    """
    shape = get_aval(operand).shape
    lo, hi, _ = builtins.slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(
            "Invalid dimension range passed to collapse: "
            f"{shape}[{start_dimension}:{stop_dimension}]"
        )
    return reshape(operand, (*shape[:lo], math.prod(shape[lo:hi]), *shape[hi:]))


def empty(shape: int | Sequence[int], dtype: DTypeLike) -> Value:
    """An array of ``shape`` and ``dtype`` whose values are unspecified (zeros in didax).

    JAX leaves the values to the backend; code must write before it reads.
    """
    dims = (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)
    return full(dims, 0, dtype)


def shape_as_value(shape: Sequence[int]) -> np.ndarray[tuple[int], np.dtype[np.signedinteger]]:
    """``shape`` as a NumPy int32 vector (int64 if a size needs it): shapes are static."""
    dims = tuple(int(d) for d in shape)
    wide = builtins.any(d >= 2**31 for d in dims)
    return np.asarray(dims, np.int64 if wide else np.int32)


def dtype(x: object) -> DType:
    """The dtype didax gives ``x``: a value's (a Python scalar's default), or a dtype argument's.

    >>> dtype(1.0), dtype(np.arange(3)), dtype("int16")
    (dtype('float32'), dtype('int32'), dtype('int16'))
    """
    if isinstance(x, (type, str, np.dtype)):
        return dtypes.canonicalize(x)
    return get_aval(x).dtype
