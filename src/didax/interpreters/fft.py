"""The interpreters' rules for ``fft_p`` (``core.lax.fft``): impl, jvp, transpose, batching, flops.

Design rules:
- The impl runs the primitive as a one-primitive XLA program
  (``interpreters.special.by_xla``): eager values are XLA's (JAX's), bit
  for bit, rather than NumPy's pocketfft's, which round differently.
- The transform is linear, so its jvp is itself on the tangent. Its
  transposes are JAX's: ``FFT`` and ``IFFT`` are symmetric (their own
  transposes); ``RFFT``'s is the transpose of the full ``FFT`` of a real
  operand cropped to ``n // 2 + 1`` frequencies (zero-pad, ``FFT``, real
  part); ``IRFFT``'s is ``conj(RFFT(ct) * mask / prod(fft_lengths))``, the
  mask doubling the frequencies that stand for two (JAX's rule and its
  convention for complex cotangents).
- Batching moves the batch axis to the front: the transform acts on the
  trailing axes.
- Flops are XLA's cost analysis: ``8 * prod(floor(log2 n))`` per operand
  element (4 complex multiply-adds per element and level), whatever the kind.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Unpack

import numpy as np

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import Value
from didax.core.lax.fft import FftParams, FftType, fft_p
from didax.core.values import get_aval
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front
from didax.interpreters.flops import FLOPS_RULES, Cost, Operand
from didax.interpreters.jvp import JVP_RULES, instantiate_zeros
from didax.interpreters.transpose import TRANSPOSE_RULES, UndefinedPrimal

__all__: list[str] = []


@JVP_RULES.defines(fft_p)
def _fft_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], **params: Unpack[FftParams]
) -> tuple[Any, Any]:
    # Linear: the transform of the tangent.
    (x,), (t,) = primals, tangents
    return fft_p.bind(x, **params), fft_p.bind(instantiate_zeros(t), **params)


def _rfft_transpose(ct: Value, fft_lengths: tuple[int, ...]) -> Value:
    # RFFT(x) = FFT(complex(x))[..., : n // 2 + 1]: transpose the crop (a zero
    # pad), then the FFT (itself), then the conversion to complex (the real part).
    aval = get_aval(ct)
    n = fft_lengths[-1]
    pad = [(0, 0, 0)] * (aval.ndim - 1) + [(0, n - aval.shape[-1], 0)]
    padded = lax.pad(ct, lax.full((), 0, aval.dtype), pad)
    full = fft_p.bind(padded, fft_type=FftType.FFT, fft_lengths=fft_lengths)
    out: Value = lax.real(full)
    return out


def _irfft_transpose(ct: Value, fft_lengths: tuple[int, ...]) -> Value:
    x = fft_p.bind(ct, fft_type=FftType.RFFT, fft_lengths=fft_lengths)
    aval = get_aval(x)
    m = aval.shape[-1]
    odd = fft_lengths[-1] % 2
    # Frequencies 1 .. m - 1 (m - 2 of them with an even length: the last,
    # Nyquist, stands for one) appear twice in the full spectrum.
    weights = ([1.0] + [2.0] * (m - 2 + odd) + [1.0] * (1 - odd))[:m]
    mask = np.asarray(weights, aval.dtype)
    scale = 1.0 / math.prod(fft_lengths)
    scaled = lax.mul(lax.mul(x, lax.broadcast_in_dim(mask, aval.shape, (aval.ndim - 1,))), scale)
    out: Value = lax.conj(scaled)
    return out


@TRANSPOSE_RULES.defines(fft_p)
def _fft_transpose(
    ct: Value, x: UndefinedPrimal, *, fft_type: FftType, fft_lengths: tuple[int, ...]
) -> list[Any]:
    if fft_type == FftType.RFFT:
        return [_rfft_transpose(ct, fft_lengths)]
    if fft_type == FftType.IRFFT:
        return [_irfft_transpose(ct, fft_lengths)]
    return [fft_p.bind(ct, fft_type=fft_type, fft_lengths=fft_lengths)]


@BATCH_RULES.defines(fft_p)
def _fft_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], **params: Unpack[FftParams]
) -> tuple[Any, Dim]:
    # The transform acts on the trailing axes: the batch axis goes in front.
    (x,), (d,) = args, dims
    return fft_p.bind(bdim_at_front(x, d, axis_size), **params), 0


@FLOPS_RULES.defines(fft_p)
def _fft_flops(
    operands: Sequence[Operand],
    out_avals: Sequence[ShapedArray],
    /,
    *,
    fft_type: FftType,
    fft_lengths: tuple[int, ...],
) -> Cost:
    levels = math.prod(max(n, 1).bit_length() - 1 for n in fft_lengths)
    return Cost(8 * levels * operands[0].aval.size, 0)
