"""The interpreters' rules for the linear-algebra primitives (``core.lax.linalg``).

Jvp, batching, transpose and flops rules, registered in each interpreter's
table; the lowering and the impls (one compiled equation each: the LAPACK
kernels are XLA's to call) are in ``lowering.linalg``.

Design rules:
- The jvp rules are JAX's formulas (``jax/_src/lax/linalg.py``), written
  over whole batches of matrices with ``matmul`` (a ``dot_general``
  batched over the leading axes, with the precision JAX's rule gives
  each product), so no rule needs ``vmap``:
  ``cholesky`` (Murray's forward rule: ``L phi(L^-1 dA L^-H)``),
  ``triangular_solve`` (linear in ``b``; in ``a``, ``-A^-1 dA X``),
  ``lu`` (De Hoog et al.: ``L tril(L^-1 P dA U^-1, -1) + triu(...) U``),
  ``qr`` (thin, wide, and JAX's full-matrices correction), ``eigh``
  (non-degenerate perturbation theory) and ``svd`` (as JAX's: not for
  full matrices of a non-square operand). Grad follows by transposition:
  the tangents are linear programs of triangular solves and products.
- Complex dtypes follow JAX's rules: conjugate transposes are ``_H``
  (``core.lax.linalg``) wherever JAX's rules have them; the thin QR jvp
  adds ``i Im(diag(Q^H dX R^-1))`` to its skew-Hermitian part; the
  tangents of ``eigh``'s eigenvalues and ``svd``'s singular values are the
  real parts of the diagonals (those outputs are real); a
  ``conjugate_a`` solve conjugates its ``a`` tangent.
- ``triangular_solve`` is linear in ``b``: its transpose is the solve with
  ``a`` transposed (``transpose_a`` flipped), as JAX's.
- Batching: every primitive takes any leading batch axes, so the rule
  moves the batched axis of each operand to the front (broadcasting an
  unbatched ``triangular_solve`` operand) and binds the same primitive.
- Row permutations (``lu``'s jvp, the full-matrices ``qr`` jvp) are a
  product with the one-hot permutation matrix, which differentiates and
  batches as any product does.
- Flops: XLA cannot count inside a custom call (it reports none), so these
  are the usual LAPACK operation counts per matrix: ``n^3/3`` for
  Cholesky, ``n^2 r`` for a triangular solve of ``r`` right-hand sides,
  ``m n k - (m + n) k^2 / 2 + k^3 / 3`` for LU, ``2 m n k - (m + n) k^2 +
  2 k^3 / 3`` for Householder QR plus as much again to form ``q``, ``9 n^3``
  for a symmetric eigendecomposition with vectors, and ``4 m n k + 8 k^3``
  for an SVD with vectors (``2 m n k + 2 k^3`` without), times the number
  of matrices.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Unpack

import numpy as np

from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import Value
from didax.core.dtypes import DType
from didax.core.lax.linalg import (
    _H,
    _T,
    TriangularSolveParams,
    cholesky_p,
    eigh_p,
    lu_p,
    qr_p,
    svd_p,
    symmetrize,
    triangular_solve,
    triangular_solve_p,
)
from didax.core.lax.linalg import _tril as tril
from didax.core.lax.linalg import _triu as triu
from didax.core.primitive import Primitive
from didax.core.values import ArrayLike, get_aval
from didax.interpreters.batching import BATCH_RULES, Dim, move_axis
from didax.interpreters.flops import FLOPS_RULES, Cost, Operand
from didax.interpreters.jvp import JVP_RULES, Zero, add_tangents, instantiate_zeros
from didax.interpreters.transpose import (
    TRANSPOSE_RULES,
    NonlinearError,
    UndefinedPrimal,
    is_undefined,
)

__all__ = ["matmul", "eye_like", "permute_rows"]


# --- helpers ------------------------------------------------------------------------------


def matmul(
    a: ArrayLike,
    b: ArrayLike,
    precision: lax.Precision | None = None,
    preferred_element_type: DType | None = None,
) -> Value:
    """``a @ b`` for batches of matrices with equal leading axes."""
    nd = get_aval(a).ndim
    batch = tuple(range(nd - 2))
    dims = (((nd - 1,), (nd - 2,)), (batch, batch))
    out: Value = lax.dot_general(a, b, dims, precision, preferred_element_type)
    return out


# The products of the jvp rules take the precision JAX's rules give them
# (a product's precision changes its numbers on accelerators):
# - ``_hmatmul``: full precision, as JAX's ``lax.batch_matmul(...,
#   precision=HIGHEST)`` (cholesky, triangular_solve, eigh), and for the
#   one-hot products standing for row permutations (JAX indexes: exact);
# - ``_np_hmatmul``: ``jnp``'s ``@`` under ``default_matmul_precision
#   ("float32")`` (lu, svd): full precision, the result type preferred;
# - ``_np_matmul``: ``jnp``'s plain ``@`` (qr): the default precision.


def _hmatmul(a: ArrayLike, b: ArrayLike) -> Value:
    return matmul(a, b, lax.Precision.HIGHEST)


def _np_hmatmul(a: ArrayLike, b: ArrayLike) -> Value:
    return matmul(a, b, lax.Precision.HIGHEST, get_aval(a).dtype)


def _np_matmul(a: ArrayLike, b: ArrayLike) -> Value:
    return matmul(a, b, None, get_aval(a).dtype)


def eye_like(x: ArrayLike, n: int, m: int | None = None, k: int = 0) -> Value:
    """The ``n x m`` identity (ones on diagonal ``k``), broadcast to ``x``'s leading axes."""
    aval = get_aval(x)
    return _eye(aval.shape[:-2], n, n if m is None else m, k, aval.dtype)


def _eye(batch: tuple[int, ...], n: int, m: int, k: int, dtype: DType) -> Value:
    eye = np.eye(n, m, k, dtype=dtype)
    out: Value = lax.broadcast_in_dim(eye, (*batch, n, m), (len(batch), len(batch) + 1))
    return out


def permute_rows(perm: ArrayLike, x: ArrayLike) -> Value:
    """``x[..., perm, :]``: the product with the one-hot matrix of ``perm`` (int, ``[..., m]``)."""
    aval = get_aval(x)
    m = get_aval(perm).shape[-1]
    batch = aval.shape[:-2]
    nb = len(batch)
    lanes = lax.broadcast_in_dim(lax.iota(dtypes.int32, m), (*batch, m, m), (nb + 1,))
    rows = lax.broadcast_in_dim(perm, (*batch, m, m), (*range(nb), nb))
    onehot = lax.convert_element_type(lax.eq(rows, lanes), aval.dtype)
    return _hmatmul(onehot, x)


def _slice_matrix(x: ArrayLike, rows: tuple[int, int], cols: tuple[int, int]) -> Value:
    shape = get_aval(x).shape
    nb = len(shape) - 2
    out: Value = lax.slice(x, (0,) * nb + (rows[0], cols[0]), (*shape[:-2], rows[1], cols[1]))
    return out


def _pad_matrix(x: ArrayLike, rows: tuple[int, int], cols: tuple[int, int]) -> Value:
    nb = get_aval(x).ndim - 2
    config = [(0, 0, 0)] * nb + [(rows[0], rows[1], 0), (cols[0], cols[1], 0)]
    out: Value = lax.pad(x, np.zeros((), get_aval(x).dtype), config)
    return out


def _is_complex(x: ArrayLike) -> bool:
    return dtypes.is_complex(get_aval(x).dtype)


def _real_part(x: Value) -> Value:
    """``Re(x)`` for a complex ``x`` (a real ``x`` as it is)."""
    if _is_complex(x):
        x = lax.real(x)
    return x


def _as_dtype_of(x: Value, like: ArrayLike) -> Value:
    """``x`` (real) converted to ``like``'s dtype (complex, or the same real one)."""
    dtype = get_aval(like).dtype
    if get_aval(x).dtype != dtype:
        x = lax.convert_element_type(x, dtype)
    return x


def _diagonal(x: ArrayLike) -> Value:
    """The diagonal of each (square) matrix, as a ``[..., n]`` array."""
    aval = get_aval(x)
    n = aval.shape[-1]
    out: Value = lax.reduce_sum(lax.mul(x, eye_like(x, n)), (aval.ndim - 1,))
    return out


def _rows_of(v: ArrayLike, m: int) -> Value:
    """A ``[..., n]`` vector as ``m`` equal rows: ``out[..., i, j] = v[..., j]``."""
    shape = get_aval(v).shape
    nb = len(shape) - 1
    out: Value = lax.broadcast_in_dim(v, (*shape[:-1], m, shape[-1]), (*range(nb), nb + 1))
    return out


def _cols_of(v: ArrayLike, m: int) -> Value:
    """A ``[..., n]`` vector as ``m`` equal columns: ``out[..., i, j] = v[..., i]``."""
    shape = get_aval(v).shape
    nb = len(shape) - 1
    out: Value = lax.broadcast_in_dim(v, (*shape[:-1], shape[-1], m), (*range(nb), nb))
    return out


def _solve_kw(**params: bool) -> dict[str, bool]:
    return {k: bool(v) for k, v in params.items()}


# --- cholesky -------------------------------------------------------------------------------


@JVP_RULES.defines(cholesky_p)
def _cholesky_jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    (x,), (sigma_dot,) = primals, tangents
    factor = cholesky_p.bind(x)
    n = get_aval(x).shape[-1]
    # L_dot = L phi(L^-1 sigma_dot L^-H), phi = the lower triangle, diagonal halved.
    tmp = triangular_solve(
        factor, sigma_dot, left_side=False, transpose_a=True, conjugate_a=True, lower=True
    )
    inner = triangular_solve(factor, tmp, left_side=True, transpose_a=False, lower=True)
    phi = lax.div(tril(inner), lax.add(eye_like(x, n), 1.0))
    return factor, _hmatmul(factor, phi)


# --- triangular_solve -----------------------------------------------------------------------


def _triangular_solve_jvp_a(
    g_a: Value, ans: Value, a: Value, **params: Unpack[TriangularSolveParams]
) -> Value:
    left_side, lower = params["left_side"], params["lower"]
    transpose_a, conjugate_a = params["transpose_a"], params["conjugate_a"]
    m, n = get_aval(ans).shape[-2:]
    k = 1 if params["unit_diagonal"] else 0
    g_a = tril(g_a, -k) if lower else triu(g_a, k)
    g_a = lax.neg(g_a)
    g_a = _T(g_a) if transpose_a else g_a
    if conjugate_a and _is_complex(g_a):
        g_a = lax.conj(g_a)
    kw = _solve_kw(**params)

    def a_inverse(rhs: Value) -> Value:
        return triangular_solve(a, rhs, **kw)

    # Whichever order is cheaper: a solve costs about a product.
    if left_side:
        return a_inverse(_hmatmul(g_a, ans)) if m > n else _hmatmul(a_inverse(g_a), ans)
    return a_inverse(_hmatmul(ans, g_a)) if m < n else _hmatmul(ans, a_inverse(g_a))


@JVP_RULES.defines(triangular_solve_p)
def _triangular_solve_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], **params: bool
) -> tuple[Any, Any]:
    (a, b), (a_dot, b_dot) = primals, tangents
    out = triangular_solve_p.bind(a, b, **params)
    t_out: Any = Zero.like(get_aval(out))
    if not isinstance(b_dot, Zero):
        t_out = add_tangents(t_out, triangular_solve_p.bind(a, b_dot, **params))
    if not isinstance(a_dot, Zero):
        t_out = add_tangents(t_out, _triangular_solve_jvp_a(a_dot, out, a, **params))
    return out, t_out


@TRANSPOSE_RULES.defines(triangular_solve_p)
def _triangular_solve_transpose(
    ct: ArrayLike | Zero,
    a: Value | UndefinedPrimal,
    b: UndefinedPrimal,
    **params: Unpack[TriangularSolveParams],
) -> list[Any]:
    # Linear in b only (as div is in its dividend).
    if is_undefined(a):
        raise NonlinearError(
            "transpose of triangular_solve: a is a linear input; the function is not linear there"
        )
    ct = instantiate_zeros(ct)
    transposed = {**params, "transpose_a": not params["transpose_a"]}
    ct_b = triangular_solve_p.bind(a, ct, **transposed)
    return [None, ct_b]


# --- lu ---------------------------------------------------------------------------------------


@JVP_RULES.defines(lu_p)
def _lu_jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    (a,), (a_dot,) = primals, tangents
    packed, pivots, perm = lu_p.bind(a)
    m, n = get_aval(a).shape[-2:]
    k = min(m, n)
    # L (m x m, unit lower) and U (n x n, upper, the identity past row k).
    lower = _pad_matrix(tril(_slice_matrix(packed, (0, m), (0, k)), -1), (0, 0), (0, m - k))
    lower = lax.add(lower, eye_like(a, m))
    upper = _pad_matrix(triu(_slice_matrix(packed, (0, k), (0, n))), (0, n - k), (0, 0))
    if n > k:
        upper = lax.add(upper, _pad_matrix(eye_like(a, n - k), (k, 0), (k, 0)))
    la = triangular_solve(
        lower, permute_rows(perm, a_dot), left_side=True, lower=True, unit_diagonal=True
    )
    lau = triangular_solve(upper, la, left_side=False, lower=False)
    lu_dot = lax.add(_np_hmatmul(lower, tril(lau, -1)), _np_hmatmul(triu(lau), upper))
    return [packed, pivots, perm], [
        lu_dot,
        Zero.like(get_aval(pivots)),
        Zero.like(get_aval(perm)),
    ]


def lu_solve_transposed(packed: ArrayLike, perm: ArrayLike, b: ArrayLike) -> Value:
    """Solves ``A^H x = b`` from ``A``'s LU decomposition (batched, ``b`` a matrix)."""
    x = triangular_solve(packed, b, left_side=True, lower=False, transpose_a=True, conjugate_a=True)
    x = triangular_solve(
        packed,
        x,
        left_side=True,
        lower=True,
        unit_diagonal=True,
        transpose_a=True,
        conjugate_a=True,
    )
    # x = P^T x: the transpose of the one-hot permutation matrix.
    m = get_aval(perm).shape[-1]
    batch = get_aval(x).shape[:-2]
    nb = len(batch)
    lanes = lax.broadcast_in_dim(lax.iota(dtypes.int32, m), (*batch, m, m), (nb + 1,))
    rows = lax.broadcast_in_dim(perm, (*batch, m, m), (*range(nb), nb))
    onehot = lax.convert_element_type(lax.eq(rows, lanes), get_aval(x).dtype)
    return _hmatmul(_T(onehot), x)


# --- qr ---------------------------------------------------------------------------------------


def _thin_qr_jvp(q: Value, r: Value, dx: Value) -> tuple[Value, Value]:
    """The jvp of ``[..., m, n]`` QR with ``m >= n`` (J. Townsend's derivation, as JAX's)."""
    dx_rinv = triangular_solve(r, dx)  # x @ r^-1: a right-side solve
    qt_dx_rinv = _np_matmul(_H(q), dx_rinv)
    qt_dx_rinv_lower = tril(qt_dx_rinv, -1)
    do = lax.sub(qt_dx_rinv_lower, _H(qt_dx_rinv_lower))  # skew-Hermitian
    if _is_complex(qt_dx_rinv):
        # The diagonal of a skew-Hermitian matrix is imaginary: do takes
        # i Im(diag(qt_dx_rinv)), so that dr's diagonal stays real.
        n = get_aval(r).shape[-1]
        imag_part = lax.sub(qt_dx_rinv, _as_dtype_of(lax.real(qt_dx_rinv), qt_dx_rinv))
        do = lax.add(do, lax.mul(eye_like(qt_dx_rinv, n), imag_part))
    dq = lax.add(_np_matmul(q, lax.sub(do, qt_dx_rinv)), dx_rinv)
    dr = _np_matmul(lax.sub(qt_dx_rinv, do), r)
    return dq, dr


@JVP_RULES.defines(qr_p)
def _qr_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], *, full_matrices: bool
) -> tuple[Any, Any]:
    (x,), (dx,) = primals, tangents
    q, r = qr_p.bind(x, full_matrices=full_matrices)
    m, n = get_aval(x).shape[-2:]
    if m < n:
        # x = [x1 x2] = q [r1 r2]: x1's square QR, and r2 = q^H x2.
        x2 = _slice_matrix(x, (0, m), (m, n))
        dx1 = _slice_matrix(dx, (0, m), (0, m))
        dx2 = _slice_matrix(dx, (0, m), (m, n))
        r1 = _slice_matrix(r, (0, m), (0, m))
        dq, dr1 = _thin_qr_jvp(q, r1, dx1)
        dr2 = lax.add(_np_matmul(_H(dq), x2), _np_matmul(_H(q), dx2))
        return [q, r], [dq, lax.concatenate([dr1, dr2], get_aval(dr1).ndim - 1)]
    q_mn = _slice_matrix(q, (0, m), (0, n)) if full_matrices else q
    r_nn = _slice_matrix(r, (0, n), (0, n)) if full_matrices else r
    dq_mn, dr_nn = _thin_qr_jvp(q_mn, r_nn, dx)
    if not full_matrices or m == n:
        return [q, r], [dq_mn, dr_nn]
    # The full-matrices completion (arXiv:2409.13374, as JAX's):
    # Z = Q_pn (Q_nn - I)^-1, solved through the LU of (Q_nn - I)^H.
    q_nn = _slice_matrix(q_mn, (0, n), (0, n))
    q_pn = _slice_matrix(q_mn, (n, m), (0, n))
    q_mp = _slice_matrix(q, (0, m), (n, m))
    dq_nn = _slice_matrix(dq_mn, (0, n), (0, n))
    dq_pn = _slice_matrix(dq_mn, (n, m), (0, n))
    packed, _, perm = lu_p.bind(lax.sub(q_nn, eye_like(q_nn, n)))
    z_pn_h = lu_solve_transposed(packed, perm, _H(q_pn))
    z_pn = _H(z_pn_h)
    dq_mp = lax.sub(
        _np_matmul(dq_mn, z_pn_h),
        _np_matmul(
            lax.add(q_mn, _np_matmul(q_mp, z_pn)), _H(lax.sub(dq_pn, _np_matmul(z_pn, dq_nn)))
        ),
    )
    nd = get_aval(dq_mn).ndim
    dq = lax.concatenate([dq_mn, dq_mp], nd - 1)
    dr = _pad_matrix(dr_nn, (0, m - n), (0, 0))
    return [q, r], [dq, dr]


# --- eigh ---------------------------------------------------------------------------------------


@JVP_RULES.defines(eigh_p)
def _eigh_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], *, lower: bool, sort_eigenvalues: bool
) -> tuple[Any, Any]:
    # Non-degenerate perturbation theory (as JAX's): distinct eigenvalues.
    (a,), (a_dot,) = primals, tangents
    v, w = eigh_p.bind(symmetrize(a), lower=lower, sort_eigenvalues=sort_eigenvalues)
    n = get_aval(a).shape[-1]
    # The identity in w's (real) dtype, over w's batch axes: all but its last.
    w_aval = get_aval(w)
    eye = _eye(w_aval.shape[:-1], n, n, 0, w_aval.dtype)
    # 1 / (w_j - w_i) off the diagonal, 0 on it, with no 1/0 computed.
    f_mat = lax.sub(lax.integer_pow(lax.add(eye, lax.sub(_rows_of(w, n), _cols_of(w, n))), -1), eye)
    vdag_adot_v = _hmatmul(_hmatmul(_H(v), a_dot), v)
    dv = _hmatmul(v, lax.mul(_as_dtype_of(f_mat, v), vdag_adot_v))
    dw = _diagonal(_real_part(vdag_adot_v))
    return [v, w], [dv, dw]


# --- svd ----------------------------------------------------------------------------------------


@JVP_RULES.defines(svd_p)
def _svd_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], *, full_matrices: bool, compute_uv: bool
) -> tuple[Any, Any]:
    (a,), (da,) = primals, tangents
    s, u, vt = svd_p.bind(a, full_matrices=False, compute_uv=True)
    m, n = get_aval(a).shape[-2:]
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError(
            "svd: the jvp of a full-matrices decomposition of a non-square matrix is not "
            "implemented (as in JAX): use full_matrices=False"
        )
    ut, v = _H(u), _H(vt)
    k = get_aval(s).shape[-1]
    ds_mat = _np_hmatmul(_np_hmatmul(ut, da), v)
    ds = _diagonal(_real_part(ds_mat))
    if not compute_uv:
        return [s], [ds]
    # s is real (for a complex a too): the real matrices built from it are
    # converted to a's dtype where they meet the tangents.
    s_row, s_col = _rows_of(s, k), _cols_of(s, k)  # s_j and s_i at [i, j]
    s_diffs = lax.mul(lax.add(s_row, s_col), lax.sub(s_row, s_col))
    eye = eye_like(s_row, k)
    f_mat = _as_dtype_of(lax.sub(lax.div(1.0, lax.add(s_diffs, eye)), eye), a)
    dss = lax.mul(_as_dtype_of(s_row, a), ds_mat)  # dS diag(s)
    sds = lax.mul(_as_dtype_of(s_col, a), ds_mat)  # diag(s) dS
    s_zeros = lax.convert_element_type(lax.eq(s, lax.full_like(s, 0)), get_aval(s).dtype)
    s_inv = lax.sub(lax.div(1.0, lax.add(s, s_zeros)), s_zeros)
    s_inv_mat = _as_dtype_of(lax.mul(_rows_of(s_inv, k), eye), a)
    du_dv_diag = lax.mul(lax.mul(lax.sub(ds_mat, _H(ds_mat)), s_inv_mat), 0.5)
    du = _np_hmatmul(u, lax.add(lax.mul(f_mat, lax.add(dss, _H(dss))), du_dv_diag))
    dv = _np_hmatmul(v, lax.mul(f_mat, lax.add(sds, _H(sds))))
    if m > n:
        dav = _np_hmatmul(da, v)
        s_rows = _as_dtype_of(_rows_of(s, m), a)
        du = lax.add(du, lax.div(lax.sub(dav, _np_hmatmul(u, _np_hmatmul(ut, dav))), s_rows))
    if n > m:
        dahu = _np_hmatmul(_H(da), u)
        s_rows = _as_dtype_of(_rows_of(s, n), a)
        dv = lax.add(dv, lax.div(lax.sub(dahu, _np_hmatmul(v, _np_hmatmul(vt, dahu))), s_rows))
    return [s, u, vt], [ds, du, _H(dv)]


# --- batching -------------------------------------------------------------------------------------


def _front_batcher(prim: Primitive) -> None:
    # Every operand's batched axis goes to the front (unbatched ones are
    # broadcast); the primitive takes the extra leading axis as it is.
    def rule(
        axis_size: int, args: Sequence[Any], dims: Sequence[Dim], **params: bool
    ) -> tuple[Any, Any]:
        moved = [move_axis(x, d, 0, axis_size) for x, d in zip(args, dims, strict=True)]
        out = prim.bind(*moved, **params)
        if prim.multiple_results:
            return out, [0] * len(out)
        return out, 0

    BATCH_RULES.register(prim, rule)


for _p in (cholesky_p, triangular_solve_p, lu_p, qr_p, eigh_p, svd_p):
    _front_batcher(_p)


# --- flops ----------------------------------------------------------------------------------------


def _count(aval: ShapedArray) -> int:
    return int(np.prod(aval.shape[:-2], dtype=np.int64))


@FLOPS_RULES.defines(cholesky_p)
def _cholesky_flops(operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /) -> Cost:
    aval = operands[0].aval
    n = aval.shape[-1]
    return Cost(_count(aval) * n**3 // 3, _count(aval) * n)  # n square roots


@FLOPS_RULES.defines(triangular_solve_p)
def _triangular_solve_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **params: bool
) -> Cost:
    a, b = operands[0].aval, operands[1].aval
    n = a.shape[-1]
    rhs = b.shape[-1] if params["left_side"] else b.shape[-2]
    return Cost(_count(b) * n * n * rhs)


@FLOPS_RULES.defines(lu_p)
def _lu_flops(operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /) -> Cost:
    aval = operands[0].aval
    m, n = aval.shape[-2:]
    k = min(m, n)
    return Cost(_count(aval) * (m * n * k - (m + n) * k * k // 2 + k**3 // 3))


@FLOPS_RULES.defines(qr_p)
def _qr_flops(operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **_: bool) -> Cost:
    aval = operands[0].aval
    m, n = aval.shape[-2:]
    k = min(m, n)
    per = 2 * m * n * k - (m + n) * k * k + 2 * k**3 // 3
    return Cost(_count(aval) * 2 * per)


@FLOPS_RULES.defines(eigh_p)
def _eigh_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **_: bool
) -> Cost:
    aval = operands[0].aval
    return Cost(_count(aval) * 9 * aval.shape[-1] ** 3)


@FLOPS_RULES.defines(svd_p)
def _svd_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, *, compute_uv: bool, **_: bool
) -> Cost:
    aval = operands[0].aval
    m, n = aval.shape[-2:]
    k = min(m, n)
    per = 4 * m * n * k + 8 * k**3 if compute_uv else 2 * m * n * k + 2 * k**3
    return Cost(_count(aval) * per)
