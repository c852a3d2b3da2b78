"""The linear-algebra primitives: declarations, typing rules, ``didax.lax.linalg`` wrappers.

JAX's ``jax.lax.linalg`` primitives: ``cholesky``, ``triangular_solve``,
``lu``, ``qr``, ``eigh`` and ``svd``. Each works on the last two axes of its
operands; leading axes are batch axes (every primitive here is batch
polymorphic, so ``vmap`` only moves the batched axis to the front). The
interpreters' rules are in ``interpreters.linalg``; the lowering (StableHLO's
``triangular_solve``, LAPACK kernels for the rest) in ``lowering.linalg``.

Design rules:
- Types are JAX's: operands are float32, float64, complex64 or complex128
  matrices (rank >= 2); the 16-bit floats are refused with a typing error,
  as no LAPACK kernel takes them (JAX accepts them in its typing rules and
  then fails in its lowering). ``lu``'s pivots and permutation are int32;
  ``eigh``'s eigenvalues and ``svd``'s singular values are real (float32
  for complex64, float64 for complex128).
- Results are JAX's: ``cholesky`` is lower triangular (zeros above the
  diagonal), ``lu`` packs unit-lower L and upper U, ``qr`` gives
  ``(q, r)``, ``eigh`` gives ``(v, w)`` with ascending eigenvalues and
  ``v[..., :, i]`` the eigenvector of ``w[..., i]``, ``svd`` gives ``[s]`` or
  ``[s, u, vt]`` (the wrapper returns ``(u, s, vt)``). A decomposition
  that fails (a matrix that is not positive definite, an eigensolver that
  does not converge) gives NaNs, never an exception.
- The wrappers symmetrize ``cholesky``'s and ``eigh``'s operand as JAX's do
  (``(x + x^H) / 2``), so that derivatives are symmetric.
- ``_H`` is the conjugate transpose of the last two axes (``conj`` is
  applied only to complex operands, so real programs keep no ``conj``
  equation); the rules are written with it wherever JAX's are.
"""

from __future__ import annotations

from typing import Any, Final, TypedDict, Unpack

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, dtype_failure, shape_failure
from didax.core.basearray import Value
from didax.core.lax.elementwise import add, conj, div, ge, le, select
from didax.core.lax.operands import as_operand
from didax.core.lax.structural import broadcast_in_dim, full_like, iota, transpose
from didax.core.primitive import Primitive, primitives
from didax.core.values import ArrayLike, get_aval

__all__ = [
    "cholesky_p",
    "triangular_solve_p",
    "lu_p",
    "qr_p",
    "eigh_p",
    "svd_p",
    "LINALG_PRIMITIVES",
    "cholesky",
    "triangular_solve",
    "lu",
    "qr",
    "eigh",
    "svd",
    "symmetrize",
]

cholesky_p, triangular_solve_p = primitives("cholesky", "triangular_solve")
lu_p, qr_p, eigh_p, svd_p = primitives("lu", "qr", "eigh", "svd", multiple_results=True)

LINALG_PRIMITIVES: Final[tuple[Primitive, ...]] = (
    cholesky_p,
    triangular_solve_p,
    lu_p,
    qr_p,
    eigh_p,
    svd_p,
)

# The dtypes LAPACK takes.
LINALG_DTYPES: Final = (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)


# --- typing rules -------------------------------------------------------------------


def _check_matrix(x: ShapedArray, what: str = "operand") -> tuple[tuple[int, ...], int, int]:
    if x.dtype not in LINALG_DTYPES:
        raise dtype_failure(
            f"{what} must be float32, float64, complex64 or complex128, got {x.dtype}"
        )
    if x.ndim < 2:
        raise shape_failure(f"{what} must be a matrix (rank >= 2), got rank {x.ndim}")
    *batch, m, n = x.shape
    return tuple(batch), m, n


def _check_square(x: ShapedArray, what: str = "operand") -> tuple[tuple[int, ...], int]:
    batch, m, n = _check_matrix(x, what)
    if m != n:
        raise shape_failure(f"{what} must be a square matrix, got shape {x.shape}")
    return batch, n


def _cholesky_rule(x: ShapedArray) -> ShapedArray:
    _check_square(x)
    return x.strip_weak()


class TriangularSolveParams(TypedDict):
    """``triangular_solve_p``'s params, as its rules receive them (``Unpack[...]``).

    Which side ``a`` multiplies from, which triangle it holds, whether it is
    transposed and conjugated, and whether its diagonal is taken as ones.
    """

    left_side: bool
    lower: bool
    transpose_a: bool
    conjugate_a: bool
    unit_diagonal: bool


def _triangular_solve_rule(
    a: ShapedArray, b: ShapedArray, **params: Unpack[TriangularSolveParams]
) -> ShapedArray:
    left_side = params["left_side"]
    batch_a, n = _check_square(a, "a")
    batch_b, _, _ = _check_matrix(b, "b")
    if a.dtype != b.dtype:
        raise dtype_failure(f"a and b must have one dtype, got {a.dtype} and {b.dtype}")
    if batch_a != batch_b:
        raise shape_failure(f"a and b must have the same batch axes, got {a.shape} and {b.shape}")
    common = b.shape[-2] if left_side else b.shape[-1]
    if common != n:
        side = "rows" if left_side else "columns"
        raise shape_failure(
            f"b must have {n} {side} to match a (left_side={left_side}), got shape {b.shape}"
        )
    return b.strip_weak()


def _lu_rule(x: ShapedArray) -> list[ShapedArray]:
    batch, m, n = _check_matrix(x)
    return [
        x.strip_weak(),
        ShapedArray((*batch, min(m, n)), dtypes.int32),
        ShapedArray((*batch, m), dtypes.int32),
    ]


def _qr_rule(x: ShapedArray, *, full_matrices: bool) -> list[ShapedArray]:
    batch, m, n = _check_matrix(x)
    k = m if full_matrices else min(m, n)
    return [ShapedArray((*batch, m, k), x.dtype), ShapedArray((*batch, k, n), x.dtype)]


def _eigh_rule(x: ShapedArray, *, lower: bool, sort_eigenvalues: bool) -> list[ShapedArray]:
    batch, n = _check_square(x)
    return [x.strip_weak(), ShapedArray((*batch, n), dtypes.real_dtype(x.dtype))]


def _svd_rule(x: ShapedArray, *, full_matrices: bool, compute_uv: bool) -> list[ShapedArray]:
    batch, m, n = _check_matrix(x)
    k = min(m, n)
    s = ShapedArray((*batch, k), dtypes.real_dtype(x.dtype))
    if not compute_uv:
        return [s]
    u = ShapedArray((*batch, m, m if full_matrices else k), x.dtype)
    vt = ShapedArray((*batch, n if full_matrices else k, n), x.dtype)
    return [s, u, vt]


ABSTRACT_EVAL.register(cholesky_p, _cholesky_rule)
ABSTRACT_EVAL.register(triangular_solve_p, _triangular_solve_rule)
ABSTRACT_EVAL.register(lu_p, _lu_rule)
ABSTRACT_EVAL.register(qr_p, _qr_rule)
ABSTRACT_EVAL.register(eigh_p, _eigh_rule)
ABSTRACT_EVAL.register(svd_p, _svd_rule)


# --- helpers shared with the interpreters' rules --------------------------------------


def _T(x: ArrayLike) -> Value:
    """The transpose of the last two axes."""
    nd = get_aval(x).ndim
    return transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def _H(x: ArrayLike) -> Value:
    """The conjugate transpose of the last two axes (the transpose, for real dtypes)."""
    t = _T(x)
    return conj(t) if dtypes.is_complex(get_aval(t).dtype) else t


def _triangle_mask(x: ArrayLike, k: int, lower: bool) -> Value:
    shape = get_aval(x).shape
    m, n = shape[-2], shape[-1]
    rows = broadcast_in_dim(iota(dtypes.int32, m), (m, n), (0,))
    cols = broadcast_in_dim(iota(dtypes.int32, n), (m, n), (1,))
    shifted = add(rows, k)
    mask = ge(shifted, cols) if lower else le(shifted, cols)
    return broadcast_in_dim(mask, shape, (len(shape) - 2, len(shape) - 1))


def _tril(x: ArrayLike, k: int = 0) -> Value:
    """``x`` with the entries above diagonal ``k`` of each matrix zeroed."""
    return select(_triangle_mask(x, k, True), x, full_like(x, 0))


def _triu(x: ArrayLike, k: int = 0) -> Value:
    """``x`` with the entries below diagonal ``k`` of each matrix zeroed."""
    return select(_triangle_mask(x, k, False), x, full_like(x, 0))


def symmetrize(x: ArrayLike) -> Value:
    """``(x + x^H) / 2``: the symmetric (Hermitian) part of each matrix.

    >>> import numpy as np
    >>> symmetrize(np.array([[1.0, 2.0], [0.0, 1.0]]))
    Array([[1., 1.],
           [1., 1.]], dtype=float32)
    """
    x = as_operand(x)
    return div(add(x, _H(x)), 2.0)


def _symmetrizable(x: ArrayLike) -> bool:
    # Anything else is left to the primitive's typing rule, whose error names it.
    aval = get_aval(x)
    return aval.dtype in LINALG_DTYPES and aval.ndim >= 2 and aval.shape[-1] == aval.shape[-2]


# --- wrappers -----------------------------------------------------------------------------


def cholesky(x: ArrayLike, *, symmetrize_input: bool = True) -> Value:
    """The lower-triangular ``L`` with ``x = L @ L^H`` (NaNs where ``x`` is not positive definite).

    >>> import numpy as np
    >>> cholesky(np.array([[4.0, 2.0], [2.0, 5.0]]))
    Array([[2., 0.],
           [1., 2.]], dtype=float32)
    """
    x = as_operand(x)
    if symmetrize_input and _symmetrizable(x):
        x = symmetrize(x)
    out: Value = cholesky_p.bind(x)
    return out


def triangular_solve(
    a: ArrayLike,
    b: ArrayLike,
    *,
    left_side: bool = False,
    lower: bool = False,
    transpose_a: bool = False,
    conjugate_a: bool = False,
    unit_diagonal: bool = False,
) -> Value:
    """Solves ``op(a) @ x = b`` (``left_side``) or ``x @ op(a) = b`` for triangular ``a``.

    ``op(a)`` is ``a``, its transpose (``transpose_a``), conjugated when
    ``conjugate_a``; only the ``lower`` (or upper) triangle of ``a`` is read,
    and its diagonal is taken to be ones when ``unit_diagonal``.

    >>> import numpy as np
    >>> a = np.array([[2.0, 0.0], [1.0, 4.0]])
    >>> triangular_solve(a, np.array([[2.0], [9.0]]), left_side=True, lower=True)
    Array([[1.],
           [2.]], dtype=float32)
    """
    a, b = as_operand(a), as_operand(b)
    # As JAX's: a real a's conjugate is itself, so its solves are plain
    # transposes (and lower to the kernels' "T", as JAX's programs do).
    conjugate_a = bool(conjugate_a) and dtypes.is_complex(get_aval(a).dtype)
    out: Value = triangular_solve_p.bind(
        a,
        b,
        left_side=bool(left_side),
        lower=bool(lower),
        transpose_a=bool(transpose_a),
        conjugate_a=conjugate_a,
        unit_diagonal=bool(unit_diagonal),
    )
    return out


def lu(x: ArrayLike) -> tuple[Any, Any, Any]:
    """LU decomposition with partial pivoting: ``(lu, pivots, perm)``, ``x[perm] = L @ U``.

    >>> import numpy as np
    >>> packed, pivots, perm = lu(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> perm
    Array([1, 0], dtype=int32)
    """
    packed, pivots, perm = lu_p.bind(as_operand(x))
    return packed, pivots, perm


def qr(x: ArrayLike, *, full_matrices: bool = True) -> tuple[Any, Any]:
    """QR decomposition ``x = q @ r`` (``q`` orthonormal columns, ``r`` upper triangular).

    >>> import numpy as np
    >>> q, r = qr(np.array([[3.0, 1.0], [4.0, 2.0]]))
    >>> r
    Array([[-5.        , -2.2       ],
           [ 0.        ,  0.39999998]], dtype=float32)
    """
    q, r = qr_p.bind(as_operand(x), full_matrices=bool(full_matrices))
    return q, r


def eigh(
    x: ArrayLike,
    *,
    lower: bool = True,
    symmetrize_input: bool = True,
    sort_eigenvalues: bool = True,
) -> tuple[Any, Any]:
    """Eigenvectors and eigenvalues ``(v, w)`` of symmetric matrices, ``w`` ascending.

    >>> import numpy as np
    >>> v, w = eigh(np.array([[2.0, 1.0], [1.0, 2.0]]))
    >>> w
    Array([1., 3.], dtype=float32)
    """
    x = as_operand(x)
    if symmetrize_input and _symmetrizable(x):
        x = symmetrize(x)
    v, ev = eigh_p.bind(x, lower=bool(lower), sort_eigenvalues=bool(sort_eigenvalues))
    return v, ev


def svd(x: ArrayLike, *, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """Singular value decomposition: ``(u, s, vt)`` with ``x = u @ diag(s) @ vt``, or ``s`` alone.

    ``s`` is descending; without ``full_matrices`` ``u`` and ``vt`` have
    ``min(m, n)`` columns and rows.

    >>> import numpy as np
    >>> svd(np.array([[3.0, 0.0], [0.0, -4.0]]), compute_uv=False)
    Array([4., 3.], dtype=float32)
    """
    outs = svd_p.bind(as_operand(x), full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))
    if not compute_uv:
        return outs[0]
    s, u, vt = outs
    return u, s, vt
