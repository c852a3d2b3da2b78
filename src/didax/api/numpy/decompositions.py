"""``didax.numpy.linalg``'s decompositions (``cholesky``, ``qr``, ``svd``, ``eigh``).

Design rules:
- Each is one primitive of ``core.lax.linalg`` on an inexact operand
  (integers become floats, ``dtypes.to_inexact``), so it differentiates,
  batches and compiles through that primitive's rules; results are JAX's
  named tuples.
- The helpers every linalg routine shares (``inexact``,
  ``conj_transpose``) live here, below ``api.numpy.linalg``, which builds
  its solves, determinants and norms on these decompositions.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, overload

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.manipulation import swapaxes
from didax.api.numpy.more_elementwise import conj
from didax.api.numpy.operands import astype, operand
from didax.core import dtypes
from didax.core.lax import linalg as lax_linalg
from didax.core.values import get_aval

__all__ = [
    "EighResult",
    "QRResult",
    "SVDResult",
    "SlogdetResult",
    "cholesky",
    "conj_transpose",
    "eigh",
    "eigvalsh",
    "inexact",
    "qr",
    "svd",
]


# --- results ---------------------------------------------------------------------------------


class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


# --- helpers -----------------------------------------------------------------------------------


def inexact(x: ArrayLike) -> Array:
    """``x`` as an operand of an inexact dtype (integers become floats)."""
    v = operand(x)
    out: Array = astype(v, dtypes.to_inexact(get_aval(v).dtype))
    return out


def conj_transpose(x: ArrayLike) -> Array:
    """The conjugate transpose of the last two axes (the transpose, for real dtypes)."""
    return conj(swapaxes(x, -1, -2))


# --- decompositions ------------------------------------------------------------------------


def cholesky(a: ArrayLike, *, upper: bool = False, symmetrize_input: bool = True) -> Array:
    """The Cholesky factor: lower ``L`` with ``a = L @ L^H`` (``L^H`` when ``upper``).

    >>> cholesky(np.array([[4.0, 2.0], [2.0, 5.0]]))
    Array([[2., 0.],
           [1., 2.]], dtype=float32)
    """
    factor: Array = lax_linalg.cholesky(inexact(a), symmetrize_input=symmetrize_input)
    return conj_transpose(factor) if upper else factor


@overload
def qr(a: ArrayLike, mode: Literal["reduced", "complete"] = "reduced") -> QRResult: ...
@overload
def qr(a: ArrayLike, mode: Literal["r"]) -> Array: ...
@overload
def qr(a: ArrayLike, mode: str) -> QRResult | Array: ...
def qr(a: ArrayLike, mode: str = "reduced") -> QRResult | Array:
    """QR decomposition; ``mode`` is ``"reduced"``, ``"complete"`` or ``"r"`` (R alone).

    >>> qr(np.array([[3.0, 1.0], [4.0, 2.0]]), mode="r")
    Array([[-5.        , -2.2       ],
           [ 0.        ,  0.39999998]], dtype=float32)
    """
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax_linalg.qr(inexact(a), full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


@overload
def svd(
    a: ArrayLike,
    full_matrices: bool = True,
    compute_uv: Literal[True] = True,
    hermitian: bool = False,
) -> SVDResult: ...
@overload
def svd(
    a: ArrayLike, full_matrices: bool, compute_uv: Literal[False], hermitian: bool = False
) -> Array: ...
@overload
def svd(
    a: ArrayLike, full_matrices: bool = True, *, compute_uv: Literal[False], hermitian: bool = False
) -> Array: ...
def svd(
    a: ArrayLike, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False
) -> SVDResult | Array:
    """Singular value decomposition ``(U, S, Vh)``, or ``S`` alone; ``S`` descending.

    >>> svd(np.array([[3.0, 0.0], [0.0, -4.0]]), compute_uv=False)
    Array([4., 3.], dtype=float32)
    """
    v = inexact(a)
    if not compute_uv:
        out: Array = lax_linalg.svd(v, full_matrices=full_matrices, compute_uv=False)
        return out
    u, s, vh = lax_linalg.svd(v, full_matrices=full_matrices, compute_uv=True)
    return SVDResult(u, s, vh)


def eigh(a: ArrayLike, UPLO: str | None = None, symmetrize_input: bool = True) -> EighResult:
    """Eigenvalues (ascending) and eigenvectors (columns) of symmetric matrices.

    >>> eigh(np.array([[2.0, 1.0], [1.0, 2.0]])).eigenvalues
    Array([1., 3.], dtype=float32)
    """
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be 'L' or 'U', got {UPLO!r}")
    v, w = lax_linalg.eigh(inexact(a), lower=UPLO in (None, "L"), symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigvalsh(a: ArrayLike, UPLO: str | None = "L", *, symmetrize_input: bool = True) -> Array:
    """The eigenvalues (ascending) of symmetric matrices.

    >>> eigvalsh(np.array([[2.0, 1.0], [1.0, 2.0]]))
    Array([1., 3.], dtype=float32)
    """
    return eigh(a, UPLO, symmetrize_input).eigenvalues
