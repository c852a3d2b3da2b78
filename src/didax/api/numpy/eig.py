"""``didax.numpy.linalg``'s general eigendecomposition: ``eig`` and ``eigvals``.

Design rules:
- Each is the ``eig`` primitive (``core.lax.eig``, LAPACK's ``geev``) on an
  inexact operand (integers become floats, as JAX's
  ``promote_dtypes_inexact``), so it differentiates, batches and compiles
  through that primitive's rules: ``eigvals`` asks for no eigenvectors,
  ``eig`` for the right ones only, as JAX's.
- Results are always complex (complex64 for 32-bit operands, complex128 for
  64-bit ones), as JAX's and unlike NumPy's (real where every eigenvalue
  is); ``eig`` gives JAX's ``EigResult`` named tuple. ``api.numpy.linalg``
  re-exports these.
"""

from __future__ import annotations

from typing import NamedTuple

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.decompositions import inexact
from didax.core.lax import eig as lax_eig

__all__ = ["EigResult", "eig", "eigvals"]


class EigResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


def eig(a: ArrayLike) -> EigResult:
    """The eigenvalues and right eigenvectors (columns, unit norm) of square matrices.

    >>> w, v = eig(np.array([[2.0, 1.0], [0.0, 3.0]]))
    >>> w
    Array([2.+0.j, 3.+0.j], dtype=complex64)
    """
    w, v = lax_eig.eig(inexact(a), compute_left_eigenvectors=False)
    return EigResult(w, v)


def eigvals(a: ArrayLike) -> Array:
    """The eigenvalues of square matrices (complex).

    >>> eigvals(np.array([[0.0, -1.0], [1.0, 0.0]]))
    Array([0.+1.j, 0.-1.j], dtype=complex64)
    """
    (w,) = lax_eig.eig(
        inexact(a), compute_left_eigenvectors=False, compute_right_eigenvectors=False
    )
    out: Array = w
    return out
