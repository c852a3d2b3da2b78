"""The small ``jax.scipy`` modules: ``integrate``, ``cluster.vq``, ``ndimage``, ``interpolate``.

``trapezoid``, ``vq``, ``map_coordinates`` and ``RegularGridInterpolator``,
as JAX 0.10.2 defines them, composed of ``didax.numpy``'s functions.

Design rules:
- Each follows JAX's formula operation for operation, so values, dtypes
  and derivatives are JAX's: ``map_coordinates`` sums the weighted corner
  values of each interpolation cell (its gradient flows to the input and
  the coordinates), ``vq`` measures every observation against every code.
- ``map_coordinates`` takes JAX's modes, which are SciPy's documented ones
  (``'wrap'`` is SciPy's ``'grid-wrap'``, ``'constant'`` its
  ``'grid-constant'``), and orders 0 and 1 only, as JAX.
- ``RegularGridInterpolator`` is a pytree (grid, values and fill value are
  its leaves), so it crosses ``jit`` and ``vmap`` as JAX's does.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np
from jax import tree_util

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.creation import zeros
from didax.api.numpy.decompositions import inexact
from didax.api.numpy.elementwise import abs as _abs
from didax.api.numpy.elementwise import clip, floor, floor_divide, where
from didax.api.numpy.linalg import norm
from didax.api.numpy.manipulation import stack
from didax.api.numpy.more_routines import broadcast_arrays
from didax.api.numpy.more_routines import trapezoid as _trapezoid
from didax.api.numpy.operands import asarray, astype
from didax.api.numpy.reductions import argmin
from didax.api.numpy.searching import searchsorted
from didax.api.scipy_signal import promote_inexact
from didax.api.transformations import vmap
from didax.core import dtypes, lax

__all__ = ["trapezoid", "vq", "map_coordinates", "RegularGridInterpolator"]


def trapezoid(
    y: ArrayLike, x: ArrayLike | None = None, dx: ArrayLike = 1.0, axis: int = -1
) -> Array:
    """The integral of ``y`` along ``axis`` by the trapezoidal rule (``scipy.integrate.trapezoid``).

    >>> import numpy as np
    >>> trapezoid(np.array([1.0, 2.0, 3.0, 2.0, 3.0, 2.0, 1.0]), np.array([0, 2, 5, 7, 10, 15, 20]))
    Array(43., dtype=float32)
    """
    return _trapezoid(y, x, dx, axis)


def vq(obs: ArrayLike, code_book: ArrayLike, check_finite: bool = True) -> tuple[Array, Array]:
    """The nearest code of ``code_book`` for each observation, and its distance.

    ``obs`` is ``(M, N)`` (or ``(M,)``: one-dimensional observations),
    ``code_book`` ``(K, N)``; returns ``(code, dist)`` of shape ``(M,)``.
    ``check_finite`` is ignored, as in JAX.

    >>> import numpy as np
    >>> codes, dist = vq(np.array([[1.0, 2.0], [5.0, 5.0]]), np.array([[1.0, 2.0], [4.0, 5.0]]))
    >>> codes
    Array([0, 1], dtype=int32)
    """
    del check_finite  # accepted for SciPy's signature; JAX ignores it too
    obs_arr, cb_arr = promote_inexact(obs, code_book)
    if obs_arr.ndim != cb_arr.ndim:
        raise ValueError(
            f"vq: observation and code_book should have the same rank, got shapes "
            f"{obs_arr.shape} and {cb_arr.shape}"
        )
    if obs_arr.ndim == 1:
        obs_arr, cb_arr = obs_arr[..., None], cb_arr[..., None]
    if obs_arr.ndim != 2:
        raise ValueError(f"vq: ndim different than 1 or 2 are not supported, got {obs_arr.shape}")
    dist = vmap(lambda ob: norm(ob[None] - cb_arr, axis=-1))(obs_arr)
    code = argmin(dist, axis=-1)
    dist_min = vmap(operator.getitem)(dist, code)
    return code, dist_min


# --- map_coordinates ------------------------------------------------------------------------


def _mirror_index(index: Array, size: int) -> Array:
    # A triangular wave of half-period size - 1, in integers: |x - round(x)| scaled.
    s = size - 1
    return _abs((index + s) % (2 * s) - s)


def _reflect_index(index: Array, size: int) -> Array:
    return floor_divide(_mirror_index(2 * index + 1, 2 * size + 1) - 1, 2)


_INDEX_FIXERS: dict[str, Callable[[Array, int], Array]] = {
    "constant": lambda index, size: index,
    "nearest": lambda index, size: clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror_index,
    "reflect": _reflect_index,
}


def _round_half_away(a: Array) -> Array:
    return a if dtypes.is_integer(a.dtype) else lax.round(a)


def _nearest_nodes(coordinate: Array) -> list[tuple[Array, Array]]:
    index = astype(_round_half_away(coordinate), np.dtype(np.int32))
    return [(index, asarray(1, coordinate.dtype))]


def _linear_nodes(coordinate: Array) -> list[tuple[Array, Array]]:
    lower = floor(coordinate)
    upper_weight = coordinate - lower
    index = astype(lower, np.dtype(np.int32))
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


def map_coordinates(
    input: ArrayLike,  # noqa: A002  (SciPy's and JAX's name)
    coordinates: Sequence[ArrayLike],
    order: int,
    mode: str = "constant",
    cval: ArrayLike = 0.0,
) -> Array:
    """``input`` interpolated at ``coordinates`` (one array per axis), as ``jax.scipy.ndimage``.

    ``order`` 0 is nearest-neighbour, 1 linear; ``mode`` is one of
    ``'constant'`` (outside points are ``cval``), ``'nearest'``,
    ``'mirror'``, ``'wrap'``, ``'reflect'``, with JAX's (SciPy's documented)
    meaning.

    >>> import numpy as np
    >>> image = np.arange(12.0).reshape(3, 4)
    >>> map_coordinates(image, [np.array([0.5, 1.5]), np.array([1.5, 2.5])], 1)
    Array([3.5, 8.5], dtype=float32)
    """
    input_arr = asarray(input)
    coordinate_arrs = [asarray(c) for c in coordinates]
    fill = asarray(cval, input_arr.dtype)
    if len(coordinate_arrs) != input_arr.ndim:
        raise ValueError(
            "map_coordinates: coordinates must be a sequence of length input.ndim, but "
            f"{len(coordinate_arrs)} != {input_arr.ndim}"
        )
    fixer = _INDEX_FIXERS.get(mode)
    if fixer is None:
        raise NotImplementedError(
            f"map_coordinates does not support mode {mode!r}; the supported modes are "
            f"{sorted(_INDEX_FIXERS)}"
        )
    if order == 0:
        nodes = _nearest_nodes
    elif order == 1:
        nodes = _linear_nodes
    else:
        raise NotImplementedError(f"map_coordinates requires order 0 or 1, got {order}")
    per_axis = []
    for coordinate, size in zip(coordinate_arrs, input_arr.shape, strict=True):
        per_axis.append(
            [
                (fixer(index, size), (index >= 0) & (index < size), weight)
                for index, weight in nodes(coordinate)
            ]
        )
    outputs: list[Array] = []
    for corner in itertools.product(*per_axis):
        indices = tuple(c[0] for c in corner)
        contribution = input_arr[indices]
        if mode == "constant":
            valid = functools.reduce(operator.and_, [c[1] for c in corner])
            contribution = where(valid, contribution, fill)
        weight = functools.reduce(operator.mul, [c[2] for c in corner])
        outputs.append(weight * contribution)
    result = functools.reduce(operator.add, outputs)
    if dtypes.is_integer(input_arr.dtype):
        result = _round_half_away(result)
    return astype(result, input_arr.dtype)


# --- RegularGridInterpolator ----------------------------------------------------------------


def _points_array(points: ArrayLike | tuple[ArrayLike, ...], ndim: int) -> Array:
    """The sample points as one ``(..., ndim)`` array (a tuple holds one array per axis)."""
    if isinstance(points, tuple) and len(points) == 1:
        points = points[0]
    if isinstance(points, tuple):
        parts = broadcast_arrays(*points)
        return stack([astype(p, dtypes.canonicalize(float)) for p in parts], axis=-1)
    arr = asarray(points)
    return arr.reshape(-1, ndim) if arr.ndim == 1 else arr


class RegularGridInterpolator:
    """Interpolation on a rectilinear grid, as ``jax.scipy.interpolate.RegularGridInterpolator``.

    ``points`` is one increasing 1-d array per axis, ``values`` the data on
    the grid (more trailing axes are carried along); ``method`` is
    ``'linear'`` or ``'nearest'``; points outside the grid get
    ``fill_value`` (NaN by default; None extrapolates). ``bounds_error``
    cannot be checked under ``jit`` and is refused, as JAX refuses it.

    >>> import numpy as np
    >>> f = RegularGridInterpolator((np.array([0.0, 1.0, 2.0]),), np.array([0.0, 10.0, 40.0]))
    >>> f(np.array([0.5, 1.5, 3.0]))
    Array([ 5., 25., nan], dtype=float32)
    """

    def __init__(
        self,
        points: Sequence[ArrayLike],
        values: ArrayLike,
        method: str = "linear",
        bounds_error: bool = False,
        fill_value: ArrayLike | None = np.nan,
    ) -> None:
        if method not in ("linear", "nearest"):
            raise ValueError(f"RegularGridInterpolator: method {method!r} is not defined")
        if bounds_error:
            raise NotImplementedError(
                "RegularGridInterpolator: `bounds_error` takes no effect under JIT"
            )
        self.method = method
        self.bounds_error: bool = bounds_error
        vals = inexact(asarray(values))
        if len(points) > vals.ndim:
            raise ValueError(
                f"RegularGridInterpolator: there are {len(points)} point arrays, but values has "
                f"{vals.ndim} dimensions"
            )
        fill = None if fill_value is None else asarray(fill_value)
        if fill is not None and not np.can_cast(fill.dtype, vals.dtype, casting="same_kind"):
            raise ValueError(
                "RegularGridInterpolator: fill_value must be either 'None' or of a type "
                f"compatible with values ({vals.dtype}), got {fill.dtype}"
            )
        self.fill_value = fill
        self.grid = tuple(asarray(p) for p in points)
        self.values = vals

    def __call__(self, xi: ArrayLike | tuple[ArrayLike, ...], method: str | None = None) -> Array:
        method = self.method if method is None else method
        if method not in ("linear", "nearest"):
            raise ValueError(f"RegularGridInterpolator: method {method!r} is not defined")
        ndim = len(self.grid)
        pts = _points_array(xi, ndim)
        if pts.shape[-1] != ndim:
            raise ValueError(
                f"RegularGridInterpolator: the requested sample points xi have dimension "
                f"{pts.shape[-1]}, but this RegularGridInterpolator has dimension {ndim}"
            )
        flat = pts.reshape(-1, ndim)
        indices, distances, outside = self._find_indices(flat.T)
        if method == "linear":
            result = self._linear(indices, distances)
        else:
            result = self.values[
                tuple(where(d <= 0.5, i, i + 1) for i, d in zip(indices, distances, strict=True))
            ]
        if self.fill_value is not None:
            shape = result.shape[:1] + (1,) * (result.ndim - 1)
            result = where(outside.reshape(shape), self.fill_value, result)
        return result.reshape(pts.shape[:-1] + self.values.shape[ndim:])

    def _linear(self, indices: list[Array], distances: list[Array]) -> Array:
        trailing = (slice(None),) + (None,) * (self.values.ndim - len(indices))
        total: Array = asarray(0.0)
        for corner in itertools.product(*[[i, i + 1] for i in indices]):
            weight: Array = asarray(1.0)
            for ci, i, d in zip(corner, indices, distances, strict=True):
                weight = weight * where(ci == i, 1 - d, d)
            total = total + self.values[corner] * weight[trailing]
        return total

    def _find_indices(self, xi: Array) -> tuple[list[Array], list[Array], Array]:
        indices, distances = [], []
        outside: Array = zeros((xi.shape[1],), dtype=bool)
        for x, g in zip(xi, self.grid, strict=True):
            i = searchsorted(g, x) - 1
            i = where(i < 0, 0, i)
            i = where(i > g.size - 2, g.size - 2, i)
            indices.append(i)
            distances.append((x - g[i]) / (g[i + 1] - g[i]))
            outside = outside | (x < g[0]) | (x > g[-1])
        return indices, distances, outside


def _rgi_flatten(
    obj: RegularGridInterpolator,
) -> tuple[tuple[object, ...], tuple[str, bool]]:
    return (obj.grid, obj.values, obj.fill_value), (obj.method, obj.bounds_error)


def _rgi_unflatten(aux: tuple[str, bool], children: tuple[object, ...]) -> RegularGridInterpolator:
    # Built without __init__: under a transformation the leaves are tracers
    # or placeholders, which the constructor's checks must not see.
    obj = object.__new__(RegularGridInterpolator)
    grid, values, fill_value = children
    obj.grid = cast("tuple[Array, ...]", grid)
    obj.values = cast(Array, values)
    obj.fill_value = cast("Array | None", fill_value)
    obj.method, obj.bounds_error = aux
    return obj


tree_util.register_pytree_node(RegularGridInterpolator, _rgi_flatten, _rgi_unflatten)
