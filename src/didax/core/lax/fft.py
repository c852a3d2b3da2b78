"""The fast Fourier transform primitive: declaration, typing rule, ``didax.lax.fft`` wrapper.

``fft_p`` is JAX's ``fft`` primitive and XLA's ``Fft`` op: a transform of
the trailing ``len(fft_lengths)`` axes (one to three), of one of four
kinds (``FftType``):

- ``FFT`` / ``IFFT``: complex to complex, of the same shape (``IFFT`` is
  scaled by ``1 / prod(fft_lengths)``, as NumPy's ``ifft``).
- ``RFFT``: real to complex; the last axis, of length ``n``, becomes
  ``n // 2 + 1`` (the other half is the conjugate mirror).
- ``IRFFT``: complex to real, its inverse; the last axis becomes
  ``fft_lengths[-1]``.

The interpreters' rules are in ``interpreters.fft``, the lowering
(``stablehlo.fft``) in ``lowering.fft``; ``didax.numpy.fft`` builds NumPy's
functions (padding, cropping, axes, norms) from this one primitive.

Design rules:
- Types are XLA's: ``RFFT`` takes float32 or float64 and gives complex64
  or complex128; the others take complex operands. The transformed axes
  must equal ``fft_lengths`` (for ``IRFFT``, all but the last, whose
  length is ``fft_lengths[-1] // 2 + 1``): the wrappers above crop or pad.
- ``fft_type`` is an ``FftType`` member and ``fft_lengths`` a tuple of ints,
  so that params have one spelling (fingerprints and caches stay exact).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Final, TypedDict

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, dtype_failure, shape_failure
from didax.core.basearray import Value
from didax.core.primitive import Primitive
from didax.core.values import ArrayLike, as_array, is_python_scalar

__all__ = ["FftType", "fft_p", "fft"]


class FftType(enum.IntEnum):
    """The kind of transform (XLA's ``FftType``, JAX's ``lax.FftType``)."""

    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3

    def __repr__(self) -> str:
        return f"FftType.{self.name}"

    __str__ = __repr__


fft_p: Final = Primitive("fft")


class FftParams(TypedDict):
    """``fft_p``'s params, as its rules receive them (``**params: Unpack[FftParams]``)."""

    fft_type: FftType
    fft_lengths: tuple[int, ...]


@ABSTRACT_EVAL.defines(fft_p)
def _fft_abstract_eval(
    x: ShapedArray, *, fft_type: FftType, fft_lengths: tuple[int, ...]
) -> ShapedArray:
    k = len(fft_lengths)
    if not 1 <= k <= 3:
        raise shape_failure(f"fft_lengths must have 1 to 3 entries, got {fft_lengths}")
    if x.ndim < k:
        raise shape_failure(f"the operand has rank {x.ndim}, fewer than {k} transformed axes")
    if any(n < 0 for n in fft_lengths):
        raise shape_failure(f"fft_lengths must be non-negative, got {fft_lengths}")
    lead, tail = x.shape[: x.ndim - k], x.shape[x.ndim - k :]
    if fft_type == FftType.RFFT:
        if x.dtype not in (dtypes.float32, dtypes.float64):
            raise dtype_failure(f"RFFT takes float32 or float64 operands, got {x.dtype}")
        if tail != fft_lengths:
            raise shape_failure(f"the transformed axes {tail} must equal fft_lengths")
        shape = (*lead, *fft_lengths[:-1], fft_lengths[-1] // 2 + 1)
        return ShapedArray(shape, dtypes.complex_dtype(x.dtype))
    if not dtypes.is_complex(x.dtype):
        raise dtype_failure(f"{fft_type.name} takes complex operands, got {x.dtype}")
    if fft_type == FftType.IRFFT:
        want = (*fft_lengths[:-1], fft_lengths[-1] // 2 + 1)
        if tail != want:
            raise shape_failure(f"the transformed axes {tail} must be {want} for IRFFT")
        return ShapedArray((*lead, *fft_lengths), dtypes.real_dtype(x.dtype))
    if tail != fft_lengths:
        raise shape_failure(f"the transformed axes {tail} must equal fft_lengths")
    return ShapedArray(x.shape, x.dtype)


def fft(x: ArrayLike, fft_type: FftType | str, fft_lengths: Sequence[int]) -> Value:
    """XLA's FFT of the trailing ``len(fft_lengths)`` axes of ``x`` (JAX's ``lax.fft``).

    >>> import numpy as np
    >>> fft(np.array([1.0, 2.0, 3.0, 4.0]), "RFFT", (4,))
    Array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)
    """
    kind = FftType[fft_type.upper()] if isinstance(fft_type, str) else FftType(fft_type)
    if is_python_scalar(x):
        x = as_array(x)
    out: Value = fft_p.bind(x, fft_type=kind, fft_lengths=tuple(int(n) for n in fft_lengths))
    return out
