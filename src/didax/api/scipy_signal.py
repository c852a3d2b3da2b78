"""``didax.scipy.signal``: convolutions and detrending, as ``jax.scipy.signal`` defines them.

``convolve``, ``correlate``, ``convolve2d``, ``correlate2d``,
``fftconvolve`` and ``detrend``; the spectral estimates (``csd``,
``welch``, ``stft``, ``istft``) are in ``api.scipy_spectral``.

Design rules:
- JAX's formulas: the direct convolutions are one
  ``lax.conv_general_dilated`` of the flipped kernel over a batch and a
  feature of one (so they differentiate and batch through its rules);
  ``fftconvolve`` multiplies (real) FFTs and slices the mode's window out;
  ``detrend`` subtracts a least-squares line per segment between break
  points.
- Operands promote to an inexact dtype, as JAX's; SciPy's ``boundary`` and
  ``fillvalue`` are accepted only at their defaults, as in JAX.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.creation import arange, ones
from didax.api.numpy.fft import fftn, ifftn, irfftn, rfftn
from didax.api.numpy.joining import vstack
from didax.api.numpy.linalg import lstsq
from didax.api.numpy.linear_algebra import matmul
from didax.api.numpy.manipulation import moveaxis
from didax.api.numpy.operands import as_result, asarray, astype, normalize_axes, operand
from didax.api.numpy.rearranging import flip
from didax.api.transformations import vmap
from didax.core import dtypes, lax
from didax.core.lax.precision import Precision, PrecisionLike

__all__ = ["convolve", "correlate", "convolve2d", "correlate2d", "fftconvolve", "detrend"]

ModeString = Literal["full", "same", "valid"]
_MODES = ("full", "same", "valid")


def promote_inexact(*args: ArrayLike) -> list[Array]:
    """The arguments as Arrays of their common inexact dtype (JAX's ``promote_dtypes_inexact``)."""
    vals = [as_result(operand(a)) for a in args]
    dtype, weak = dtypes.result_type((v.dtype, v.weak_type) for v in vals)
    dtype = dtypes.to_inexact(dtype)
    return [astype(v, dtype, weak) for v in vals]


def _swap_order(name: str, in1: Array, in2: Array, why: str) -> bool:
    """Whether ``in2`` is the larger in every axis (so the two swap), refusing a mixed pair."""
    no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
    if not (no_swap or swap):
        raise ValueError(f"{name}: {why}, got shapes {in1.shape} and {in2.shape}")
    return swap


def _fftconvolve_unbatched(in1: Array, in2: Array, mode: str) -> Array:
    full_shape = tuple(s1 + s2 - 1 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
    if mode == "valid" and _swap_order(
        "fftconvolve",
        in1,
        in2,
        "for 'valid' mode one input must be at least as large as the other in every dimension",
    ):
        in1, in2 = in2, in1
    if all(s1 == 1 or s2 == 1 for s1, s2 in zip(in1.shape, in2.shape, strict=True)):
        conv = in1 * in2
    elif dtypes.is_complex(in1.dtype):
        conv = ifftn(fftn(in1, full_shape) * fftn(in2, full_shape), full_shape)
    else:
        conv = irfftn(rfftn(in1, full_shape) * rfftn(in2, full_shape), full_shape)
    if mode == "full":
        out_shape = full_shape
    elif mode == "same":
        out_shape = in1.shape
    else:
        out_shape = tuple(s1 - s2 + 1 for s1, s2 in zip(in1.shape, in2.shape, strict=True))
    starts = [(f - o) // 2 for f, o in zip(full_shape, out_shape, strict=True)]
    return as_result(lax.dynamic_slice(conv, starts, out_shape))


def fftconvolve(
    in1: ArrayLike, in2: ArrayLike, mode: ModeString = "full", axes: Sequence[int] | None = None
) -> Array:
    """The N-dimensional convolution of ``in1`` and ``in2`` through FFTs.

    With ``axes``, only those axes are convolved; the others (of one size
    in both) are mapped over.

    >>> import numpy as np
    >>> fftconvolve(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5])).round(4)
    Array([0. , 1. , 2.5, 4. , 1.5], dtype=float32)
    """
    a, b = promote_inexact(in1, in2)
    if a.ndim != b.ndim:
        raise ValueError(
            f"fftconvolve: in1 and in2 should have the same dimensionality, got "
            f"shapes {a.shape} and {b.shape}"
        )
    if mode not in _MODES:
        raise ValueError(f"fftconvolve: mode must be one of {list(_MODES)}, got {mode!r}")
    fn: Callable[[Array, Array], Array] = functools.partial(_fftconvolve_unbatched, mode=mode)
    if axes is None:
        return fn(a, b)
    conv_axes = normalize_axes(axes, a.ndim, "fftconvolve")
    mapped = sorted(set(range(a.ndim)) - set(conv_axes))
    if any(a.shape[i] != b.shape[i] for i in mapped):
        raise ValueError(
            f"fftconvolve: mapped axes must have same shape; got in1.shape={a.shape} "
            f"in2.shape={b.shape} axes={conv_axes}"
        )
    for ax in mapped:
        fn = vmap(fn, in_axes=ax, out_axes=ax)
    return fn(a, b)


def _convolve_nd(
    name: str, in1: ArrayLike, in2: ArrayLike, mode: str, precision: PrecisionLike
) -> Array:
    if mode not in _MODES:
        raise ValueError(f"{name}: mode must be one of {list(_MODES)}, got {mode!r}")
    a, b = promote_inexact(in1, in2)
    if a.ndim != b.ndim:
        raise ValueError(
            f"{name}: in1 and in2 must have the same number of dimensions, got "
            f"shapes {a.shape} and {b.shape}"
        )
    if a.size == 0 or b.size == 0:
        raise ValueError(
            f"{name}: zero-size arrays not supported in convolutions, got shapes "
            f"{a.shape} and {b.shape}"
        )
    shape_o = b.shape
    if _swap_order(name, a, b, "one input must be smaller than the other in every dimension"):
        a, b = b, a
    shape = b.shape
    kernel = flip(b)
    if mode == "valid":
        padding = [(0, 0) for _ in shape]
    elif mode == "same":
        padding = [
            (s - 1 - (s_o - 1) // 2, s - s_o + (s_o - 1) // 2)
            for s, s_o in zip(shape, shape_o, strict=True)
        ]
    else:
        padding = [(s - 1, s - 1) for s in shape]
    out = lax.conv_general_dilated(
        a[None, None], kernel[None, None], (1,) * len(shape), padding, precision=precision
    )
    return as_result(out)[0, 0]


def convolve(
    in1: ArrayLike,
    in2: ArrayLike,
    mode: ModeString = "full",
    method: str = "auto",
    precision: PrecisionLike = None,
) -> Array:
    """The N-dimensional convolution of ``in1`` and ``in2`` (``method`` 'auto', 'direct' or 'fft').

    >>> import numpy as np
    >>> convolve(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]), mode="same")
    Array([1. , 2.5, 4. ], dtype=float32)
    """
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method in ("direct", "auto"):
        return _convolve_nd("convolve", in1, in2, mode, precision)
    raise ValueError(f"convolve: got method={method!r}; expected 'auto', 'fft', or 'direct'.")


def _check_2d(name: str, in1: ArrayLike, in2: ArrayLike, boundary: str, fillvalue: float) -> None:
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError(
            f"{name}() only supports 2-dimensional inputs, got shapes "
            f"{np.shape(in1)} and {np.shape(in2)}"
        )


def convolve2d(
    in1: ArrayLike,
    in2: ArrayLike,
    mode: ModeString = "full",
    boundary: str = "fill",
    fillvalue: float = 0,
    precision: PrecisionLike = None,
) -> Array:
    """The two-dimensional convolution of ``in1`` and ``in2`` (zero fill only, as JAX's)."""
    _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _convolve_nd("convolve2d", in1, in2, mode, precision)


def correlate(
    in1: ArrayLike,
    in2: ArrayLike,
    mode: ModeString = "full",
    method: str = "auto",
    precision: PrecisionLike = None,
) -> Array:
    """The N-dimensional cross-correlation of ``in1`` and ``in2``: ``in1`` convolved with
    ``in2`` conjugated and flipped.

    >>> import numpy as np
    >>> correlate(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]))
    Array([0.5, 2. , 3.5, 3. , 0. ], dtype=float32)
    """
    kernel = flip(as_result(operand(in2)).conj())
    return convolve(in1, kernel, mode, precision=precision, method=method)


def correlate2d(
    in1: ArrayLike,
    in2: ArrayLike,
    mode: ModeString = "full",
    boundary: str = "fill",
    fillvalue: float = 0,
    precision: PrecisionLike = None,
) -> Array:
    """The two-dimensional cross-correlation of ``in1`` and ``in2`` (zero fill only, as JAX's)."""
    _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    a, b = as_result(operand(in1)), as_result(operand(in2))
    swap = all(s1 <= s2 for s1, s2 in zip(a.shape, b.shape, strict=True))
    same_shape = a.shape == b.shape
    conv = functools.partial(_convolve_nd, "correlate2d", mode=mode, precision=precision)
    # JAX's case analysis: which operand is flipped decides where the result
    # is anchored, so each mode flips the one that keeps SciPy's alignment.
    if mode == "same":
        return flip(conv(flip(a), b.conj()))
    if mode == "valid":
        if swap and not same_shape:
            return conv(flip(b), a.conj())
        return flip(conv(flip(a), b.conj()))
    if swap:
        return conv(flip(b), a.conj()).conj()
    return flip(conv(flip(a), b.conj()))


def detrend(
    data: ArrayLike,
    axis: int = -1,
    type: str = "linear",  # noqa: A002  (SciPy's name)
    bp: int | Sequence[int] | np.ndarray = 0,
    overwrite_data: None = None,
) -> Array:
    """``data`` less its trend along ``axis``: its mean (``'constant'``) or a least-squares
    line on each piece between the break points ``bp`` (``'linear'``).

    >>> import numpy as np
    >>> detrend(np.array([1.0, 2.0, 3.0, 4.0]) + np.array([0.0, 1.0, 0.0, 1.0])).round(5)
    Array([-0.2,  0.6, -0.6,  0.2], dtype=float32)
    """
    if overwrite_data is not None:
        raise NotImplementedError("detrend: overwrite_data argument not implemented.")
    if type not in ("constant", "linear"):
        raise ValueError(f"detrend: trend type must be 'linear' or 'constant', got {type!r}")
    (x,) = promote_inexact(data)
    if type == "constant":
        return x - x.mean(axis, keepdims=True)
    n = x.shape[axis]
    bps = np.sort(np.unique(np.r_[0, bp, n]))
    if bps[0] < 0 or bps[-1] > n:
        raise ValueError(
            "detrend: breakpoints must be non-negative and less than length of data along "
            f"given axis, got {bp}"
        )
    x = moveaxis(x, axis, 0)
    shape = x.shape
    x = x.reshape(n, -1)
    for lo, hi in itertools.pairwise(bps):
        npts = int(hi - lo)
        design = vstack(
            [ones(npts, dtype=x.dtype), arange(1, npts + 1, dtype=x.dtype) / asarray(npts, x.dtype)]
        ).T
        coef = lstsq(design, x[lo:hi])[0]
        x = x.at[lo:hi].add(-matmul(design, coef, precision=Precision.HIGHEST))
    return moveaxis(x.reshape(shape), 0, axis)
