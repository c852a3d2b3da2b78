"""The general eigendecomposition primitive ``eig``: declaration, typing rule, wrapper.

JAX's ``jax.lax.linalg.eig``: the eigenvalues, and optionally the left and
right eigenvectors, of square (not necessarily symmetric) matrices, by
LAPACK's ``geev``. Leading axes are batch axes, as for the other
decompositions (``core.lax.linalg``). The interpreters' rules are in
``interpreters.eig``, the lowering in ``lowering.eig``; ``didax.lax.linalg``
re-exports the wrapper and the primitive.

Design rules:
- Types are JAX's: the operand is a float32, float64, complex64 or
  complex128 square matrix; every result is complex, of the operand's
  precision (complex64 for float32), as the eigenvalues of a real matrix
  come in conjugate pairs. The results are ``[w]``, then ``vl`` when
  ``compute_left_eigenvectors``, then ``vr`` when
  ``compute_right_eigenvectors`` (JAX's order); ``vr[..., :, j]`` is the
  eigenvector of ``w[..., j]``.
- Eigenvectors are LAPACK's: each has unit 2-norm and its
  largest-magnitude component real. A matrix whose decomposition fails
  gives NaNs (``nan + nan j``), never an exception.
- ``enable_eigvec_derivs`` is JAX's opt-in to derivatives of the
  eigenvectors (valid only for distinct eigenvalues, which no rule can
  check); without it their jvp raises, as JAX's does.
"""

from __future__ import annotations

from typing import Any, Final

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, dtype_failure, shape_failure
from didax.core.lax.linalg import LINALG_DTYPES
from didax.core.lax.operands import as_operand
from didax.core.primitive import Primitive
from didax.core.values import ArrayLike

__all__ = ["eig_p", "eig"]

eig_p: Final = Primitive("eig", multiple_results=True)

# The results' dtype per operand dtype (explicit rather than through
# ``dtypes.complex_dtype``, which canonicalizes under the x64 flag).
_COMPLEX_OF: Final[dict[dtypes.DType, dtypes.DType]] = {
    dtypes.float32: dtypes.complex64,
    dtypes.float64: dtypes.complex128,
    dtypes.complex64: dtypes.complex64,
    dtypes.complex128: dtypes.complex128,
}


@ABSTRACT_EVAL.defines(eig_p)
def _eig_rule(
    x: ShapedArray,
    *,
    compute_left_eigenvectors: bool,
    compute_right_eigenvectors: bool,
    enable_eigvec_derivs: bool,
) -> list[ShapedArray]:
    if x.dtype not in LINALG_DTYPES:
        raise dtype_failure(
            f"operand must be float32, float64, complex64 or complex128, got {x.dtype}"
        )
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise shape_failure(f"operand must be a square matrix (rank >= 2), got shape {x.shape}")
    dtype = _COMPLEX_OF[x.dtype]
    vectors = int(compute_left_eigenvectors) + int(compute_right_eigenvectors)
    return [ShapedArray(x.shape[:-1], dtype)] + [ShapedArray(x.shape, dtype)] * vectors


def eig(
    x: ArrayLike,
    *,
    compute_left_eigenvectors: bool = True,
    compute_right_eigenvectors: bool = True,
    enable_eigvec_derivs: bool = False,
    implementation: object = None,
    use_magma: bool | None = None,
) -> list[Any]:
    """Eigenvalues ``w`` and the left and right eigenvectors of square matrices: ``[w, vl, vr]``.

    ``vl`` and ``vr`` are present only when asked for; ``vr[..., :, j]`` is
    the eigenvector of ``w[..., j]``. Results are complex.
    ``implementation`` and ``use_magma`` choose among JAX's GPU kernels;
    didax has LAPACK's alone (``None`` or ``"lapack"``).

    >>> import numpy as np
    >>> (w,) = eig(np.array([[0.0, -1.0], [1.0, 0.0]]),
    ...            compute_left_eigenvectors=False, compute_right_eigenvectors=False)
    >>> w
    Array([0.+1.j, 0.-1.j], dtype=complex64)
    """
    # JAX's EigImplementation is a str-valued enum: its LAPACK member reads "lapack".
    choice = getattr(implementation, "value", implementation)
    if choice not in (None, "lapack") or use_magma:
        raise NotImplementedError(
            f"eig: only LAPACK's implementation is available in didax, got "
            f"implementation={implementation!r}, use_magma={use_magma!r}"
        )
    outs: list[Any] = eig_p.bind(
        as_operand(x),
        compute_left_eigenvectors=bool(compute_left_eigenvectors),
        compute_right_eigenvectors=bool(compute_right_eigenvectors),
        enable_eigvec_derivs=bool(enable_eigvec_derivs),
    )
    return list(outs)
