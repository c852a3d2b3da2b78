"""``didax.scipy.linalg``'s Schur-form functions, as ``jax.scipy.linalg`` defines them.

``schur``, ``rsf2csf``, ``sqrtm``, ``funm``, ``solve_sylvester`` and
``hessenberg``, over the primitives of ``core.lax.schur`` (LAPACK's
``gees``, ``gehrd`` and ``orgqr``: CPU only, as JAX's).

Design rules:
- Signatures, defaults and algorithms are JAX's (SciPy's ``overwrite_a``
  and ``check_finite`` accepted and ignored): ``sqrtm`` is Björck and
  Hammarling's recurrence on the complex Schur form; ``funm`` is Parlett's
  recurrence (Golub and Van Loan's algorithm 11.1.1) on the complex Schur
  form that ``rsf2csf`` makes of the real one; ``solve_sylvester`` is
  Bartels and Stewart's: both complex Schur forms, then a ``scan`` over the
  entries of the triangular system from the bottom-right corner;
  ``hessenberg``'s ``q`` is the product of ``gehrd``'s reflectors.
- ``rsf2csf`` zeroes each 2x2 block's subdiagonal entry with a Givens
  rotation built, as JAX's, from the block's first eigenvalue; that
  eigenvalue is the block's closed form (the half difference of the
  diagonal plus the principal square root of the discriminant: the root of
  positive imaginary part first, LAPACK's order for a conjugate pair),
  since didax has no general eigensolver (JAX calls ``eigvals``).
- ``solve_sylvester``'s NaN check (any ``|eig(A)_i + eig(B)_j| < tol``)
  takes the eigenvalues from ``eigvals`` (LAPACK's ``geev``), as JAX's,
  so a sum ``geev`` cancels exactly (``B = -A``) is NaN in both;
  ``method='eigen'`` solves in the eigenbases of ``A`` and ``B``, as JAX's.
- ``schur``, ``rsf2csf``, ``solve_sylvester`` and ``hessenberg`` take
  leading batch axes (``vmap`` over them, as JAX's ``vectorize``);
  ``sqrtm`` and ``funm`` take one matrix, as JAX's.
- These are composites of the primitives, so they batch and jit; JAX
  defines no derivative of ``schur`` or ``hessenberg``, so neither do they.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, overload

import numpy as np

from didax.api.control_flow import cond, fori_loop, scan
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.creation import zeros
from didax.api.numpy.decompositions import conj_transpose, inexact
from didax.api.numpy.editing import block
from didax.api.numpy.eig import eig, eigvals
from didax.api.numpy.elementwise import abs as abs_
from didax.api.numpy.elementwise import maximum, minimum, sqrt, where
from didax.api.numpy.linalg import inv, norm, solve
from didax.api.numpy.linear_algebra import matmul
from didax.api.numpy.manipulation import broadcast_to
from didax.api.numpy.matrices import diag, triu
from didax.api.numpy.more_elementwise import isinf
from didax.api.numpy.operands import asarray, astype, broadcast_shapes
from didax.api.numpy.statistics import any as any_
from didax.api.transformations import vmap
from didax.core import dtypes
from didax.core.lax import schur as lax_schur
from didax.core.lax.precision import Precision
from didax.core.lax.slicing import dynamic_slice_in_dim, dynamic_update_slice_in_dim
from didax.core.values import get_aval

__all__ = ["schur", "rsf2csf", "sqrtm", "funm", "solve_sylvester", "hessenberg"]


def _square(name: str, what: str, x: Array, *, batched: bool = True) -> int:
    """The side of ``x``'s matrices; refuses anything else, naming ``name``."""
    shape = get_aval(x).shape
    if len(shape) < 2 or shape[-1] != shape[-2] or (not batched and len(shape) != 2):
        form = "(..., N, N)" if batched else "(N, N)"
        raise ValueError(f"{name}: {what} must have shape {form}, got {shape}")
    return int(shape[-1])


def _over_batch(fn: Callable[..., Any], batch_axes: int) -> Callable[..., Any]:
    for _ in range(batch_axes):
        fn = vmap(fn)
    return fn


def _eps(dtype: dtypes.DType) -> float:
    """The epsilon of a complex dtype's parts (complex64's float32, else float64's, as JAX's)."""
    return float(np.finfo(np.float32 if dtype == dtypes.complex64 else np.float64).eps)


def _complex(x: Array) -> Array:
    return astype(x, dtypes.complex_dtype(dtypes.to_inexact(get_aval(x).dtype)))


# --- schur and rsf2csf ----------------------------------------------------------------------------


def schur(a: ArrayLike, output: str = "real") -> tuple[Array, Array]:
    """``(T, Z)`` with ``a = Z T Z^H``: ``T`` (quasi-)upper triangular, ``Z`` unitary.

    ``output='complex'`` makes ``T`` upper triangular (complex eigenvalues on
    its diagonal); the real form has 2x2 blocks for complex-conjugate pairs.

    >>> import numpy as np
    >>> t, z = schur(np.array([[1.0, 2.0], [0.0, 3.0]]))
    >>> t
    Array([[1., 2.],
           [0., 3.]], dtype=float32)
    """
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got {output=}.")
    x = asarray(a)
    if output == "complex":
        x = _complex(x)
    t, z = lax_schur.schur(x)
    out: tuple[Array, Array] = (t, z)
    return out


def _block_eigenvalue_shift(t: Array, m: Any) -> Array:
    """The 2x2 block ``t[m-1:m+1, m-1:m+1]``'s first eigenvalue, minus ``t[m, m]``."""
    a, b = t[m - 1, m - 1], t[m - 1, m]
    c, d = t[m, m - 1], t[m, m]
    half = (a - d) / 2
    out: Array = half + sqrt(half * half + b * c)
    return out


def _rsf2csf_2d(t: Array, z: Array) -> tuple[Array, Array]:
    dtype = dtypes.promote_types(get_aval(t).dtype, get_aval(z).dtype)
    dtype = dtypes.complex_dtype(dtypes.to_inexact(dtype))
    t, z = astype(t, dtype), astype(z, dtype)
    eps = _eps(dtype)
    n = get_aval(t).shape[0]
    if n == 1:
        return t, z
    lanes = np.arange(n)

    def rotate(m: Any, t: Array, z: Array) -> tuple[Array, Array]:
        mu0 = _block_eigenvalue_shift(t, m)
        sub = t[m, m - 1]
        r = astype(sqrt(abs_(mu0) ** 2 + abs_(sub) ** 2), dtype)
        c, s = mu0 / r, sub / r
        g = block([[c.conj()[None, None], s[None, None]], [-s[None, None], c[None, None]]])
        g_h = conj_transpose(g)
        rows = dynamic_slice_in_dim(t, m - 1, 2, axis=0)
        from_col = lanes >= m - 1
        rows = where(from_col, matmul(g, where(from_col, rows, 0)), rows)
        t = dynamic_update_slice_in_dim(t, rows, m - 1, axis=0)
        cols = dynamic_slice_in_dim(t, m - 1, 2, axis=1)
        to_row = lanes[:, None] < m + 1
        cols = where(to_row, matmul(where(to_row, cols, 0), g_h), cols)
        t = dynamic_update_slice_in_dim(t, cols, m - 1, axis=1)
        z_cols = matmul(dynamic_slice_in_dim(z, m - 1, 2, axis=1), g_h)
        return t, dynamic_update_slice_in_dim(z, z_cols, m - 1, axis=1)

    def step(i: Any, tz: tuple[Array, Array]) -> tuple[Array, Array]:
        m = n - i
        t, z = tz
        small = eps * (abs_(t[m - 1, m - 1]) + abs_(t[m, m]))
        t, z = cond(abs_(t[m, m - 1]) > small, rotate, lambda m, t, z: (t, z), m, t, z)
        return t.at[m, m - 1].set(0), z

    out: tuple[Array, Array] = fori_loop(1, n, step, (t, z))
    return out


def rsf2csf(T: ArrayLike, Z: ArrayLike, check_finite: bool = True) -> tuple[Array, Array]:
    """The complex Schur form ``(T, Z)`` of a real one (``schur``'s ``output='real'``).

    >>> import numpy as np
    >>> t, z = rsf2csf(np.array([[0.0, 1.0], [-1.0, 0.0]]), np.eye(2))
    >>> np.round(np.asarray(t), 6)
    array([[0.+1.j, 0.+0.j],
           [0.+0.j, 0.-1.j]], dtype=complex64)
    """
    del check_finite  # as JAX's: unused
    t, z = asarray(T), asarray(Z)
    n = _square("rsf2csf", "T", t)
    if _square("rsf2csf", "Z", z) != n:
        raise ValueError(
            f"Input array shapes must match: Z: {get_aval(z).shape} vs. T: {get_aval(t).shape}"
        )
    batch = broadcast_shapes("rsf2csf", get_aval(t).shape[:-2], get_aval(z).shape[:-2])
    t, z = broadcast_to(t, (*batch, n, n)), broadcast_to(z, (*batch, n, n))
    out: tuple[Array, Array] = _over_batch(_rsf2csf_2d, len(batch))(t, z)
    return out


# --- sqrtm and funm -------------------------------------------------------------------------------


def _precise(a: Array, b: Array) -> Array:
    return matmul(a, b, precision=Precision.HIGHEST)


def _sqrtm_triu(t: Array) -> Array:
    """The upper-triangular square root of upper-triangular ``t`` (Björck and Hammarling)."""
    d = sqrt(diag(t))
    n = get_aval(d).shape[0]
    zero = zeros((), get_aval(t).dtype)

    def i_loop(offset: Any, carry: tuple[Any, Array]) -> tuple[Any, Array]:
        j, u = carry
        i = j - 1 - offset
        s = fori_loop(i + 1, j, lambda k, acc: acc + u[i, k] * u[k, j], zero)
        value = where(t[i, j] == s, 0, (t[i, j] - s) / (d[i] + d[j]))
        return j, u.at[i, j].set(value)

    def j_loop(j: Any, u: Array) -> Array:
        _, u = fori_loop(0, j, i_loop, (j, u))
        return u

    out: Array = fori_loop(0, n, j_loop, diag(d))
    return out


def sqrtm(A: ArrayLike, blocksize: int = 1) -> Array:
    """The principal matrix square root, by the complex Schur method (JAX's).

    >>> import numpy as np
    >>> sqrtm(np.array([[4.0, 0.0], [0.0, 9.0]]))
    Array([[2.+0.j, 0.+0.j],
           [0.+0.j, 3.+0.j]], dtype=complex64)
    """
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    a = asarray(A)
    _square("sqrtm", "A", a, batched=False)
    t, z = schur(a, output="complex")
    return _precise(_precise(z, _sqrtm_triu(t)), conj_transpose(z))


def _parlett(f: Array, t: Array) -> tuple[Array, Array]:
    """Golub and Van Loan's algorithm 11.1.1: ``f(t)`` above the diagonal, and the least gap."""
    n = get_aval(t).shape[0]
    lanes = np.arange(n)

    def inner(i: Any, carry: tuple[Any, Array, Array]) -> tuple[Any, Array, Array]:
        p, f, minden = carry
        j = i + p
        s = t[i - 1, j - 1] * (f[j - 1, j - 1] - f[i - 1, i - 1])
        between = (lanes >= i) & (lanes < j - 1)
        t_row, t_col = where(between, t[i - 1], 0), where(between, t[:, j - 1], 0)
        f_row, f_col = where(between, f[i - 1], 0), where(between, f[:, j - 1], 0)
        s = s + (t_row @ f_col - f_row @ t_col)
        den = t[j - 1, j - 1] - t[i - 1, i - 1]
        s = where(den != 0, s / den, s)
        return p, f.at[i - 1, j - 1].set(s), minimum(minden, abs_(den))

    def outer(p: Any, carry: tuple[Array, Array]) -> tuple[Array, Array]:
        _, f, minden = fori_loop(1, n - p + 1, inner, (p, *carry))
        return f, minden

    out: tuple[Array, Array] = fori_loop(1, n, outer, (f, abs_(t[0, 0])))
    return out


@overload
def funm(A: ArrayLike, func: Callable[[Array], Array], disp: Literal[True] = True) -> Array: ...
@overload
def funm(
    A: ArrayLike, func: Callable[[Array], Array], disp: Literal[False]
) -> tuple[Array, Array]: ...
def funm(
    A: ArrayLike, func: Callable[[Array], Array], disp: bool = True
) -> Array | tuple[Array, Array]:
    """``func`` of a matrix, applied to its eigenvalues (Parlett's recurrence, JAX's).

    The result is complex; with ``disp=False`` it comes with an estimate of
    its relative error.

    >>> import numpy as np
    >>> funm(np.array([[1.0, 0.0], [0.0, 4.0]]), lambda x: x * x)
    Array([[ 1.+0.j,  0.+0.j],
           [ 0.+0.j, 16.+0.j]], dtype=complex64)
    """
    a = asarray(A)
    if get_aval(a).ndim != 2 or get_aval(a).shape[0] != get_aval(a).shape[1]:
        raise ValueError("expected square array_like input")
    t, z = rsf2csf(*schur(a))
    dtype = get_aval(t).dtype
    f = astype(diag(func(diag(t))), dtype)
    f, minden = _parlett(f, t)
    f = z @ f @ conj_transpose(z)
    if disp:
        return f
    tol = _eps(dtype)
    minden = where(minden == 0.0, tol, minden)
    err = minimum(1, maximum(tol, (tol / minden) * norm(triu(t, 1), 1)))
    return f, where(any_(isinf(f)), np.inf, err)


# --- solve_sylvester ------------------------------------------------------------------------------


def _triangular_sylvester(r: Array, s: Array, f: Array) -> Array:
    """``Y`` with ``R Y + Y S^T = F``, ``R`` and ``S`` upper triangular (JAX's entry scan)."""
    m, n = get_aval(f).shape
    rows, cols = np.arange(m), np.arange(n)

    def step(y_flat: Array, idx: Any) -> tuple[Array, None]:
        i, j = idx // n, idx % n
        y = y_flat.reshape((m, n))
        row_term = where(rows > i, r[i, :] * y[:, j], 0).sum()
        col_term = where(cols > j, y[i, :] * s[:, j], 0).sum()
        value = (f[i, j] - (row_term + col_term)) / (r[i, i] + s[j, j])
        return y_flat.at[i * n + j].set(value), None

    start = zeros((m * n,), get_aval(f).dtype)
    y_flat, _ = scan(step, start, np.arange(m * n - 1, -1, -1))
    out: Array = y_flat.reshape((m, n))
    return out


def _sylvester_2d(a: Array, b: Array, c: Array, method: str, tol: float) -> Array:
    if method == "schur":
        r, u = schur(a, output="complex")
        s, v = schur(conj_transpose(b), output="complex")
        f = conj_transpose(u) @ astype(c, get_aval(r).dtype) @ v
        y = _triangular_sylvester(r, conj_transpose(s), f)
        x = u @ y @ conj_transpose(v)
    elif method == "eigen":
        wa, ua = eig(a)
        wb, ub = eig(b)
        f = solve(ua, astype(c, get_aval(wa).dtype) @ ub)
        x = ua @ (f / (wa[:, None] + wb[None, :])) @ inv(ub)
    else:
        raise ValueError(
            f'Unrecognized method {method}. The two valid methods are either "schur" or "eigen".'
        )
    if not dtypes.is_complex(get_aval(c).dtype):
        x = x.real
    gaps = abs_(eigvals(a)[:, None] + eigvals(b)[None, :])
    out: Array = cond(any_(gaps < tol), lambda: x * np.nan, lambda: x)
    return out


def solve_sylvester(
    A: ArrayLike, B: ArrayLike, C: ArrayLike, *, method: str = "schur", tol: float = 1e-8
) -> Array:
    """``X`` with ``A X + X B = C`` (Bartels and Stewart's method, JAX's).

    NaNs where an eigenvalue of ``A`` plus one of ``B`` is within ``tol`` of 0.

    >>> import numpy as np
    >>> solve_sylvester(np.eye(2), 2 * np.eye(2), 3 * np.eye(2))
    Array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    vals = [inexact(x) for x in (A, B, C)]
    dtype, _ = dtypes.result_type((get_aval(v).dtype, get_aval(v).weak_type) for v in vals)
    a, b, c = (astype(v, dtype) for v in vals)
    a_shape, b_shape, c_shape = (get_aval(v).shape for v in (a, b, c))
    if len(c_shape) < 2 or a_shape[-2:] != (c_shape[-2],) * 2 or b_shape[-2:] != (c_shape[-1],) * 2:
        raise ValueError(
            f"Incompatible shapes for Sylvester equation:\nA: {a_shape}\nB: {b_shape}\nC: {c_shape}"
        )
    batch = broadcast_shapes("solve_sylvester", a_shape[:-2], b_shape[:-2], c_shape[:-2])
    a, b, c = (
        broadcast_to(v, (*batch, *s[-2:])) for v, s in ((a, a_shape), (b, b_shape), (c, c_shape))
    )
    fn = _over_batch(lambda a, b, c: _sylvester_2d(a, b, c, method, tol), len(batch))
    out: Array = fn(a, b, c)
    return out


# --- hessenberg -----------------------------------------------------------------------------------


@overload
def hessenberg(
    a: ArrayLike,
    *,
    calc_q: Literal[False] = False,
    overwrite_a: bool = False,
    check_finite: bool = True,
) -> Array: ...
@overload
def hessenberg(
    a: ArrayLike, *, calc_q: Literal[True], overwrite_a: bool = False, check_finite: bool = True
) -> tuple[Array, Array]: ...
def hessenberg(
    a: ArrayLike, *, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> Array | tuple[Array, Array]:
    """The upper Hessenberg form ``H`` of ``a`` (and, with ``calc_q``, ``Q``: ``a = Q H Q^H``).

    >>> import numpy as np
    >>> h = hessenberg(np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    >>> np.asarray(h)[2, 0]
    np.float32(0.0)
    """
    del overwrite_a, check_finite  # as JAX's: unused
    x = asarray(a)
    n = get_aval(x).shape[-1] if get_aval(x).ndim else 0
    if n == 0:
        empty = zeros(get_aval(x).shape, get_aval(x).dtype)
        return (empty, empty) if calc_q else empty
    packed, taus = lax_schur.hessenberg(x)
    h = triu(packed, -1)
    if not calc_q:
        return h
    q = lax_schur.householder_product(packed[..., 1:, :-1], taus)
    batch = get_aval(packed).shape[:-2]
    dtype = get_aval(packed).dtype
    one = np.ones((*batch, 1, 1), dtype)
    q = block(
        [
            [one, np.zeros((*batch, 1, n - 1), dtype)],
            [np.zeros((*batch, n - 1, 1), dtype), q],
        ]
    )
    return h, q
