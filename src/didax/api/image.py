"""``didax.image``: JAX's image resampling (``resize``, ``scale_and_translate``).

Design rules:
- JAX's algorithm, on didax.numpy: each resampled dimension gets a weight
  matrix (input size by output size) from the method's kernel at the
  sample points, normalized per output pixel, and one ``einsum``
  contracts the image with every matrix, at ``HIGHEST`` precision by
  default, as JAX's.
- Sample points are half-pixel centred, and points outside the input get
  zero weight (``edge_padding`` repeats the border instead, for
  ``CUBIC_PYTORCH`` without antialiasing, as JAX's).
- ``resize`` is jitted with its shape, method, antialias and precision
  static (JAX's), and skips the dimensions whose size does not change.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

from didax.api.jit import jit
from didax.api.numpy import (
    contractions,
    creation,
    manipulation,
    more_routines,
    operands,
    reductions,
)
from didax.api.numpy import elementwise as el
from didax.api.numpy import methods as _methods  # noqa: F401  (Arrays' .at, .astype)
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.operands import promote
from didax.core.lax.precision import Precision

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]

Kernel = Callable[[Array], Array]


def _lanczos(radius: float) -> Kernel:
    def kernel(x: Array) -> Array:
        y = radius * el.sin(np.pi * x) * el.sin(np.pi * x / radius)
        out = el.where(x > 1e-3, el.divide(y, el.where(x != 0, np.pi**2 * x**2, 1)), 1)
        return el.where(x > radius, 0.0, out)

    return kernel


def _keys_cubic(x: Array) -> Array:
    out = ((1.5 * x - 2.5) * x) * x + 1.0
    out = el.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
    return el.where(x >= 2.0, 0.0, out)


def _opencv_cubic(x: Array) -> Array:
    a = -0.75  # PyTorch's and OpenCV's cubic coefficient
    out = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    out = el.where(x >= 1.0, ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a, out)
    return el.where(x >= 2.0, 0.0, out)


def _triangle(x: Array) -> Array:
    return el.maximum(0, 1 - el.abs(x))


class ResizeMethod(enum.Enum):
    """How ``resize`` samples (``jax.image.ResizeMethod``); strings name them too."""

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str) -> ResizeMethod:
        """The method a string names (``'bilinear'`` is ``LINEAR``...), as JAX's."""
        for names, method in _NAMES:
            if s in names:
                return method
        raise ValueError(f'Unknown resize method "{s}"')


_NAMES: Final = (
    (("nearest",), ResizeMethod.NEAREST),
    (("linear", "bilinear", "trilinear", "triangle"), ResizeMethod.LINEAR),
    (("lanczos3",), ResizeMethod.LANCZOS3),
    (("lanczos5",), ResizeMethod.LANCZOS5),
    (("cubic", "bicubic", "tricubic"), ResizeMethod.CUBIC),
    (("cubic-pytorch", "bicubic-pytorch"), ResizeMethod.CUBIC_PYTORCH),
    (("area",), ResizeMethod.AREA),
)

# Each method's kernel radius and kernel (None: the area kernel, computed apart).
_KERNELS: Final[dict[ResizeMethod, tuple[int, Kernel | None]]] = {
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.LANCZOS3: (3, _lanczos(3.0)),
    ResizeMethod.LANCZOS5: (5, _lanczos(5.0)),
    ResizeMethod.CUBIC: (2, _keys_cubic),
    ResizeMethod.CUBIC_PYTORCH: (2, _opencv_cubic),
    ResizeMethod.AREA: (1, None),
}

_EPS: Final = 1000.0 * float(np.finfo(np.float32).eps)


def _normalized(weights: Array) -> Array:
    total = reductions.sum(weights, axis=0, keepdims=True)
    return el.where(el.abs(total) > _EPS, el.divide(weights, el.where(total != 0, total, 1)), 0)


def _weight_matrix(
    input_size: int,
    output_size: int,
    scale: Any,
    translation: Any,
    kernel: Kernel | None,
    antialias: bool,
    edge_padding: bool,
    radius: int,
) -> Array:
    """The (input_size, output_size) weights of one dimension's resampling (JAX's)."""
    dtype = more_routines.result_type(scale, translation)
    inv_scale = 1.0 / scale
    kernel_scale = el.maximum(inv_scale, 1.0) if antialias else 1.0
    sample_f = (creation.arange(output_size, dtype=dtype) + 0.5) * inv_scale
    sample_f = sample_f - translation * inv_scale - 0.5
    k = 0
    if edge_padding:
        k = math.ceil(radius * max(1.0 / float(scale), 1.0)) if antialias else radius
    expanded = creation.arange(-k, input_size + k, dtype=dtype)
    if kernel is None:  # the area kernel: the overlap of output and input pixels
        left_out = creation.arange(output_size, dtype=dtype) * inv_scale - translation * inv_scale
        left_in = creation.arange(input_size, dtype=dtype)
        weights = el.maximum(
            0.0,
            el.minimum((left_out + inv_scale)[None, :], (left_in + 1.0)[:, None])
            - el.maximum(left_out[None, :], left_in[:, None]),
        )
    else:
        weights = kernel(el.abs(sample_f[None, :] - expanded[:, None]) / kernel_scale)
    if edge_padding:
        clamped = el.clip(expanded.astype(np.int32), 0, input_size - 1)
        rows = manipulation.broadcast_to(
            creation.arange(output_size), (expanded.shape[0], output_size)
        )
        matrix = creation.zeros((input_size, output_size), dtype=dtype)
        return _normalized(matrix.at[clamped[:, None], rows].add(weights))
    inside = el.logical_and(sample_f >= -0.5, sample_f <= input_size - 0.5)
    return el.where(inside[None, :], _normalized(weights), 0)


def _scale_and_translate(
    x: Array,
    shape: tuple[int, ...],
    spatial_dims: Sequence[int],
    scale: Sequence[Any],
    translation: Sequence[Any],
    method: ResizeMethod,
    antialias: bool,
    precision: Any,
) -> Array:
    if not spatial_dims:
        return x
    radius, kernel = _KERNELS[method]
    edge_padding = method is ResizeMethod.CUBIC_PYTORCH and not antialias
    operands: list[Any] = [x, list(range(x.ndim))]
    out_indices = list(range(x.ndim))
    for i, d in enumerate(spatial_dims):
        d = d % x.ndim
        w = _weight_matrix(
            x.shape[d], shape[d], scale[i], translation[i], kernel, antialias, edge_padding, radius
        )
        operands += [w.astype(x.dtype), [d, x.ndim + i]]
        out_indices[d] = x.ndim + i
    return contractions.einsum(*operands, out_indices, precision=precision)


def _method(method: str | ResizeMethod, antialias: bool) -> ResizeMethod:
    m = ResizeMethod.from_string(method) if isinstance(method, str) else method
    # With antialiasing, PyTorch's cubic is the Keys cubic (JAX's rule).
    return ResizeMethod.CUBIC if m is ResizeMethod.CUBIC_PYTORCH and antialias else m


def _check_shape(fn: str, shape: Sequence[int], image: Array) -> tuple[int, ...]:
    out = tuple(int(n) for n in shape)
    if len(out) != image.ndim:
        raise ValueError(
            f"{fn}: shape must have length equal to the number of dimensions of x; "
            f" {out} vs {image.shape}"
        )
    return out


def _inexact(image: ArrayLike, *more: ArrayLike) -> list[Any]:
    return [promote("resize", a, inexact=True)[0][0] for a in (image, *more)]


def scale_and_translate(
    image: ArrayLike,
    shape: Sequence[int],
    spatial_dims: Sequence[int],
    scale: ArrayLike,
    translation: ArrayLike,
    method: str | ResizeMethod,
    antialias: bool = True,
    precision: Any = Precision.HIGHEST,
) -> Array:
    """``image`` resampled into ``shape``: input point ``x`` lands at ``x * scale + translation``.

    As ``jax.image.scale_and_translate``: ``spatial_dims`` are the
    dimensions ``scale`` and ``translation`` (one entry each) apply to;
    output pixels whose sample falls outside the input are zero. Any
    method but ``NEAREST``.
    """
    x, scale_v, translation_v = _inexact(
        image, operands.asarray(scale), operands.asarray(translation)
    )
    out_shape = _check_shape("scale_and_translate", shape, x)
    m = _method(method, antialias)
    if m is ResizeMethod.NEAREST:
        raise ValueError(
            "Nearest neighbor resampling is not currently supported for scale_and_translate."
        )
    return _scale_and_translate(
        x, out_shape, spatial_dims, scale_v, translation_v, m, antialias, precision
    )


def _resize_nearest(x: Array, shape: tuple[int, ...]) -> Array:
    for d, (m, n) in enumerate(zip(x.shape, shape, strict=True)):
        if m == n:
            continue
        offsets = (creation.arange(n, dtype=np.float32) + 0.5) * m / n
        index: list[Any] = [slice(None)] * x.ndim
        index[d] = el.floor(offsets.astype(np.float32)).astype(np.int32)
        x = x[tuple(index)]
    return x


def _resize(
    image: ArrayLike,
    shape: tuple[int, ...],
    method: str | ResizeMethod,
    antialias: bool,
    precision: Any,
) -> Array:
    m = _method(method, antialias)
    if m is ResizeMethod.NEAREST:
        x = operands.asarray(image)
        return _resize_nearest(x, _check_shape("resize", shape, x))
    (x,) = _inexact(image)
    _check_shape("resize", shape, x)
    dims = tuple(d for d in range(x.ndim) if x.shape[d] != shape[d])
    scale = [1.0 if shape[d] == 0 else shape[d] / x.shape[d] for d in dims]
    return _scale_and_translate(x, shape, dims, scale, [0.0] * len(dims), m, antialias, precision)


_resize_jit: Final = jit(_resize, static_argnums=(1, 2, 3, 4))


def resize(
    image: ArrayLike,
    shape: Sequence[int],
    method: str | ResizeMethod,
    antialias: bool = True,
    precision: Any = Precision.HIGHEST,
) -> Array:
    """``image`` resized to ``shape``, in every dimension (``jax.image.resize``).

    ``method``: ``'nearest'``, ``'linear'``, ``'cubic'``, ``'cubic-pytorch'``,
    ``'lanczos3'``, ``'lanczos5'``, ``'area'`` or a ``ResizeMethod``. With
    ``antialias`` downsampling widens the kernel. The result is a float
    array (bar ``nearest``, which keeps the dtype).

    >>> import didax as dx
    >>> dx.image.resize(dx.numpy.array([0.0, 1.0]), (4,), "linear")
    Array([0.  , 0.25, 0.75, 1.  ], dtype=float32)
    """
    result: Array = _resize_jit(image, tuple(int(n) for n in shape), method, antialias, precision)
    return result
