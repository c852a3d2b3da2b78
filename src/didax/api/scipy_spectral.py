"""``didax.scipy.signal``'s spectral estimates: ``csd``, ``welch``, ``stft``, ``istft``.

Design rules:
- JAX's ``_spectral_helper``: the signal is extended at its boundary,
  padded to whole segments, cut into overlapping segments (a ``vmap`` of
  ``dynamic_slice_in_dim``), detrended, windowed and Fourier transformed;
  ``istft`` inverts by overlap-and-add divided by the summed squared
  window. Values, dtypes and derivatives are JAX's.
- The Hann window is computed here (JAX's formula); any other named window
  comes from ``scipy.signal.get_window``, as in JAX (SciPy is then needed).
- Segment lengths, overlaps and FFT sizes are static Python integers.
"""

from __future__ import annotations

import functools
import importlib
import math
import operator
import warnings
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.creation import arange, linspace, zeros, zeros_like
from didax.api.numpy.elementwise import sin, where
from didax.api.numpy.fft import fft, fftfreq, ifft, irfft, rfft, rfftfreq
from didax.api.numpy.joining import repeat
from didax.api.numpy.manipulation import concatenate, moveaxis, transpose
from didax.api.numpy.more_elementwise import conjugate, imag, real
from didax.api.numpy.operands import as_result, asarray, astype, operand
from didax.api.numpy.quantiles import median
from didax.api.numpy.rearranging import flip, pad
from didax.api.numpy.reductions import sum as _sum
from didax.api.scipy_signal import detrend, promote_inexact
from didax.api.transformations import vmap
from didax.core import dtypes, lax

__all__ = ["csd", "welch", "stft", "istft"]


def _axis(axis: int, ndim: int, name: str) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}: axis {axis} is out of bounds for an array of {ndim} dimensions")
    return axis % ndim


def _rate(fs: ArrayLike) -> float | Array:
    """The sampling frequency: a Python number stays one (JAX divides by it as given)."""
    return fs if isinstance(fs, (int, float)) else as_result(operand(fs))


def _window(window: Any, nperseg: int, dtype: np.dtype[Any]) -> Array:
    """The window of ``nperseg`` points in ``dtype``: JAX's Hann, else SciPy's named one."""
    if isinstance(window, str) and window == "hann":
        if nperseg == 1:
            return asarray(np.array([1.0]), dtype)
        return astype(sin(linspace(0, np.pi, nperseg, endpoint=False)) ** 2, dtype)
    try:
        # SciPy is optional: only windows other than Hann need it, as in JAX.
        scipy_signal = importlib.import_module("scipy.signal")
    except ImportError as err:
        raise ImportError(f"scipy must be available to use window={window!r}") from err
    return asarray(np.asarray(scipy_signal.get_window(window, nperseg)), dtype)


def _triage_segments(
    window: Any, nperseg: int | None, input_length: int, dtype: np.dtype[Any]
) -> tuple[Array, int]:
    if isinstance(window, (str, tuple)):
        n = input_length if nperseg is None else int(nperseg)
        if n > input_length:
            warnings.warn(
                f"nperseg={n} is greater than input_length={input_length}, using "
                f"nperseg={input_length}",
                stacklevel=4,
            )
            n = input_length
        return _window(window, n, dtype), n
    win = asarray(window, dtype)
    n = win.size if nperseg is None else int(nperseg)
    if win.ndim != 1:
        raise ValueError("window must be 1-D")
    if input_length < win.size:
        raise ValueError("window is longer than input signal")
    if n != win.size:
        raise ValueError("value specified for nperseg is different from length of window")
    return win, n


def _pad_fn(mode: str, **kwargs: Any) -> Callable[[Array, int], Array]:
    def ext(x: Array, n: int) -> Array:
        return pad(x, [(0, 0)] * (x.ndim - 1) + [(n, n)], mode, **kwargs)

    return ext


def _odd_ext(x: Array, n: int) -> Array:
    if n < 1:
        return x
    if n > x.shape[-1] - 1:
        raise ValueError(
            f"The extension length n ({n}) is too big. It must not exceed x.shape[axis]-1, "
            f"which is {x.shape[-1] - 1}."
        )
    left, right = x[..., :1], x[..., -1:]
    left_ext = flip(x[..., 1 : n + 1], axis=-1)
    right_ext = flip(x[..., -(n + 1) : -1], axis=-1)
    return concatenate((2 * left - left_ext, x, 2 * right - right_ext), axis=-1)


_BOUNDARIES: dict[str | None, Callable[[Array, int], Array]] = {
    "even": _pad_fn("reflect"),
    "odd": _odd_ext,
    "constant": _pad_fn("edge"),
    "zeros": _pad_fn("constant", constant_values=0.0),
    None: lambda x, n: x,
}


def _segments_fft(
    x: Array,
    win: Array,
    detrend_func: Callable[[Array], Array],
    nperseg: int,
    noverlap: int,
    nfft: int,
    sides: str,
) -> Array:
    """The windowed FFT of each segment of ``x``'s last axis (segments become axis -2)."""
    if dtypes.is_integer(x.dtype):
        x = astype(x, win.dtype)
    if nperseg == 1 and noverlap == 0:
        segs = x[..., None]
    else:
        starts = arange(0, x.shape[-1] - nperseg + 1, nperseg - noverlap)
        cut = functools.partial(lax.dynamic_slice_in_dim, x, slice_size=nperseg, axis=-1)
        segs = vmap(lambda s: as_result(cut(s)), out_axes=-2)(starts)
    segs = detrend_func(segs)
    if dtypes.is_complex(win.dtype):
        segs = astype(segs, dtypes.complex_dtype(segs.dtype))
    segs = win.reshape((1,) * (x.ndim - 1) + (1, nperseg)) * segs
    if sides == "twosided":
        return fft(segs, n=nfft)
    return rfft(real(segs), n=nfft)


def _detrend_func(detrend_type: Any, axis: int) -> Callable[[Array], Array]:
    if isinstance(detrend_type, str):
        return functools.partial(detrend, type=detrend_type, axis=-1)
    if callable(detrend_type):
        user = cast(Callable[[Array], Array], detrend_type)
        # JAX moves the (already non-negative) axis of the segmented data, so
        # a user's detrend sees the axes JAX's does.
        return lambda d: moveaxis(user(moveaxis(d, axis, -1)), -1, axis)
    if not detrend_type:
        return lambda d: d
    raise ValueError(f"Unsupported detrend type: {detrend_type}")


def _spectral_helper(
    name: str,
    x: ArrayLike,
    y: ArrayLike | None,
    fs: ArrayLike,
    window: Any,
    nperseg: int | None,
    noverlap: int | None,
    nfft: int | None,
    detrend_type: Any,
    return_onesided: bool,
    scaling: str,
    axis: int,
    mode: str,
    boundary: str | None = None,
    padded: bool = False,
) -> tuple[Array, Array, Array]:
    rate = _rate(fs)
    if boundary not in _BOUNDARIES:
        raise ValueError(
            f"{name}: unknown boundary option '{boundary}', must be one of: {list(_BOUNDARIES)}"
        )
    if y is None:
        (xa,) = promote_inexact(x)
        ya = xa
        axis = _axis(axis, xa.ndim, name)
    else:
        xa, ya = promote_inexact(x, y)
        if xa.ndim != ya.ndim:
            raise ValueError(
                f"{name}: two-arguments must have the same rank ({xa.ndim} vs {ya.ndim})."
            )
        axis = _axis(axis, xa.ndim, name)
    result_dtype = dtypes.complex_dtype(xa.dtype)
    freq_dtype = dtypes.real_dtype(result_dtype)
    if nperseg is not None and int(nperseg) < 1:
        raise ValueError(f"{name}: nperseg must be a positive integer")
    win, nperseg_i = _triage_segments(window, nperseg, xa.shape[axis], xa.dtype)
    noverlap_i = nperseg_i // 2 if noverlap is None else int(noverlap)
    nfft_i = nperseg_i if nfft is None else int(nfft)
    if xa.size == 0 or ya.size == 0:
        empty = xa.shape if y is None else ya.shape
        return zeros(empty, freq_dtype), zeros(empty, freq_dtype), zeros(empty, result_dtype)
    xa = moveaxis(xa, axis, -1)
    if y is not None:
        ya = moveaxis(ya, axis, -1) if ya.ndim > 1 else ya
        if xa.shape[-1] < ya.shape[-1]:
            xa = concatenate(
                (xa, zeros_like(xa, shape=(*xa.shape[:-1], ya.shape[-1] - xa.shape[-1]))), -1
            )
        elif xa.shape[-1] > ya.shape[-1]:
            ya = concatenate(
                (ya, zeros_like(ya, shape=(*ya.shape[:-1], xa.shape[-1] - ya.shape[-1]))), -1
            )
    if nfft_i < nperseg_i:
        raise ValueError(f"{name}: nfft must be greater than or equal to nperseg.")
    if noverlap_i >= nperseg_i:
        raise ValueError(f"{name}: noverlap must be less than nperseg.")
    nstep = nperseg_i - noverlap_i
    ext = _BOUNDARIES[boundary]
    xa, ya = ext(xa, nperseg_i // 2), ext(ya, nperseg_i // 2)
    if padded:
        nadd = (-(xa.shape[-1] - nperseg_i) % nstep) % nperseg_i
        xa = concatenate((xa, zeros((*xa.shape[:-1], nadd), xa.dtype)), axis=-1)
        ya = concatenate((ya, zeros((*ya.shape[:-1], nadd), ya.dtype)), axis=-1)
    detrend_func = _detrend_func(detrend_type, axis)
    if scaling == "density":
        scale: Any = 1.0 / (rate * (win * win).sum())
    elif scaling == "spectrum":
        scale = 1.0 / win.sum() ** 2
    else:
        raise ValueError(f"{name}: unknown scaling: {scaling}")
    if mode == "stft":
        scale = scale**0.5
    scale = astype(as_result(operand(scale)), dtypes.complex_dtype(as_result(operand(scale)).dtype))
    sides = "onesided" if return_onesided else "twosided"
    if return_onesided and (dtypes.is_complex(xa.dtype) or dtypes.is_complex(ya.dtype)):
        sides = "twosided"
        warnings.warn("Input data is complex, switching to return_onesided=False", stacklevel=3)
    freqs = (fftfreq if sides == "twosided" else rfftfreq)(nfft_i, 1 / rate, dtype=freq_dtype)
    segs = functools.partial(
        _segments_fft,
        win=win,
        detrend_func=detrend_func,
        nperseg=nperseg_i,
        noverlap=noverlap_i,
        nfft=nfft_i,
        sides=sides,
    )
    result = segs(xa)
    if y is not None:
        result = conjugate(result) * segs(ya)
    elif mode == "psd":
        result = conjugate(result) * result
    result = result * scale
    if sides == "onesided" and mode == "psd":
        end = None if nfft_i % 2 else -1
        result = result.at[..., 1:end].mul(2)
    time = arange(nperseg_i / 2, xa.shape[-1] - nperseg_i / 2 + 1, nstep, dtype=freq_dtype) / rate
    if boundary is not None:
        time = time - nperseg_i / 2 / rate
    result = astype(result, result_dtype)
    if y is None and mode != "stft":
        result = real(result)
    return freqs, time, moveaxis(result, -1, axis)


def _median_bias(n: int) -> Array:
    ii_2 = arange(2.0, n, 2)
    return 1 + _sum(1.0 / (ii_2 + 1) - 1.0 / ii_2)


def csd(
    x: ArrayLike,
    y: ArrayLike | None,
    fs: ArrayLike = 1.0,
    window: Any = "hann",
    nperseg: int | None = None,
    noverlap: int | None = None,
    nfft: int | None = None,
    detrend: Any = "constant",
    return_onesided: bool = True,
    scaling: str = "density",
    axis: int = -1,
    average: str = "mean",
) -> tuple[Array, Array]:
    """The cross power spectral density of ``x`` and ``y`` by Welch's method: ``(freqs, Pxy)``."""
    freqs, _, pxy = _spectral_helper(
        "csd",
        x,
        y,
        fs,
        window,
        nperseg,
        noverlap,
        nfft,
        detrend,
        return_onesided,
        scaling,
        axis,
        mode="psd",
    )
    if y is not None:
        pxy = pxy + 0j
    if pxy.ndim >= 2 and pxy.size > 0:
        if pxy.shape[-1] > 1:
            if average == "median":
                bias = astype(_median_bias(pxy.shape[-1]), pxy.dtype)
                if dtypes.is_complex(pxy.dtype):
                    pxy = median(real(pxy), axis=-1) + 1j * median(imag(pxy), axis=-1)
                else:
                    pxy = median(pxy, axis=-1)
                pxy = pxy / bias
            elif average == "mean":
                pxy = pxy.mean(axis=-1)
            else:
                raise ValueError(f'csd: average must be "median" or "mean", got {average}')
        else:
            pxy = pxy.reshape(pxy.shape[:-1])
    return freqs, pxy


def welch(
    x: ArrayLike,
    fs: ArrayLike = 1.0,
    window: Any = "hann",
    nperseg: int | None = None,
    noverlap: int | None = None,
    nfft: int | None = None,
    detrend: Any = "constant",
    return_onesided: bool = True,
    scaling: str = "density",
    axis: int = -1,
    average: str = "mean",
) -> tuple[Array, Array]:
    """The power spectral density of ``x`` by Welch's method: ``(freqs, Pxx)``.

    >>> import numpy as np
    >>> f, p = welch(np.sin(np.arange(64.0)), nperseg=16)
    >>> f.shape, p.shape
    ((9,), (9,))
    """
    freqs, pxx = csd(
        x,
        None,
        fs=fs,
        window=window,
        nperseg=nperseg,
        noverlap=noverlap,
        nfft=nfft,
        detrend=detrend,
        return_onesided=return_onesided,
        scaling=scaling,
        axis=axis,
        average=average,
    )
    return freqs, real(pxx)


def stft(
    x: ArrayLike,
    fs: ArrayLike = 1.0,
    window: Any = "hann",
    nperseg: int = 256,
    noverlap: int | None = None,
    nfft: int | None = None,
    detrend: Any = False,
    return_onesided: bool = True,
    boundary: str | None = "zeros",
    padded: bool = True,
    axis: int = -1,
) -> tuple[Array, Array, Array]:
    """The short-time Fourier transform of ``x``: ``(freqs, times, Zxx)``."""
    return _spectral_helper(
        "stft",
        x,
        None,
        fs,
        window,
        nperseg,
        noverlap,
        nfft,
        detrend,
        return_onesided,
        scaling="spectrum",
        axis=axis,
        mode="stft",
        boundary=boundary,
        padded=padded,
    )


def _overlap_and_add(x: Array, step: int) -> Array:
    """Frames ``(..., frames, frame_length)`` summed at ``step`` apart (JAX's reshaping trick)."""
    *batch, nframes, seg_len = x.shape
    flat = math.prod(batch)
    x = x.reshape((flat, nframes, seg_len))
    out_size = step * (nframes - 1) + seg_len
    nsteps = 1 + (seg_len - 1) // step
    x = pad(x, ((0, 0), (0, 0), (0, nsteps * step - seg_len)))
    x = x.reshape((flat, nframes, nsteps, step)).transpose((0, 2, 1, 3))
    x = pad(x, ((0, 0), (0, 0), (0, nframes), (0, 0)))
    shrunk = x.shape[2] - 1
    x = x.reshape((flat, -1))[:, : nsteps * shrunk * step]
    x = x.reshape((flat, nsteps, shrunk * step)).sum(axis=1)[:, :out_size]
    return x.reshape((*batch, -1))


def istft(
    Zxx: ArrayLike,
    fs: ArrayLike = 1.0,
    window: Any = "hann",
    nperseg: int | None = None,
    noverlap: int | None = None,
    nfft: int | None = None,
    input_onesided: bool = True,
    boundary: bool = True,
    time_axis: int = -1,
    freq_axis: int = -2,
) -> tuple[Array, Array]:
    """The inverse short-time Fourier transform: ``(times, x)``."""
    z = as_result(operand(Zxx))
    if z.ndim < 2:
        raise ValueError(f"istft: input stft must be at least 2d, got shape {z.shape}")
    freq_axis = _axis(freq_axis, z.ndim, "istft")
    time_axis = _axis(time_axis, z.ndim, "istft")
    if freq_axis == time_axis:
        raise ValueError("istft: must specify differing time and frequency axes!")
    z = astype(z, dtypes.complex_dtype(z.dtype))
    n_default = 2 * (z.shape[freq_axis] - 1) if input_onesided else z.shape[freq_axis]
    nperseg_i = int(nperseg or n_default)
    if nperseg_i < 1:
        raise ValueError("istft: nperseg must be a positive integer")
    if nfft is None:
        nfft_i = n_default + 1 if input_onesided and nperseg_i == n_default + 1 else n_default
    else:
        nfft_i = int(nfft)
    if nfft_i < nperseg_i:
        raise ValueError(f"istft: FFT length ({nfft_i}) must be longer than nperseg ({nperseg_i}).")
    noverlap_i = int(noverlap or nperseg_i // 2)
    if noverlap_i >= nperseg_i:
        raise ValueError("istft: noverlap must be less than nperseg.")
    nstep = nperseg_i - noverlap_i
    if time_axis != z.ndim - 1 or freq_axis != z.ndim - 2:
        outer = tuple(i for i in range(z.ndim) if i not in {time_axis, freq_axis})
        z = transpose(z, (*outer, freq_axis, time_axis))
    xsubs = (irfft if input_onesided else ifft)(z, axis=-2, n=nfft)[..., :nperseg_i, :]
    if isinstance(window, (str, tuple)):
        win = _window(window, nperseg_i, xsubs.dtype)
    else:
        win = asarray(window)
        if win.ndim != 1:
            raise ValueError("istft: window must be 1-D")
        if win.shape[0] != nperseg_i:
            raise ValueError(f"istft: window must have length of {nperseg_i}")
    xsubs = xsubs * win.sum()
    win = as_result(lax.expand_dims(win, (*range(xsubs.ndim - 2), -1)))
    x = _overlap_and_add((xsubs * win).swapaxes(-2, -1), nstep)
    norm = _overlap_and_add(repeat(win * win, xsubs.shape[-1], axis=-1).swapaxes(-2, -1), nstep)
    if boundary:
        half = nperseg_i // 2
        x, norm = x[..., half:-half], norm[..., half:-half]
    x = x / where(norm > 1e-10, norm, 1.0)
    if x.ndim > 1 and time_axis != z.ndim - 1:
        if freq_axis < time_axis:
            time_axis -= 1
        x = moveaxis(x, -1, time_axis)
    time = arange(x.shape[0], dtype=dtypes.real_dtype(x.dtype)) / _rate(fs)
    return time, x
