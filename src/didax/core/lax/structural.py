"""Structural primitives: declarations, typing rules and ``didax.lax`` wrappers.

The primitives that move, replicate or make elements without computing on
them and without picking a window of them: ``broadcast_in_dim``,
``reshape``, ``transpose``, ``squeeze``, ``expand_dims``, ``concatenate``,
``rev`` and ``iota`` (JAX's of those names). Windows of an array
(``slice``, the dynamic slices, ``pad``) are ``core.lax.slicing``'s. The
interpreters' rules are in ``interpreters.structural``, the lowerings in
``lowering.structural``.

Design rules:
- Params have one spelling: axes are non-negative (and sorted where their
  order means nothing), shapes are tuples of ints; the wrappers normalise.
- A result has its operand's dtype and weak type (``concatenate``'s is weak
  only if every operand is); ``iota`` makes a strong array of ``dtype``.
- ``core.promotion`` binds ``broadcast_in_dim`` (a Python scalar taking its
  partner's shape), so this module imports no promotion: no wrapper here
  converts a dtype.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Final

import numpy as np
from numpy.typing import DTypeLike

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, check_axes, dtype_failure, shape_failure
from didax.core.basearray import Value
from didax.core.dtypes import DType
from didax.core.lax.operands import as_operand, bind_value, ndim, normalize_axes, normalize_axis
from didax.core.primitive import Primitive
from didax.core.values import ArrayLike, get_aval, wrap_host
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
]

broadcast_in_dim_p: Final = Primitive("broadcast_in_dim")
reshape_p: Final = Primitive("reshape")
transpose_p: Final = Primitive("transpose")
squeeze_p: Final = Primitive("squeeze")
expand_dims_p: Final = Primitive("expand_dims")
concatenate_p: Final = Primitive("concatenate")
rev_p: Final = Primitive("rev")
iota_p: Final = Primitive("iota")


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
    if builtins.any(s < 0 for s in new_sizes) or int(np.prod(new_sizes)) != x.size:
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


@ABSTRACT_EVAL.defines(concatenate_p)
def _concatenate_abstract_eval(*xs: ShapedArray, dimension: int) -> ShapedArray:
    if not xs:
        raise shape_failure("needs at least one operand")
    first = xs[0]
    check_axes((dimension,), first.ndim, "dimension")
    for x in xs:
        if x.dtype != first.dtype:
            raise dtype_failure("operands must have equal dtypes")
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
        shape=tuple(int(s) for s in shape),
        broadcast_dimensions=tuple(int(d) for d in broadcast_dimensions),
    )


def full(shape: Sequence[int], fill_value: Scalar, dtype: DTypeLike) -> Value:
    """An array of ``shape`` and ``dtype`` filled with ``fill_value`` (a broadcast scalar).

    >>> full((2,), 1.5, np.float32)
    Array([1.5, 1.5], dtype=float32)
    """
    value = np.asarray(fill_value, dtypes.canonicalize(dtype))
    shape = tuple(int(s) for s in shape)
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
    return bind_value(reshape_p, operand, new_sizes=tuple(int(s) for s in new_sizes))


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
