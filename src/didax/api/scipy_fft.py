"""``didax.scipy.fft``: the discrete cosine transform, as ``jax.scipy.fft`` defines it.

``dct``, ``dctn``, ``idct`` and ``idctn``, of type 2 (the only type JAX has),
with ``norm`` None/``'backward'`` or ``'ortho'``.

Design rules:
- JAX's (Makhoul's) formulas: the even samples then the odd ones reversed
  (``_interleave``), one complex FFT, a twiddle ``exp(-i pi k / 2N)``; the
  two-axis transform is one ``fftn`` with both twiddles; more axes go two
  at a time. The inverse runs the steps backwards. Values and dtypes are
  JAX's, and so are the derivatives (everything is linear primitives).
- Complex input transforms its real and imaginary parts apart, as JAX's.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import TypeAlias, TypeVar

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.creation import arange, zeros
from didax.api.numpy.decompositions import inexact
from didax.api.numpy.elementwise import exp
from didax.api.numpy.fft import fft, fftn, ifft
from didax.api.numpy.operands import as_result, astype, normalize_axes, operand
from didax.api.numpy.rearranging import flip, roll
from didax.core import dtypes, lax

__all__ = ["dct", "dctn", "idct", "idctn"]


def _w4(n: int, k: Array) -> Array:
    """The twiddle ``exp(-i pi k / (2 n))``, complex."""
    ck = astype(k, dtypes.complex_dtype(k.dtype))
    return exp(-0.5j * np.pi * ck / n)


def _interleave(x: Array, axis: int) -> Array:
    evens = lax.slice_in_dim(x, None, None, 2, axis)
    odds = lax.rev(lax.slice_in_dim(x, 1, None, 2, axis), (axis,))
    return as_result(lax.concatenate([evens, odds], axis))


def _deinterleave(x: Array, axis: int) -> Array:
    half = math.ceil(x.shape[axis] / 2)
    front = lax.slice_in_dim(x, 0, half, 1, axis)
    back = lax.rev(lax.slice_in_dim(x, half, None, 1, axis), (axis,))
    whole = (slice(None),) * axis
    out = zeros(x.shape, dtype=x.dtype)
    out = out.at[(*whole, slice(None, None, 2))].set(front)
    return as_result(out.at[(*whole, slice(1, None, 2))].set(back))


def _ortho(out: Array, axis: int) -> Array:
    factor = lax.concatenate(
        [lax.full((1,), 4, out.dtype), lax.full((out.shape[axis] - 1,), 2, out.dtype)], 0
    )
    factor = lax.expand_dims(factor, [a for a in range(out.ndim) if a != axis])
    return as_result(out / lax.sqrt(factor * out.shape[axis]))


def _along(x: Array, axis: int) -> Array:
    """``arange(x.shape[axis])`` shaped to broadcast along ``axis`` of ``x``."""
    k = arange(x.shape[axis], dtype=dtypes.real_dtype(x.dtype))
    return as_result(lax.expand_dims(k, [a for a in range(x.ndim) if a != axis]))


def _check(name: str, type_: int, norm: str | None) -> None:
    if type_ != 2:
        raise NotImplementedError(f"{name}: only DCT type 2 is implemented, got type={type_}")
    if norm is not None and norm not in ("backward", "ortho"):
        raise ValueError(f"{name}: norm={norm!r} is not implemented")


def _pad_to(x: Array, sizes: dict[int, int]) -> Array:
    config = [(0, sizes[a] - x.shape[a] if a in sizes else 0, 0) for a in range(x.ndim)]
    return as_result(lax.pad(x, np.zeros((), x.dtype), config))


def _complex_parts(fn: Callable[[Array], Array], x: Array) -> Array:
    return as_result(lax.complex(fn(x.real), fn(x.imag)))


_Size = TypeVar("_Size")
_Axes = TypeVar("_Axes")
# A transform's core: a real operand, its size and axis arguments, the norm.
_Core: TypeAlias = Callable[[Array, _Size, _Axes, "str | None"], Array]


def _transform(
    name: str,
    core: _Core[_Size, _Axes],
    x: ArrayLike,
    type_: int,
    size: _Size,
    axes: _Axes,
    norm: str | None,
) -> Array:
    """What the four transforms share: the checks, then ``core`` (apart on complex parts)."""
    _check(name, type_, norm)
    xa = as_result(operand(x))
    if dtypes.is_complex(xa.dtype):
        return _complex_parts(lambda p: core(p, size, axes, norm), xa)
    return core(xa, size, axes, norm)


def _one_axis(name: str, x: Array, n: int | None, axis: int) -> tuple[Array, int]:
    """``x`` zero-padded to ``n`` along ``axis``, and ``axis`` normalized."""
    axis = normalize_axes(axis, x.ndim, name)[0]
    return (x if n is None else _pad_to(x, {axis: n})), axis


def _axes_and_sizes(
    name: str, x: Array, s: Sequence[int] | int | None, axes: Sequence[int] | None
) -> tuple[tuple[int, ...], list[int] | None]:
    sizes: list[int] | None = None
    if s is not None:
        sizes = list(s) if isinstance(s, Sequence) else [operator.index(s)]
        if len(sizes) > x.ndim:
            raise ValueError(
                f"{name}: s must have at most x.ndim ({x.ndim}) elements, got {len(sizes)}"
            )
    if axes is None:
        count = x.ndim if sizes is None else len(sizes)
        return tuple(range(x.ndim - count, x.ndim)), sizes
    return normalize_axes(axes, x.ndim, name), sizes


def _many_axes(
    name: str,
    one: _Core[int | None, int],
    rest: Callable[[Array, tuple[int, ...], str | None], Array],
) -> _Core[Sequence[int] | None, Sequence[int] | None]:
    """An n-dimensional core: ``one`` over a single axis, else ``rest`` over the padded operand."""

    def core(
        x: Array, s: Sequence[int] | None, axes: Sequence[int] | None, norm: str | None
    ) -> Array:
        ax, sizes = _axes_and_sizes(name, x, s, axes)
        if len(ax) == 1:
            return one(x, sizes[0] if sizes is not None else None, ax[0], norm)
        if sizes is not None:
            x = _pad_to(x, dict(zip(ax, sizes, strict=False)))
        return rest(x, ax, norm)

    return core


def _dct(x: Array, n: int | None, axis: int, norm: str | None) -> Array:
    x, axis = _one_axis("dct", x, n, axis)
    size = x.shape[axis]
    spectrum = fft(_interleave(x, axis), axis=axis)
    out = 2 * (spectrum * _w4(size, _along(spectrum, axis))).real
    return _ortho(out, axis) if norm == "ortho" else out


def dct(
    x: ArrayLike,
    type: int = 2,  # noqa: A002  (SciPy's name)
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
) -> Array:
    """The discrete cosine transform of type 2 of ``x`` along ``axis`` (zero-padded to ``n``).

    >>> import numpy as np
    >>> dct(np.array([1.0, 2.0, 3.0, 4.0])).round(4)
    Array([20.    , -6.3086,  0.    , -0.4483], dtype=float32)
    """
    return _transform("dct", _dct, x, type, n, axis, norm)


def _dct2(x: Array, axes: tuple[int, int], norm: str | None) -> Array:
    a1, a2 = axes
    n1, n2 = x.shape[a1], x.shape[a2]
    spectrum = fftn(_interleave(_interleave(x, a1), a2), axes=axes)
    k1 = astype(_along(spectrum, a1), spectrum.dtype)
    k2 = astype(_along(spectrum, a2), spectrum.dtype)
    out = _w4(n1, k1) * (
        _w4(n2, k2) * spectrum + _w4(n2, -k2) * roll(flip(spectrum, axis=a2), shift=1, axis=a2)
    )
    out = 2 * out.real
    return _ortho(_ortho(out, a1), a2) if norm == "ortho" else out


def _dctn_rest(x: Array, axes: tuple[int, ...], norm: str | None) -> Array:
    if len(axes) == 2:
        return _dct2(x, (axes[0], axes[1]), norm)
    for i in range(0, len(axes), 2):
        x = dctn(x, axes=axes[i : i + 2], norm=norm)
    return x


def dctn(
    x: ArrayLike,
    type: int = 2,  # noqa: A002  (SciPy's name)
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str | None = None,
) -> Array:
    """The multidimensional discrete cosine transform of type 2 of ``x`` over ``axes``."""
    return _transform("dctn", _many_axes("dctn", _dct, _dctn_rest), x, type, s, axes, norm)


def _idct(x: Array, n: int | None, axis: int, norm: str | None) -> Array:
    x, axis = _one_axis("idct", x, n, axis)
    size = x.shape[axis]
    x = inexact(x)
    if norm is None or norm == "backward":
        x = _ortho(x, axis)
    x = _ortho(x, axis)
    w4 = _w4(size, _along(x, axis))
    spectrum = astype(x, w4.dtype) / w4 * 2 * size
    return _deinterleave(ifft(spectrum, axis=axis).real, axis)


def idct(
    x: ArrayLike,
    type: int = 2,  # noqa: A002  (SciPy's name)
    n: int | None = None,
    axis: int = -1,
    norm: str | None = None,
) -> Array:
    """The inverse of ``dct`` (type 2) along ``axis``.

    >>> import numpy as np
    >>> idct(dct(np.array([1.0, 2.0, 3.0, 4.0]))).round(6)
    Array([1., 2., 3., 4.], dtype=float32)
    """
    return _transform("idct", _idct, x, type, n, axis, norm)


def _idctn_rest(x: Array, axes: tuple[int, ...], norm: str | None) -> Array:
    for a in axes:
        x = _idct(x, None, a, norm)
    return x


def idctn(
    x: ArrayLike,
    type: int = 2,  # noqa: A002  (SciPy's name)
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: str | None = None,
) -> Array:
    """The inverse of ``dctn`` (type 2) over ``axes``."""
    return _transform("idctn", _many_axes("idctn", _idct, _idctn_rest), x, type, s, axes, norm)
