"""The interpreters' rules for ``eig`` (``core.lax.eig``): jvp, batching and flops.

There is no impl rule: as the other LAPACK primitives (``interpreters.linalg``),
eager evaluation runs ``eig`` as a one-equation program through XLA, so eager
values are the jitted ones.

Design rules:
- The jvp is JAX's (``eig_jvp_rule``, non-degenerate perturbation theory):
  with ``A V = V diag(w)``, ``P = V^-1 dA V``, the eigenvalues' tangent is
  ``diag(P)``; alone (no eigenvectors asked for) it is computed as the row
  sums of ``(V^-1 dA) * V^T``. The eigenvectors' tangent, only under
  ``enable_eigvec_derivs`` (else the rule raises JAX's
  ``NotImplementedError``), is ``U + V diag(c)`` with ``U = V (F * P)``,
  ``F_ij = 1 / (w_j - w_i)`` off the diagonal, and ``c`` fixed by LAPACK's
  normalisation (unit norm, largest-magnitude component real); the left
  eigenvectors' is the same applied to ``(conj(w), vl, dA^H)``.
- ``V^-1 dA`` is a solve through ``V``'s LU decomposition (row permutation,
  then the two triangular solves), so the tangent is linear in ``dA`` and
  transposes (``grad`` of the eigenvalues) through the triangular solves'
  rules. Products are at full precision, as JAX's (``Precision.HIGHEST``).
- A real operand's tangent is converted to the eigenvectors' complex dtype
  first, as JAX's rule does.
- Batching: leading axes are batch axes; the batched axis moves to the front
  (``interpreters.linalg``'s rule for every decomposition).
- Flops: XLA counts nothing inside a custom call, so the count is Golub and
  Van Loan's for the Hessenberg QR algorithm per matrix: ``10 n^3`` for the
  eigenvalues alone, ``25 n^3`` with eigenvectors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.basearray import Value
from didax.core.lax.eig import eig_p
from didax.core.lax.linalg import _H, _T, lu_p, triangular_solve
from didax.core.values import ArrayLike, get_aval
from didax.interpreters.flops import FLOPS_RULES, Cost, Operand
from didax.interpreters.jvp import JVP_RULES
from didax.interpreters.linalg import (
    _cols_of,
    _count,
    _diagonal,
    _front_batcher,
    _rows_of,
    eye_like,
    matmul,
    permute_rows,
)

__all__: list[str] = []

_EIGVEC_DERIVS_MESSAGE = (
    "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the "
    "input that JAX cannot check (see the enable_eigvec_derivs argument to "
    "jax.lax.linalg.eig). Pass enable_eigvec_derivs=True to jax.lax.linalg.eig to opt in. "
    "See https://github.com/jax-ml/jax/issues/2748 for discussion."
)


def _dot(a: ArrayLike, b: ArrayLike) -> Value:
    return matmul(a, b, lax.Precision.HIGHEST)


def _solve(a: ArrayLike, b: ArrayLike) -> Value:
    """``a^-1 b`` for batches of square ``a`` and matrices ``b``, through ``a``'s LU."""
    packed, _, perm = lu_p.bind(a)
    y = triangular_solve(
        packed, permute_rows(perm, b), left_side=True, lower=True, unit_diagonal=True
    )
    return triangular_solve(packed, y, left_side=True, lower=False)


def _eigvec_jvp(w: Value, v: Value, da: Value) -> tuple[Value, Value]:
    """The tangents of ``w`` and of ``v`` (LAPACK-normalised eigenvectors) for ``dA``."""
    n = get_aval(w).shape[-1]
    eye = eye_like(v, n)
    f_mat = lax.sub(lax.integer_pow(lax.add(eye, lax.sub(_rows_of(w, n), _cols_of(w, n))), -1), eye)
    p = _dot(_solve(v, da), v)
    dw = _diagonal(p)
    u = _dot(v, lax.mul(f_mat, p))
    # dv_j = u_j + c_j v_j, c_j fixed by the two real constraints of LAPACK's
    # normalisation: c_j = -Re(v_j^H u_j) - i Im(u_kj) / v_kj, k = argmax_i |v_ij|.
    shape = get_aval(v).shape
    rows = len(shape) - 2
    k = lax.argmax(lax.abs(v), rows, dtypes.int32)
    k_rows = lax.broadcast_in_dim(k, shape, (*range(rows), rows + 1))
    at_k = lax.eq(lax.broadcasted_iota(dtypes.int32, shape, rows), k_rows)
    mask = lax.convert_element_type(at_k, get_aval(v).dtype)
    norm_part = lax.neg(lax.real(lax.reduce_sum(lax.mul(lax.conj(v), u), (rows,))))
    phase_part = lax.div(
        lax.neg(lax.imag(lax.reduce_sum(lax.mul(mask, u), (rows,)))),
        lax.real(lax.reduce_sum(lax.mul(mask, v), (rows,))),
    )
    c = lax.complex(norm_part, phase_part)
    return dw, lax.add(u, lax.mul(v, _rows_of(c, n)))


@JVP_RULES.defines(eig_p)
def _eig_jvp(
    primals: Sequence[Any],
    tangents: Sequence[Any],
    *,
    compute_left_eigenvectors: bool,
    compute_right_eigenvectors: bool,
    enable_eigvec_derivs: bool,
) -> tuple[Any, Any]:
    (a,), (da,) = primals, tangents
    vectors = compute_left_eigenvectors or compute_right_eigenvectors
    if vectors and not enable_eigvec_derivs:
        raise NotImplementedError(_EIGVEC_DERIVS_MESSAGE)
    outs = eig_p.bind(
        a,
        compute_left_eigenvectors=compute_left_eigenvectors,
        compute_right_eigenvectors=True,
        enable_eigvec_derivs=enable_eigvec_derivs,
    )
    w, vr = outs[0], outs[-1]
    da = lax.convert_element_type(da, get_aval(vr).dtype)
    if not vectors:
        dw = lax.reduce_sum(lax.mul(_solve(vr, da), _T(vr)), (get_aval(vr).ndim - 1,))
        return [w], [dw]
    dw, dvr = _eigvec_jvp(w, vr, da)
    primal_out, tangent_out = [w], [dw]
    if compute_left_eigenvectors:
        _, dvl = _eigvec_jvp(lax.conj(w), outs[1], _H(da))
        primal_out.append(outs[1])
        tangent_out.append(dvl)
    if compute_right_eigenvectors:
        primal_out.append(vr)
        tangent_out.append(dvr)
    return primal_out, tangent_out


_front_batcher(eig_p)


@FLOPS_RULES.defines(eig_p)
def _eig_flops(
    operands: Sequence[Operand],
    out_avals: Sequence[ShapedArray],
    /,
    *,
    compute_left_eigenvectors: bool,
    compute_right_eigenvectors: bool,
    **_: bool,
) -> Cost:
    aval = operands[0].aval
    per = 25 if compute_left_eigenvectors or compute_right_eigenvectors else 10
    return Cost(_count(aval) * per * aval.shape[-1] ** 3)
