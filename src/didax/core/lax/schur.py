"""The Schur and Hessenberg primitives: declarations, typing rules, ``didax.lax.linalg`` wrappers.

JAX's ``jax.lax.linalg.schur``, ``hessenberg`` and ``householder_product``:
the reductions ``didax.scipy.linalg`` builds ``schur``, ``sqrtm``, ``funm``,
``rsf2csf``, ``solve_sylvester`` and ``hessenberg`` on. The interpreters'
rules are in ``interpreters.schur``, the lowering (LAPACK's ``gees``,
``gehrd`` and ``orgqr``/``ungqr``) in ``lowering.schur``.

Design rules:
- Types are those of ``core.lax.linalg`` (float32, float64, complex64,
  complex128 matrices, leading axes a batch), with its operand checks.
- Results are JAX's: ``schur`` gives ``[t, z]`` (``a = z t z^H``, ``t``
  upper triangular for the complex dtypes and quasi-upper triangular, with
  2x2 blocks for complex-conjugate eigenvalue pairs, for the real ones), or
  ``[t]`` without ``compute_schur_vectors``; ``hessenberg`` gives LAPACK's
  packed ``(a, taus)``: the Hessenberg matrix on and above the first
  subdiagonal, the Householder reflectors below it, and ``n - 1`` scalar
  factors; ``householder_product`` multiplies such reflectors out into the
  orthonormal (unitary) matrix. A failed decomposition gives NaNs.
- ``schur`` keeps JAX's params (``sort_eig_vals``, ``select_callable``),
  and refuses what JAX cannot do on a CPU: LAPACK's sorting of the
  eigenvalues (JAX's lowering raises) and a selection callable, which JAX
  ignores; didax refuses it rather than ignore what the caller asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, dtype_failure, shape_failure
from didax.core.basearray import Value
from didax.core.lax.linalg import _check_matrix, _check_square
from didax.core.lax.operands import as_operand
from didax.core.primitive import Primitive, primitives
from didax.core.values import ArrayLike

__all__ = [
    "schur_p",
    "hessenberg_p",
    "householder_product_p",
    "SCHUR_PRIMITIVES",
    "schur",
    "hessenberg",
    "householder_product",
]

schur_p, hessenberg_p = primitives("schur", "hessenberg", multiple_results=True)
householder_product_p: Final = Primitive("householder_product")

SCHUR_PRIMITIVES: Final[tuple[Primitive, ...]] = (schur_p, hessenberg_p, householder_product_p)


# --- typing rules -------------------------------------------------------------------


@ABSTRACT_EVAL.defines(schur_p)
def _schur_rule(
    x: ShapedArray,
    *,
    compute_schur_vectors: bool,
    sort_eig_vals: bool,
    select_callable: None,
) -> list[ShapedArray]:
    _check_square(x)
    out = x.strip_weak()
    return [out, out] if compute_schur_vectors else [out]


@ABSTRACT_EVAL.defines(hessenberg_p)
def _hessenberg_rule(x: ShapedArray) -> list[ShapedArray]:
    batch, n = _check_square(x)
    return [x.strip_weak(), ShapedArray((*batch, max(n - 1, 0)), x.dtype)]


@ABSTRACT_EVAL.defines(householder_product_p)
def _householder_product_rule(a: ShapedArray, taus: ShapedArray) -> ShapedArray:
    batch, m, n = _check_matrix(a, "a")
    if a.dtype != taus.dtype:
        raise dtype_failure(f"a and taus must have one dtype, got {a.dtype} and {taus.dtype}")
    if m < n:
        raise shape_failure(f"a must have at least as many rows as columns, got shape {a.shape}")
    if taus.ndim < 1 or taus.shape[:-1] != batch:
        raise shape_failure(
            f"taus must be a vector per matrix of a, with a's batch axes, got shapes "
            f"{a.shape} and {taus.shape}"
        )
    if taus.shape[-1] > n:
        raise shape_failure(
            f"taus must have at most min(m, n) = {n} elements, got shape {taus.shape}"
        )
    return a.strip_weak()


# --- wrappers -----------------------------------------------------------------------------


def schur(
    x: ArrayLike,
    *,
    compute_schur_vectors: bool = True,
    sort_eig_vals: bool = False,
    select_callable: Callable[..., Any] | None = None,
) -> tuple[Any, ...]:
    """The Schur decomposition ``x = z t z^H``: ``(t, z)``, or ``(t,)`` alone.

    CPU only, as JAX's (LAPACK's ``gees``).

    >>> import numpy as np
    >>> t, z = schur(np.array([[2.0, 0.0], [0.0, 1.0]]))
    >>> t
    Array([[2., 0.],
           [0., 1.]], dtype=float32)
    """
    if select_callable is not None:
        raise NotImplementedError(
            "schur: select_callable is not supported (JAX ignores it; LAPACK's sorted "
            f"gees is not implemented), got {select_callable!r}"
        )
    if sort_eig_vals:
        raise NotImplementedError(
            "schur: sort_eig_vals=True is not supported: the sort feature of LAPACK's gees "
            "routine is not implemented (as in JAX)"
        )
    outs = schur_p.bind(
        as_operand(x),
        compute_schur_vectors=bool(compute_schur_vectors),
        sort_eig_vals=False,
        select_callable=None,
    )
    return tuple(outs)


def hessenberg(a: ArrayLike) -> tuple[Any, Any]:
    """The reduction to upper Hessenberg form, packed as LAPACK's ``gehrd``: ``(a, taus)``.

    CPU only, as JAX's. On and above the first subdiagonal of ``a`` is the
    Hessenberg matrix, below it the Householder reflectors whose scalar
    factors are ``taus``.

    >>> import numpy as np
    >>> h, taus = hessenberg(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> h
    Array([[1., 2.],
           [3., 4.]], dtype=float32)
    """
    packed, taus = hessenberg_p.bind(as_operand(a))
    return packed, taus


def householder_product(a: ArrayLike, taus: ArrayLike) -> Value:
    """The product of the Householder reflectors in ``a``'s lower triangle (LAPACK's ``orgqr``).

    >>> import numpy as np
    >>> householder_product(np.array([[1.0], [1.0]]), np.array([1.0]))
    Array([[ 0.],
           [-1.]], dtype=float32)
    """
    out: Value = householder_product_p.bind(as_operand(a), as_operand(taus))
    return out
