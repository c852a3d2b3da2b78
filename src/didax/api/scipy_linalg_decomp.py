"""``didax.scipy.linalg``'s decompositions, solves and block matrices, as JAX defines them.

``cholesky``, ``det``, ``inv``, ``solve``, ``eigh``, ``svd``, ``qr``,
``qr_multiply``, ``polar``, ``block_diag`` and ``expm_frechet``.

Design rules:
- Signatures are JAX's, SciPy's ``overwrite_*``, ``check_finite``, ``lwork``,
  ``turbo`` and ``lapack_driver`` accepted and ignored, as in JAX; what JAX
  refuses (``eigh``'s ``b``, ``eigvals`` and ``type != 1``) didax refuses with
  JAX's ``NotImplementedError``.
- Each is JAX's composite over the ``core.lax.linalg`` primitives, so values,
  derivatives and batching are those primitives' rules: ``solve(assume_a='pos')``
  is JAX's ``custom_linear_solve`` over a Cholesky factor (differentiated as
  ``a^-1 b``, the factor under ``stop_gradient``), ``expm_frechet`` is the
  ``jvp`` of ``expm``.
- ``qr(pivoting=True)`` and ``qr_multiply(pivoting=True)`` need LAPACK's
  column-pivoted ``geqp3``, which didax's ``qr`` primitive does not have:
  they raise ``NotImplementedError``. ``qr_multiply`` forms ``Q`` with the
  ``qr`` primitive and multiplies (JAX applies the reflectors with
  ``ormqr``: the same product up to rounding).
- ``polar``'s ``method='svd'`` is JAX's; ``method='qdwh'`` (JAX's default,
  the QR-based dynamically weighted Halley iteration) lives in
  ``scipy_linalg_qdwh``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.decompositions import conj_transpose, inexact
from didax.api.numpy.joining import atleast_2d
from didax.api.numpy.linalg import det as _det
from didax.api.numpy.linalg import inv as _inv
from didax.api.numpy.linalg import solve as _solve
from didax.api.numpy.linear_algebra import matmul
from didax.api.numpy.manipulation import broadcast_to, concatenate, expand_dims
from didax.api.numpy.matrices import triu
from didax.api.numpy.operands import astype, broadcast_shapes, operand
from didax.api.numpy.rearranging import pad
from didax.api.scipy_linalg import cho_factor, cho_solve_matrices, expm
from didax.api.solves import custom_linear_solve
from didax.api.transformations import jvp, vmap
from didax.core import dtypes, lax
from didax.core.lax import linalg as lax_linalg
from didax.core.lax.precision import Precision
from didax.core.values import get_aval

__all__ = [
    "cholesky",
    "det",
    "inv",
    "solve",
    "eigh",
    "svd",
    "qr",
    "qr_multiply",
    "block_diag",
    "expm_frechet",
]


def _promoted(*xs: ArrayLike, inexact: bool = True) -> list[Array]:
    """The operands in their promoted (inexact) dtype, shapes untouched."""
    vals = [operand(x) for x in xs]
    dtype, _ = dtypes.result_type((get_aval(v).dtype, get_aval(v).weak_type) for v in vals)
    if inexact:
        dtype = dtypes.to_inexact(dtype)
    return [astype(v, dtype) for v in vals]


def cholesky(
    a: ArrayLike, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> Array:
    """The Cholesky factor: upper ``U``, ``a = U^H U`` (lower ``L``, ``a = L L^H``, if ``lower``).

    >>> import numpy as np
    >>> cholesky(np.array([[4.0, 2.0], [2.0, 5.0]]))
    Array([[2., 1.],
           [0., 2.]], dtype=float32)
    """
    del overwrite_a, check_finite
    v = inexact(a)
    factor = lax_linalg.cholesky(v if lower else conj_transpose(v), symmetrize_input=False)
    out: Array = factor if lower else conj_transpose(factor)
    return out


def det(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> Array:
    """The determinants of square matrices (``didax.numpy.linalg.det``).

    >>> import numpy as np
    >>> det(np.array([[2.0, 1.0], [0.0, 3.0]]))
    Array(6., dtype=float32)
    """
    del overwrite_a, check_finite
    return _det(a)


def inv(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> Array:
    """The inverses of square matrices (``didax.numpy.linalg.inv``).

    >>> import numpy as np
    >>> inv(np.array([[2.0, 0.0], [0.0, 4.0]]))
    Array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    del overwrite_a, check_finite
    return _inv(a)


def _matvec(a: Array, x: Array) -> Array:
    """``a @ x`` for a batch of vectors ``x`` (JAX's ``_broadcasted_matvec``, HIGHEST)."""
    out: Array = matmul(a, expand_dims(x, -1), precision=Precision.HIGHEST)[..., 0]
    return out


def _cho_solve_vectors(c: Array, lower: bool, b: Array) -> Array:
    """Solves ``a x = b`` for a batch of vectors ``b`` from ``cho_factor(a)``'s ``c``."""
    shape = broadcast_shapes("solve", get_aval(c).shape[:-2], get_aval(b).shape[:-1])
    n = get_aval(c).shape[-1]
    c = broadcast_to(c, (*shape, n, n))
    x = cho_solve_matrices(c, lower, expand_dims(broadcast_to(b, (*shape, n)), -1))
    out: Array = x[..., 0]
    return out


def solve(
    a: ArrayLike,
    b: ArrayLike,
    lower: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    debug: bool = False,
    check_finite: bool = True,
    assume_a: str = "gen",
) -> Array:
    """Solves ``a x = b``; ``assume_a='pos'`` solves through a Cholesky factor of ``a``.

    >>> import numpy as np
    >>> solve(np.array([[4.0, 2.0], [2.0, 5.0]]), np.array([6.0, 7.0]), assume_a="pos")
    Array([1., 1.], dtype=float32)
    """
    del overwrite_a, overwrite_b, debug, check_finite
    valid = ["gen", "sym", "her", "pos"]
    if assume_a not in valid:
        raise ValueError(f"Expected assume_a to be one of {valid}; got {assume_a!r}")
    if assume_a != "pos":
        return _solve(a, b)
    a_val, b_val = _promoted(a, b)
    a_shape, b_shape = get_aval(a_val).shape, get_aval(b_val).shape
    if not (
        len(a_shape) >= 2
        and len(b_shape) in (len(a_shape), len(a_shape) - 1)
        and a_shape[-1] == a_shape[-2] == b_shape[len(a_shape) - 2]
    ):
        raise ValueError(
            "The arguments to solve must have shapes a=[..., m, m] and b=[..., m, k] or "
            f"b=[..., m]; got a={a_shape} and b={b_shape}"
        )
    factors = cho_factor(lax.stop_gradient(a_val), lower=lower)

    def custom_solve(rhs: Array) -> Array:
        out: Array = custom_linear_solve(
            lambda x: _matvec(a_val, x),
            rhs,
            lambda _, x: _cho_solve_vectors(factors[0], lower, x),
            symmetric=True,
        )
        return out

    if len(a_shape) == len(b_shape) + 1:
        return custom_solve(b_val)
    # b's columns are solved as vectors, as JAX vmaps them.
    out: Array = vmap(custom_solve, len(b_shape) - 1, max(len(a_shape), len(b_shape)) - 1)(b_val)
    return out


def eigh(
    a: ArrayLike,
    b: ArrayLike | None = None,
    lower: bool = True,
    eigvals_only: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    turbo: bool = True,
    eigvals: None = None,
    type: int = 1,  # noqa: A002 (SciPy's name)
    check_finite: bool = True,
) -> Any:
    """``(w, v)``: the ascending eigenvalues and the eigenvectors of Hermitian ``a`` (``w`` alone
    when ``eigvals_only``); the triangle named by ``lower`` is read.

    >>> import numpy as np
    >>> eigh(np.array([[2.0, 1.0], [1.0, 2.0]]), eigvals_only=True)
    Array([1., 3.], dtype=float32)
    """
    del overwrite_a, overwrite_b, turbo, check_finite
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    v, w = lax_linalg.eigh(inexact(a), lower=lower)
    return w if eigvals_only else (w, v)


def svd(
    a: ArrayLike,
    full_matrices: bool = True,
    compute_uv: bool = True,
    overwrite_a: bool = False,
    check_finite: bool = True,
    lapack_driver: str = "gesdd",
) -> Any:
    """``(u, s, vh)`` with ``a = u @ diag(s) @ vh``, ``s`` descending (``s`` alone without uv).

    >>> import numpy as np
    >>> svd(np.array([[3.0, 0.0], [0.0, -4.0]]), compute_uv=False)
    Array([4., 3.], dtype=float32)
    """
    del overwrite_a, check_finite, lapack_driver
    return lax_linalg.svd(inexact(a), full_matrices=full_matrices, compute_uv=compute_uv)


def _no_pivoting(name: str, pivoting: bool) -> None:
    if pivoting:
        raise NotImplementedError(
            f"{name}: pivoting=True needs LAPACK's column-pivoted QR (geqp3), which didax's "
            "qr primitive does not have"
        )


def qr(
    a: ArrayLike,
    overwrite_a: bool = False,
    lwork: Any = None,
    mode: str = "full",
    pivoting: bool = False,
    check_finite: bool = True,
) -> Any:
    """``(q, r)`` (``mode`` ``'full'`` or ``'economic'``) or ``(r,)`` (``mode='r'``).

    >>> import numpy as np
    >>> qr(np.array([[3.0, 1.0], [4.0, 2.0]]), mode="r")[0]
    Array([[-5.        , -2.2       ],
           [ 0.        ,  0.39999998]], dtype=float32)
    """
    del overwrite_a, lwork, check_finite
    if mode in ("full", "r"):
        full_matrices = True
    elif mode == "economic":
        full_matrices = False
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    _no_pivoting("qr", pivoting)
    q, r = lax_linalg.qr(inexact(a), full_matrices=full_matrices)
    return (r,) if mode == "r" else (q, r)


def qr_multiply(
    a: ArrayLike,
    c: ArrayLike,
    mode: str = "right",
    pivoting: bool = False,
    conjugate: bool = False,
    overwrite_a: bool = False,
    overwrite_c: bool = False,
) -> Any:
    """``(Q @ c, r)`` (``mode='left'``) or ``(c @ Q, r)`` (``'right'``) from ``a = Q r``;
    ``conjugate`` uses ``conj(Q)``.

    >>> import numpy as np
    >>> cq, r = qr_multiply(np.array([[3.0, 1.0], [4.0, 2.0]]), np.array([1.0, 0.0]))
    >>> cq
    Array([-0.6, -0.8], dtype=float32)
    """
    del overwrite_a, overwrite_c
    a_val, c_val = _promoted(a, c)
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    _no_pivoting("qr_multiply", pivoting)
    onedim = get_aval(c_val).ndim == 1
    if onedim:
        c_val = c_val[:, None] if mode == "left" else c_val[None, :]
    a_shape, c_shape = get_aval(a_val).shape, get_aval(c_val).shape
    m, n = a_shape[-2:]
    k = min(m, n)
    if mode == "left" and c_shape[-2] != k:
        raise ValueError(
            f"Array shapes are not compatible for Q @ c operation: a has shape {a_shape} so "
            f"Q has {k} columns, but c has {c_shape[-2]} rows (expected {k})."
        )
    if mode == "right" and c_shape[-1] != m:
        raise ValueError(
            f"Array shapes are not compatible for c @ Q operation: a has shape {a_shape} so "
            f"Q has {m} rows, but c has {c_shape[-1]} columns (expected {m})."
        )
    batch = broadcast_shapes("qr_multiply", a_shape[:-2], c_shape[:-2])
    a_val = broadcast_to(a_val, (*batch, *a_shape[-2:]))
    c_val = broadcast_to(c_val, (*batch, *c_shape[-2:]))
    q, r = lax_linalg.qr(a_val, full_matrices=False)  # q: [..., m, k]
    if conjugate:
        q = q.conj()
    cq = matmul(q, c_val) if mode == "left" else matmul(c_val, q)
    if onedim:
        cq = cq.ravel()
    return cq, triu(r)


def block_diag(*arrs: ArrayLike) -> Array:
    """The block-diagonal matrix of ``arrs`` (each at most 2-D), in their promoted dtype.

    >>> import numpy as np
    >>> block_diag(np.array([[1, 2]]), np.array([3]))
    Array([[1, 2, 0],
           [0, 0, 3]], dtype=int32)
    """
    vals = _promoted(*arrs, inexact=False) if arrs else [operand(np.zeros((1, 0)))]
    bad = [i for i, v in enumerate(vals) if get_aval(v).ndim > 2]
    if bad:
        raise ValueError(
            "Arguments to didax.scipy.linalg.block_diag must have at most 2 dimensions, "
            f"got {get_aval(vals[bad[0]]).shape} at argument {bad[0]}."
        )
    blocks = [atleast_2d(v) for v in vals]
    total = sum(get_aval(b).shape[1] for b in blocks)
    rows = []
    col = 0
    for blk in blocks:
        cols = get_aval(blk).shape[1]
        rows.append(pad(blk, [(0, 0), (col, total - cols - col)]))
        col += cols
    return concatenate(rows, axis=0)


def expm_frechet(
    A: ArrayLike,
    E: ArrayLike,
    *,
    method: str | None = None,
    compute_expm: bool = True,
) -> Any:
    """``(expm(A), L(A, E))``: the matrix exponential and its Fréchet derivative along ``E``
    (the ``jvp`` of ``expm``, as JAX's); ``L`` alone unless ``compute_expm``.

    >>> import numpy as np
    >>> a = np.zeros((2, 2), np.float32)
    >>> expm_frechet(a, np.eye(2, dtype=np.float32), compute_expm=False)
    Array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    del method
    a_val, e_val = operand(A), operand(E)
    a_shape, e_shape = get_aval(a_val).shape, get_aval(e_val).shape
    if len(a_shape) < 2 or a_shape[-2] != a_shape[-1]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={a_shape}")
    if len(e_shape) < 2 or e_shape[-2] != e_shape[-1]:
        raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={e_shape}")
    if a_shape != e_shape:
        raise ValueError(
            f"expected A and E to be the same shape, got A.shape={a_shape} E.shape={e_shape}"
        )
    expm_a, frechet = jvp(expm, (a_val,), (e_val,))
    return (expm_a, frechet) if compute_expm else frechet
