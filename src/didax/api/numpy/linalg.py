"""``didax.numpy.linalg``: NumPy's linear algebra over the decompositions, as ``jax.numpy.linalg``.

Norms of every order (the spectral and nuclear matrix norms through
``svd``), determinants, inverses and solves (through ``lu``), and the
decompositions themselves (``cholesky``, ``qr``, ``svd``, ``eigh``, and
``eig``/``eigvals``, general matrices' eigenvalues), with JAX's signatures,
result tuples and conventions. The norms live in ``api.numpy.norms``, the
Array API's products in ``api.numpy.linalg_array_api`` and ``eig`` in
``api.numpy.eig``; this module re-exports them.

Design rules:
- Everything here is a composite of the primitives of ``core.lax.linalg``,
  so it differentiates, batches and compiles through their rules. Where
  JAX gives a function a custom jvp it does here too: ``det`` (the
  cofactor rule, which is finite on singular matrices), ``slogdet``
  (``trace(solve(a, da))``, zero sign tangent) and ``pinv`` (Golub and
  Pereyra's formula).
- Batching is NumPy's: leading axes of ``a`` and ``b`` broadcast.
- Integer operands become floats (``dtypes.to_inexact``), as in JAX.
- Complex operands are JAX's: ``_h`` conjugates, norms are of ``|x|`` and
  real, ``slogdet``'s sign is the unit complex number ``det / |det|``
  (its tangent ``i Im(tr(a^-1 da)) sign``) and its log is real.
- Singular input gives what JAX gives (``inf``/NaN from the solves, a zero
  determinant), never an exception.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from didax.api.custom_derivatives import custom_jvp
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.contractions import einsum
from didax.api.numpy.decompositions import (
    EighResult,
    QRResult,
    SlogdetResult,
    SVDResult,
    cholesky,
    conj_transpose,
    eigh,
    eigvalsh,
    inexact,
    qr,
    svd,
)
from didax.api.numpy.eig import EigResult, eig, eigvals
from didax.api.numpy.elementwise import abs, log, where
from didax.api.numpy.indexing import take_along_axis
from didax.api.numpy.linalg_array_api import (
    cross,
    matrix_transpose,
    outer,
    svdvals,
    tensordot,
    vecdot,
)
from didax.api.numpy.linear_algebra import matmul
from didax.api.numpy.manipulation import broadcast_to, expand_dims, moveaxis, reshape
from didax.api.numpy.matrices import diagonal, trace
from didax.api.numpy.more_elementwise import isnan, real
from didax.api.numpy.norms import _abs2, matrix_norm, norm, vector_norm
from didax.api.numpy.operands import as_result, astype, broadcast_shapes, operand
from didax.api.numpy.reductions import max, prod, sum
from didax.api.numpy.statistics import any as _any
from didax.api.numpy.statistics import count_nonzero
from didax.core import dtypes
from didax.core import lax as _lax
from didax.core.config import default_matmul_precision
from didax.core.dtypes import DType, DTypeLike
from didax.core.lax import linalg as lax_linalg
from didax.core.lax.precision import PrecisionLike
from didax.core.values import get_aval

__all__ = [
    "norm",
    "det",
    "slogdet",
    "inv",
    "solve",
    "cholesky",
    "qr",
    "svd",
    "eigh",
    "eigvalsh",
    "eig",
    "eigvals",
    "lstsq",
    "pinv",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "cond",
    "tensorinv",
    "tensorsolve",
    "vector_norm",
    "matrix_norm",
    "svdvals",
    "cross",
    "outer",
    "matrix_transpose",
    "tensordot",
    "vecdot",
    "SlogdetResult",
    "EighResult",
    "EigResult",
    "QRResult",
    "SVDResult",
]


def _square(name: str, a: ArrayLike) -> Array:
    v = inexact(a)
    shape = get_aval(v).shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"{name}: the argument must have shape [..., n, n], got {shape}")
    return v


def _lu_solve(packed: Array, perm: Array, b: ArrayLike) -> Array:
    """Solves ``a x = b`` (``b`` a batch of matrices) from ``lu(a)``'s factors."""
    x = take_along_axis(b, expand_dims(perm, -1), axis=-2)
    x = lax_linalg.triangular_solve(packed, x, left_side=True, lower=True, unit_diagonal=True)
    out: Array = lax_linalg.triangular_solve(packed, x, left_side=True, lower=False)
    return out


def _parity_sign(pivots: Array, dtype: DType) -> Array:
    """``(-1) ** (number of row swaps)``, from ``lu``'s pivots."""
    n = get_aval(pivots).shape[-1]
    swaps = count_nonzero(pivots != np.arange(n, dtype=np.int32), axis=-1)
    return astype(1 - 2 * (swaps % 2), dtype)


# --- determinants ---------------------------------------------------------------------------


@custom_jvp
def _slogdet_lu(a: Array) -> tuple[Array, Array]:
    dtype = get_aval(a).dtype
    packed, pivots, _ = lax_linalg.lu(a)
    diag = diagonal(packed, axis1=-2, axis2=-1)
    is_zero = count_nonzero(diag == 0, axis=-1) > 0
    n = get_aval(pivots).shape[-1]
    swaps = count_nonzero(pivots != np.arange(n, dtype=np.int32), axis=-1)
    abs_diag = abs(diag)
    if dtypes.is_complex(dtype):
        # The phase of the product of U's diagonal (the 1/0 of a zero is masked below).
        phase = prod(diag / astype(where(abs_diag == 0, 1.0, abs_diag), dtype), axis=-1)
    else:
        phase = astype(1, dtype)
        swaps = swaps + count_nonzero(diag < 0, axis=-1)
    sign = where(is_zero, astype(0, dtype), phase * astype(1 - 2 * (swaps % 2), dtype))
    real_dtype = dtypes.real_dtype(dtype)
    logdet = where(is_zero, astype(-np.inf, real_dtype), sum(log(abs_diag), axis=-1))
    return sign, logdet


@_slogdet_lu.defjvp
def _slogdet_jvp(
    primals: Sequence[Array], tangents: Sequence[Array]
) -> tuple[tuple[Array, Array], tuple[Array, Array]]:
    (x,), (g,) = primals, tangents
    sign, logdet = _slogdet_lu(x)
    logdet_dot = trace(solve(x, g), axis1=-1, axis2=-2)
    if dtypes.is_complex(get_aval(x).dtype):
        # d(sign) = i Im(tr(x^-1 dx)) sign; d(log|det|) = Re(tr(x^-1 dx)).
        imag_part = logdet_dot - astype(real(logdet_dot), get_aval(logdet_dot).dtype)
        return (sign, logdet), (imag_part * sign, real(logdet_dot))
    return (sign, logdet), (sign * 0, logdet_dot)


def slogdet(a: ArrayLike) -> SlogdetResult:
    """The sign and ``log(abs(det(a)))`` of square matrices, through ``lu``.

    >>> sign, logabsdet = slogdet(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> sign, logabsdet
    (Array(-1., dtype=float32), Array(0.6931471, dtype=float32))
    """
    sign, logdet = _slogdet_lu(_square("slogdet", a))
    return SlogdetResult(sign, logdet)


def _cofactor_solve(a: Array, b: Array) -> tuple[Array, Array]:
    """``(det(a), adjugate(a) @ b)``, finite even where ``a`` is singular (JAX's algorithm).

    With ``a = P L U``: ``det(a) a^-1 b = prod(diag U) U^-1 L^-1 P^T b``. The
    last pivot of U is replaced by the inverse of the product of the others,
    so that a rank n-1 matrix gives its (rank one) adjugate rather than
    NaN; a matrix of lower rank, whose adjugate is zero, gives zeros.
    """
    shape = get_aval(a).shape
    n = shape[-1]
    dtype = get_aval(a).dtype
    if n == 1:
        return a[..., 0, 0], b
    packed, pivots, perm = lax_linalg.lu(a)
    diag = diagonal(packed, axis1=-2, axis2=-1)
    sign = _parity_sign(pivots, dtype)
    partial_det = _lax.cumprod(diag, axis=get_aval(diag).ndim - 1) * expand_dims(sign, -1)
    corner = np.zeros((n, n), dtype=bool)
    corner[-1, -1] = True
    packed = where(corner, expand_dims(1.0 / partial_det[..., -2], (-1, -2)), packed)
    ones = np.ones((*shape[:-1], 1), dtype)
    d = lax_linalg.triangular_solve(packed, ones, left_side=True, lower=False)
    finite = (
        _lax.is_finite(_lax.real(d)) & _lax.is_finite(_lax.imag(d))
        if dtypes.is_complex(dtype)
        else _lax.is_finite(d)
    )
    bad = count_nonzero(~finite, axis=(-2, -1)) > 0
    bad = expand_dims(bad, (-1, -2))
    x = where(bad, 0.0, b)
    x = take_along_axis(x, expand_dims(perm, -1), axis=-2)
    x = lax_linalg.triangular_solve(packed, x, left_side=True, lower=True, unit_diagonal=True)
    last_row = np.zeros((n, 1), dtype=bool)
    last_row[-1, 0] = True
    x = where(last_row, x, x * expand_dims(partial_det[..., -1], (-1, -2)))
    x = lax_linalg.triangular_solve(packed, x, left_side=True, lower=False)
    return partial_det[..., -1], where(bad, 0.0, x)


@custom_jvp
def _det(a: Array) -> Array:
    sign, logdet = _slogdet_lu(a)
    out: Array = sign * _lax.exp(logdet)
    return out


@_det.defjvp
def _det_jvp(primals: Sequence[Array], tangents: Sequence[Array]) -> tuple[Array, Array]:
    (x,), (g,) = primals, tangents
    y, z = _cofactor_solve(x, g)
    return y, trace(z, axis1=-1, axis2=-2)


def det(a: ArrayLike) -> Array:
    """The determinants of square matrices (through ``lu``; JAX's cofactor jvp).

    >>> det(np.array([[1.0, 2.0], [3.0, 4.0]]))
    Array(-1.9999999, dtype=float32)
    """
    out: Array = _det(_square("det", a))
    return out


# --- solves and inverses -----------------------------------------------------------------------


def solve(a: ArrayLike, b: ArrayLike) -> Array:
    """Solves ``a @ x = b``; ``b`` is a vector when it has one axis, else matrices (NumPy 2's rule).

    >>> solve(np.array([[2.0, 1.0], [1.0, 3.0]]), np.array([3.0, 5.0]))
    Array([0.8, 1.4], dtype=float32)
    """
    a_val, b_val = operand(a), operand(b)
    dtype, _ = dtypes.result_type(
        (get_aval(v).dtype, get_aval(v).weak_type) for v in (a_val, b_val)
    )
    dtype = dtypes.to_inexact(dtype)
    a_val, b_val = astype(a_val, dtype), astype(b_val, dtype)
    a_shape, b_shape = get_aval(a_val).shape, get_aval(b_val).shape
    if len(a_shape) < 2 or a_shape[-1] != a_shape[-2]:
        raise ValueError(f"solve: a must have shape [..., n, n], got {a_shape}")
    vector = len(b_shape) == 1
    if vector:
        b_val = expand_dims(b_val, -1)
        b_shape = get_aval(b_val).shape
    if b_shape[-2] != a_shape[-1]:
        raise ValueError(f"solve: b's shape {b_shape} does not match a's {a_shape}")
    batch = broadcast_shapes("solve", a_shape[:-2], b_shape[:-2])
    a_val = broadcast_to(a_val, (*batch, *a_shape[-2:]))
    b_val = broadcast_to(b_val, (*batch, *b_shape[-2:]))
    packed, _, perm = lax_linalg.lu(a_val)
    x: Array = _lu_solve(packed, perm, b_val)
    return x[..., 0] if vector else x


def inv(a: ArrayLike) -> Array:
    """The inverses of square matrices (``solve`` against the identity).

    >>> inv(np.array([[2.0, 0.0], [0.0, 4.0]]))
    Array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    v = _square("inv", a)
    shape = get_aval(v).shape
    eye = np.broadcast_to(np.eye(shape[-1], dtype=get_aval(v).dtype), shape)
    return solve(v, eye)


def matrix_power(a: ArrayLike, n: int) -> Array:
    """``a`` raised to the integer power ``n`` by repeated squaring (``inv`` first if negative).

    >>> matrix_power(np.array([[1.0, 1.0], [0.0, 1.0]]), 3)
    Array([[1., 3.],
           [0., 1.]], dtype=float32)
    """
    v = as_result(operand(a))
    shape = get_aval(v).shape
    if len(shape) < 2:
        raise TypeError(
            f"{len(shape)}-dimensional array given. Array must be at least two-dimensional"
        )
    if shape[-1] != shape[-2]:
        raise TypeError("Last 2 dimensions of the array must be square")
    try:
        k = operator.index(n)
    except TypeError as err:
        raise TypeError(f"exponent must be an integer, got {n}") from err
    if k == 0:
        return broadcast_to(np.eye(shape[-1], dtype=get_aval(v).dtype), shape)
    if k < 0:
        v = inv(v)
        k = -k
    result: Array | None = None
    z: Array | None = None
    while k > 0:
        z = v if z is None else matmul(z, z)
        k, bit = divmod(k, 2)
        if bit:
            result = z if result is None else matmul(result, z)
    assert result is not None  # k > 0 set a bit
    return result


def multi_dot(arrays: Sequence[ArrayLike], *, precision: PrecisionLike = None) -> Array:
    """The product of a chain of matrices, in the cheapest order (``jax.numpy.linalg.multi_dot``).

    The first and last arrays may be vectors; as JAX's, one ``einsum``
    (whose ``opt_einsum`` path picks the order), with ``precision`` for
    each product.

    >>> multi_dot([np.ones((2, 3)), np.ones((3, 4)), np.ones(4)]).shape
    (2,)
    """
    arrs = [operand(a) for a in arrays]
    if len(arrs) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrs)}")
    shapes = [get_aval(a).shape for a in arrs]
    if not (
        len(shapes[0]) in (1, 2)
        and len(shapes[-1]) in (1, 2)
        and all(len(s) == 2 for s in shapes[1:-1])
    ):
        raise ValueError(
            "multi_dot: input arrays must all be two-dimensional, except for the first and "
            f"last array which may be 1 or 2 dimensional. Got array shapes {shapes}"
        )
    if any(p[-1] != q[0] for p, q in itertools.pairwise(shapes)):
        raise ValueError(
            "multi_dot: last dimension of each array must match first dimension of following "
            f"array. Got array shapes {shapes}"
        )
    axes: list[tuple[int, ...]] = [(i, i + 1) for i in range(len(arrs))]
    if len(shapes[0]) == 1:
        axes[0] = axes[0][1:]
    if len(shapes[-1]) == 1:
        axes[-1] = axes[-1][:1]
    args = [x for pair in zip(arrs, axes, strict=True) for x in pair]
    return einsum(*args, optimize="auto", precision=precision)


# --- least squares, pseudo-inverse, rank -------------------------------------------------------


def lstsq(
    a: ArrayLike, b: ArrayLike, rcond: float | None = None, *, numpy_resid: bool = False
) -> tuple[Array, Array, Array, Array]:
    """The least-squares solution of ``a @ x = b``: ``(x, resid, rank, s)``, through ``svd``.

    >>> x, resid, rank, s = lstsq(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
    ...                           np.array([1.0, 1.0, 2.0]))
    >>> x.round(5), rank
    (Array([1., 1.], dtype=float32), Array(2, dtype=int32))
    """
    (a_val, b_val), _, _ = _promote_pair("lstsq", a, b)
    a_shape, b_shape = get_aval(a_val).shape, get_aval(b_val).shape
    if len(a_shape) != 2:
        raise TypeError(f"{len(a_shape)}-dimensional array given. Array must be two-dimensional")
    if a_shape[0] != b_shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    vector = len(b_shape) == 1
    if vector:
        b_val = expand_dims(b_val, -1)
    elif len(b_shape) != 2:
        raise TypeError(
            f"{len(b_shape)}-dimensional array given. Array must be one or two-dimensional"
        )
    m, n = a_shape
    dtype = get_aval(a_val).dtype
    eps = _eps(dtype)
    cut = eps * float(_larger(n, m)) if rcond is None else (eps if rcond < 0 else rcond)
    u, s, vt = lax_linalg.svd(a_val, full_matrices=False)
    mask = (s > 0) & (s >= cut * s[0])
    rank = sum(mask)
    safe_s = where(mask, s, 1.0)
    s_inv = expand_dims(where(mask, 1.0 / safe_s, 0.0), -1)
    # As JAX's: full-precision products (HIGHEST) in the solution and residual.
    x = _precise_matmul(conj_transpose(vt), s_inv * _precise_matmul(conj_transpose(u), b_val))
    if numpy_resid and (int(rank) < n or m <= n):
        resid: Any = np.zeros((0,), dtype)
        resid = operand(resid)
    else:
        r = b_val - _precise_matmul(a_val, x)
        resid = sum(_abs2(r), axis=0)
    if vector:
        x = x[:, 0]  # (resid keeps its axis: shape (1,), as JAX's)
    return x, resid, rank, s


def _precise_matmul(a: ArrayLike, b: ArrayLike) -> Array:
    return matmul(a, b, precision=_lax.Precision.HIGHEST)


def _eps(dtype: DTypeLike) -> float:
    return float(np.finfo(dtype).eps)


def _larger(a: int, b: int) -> int:
    # (``max`` is the array reduction here.)
    return a if a >= b else b


def _promote_pair(name: str, a: ArrayLike, b: ArrayLike) -> tuple[list[Any], Any, bool]:
    vals = [operand(a), operand(b)]
    dtype, weak = dtypes.result_type((get_aval(v).dtype, get_aval(v).weak_type) for v in vals)
    dtype = dtypes.to_inexact(dtype)
    return [astype(v, dtype) for v in vals], dtype, weak


def _pinv_value(a: Array, rtol: float | None) -> Array:
    m, n = get_aval(a).shape[-2:]
    dtype = get_aval(a).dtype
    if rtol is None:
        rtol = 10.0 * _larger(m, n) * (_eps(dtype))
    u, s, vh = lax_linalg.svd(a, full_matrices=False)
    cutoff = rtol * s[..., 0:1]
    s = where(s > cutoff, s, np.inf)
    return _precise_matmul(conj_transpose(vh), conj_transpose(u) / expand_dims(s, -1))


_pinv = custom_jvp(_pinv_value, nondiff_argnums=(1,))


@_pinv.defjvp
def _pinv_jvp(
    rtol: float | None, primals: Sequence[Array], tangents: Sequence[Array]
) -> tuple[Array, Array]:
    # Golub and Pereyra (1973), as JAX's, whose products are all full
    # precision (it runs under default_matmul_precision("float32")).
    with default_matmul_precision("float32"):
        return _pinv_tangent(rtol, primals, tangents)


def _pinv_tangent(
    rtol: float | None, primals: Sequence[Array], tangents: Sequence[Array]
) -> tuple[Array, Array]:
    (a,), (a_dot,) = primals, tangents
    p = _pinv(a, rtol)
    m, n = get_aval(a).shape[-2:]
    if m >= n:
        s = matmul(matmul(p, conj_transpose(p)), conj_transpose(a_dot))
        t = matmul(matmul(conj_transpose(a_dot), conj_transpose(p)), p)
        p_dot = (
            -matmul(matmul(p, a_dot), p) + s - matmul(matmul(s, a), p) + t - matmul(matmul(p, a), t)
        )
    else:
        s = matmul(p, matmul(conj_transpose(p), conj_transpose(a_dot)))
        t = matmul(conj_transpose(a_dot), matmul(conj_transpose(p), p))
        p_dot = (
            -matmul(p, matmul(a_dot, p)) + s - matmul(s, matmul(a, p)) + t - matmul(p, matmul(a, t))
        )
    return p, p_dot


def pinv(a: ArrayLike, rtol: float | None = None, hermitian: bool = False) -> Array:
    """The Moore-Penrose pseudo-inverse (through ``svd``; singular values below
    ``rtol * max(s)`` count as zero).

    >>> pinv(np.array([[1.0, 0.0], [0.0, 0.0]]))
    Array([[1., 0.],
           [0., 0.]], dtype=float32)
    """
    v = inexact(a)
    if get_aval(v).ndim < 2:
        raise ValueError(f"pinv: the argument must be a matrix, got shape {get_aval(v).shape}")
    out: Array = _pinv(v, rtol)
    return out


def matrix_rank(M: ArrayLike, rtol: float | None = None, *, tol: float | None = None) -> Array:
    """The number of singular values above ``rtol * max(s)`` (int32, per matrix).

    >>> matrix_rank(np.array([[1.0, 2.0], [2.0, 4.0]]))
    Array(1, dtype=int32)
    """
    if tol is not None:
        if rtol is not None:
            raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    v = inexact(M)
    aval = get_aval(v)
    if aval.ndim < 2:
        return astype(count_nonzero(v) > 0, dtypes.int32)
    s = lax_linalg.svd(v, full_matrices=False, compute_uv=False)
    eps = _eps(aval.dtype)
    if rtol is None:
        cut = expand_dims(max(s, axis=-1) * (_larger(*aval.shape[-2:]) * eps), -1)
    else:
        # As JAX's: a given rtol is compared with the singular values as it is.
        cut = expand_dims(operand(rtol), -1)
    return astype(sum(s > cut, axis=-1), dtypes.int32)


def cond(x: ArrayLike, p: int | float | str | None = None) -> Array:
    """The condition numbers of matrices in the norm of order ``p`` (JAX's formula).

    ``p`` of None, 2 or -2 is the ratio of extreme singular values; any other
    order is ``norm(x, p) * norm(inv(x), p)`` (square matrices only). A NaN
    from a singular matrix becomes ``inf`` unless ``x`` itself holds a NaN.

    >>> cond(np.array([[2.0, 0.0], [0.0, 0.5]]))
    Array(4., dtype=float32)
    """
    v = inexact(x)
    shape = get_aval(v).shape
    if len(shape) < 2 or 0 in shape[-2:]:
        raise ValueError(f"cond: x must be a non-empty (stack of) matrices; got shape {shape}")
    if p is None or p in (2, -2):
        s = svdvals(v)
        big, small = s[..., 0], s[..., -1]
        if p is None or p == 2:
            return big / small
        r = small / big
    else:
        if shape[-1] != shape[-2]:
            raise ValueError(f"cond: for p={p!r} x must be square; got shape {shape}")
        r = norm(v, ord=p, axis=(-2, -1)) * norm(inv(v), ord=p, axis=(-2, -1))
    # (JAX's rule: -2 and the other orders turn the NaN of a singular x into inf.)
    nan_free = ~_any(isnan(v), axis=(-2, -1))
    return where(isnan(r) & nan_free, np.inf, r)


def tensorinv(a: ArrayLike, ind: int = 2) -> Array:
    """The inverse of ``a`` as a linear map from its first ``ind`` axes to the rest.

    >>> tensorinv(np.eye(4).reshape(4, 2, 2), ind=1).shape
    (2, 2, 4)
    """
    v = operand(a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"tensorinv: ind must be a positive integer; got ind={ind}")
    shape = get_aval(v).shape
    rows, cols = shape[:ind], shape[ind:]
    if math.prod(rows) != math.prod(cols):
        raise ValueError(
            "tensorinv: the first ind axes must hold as many elements as the rest; "
            f"got shape {shape} with ind={ind}"
        )
    flat = reshape(v, (math.prod(rows), math.prod(cols)))
    return reshape(inv(flat), (*cols, *rows))


def tensorsolve(a: ArrayLike, b: ArrayLike, axes: tuple[int, ...] | None = None) -> Array:
    """The ``x`` with ``tensordot(a, x, x.ndim) == b`` (``axes`` of ``a`` moved to its end first).

    >>> tensorsolve(np.eye(4).reshape(2, 2, 4), np.ones((2, 2))).shape
    (4,)
    """
    a_val, b_val = operand(a), operand(b)
    if axes is not None:
        last = get_aval(a_val).ndim - 1
        a_val = moveaxis(a_val, axes, (last,) * len(axes))
    a_shape, b_shape = get_aval(a_val).shape, get_aval(b_val).shape
    out_shape = a_shape[len(b_shape) :]
    if a_shape[: len(b_shape)] != b_shape:
        raise ValueError(
            "tensorsolve: after moving axes, a's leading shape must be b's; "
            f"got a.shape={a_shape}, b.shape={b_shape}"
        )
    size = math.prod(b_shape)
    if size != math.prod(out_shape):
        raise ValueError(
            "tensorsolve: a must be square as a map (prod(a.shape[:b.ndim]) == "
            f"prod(a.shape[b.ndim:])); got a.shape={a_shape}, b.ndim={len(b_shape)}"
        )
    flat = reshape(a_val, (size, math.prod(out_shape)))
    return reshape(solve(flat, reshape(b_val, (size,))), out_shape)
