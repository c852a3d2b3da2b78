"""``didax.numpy.fft``: NumPy's discrete Fourier transforms, as ``jax.numpy.fft`` builds them.

Every transform is one ``fft`` primitive (``lax.fft``: XLA's Fft of the
trailing one to three axes) with NumPy's conventions around it:

- ``axes`` are moved to the end and back (XLA transforms trailing axes);
- ``n`` / ``s`` crop or zero-pad each transformed axis before the
  transform (for ``irfft*`` the last axis to ``s[-1] // 2 + 1``
  frequencies; its default output length is ``2 * (m - 1)``);
- ``norm`` is ``"backward"`` (the default: the inverse scales by
  ``1 / n``, which XLA's inverse transforms already do), ``"ortho"`` or
  ``"forward"``, applied as one multiplication by JAX's factor;
- operands are promoted as JAX's: complex transforms take their operand to
  complex (float32 → complex64), real ones to floats.

``hfft``/``ihfft`` are JAX's formulas over ``irfft``/``rfft``: the
conjugate, and a multiplication by the length (``hfft``) or its inverse
(``ihfft``); ``norm`` scales them as JAX does, by their names (``hfft`` as
a forward transform, ``ihfft`` as an inverse).

``fftfreq``/``rfftfreq`` build their (static) sample frequencies on the
host; ``fftshift``/``ifftshift`` are rolls by half of each axis.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import divide, multiply
from didax.api.numpy.manipulation import moveaxis
from didax.api.numpy.operands import as_result, astype, dtype_arg, operand
from didax.api.numpy.rearranging import pad, roll
from didax.core import dtypes, lax
from didax.core.dtypes import DTypeLike
from didax.core.lax.fft import FftType
from didax.core.values import get_aval

__all__ = [
    "fft",
    "ifft",
    "rfft",
    "irfft",
    "hfft",
    "ihfft",
    "fft2",
    "ifft2",
    "rfft2",
    "irfft2",
    "fftn",
    "ifftn",
    "rfftn",
    "irfftn",
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
]

_NORMS = ("backward", "ortho", "forward")


def _norm_factor(lengths: Sequence[int], inverse: bool, norm: str | None) -> float:
    """JAX's ``_fft_norm``: what the transform (already scaled as XLA's) is multiplied by."""
    norm = "backward" if norm is None else norm
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')
    size = math.prod(lengths)
    if norm == "backward":
        return 1.0
    if norm == "ortho":
        return math.sqrt(size) if inverse else 1 / math.sqrt(size)
    return float(size) if inverse else 1 / size


def _operand_for(v: Any, kind: FftType, name: str = "rfft") -> Any:
    dtype = get_aval(v).dtype
    if kind == FftType.RFFT:
        if dtypes.is_complex(dtype):
            raise TypeError(f"{name} takes real input, got an array of dtype {dtype}")
        return astype(v, dtypes.to_inexact(dtype))
    return astype(v, dtypes.complex_dtype(dtypes.to_inexact(dtype)))


def _fft_core(
    name: str,
    kind: FftType,
    a: ArrayLike,
    s: Sequence[int] | None,
    axes: Sequence[int] | None,
    norm: str | None,
) -> Array:
    v = operand(a)
    ndim = get_aval(v).ndim
    if s is not None:
        s = tuple(operator.index(n) for n in s)
        if any(n < 0 for n in s):
            raise ValueError("Shape should be non-negative.")
        if axes is not None and len(s) != len(axes):
            raise ValueError("Shape and axes have different lengths.")
    given_axes = axes
    if axes is None:
        axes = tuple(range(ndim)) if s is None else tuple(range(ndim - len(s), ndim))
    axes = tuple(operator.index(ax) % ndim if ndim else operator.index(ax) for ax in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{name} does not support repeated axes. Got axes {tuple(axes)}.")
    if not 1 <= len(axes) <= 3:
        raise ValueError(
            f"{name} only supports 1D, 2D, and 3D FFTs. "
            f"Got axes {given_axes} with input rank {ndim}."
        )
    # XLA transforms the trailing axes: move the chosen ones there.
    trailing = tuple(range(ndim - len(axes), ndim))
    if given_axes is not None:
        v = moveaxis(v, axes, trailing)
    shape = list(get_aval(v).shape)
    if s is not None:
        wanted = list(shape)
        for ax, n in zip(trailing, s, strict=True):
            wanted[ax] = n
        if kind == FftType.IRFFT:
            wanted[-1] = wanted[-1] // 2 + 1
        # Crop, then zero-pad, to the wanted lengths.
        v = as_result(
            lax.slice(v, (0,) * ndim, [min(h, w) for h, w in zip(shape, wanted, strict=True)])
        )
        widths = [(0, w - min(h, w)) for h, w in zip(shape, wanted, strict=True)]
        if any(hi for _, hi in widths):
            v = pad(v, widths)
        lengths = tuple(s)
    elif kind == FftType.IRFFT:
        lengths = (*(shape[ax] for ax in trailing[:-1]), max(0, 2 * (shape[-1] - 1)))
    else:
        lengths = tuple(shape[ax] for ax in trailing)
    out = lax.fft(_operand_for(v, kind, name), kind, lengths)
    # JAX keys the scaling on the name, not the kind: hfft (an IRFFT) scales
    # as a forward transform, ihfft (an RFFT) as an inverse.
    factor = _norm_factor(lengths, name.startswith("i"), norm)
    if factor != 1.0:
        out = lax.mul(out, factor)
    if given_axes is not None:
        out = moveaxis(out, trailing, axes)
    return as_result(out)


def _one_axis(n: int | None, axis: int) -> tuple[tuple[int, ...] | None, tuple[int, ...]]:
    return (None if n is None else (n,)), (axis,)


def fft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The one-dimensional discrete Fourier transform along ``axis``.

    >>> fft(np.array([1.0, 0.0, 0.0, 0.0]))
    Array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j], dtype=complex64)
    """
    return _fft_core("fft", FftType.FFT, a, *_one_axis(n, axis), norm)


def ifft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The inverse of ``fft`` (scaled by ``1 / n`` with the default norm)."""
    return _fft_core("ifft", FftType.IFFT, a, *_one_axis(n, axis), norm)


def rfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The transform of real input: the ``n // 2 + 1`` non-negative frequencies.

    >>> rfft(np.array([1.0, 2.0, 3.0, 4.0]))
    Array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)
    """
    return _fft_core("rfft", FftType.RFFT, a, *_one_axis(n, axis), norm)


def irfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The inverse of ``rfft``: ``n`` real samples (``2 * (m - 1)`` by default)."""
    return _fft_core("irfft", FftType.IRFFT, a, *_one_axis(n, axis), norm)


def hfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The transform of a Hermitian-symmetric signal given by its first half: ``n`` real values.

    JAX's formula: ``irfft(conj(a), n) * n`` (``n`` defaults to ``2 * (m - 1)``).

    >>> hfft(np.array([1.0, 2.0, 3.0]))
    Array([ 8., -2.,  0., -2.], dtype=float32)
    """
    v = operand(a)
    length = 2 * (get_aval(v).shape[axis] - 1) if n is None else n
    out = _fft_core(
        "hfft", FftType.IRFFT, lax.conj(_operand_for(v, FftType.IRFFT)), *_one_axis(n, axis), norm
    )
    return multiply(out, length)


def ihfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """The inverse of ``hfft``: the first half of a real signal's spectrum, conjugated, over ``n``.

    >>> ihfft(np.array([8.0, -2.0, 0.0, -2.0]))
    Array([1.+0.j, 2.+0.j, 3.+0.j], dtype=complex64)
    """
    v = operand(a)
    length = get_aval(v).shape[axis] if n is None else n
    out = _fft_core("ihfft", FftType.RFFT, v, *_one_axis(n, axis), norm)
    return multiply(lax.conj(out), 1 / length)


def fft2(
    a: ArrayLike,
    s: Sequence[int] | None = None,
    axes: Sequence[int] = (-2, -1),
    norm: str | None = None,
) -> Array:
    """The two-dimensional transform over ``axes``."""
    return _fft_core("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(
    a: ArrayLike,
    s: Sequence[int] | None = None,
    axes: Sequence[int] = (-2, -1),
    norm: str | None = None,
) -> Array:
    """The inverse of ``fft2``."""
    return _fft_core("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(
    a: ArrayLike,
    s: Sequence[int] | None = None,
    axes: Sequence[int] = (-2, -1),
    norm: str | None = None,
) -> Array:
    """The two-dimensional transform of real input."""
    return _fft_core("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(
    a: ArrayLike,
    s: Sequence[int] | None = None,
    axes: Sequence[int] = (-2, -1),
    norm: str | None = None,
) -> Array:
    """The inverse of ``rfft2``."""
    return _fft_core("irfft2", FftType.IRFFT, a, s, axes, norm)


def fftn(
    a: ArrayLike,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str | None = None,
) -> Array:
    """The transform over ``axes`` (all axes by default; at most three, as XLA's)."""
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(
    a: ArrayLike,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str | None = None,
) -> Array:
    """The inverse of ``fftn``."""
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(
    a: ArrayLike,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str | None = None,
) -> Array:
    """The transform of real input over ``axes`` (the last one halved)."""
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(
    a: ArrayLike,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str | None = None,
) -> Array:
    """The inverse of ``rfftn``."""
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


def _frequencies(k: np.ndarray[Any, Any], n: int, d: Any, dtype: DTypeLike) -> Array:
    dt = dtype_arg(dtype) or dtypes.default_float()
    return divide(astype(k, dt), multiply(astype(d, dt), float(n)))


def fftfreq(n: int, d: ArrayLike = 1.0, *, dtype: DTypeLike = None) -> Array:
    """The sample frequencies of an ``n``-point transform with sample spacing ``d``.

    >>> fftfreq(4)
    Array([ 0.  ,  0.25, -0.5 , -0.25], dtype=float32)
    """
    n = operator.index(n)
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return _frequencies(k, n, d, dtype)


def rfftfreq(n: int, d: ArrayLike = 1.0, *, dtype: DTypeLike = None) -> Array:
    """The non-negative sample frequencies of ``rfft`` (``n // 2 + 1`` of them).

    >>> rfftfreq(4)
    Array([0.  , 0.25, 0.5 ], dtype=float32)
    """
    n = operator.index(n)
    return _frequencies(np.arange(0, n // 2 + 1), n, d, dtype)


def _shift(x: ArrayLike, axes: int | Sequence[int] | None, sign: int) -> Array:
    v = operand(x)
    ndim = get_aval(v).ndim
    chosen = (
        tuple(range(ndim)) if axes is None else (axes,) if isinstance(axes, int) else tuple(axes)
    )
    shape = get_aval(v).shape
    shifts = tuple(sign * (shape[ax] // 2) for ax in chosen)
    return roll(v, shifts, chosen)


def fftshift(x: ArrayLike, axes: int | Sequence[int] | None = None) -> Array:
    """Moves the zero frequency to the middle of each axis in ``axes`` (all by default).

    >>> fftshift(fftfreq(5))
    Array([-0.4, -0.2,  0. ,  0.2,  0.4], dtype=float32)
    """
    return _shift(x, axes, 1)


def ifftshift(x: ArrayLike, axes: int | Sequence[int] | None = None) -> Array:
    """The inverse of ``fftshift``."""
    return _shift(x, axes, -1)
