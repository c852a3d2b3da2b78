"""``didax.scipy.linalg``: SciPy's linear algebra, as ``jax.scipy.linalg`` defines it.

``solve_triangular``, ``cho_factor``, ``cho_solve``, ``lu``, ``lu_factor``,
``lu_solve`` and ``expm``, over the primitives of ``core.lax.linalg``, for
real and complex operands (``_h`` conjugates).

Design rules:
- Signatures, defaults and results are JAX's (SciPy's ``overwrite_*`` and
  ``check_finite`` are accepted and ignored, as in JAX). ``cho_factor``
  returns ``(c, lower)`` with the other triangle of ``c`` zero, as JAX's;
  ``lu`` returns ``(p, l, u)`` with ``a = p @ l @ u``.
- A right-hand side ``b`` is a vector when it has one axis, else a batch of
  matrices whose leading axes broadcast against the factor's.
- ``expm`` is JAX's: a Padé approximant of degree 3, 5, 7, 9 or 13 (3, 5, 7
  for float32 and complex64) chosen by the 1-norm, with scaling and squaring (a ``switch``
  over the degrees, a ``scan`` of conditional squarings), NaN past
  ``max_squarings``; batches go through ``vmap``.
- Everything is a composite, so it differentiates and batches through the
  primitives' rules.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from didax.api.control_flow import cond, fori_loop, scan, switch
from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.decompositions import conj_transpose, inexact
from didax.api.numpy.elementwise import floor, maximum, where
from didax.api.numpy.histograms import digitize
from didax.api.numpy.indexing import take_along_axis
from didax.api.numpy.linalg import norm
from didax.api.numpy.linalg import solve as _solve
from didax.api.numpy.linear_algebra import matmul
from didax.api.numpy.manipulation import broadcast_to, expand_dims
from didax.api.numpy.more_elementwise import log2
from didax.api.numpy.operands import Operand, astype, broadcast_shapes, operand
from didax.api.transformations import vmap
from didax.core import dtypes
from didax.core.lax import linalg as lax_linalg
from didax.core.lax.precision import Precision
from didax.core.values import get_aval

__all__ = [
    "solve_triangular",
    "cho_factor",
    "cho_solve",
    "lu",
    "lu_factor",
    "lu_solve",
    "expm",
]


def _inexact_pair(a: ArrayLike, b: ArrayLike) -> tuple[Array, Array]:
    vals = [operand(a), operand(b)]
    dtype, _ = dtypes.result_type((get_aval(v).dtype, get_aval(v).weak_type) for v in vals)
    dtype = dtypes.to_inexact(dtype)
    return astype(vals[0], dtype), astype(vals[1], dtype)


def _as_matrices(name: str, a: Array, b: Array) -> tuple[Array, Array, bool]:
    """``a`` and ``b`` broadcast to common leading axes; a vector ``b`` as one column."""
    a_shape = get_aval(a).shape
    if len(a_shape) < 2 or a_shape[-1] != a_shape[-2]:
        raise ValueError(f"{name}: a must have shape [..., n, n], got {a_shape}")
    vector = get_aval(b).ndim == 1
    if vector:
        b = expand_dims(b, -1)
    b_shape = get_aval(b).shape
    if b_shape[-2] != a_shape[-1]:
        raise ValueError(f"{name}: b's shape {b_shape} does not match a's {a_shape}")
    batch = broadcast_shapes(name, a_shape[:-2], b_shape[:-2])
    a = broadcast_to(a, (*batch, *a_shape[-2:]))
    b = broadcast_to(b, (*batch, *b_shape[-2:]))
    return a, b, vector


def solve_triangular(
    a: ArrayLike,
    b: ArrayLike,
    trans: int | str = 0,
    lower: bool = False,
    unit_diagonal: bool = False,
    overwrite_b: bool = False,
    debug: object = None,
    check_finite: bool = True,
) -> Array:
    """Solves ``op(a) x = b`` for triangular ``a``; ``trans`` is 0/'N', 1/'T' or 2/'C'.

    >>> import numpy as np
    >>> solve_triangular(np.array([[2.0, 0.0], [1.0, 4.0]]), np.array([2.0, 9.0]), lower=True)
    Array([1., 2.], dtype=float32)
    """
    del overwrite_b, debug, check_finite
    if trans in (0, "N"):
        transpose_a, conjugate_a = False, False
    elif trans in (1, "T"):
        transpose_a, conjugate_a = True, False
    elif trans in (2, "C"):
        transpose_a, conjugate_a = True, True
    else:
        raise ValueError(f"Invalid 'trans' value {trans}")
    a_val, b_val, vector = _as_matrices("solve_triangular", *_inexact_pair(a, b))
    out = lax_linalg.triangular_solve(
        a_val,
        b_val,
        left_side=True,
        lower=lower,
        transpose_a=transpose_a,
        conjugate_a=conjugate_a,
        unit_diagonal=unit_diagonal,
    )
    result: Array = out[..., 0] if vector else out
    return result


def cho_factor(
    a: ArrayLike, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> tuple[Array, bool]:
    """``(c, lower)``: the Cholesky factor (lower, or upper ``L^H``) for ``cho_solve``.

    >>> import numpy as np
    >>> c, lower = cho_factor(np.array([[4.0, 2.0], [2.0, 5.0]]))
    >>> c
    Array([[2., 1.],
           [0., 2.]], dtype=float32)
    """
    del overwrite_a, check_finite
    v = inexact(a)
    # As JAX's: the triangle named by ``lower`` is read, not symmetrized.
    factor = lax_linalg.cholesky(v if lower else conj_transpose(v), symmetrize_input=False)
    return (factor if lower else conj_transpose(factor)), lower


def cho_solve(
    c_and_lower: tuple[ArrayLike, bool],
    b: ArrayLike,
    overwrite_b: bool = False,
    check_finite: bool = True,
) -> Array:
    """Solves ``a x = b`` from ``cho_factor(a)``.

    >>> import numpy as np
    >>> a = np.array([[4.0, 2.0], [2.0, 5.0]])
    >>> cho_solve(cho_factor(a), np.array([6.0, 7.0]))
    Array([1., 1.], dtype=float32)
    """
    del overwrite_b, check_finite
    c, lower = c_and_lower
    c_val, b_val, vector = _as_matrices("cho_solve", *_inexact_pair(c, b))
    x = cho_solve_matrices(c_val, lower, b_val)
    out: Array = x[..., 0] if vector else x
    return out


def cho_solve_matrices(c: Array, lower: bool, b: Array) -> Array:
    """Solves ``a x = b`` for matrices ``b`` (with ``c``'s leading axes) from ``cho_factor(a)``."""
    x = lax_linalg.triangular_solve(
        c, b, left_side=True, lower=lower, transpose_a=not lower, conjugate_a=not lower
    )
    out: Array = lax_linalg.triangular_solve(
        c, x, left_side=True, lower=lower, transpose_a=lower, conjugate_a=lower
    )
    return out


def lu_factor(
    a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True
) -> tuple[Array, Array]:
    """``(lu, piv)``: the packed LU factors and LAPACK's pivots (row ``i`` swapped with ``piv[i]``).

    >>> import numpy as np
    >>> lu_factor(np.array([[1.0, 2.0], [3.0, 4.0]]))[1]
    Array([1, 1], dtype=int32)
    """
    del overwrite_a, check_finite
    packed, pivots, _ = lax_linalg.lu(inexact(a))
    return packed, pivots


def _pivots_to_permutation(pivots: Operand, m: int) -> Array:
    """The permutation made by swapping rows ``i`` and ``pivots[..., i]`` in turn."""
    shape = get_aval(pivots).shape
    lanes = np.arange(m, dtype=np.int32)
    perm = broadcast_to(lanes, (*shape[:-1], m))

    def swap(i: Any, perm: Any) -> Any:
        at = broadcast_to(i, (*shape[:-1], 1))
        j = take_along_axis(pivots, at, axis=-1)  # [..., 1]
        at_i = take_along_axis(perm, at, axis=-1)
        at_j = take_along_axis(perm, j, axis=-1)
        return where(lanes == i, at_j, where(lanes == j, at_i, perm))

    out: Array = fori_loop(0, shape[-1], swap, perm)
    return out


def lu_solve(
    lu_and_piv: tuple[ArrayLike, ArrayLike],
    b: ArrayLike,
    trans: int = 0,
    overwrite_b: bool = False,
    check_finite: bool = True,
) -> Array:
    """Solves ``a x = b`` (``trans`` 0), ``a^T x = b`` (1) or ``a^H x = b`` (2) from ``lu_factor``.

    >>> import numpy as np
    >>> a = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> lu_solve(lu_factor(a), np.array([3.0, 3.0]))
    Array([1., 1.], dtype=float32)
    """
    del overwrite_b, check_finite
    packed, pivots = lu_and_piv
    packed_val, b_val = _inexact_pair(packed, b)
    m = get_aval(packed_val).shape[-1]
    perm = _pivots_to_permutation(operand(pivots), m)
    packed_val, b_val, vector = _as_matrices("lu_solve", packed_val, b_val)
    batch = get_aval(packed_val).shape[:-2]
    perm = broadcast_to(perm, (*batch, m))
    if trans == 0:
        x = take_along_axis(b_val, expand_dims(perm, -1), axis=-2)
        x = lax_linalg.triangular_solve(
            packed_val, x, left_side=True, lower=True, unit_diagonal=True
        )
        x = lax_linalg.triangular_solve(packed_val, x, left_side=True, lower=False)
    elif trans in (1, 2):
        conj = trans == 2
        x = lax_linalg.triangular_solve(
            packed_val, b_val, left_side=True, lower=False, transpose_a=True, conjugate_a=conj
        )
        x = lax_linalg.triangular_solve(
            packed_val,
            x,
            left_side=True,
            lower=True,
            unit_diagonal=True,
            transpose_a=True,
            conjugate_a=conj,
        )
        # x[perm] = y: rows go back through the inverse permutation.
        inverse = _inverse_permutation(perm)
        x = take_along_axis(x, expand_dims(inverse, -1), axis=-2)
    else:
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    return x[..., 0] if vector else x


def _inverse_permutation(perm: Array) -> Array:
    m = get_aval(perm).shape[-1]
    lanes = np.arange(m, dtype=np.int32)
    # inverse[perm[i]] = i: the position of each lane in perm.
    onehot = expand_dims(perm, -1) == lanes  # [..., i, lane]
    out: Array = (astype(onehot, dtypes.int32) * expand_dims(lanes, -1)).sum(axis=-2)
    return out


def lu(
    a: ArrayLike, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> Any:
    """``(p, l, u)`` with ``a = p @ l @ u`` (``(p @ l, u)`` when ``permute_l``).

    >>> import numpy as np
    >>> p, l, u = lu(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> p
    Array([[0., 1.],
           [1., 0.]], dtype=float32)
    """
    del overwrite_a, check_finite
    v = inexact(a)
    packed, _, perm = lax_linalg.lu(v)
    aval = get_aval(v)
    m, n = aval.shape[-2:]
    k = min(m, n)
    lanes = np.arange(m, dtype=np.int32)
    # (As JAX's: p is real for a complex a.)
    p = astype(expand_dims(perm, -2) == expand_dims(lanes, -1), dtypes.real_dtype(aval.dtype))
    lower = lax_linalg._tril(packed, -1)[..., :, :k] + np.eye(m, k, dtype=aval.dtype)
    upper = lax_linalg._triu(packed)[..., :k, :]
    if permute_l:
        return _precise_matmul(p, lower), upper
    return p, lower, upper


# --- expm ----------------------------------------------------------------------------------

_PADE: Final[dict[int, tuple[float, ...]]] = {
    3: (120.0, 60.0, 12.0, 1.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0),
    9: (
        17643225600.0,
        8821612800.0,
        2075673600.0,
        302702400.0,
        30270240.0,
        2162160.0,
        110880.0,
        3960.0,
        90.0,
        1.0,
    ),
    13: (
        64764752532480000.0,
        32382376266240000.0,
        7771770303897600.0,
        1187353796428800.0,
        129060195264000.0,
        10559470521600.0,
        670442572800.0,
        33522128640.0,
        1323241920.0,
        40840800.0,
        960960.0,
        16380.0,
        182.0,
        1.0,
    ),
}


def _precise_matmul(a: ArrayLike, b: ArrayLike) -> Array:
    """A full-precision product (HIGHEST), as JAX's ``expm`` and ``lu(permute_l=True)`` use."""
    return matmul(a, b, precision=Precision.HIGHEST)


def _pade(degree: int) -> Any:
    """``(U, V)`` of the degree-``degree`` Padé approximant: ``exp(A) ~ (V - U)^-1 (V + U)``."""
    b = _PADE[degree]

    def approximant(a: Array) -> tuple[Array, Array]:
        n = get_aval(a).shape[-1]
        ident: Any = np.eye(n, dtype=get_aval(a).dtype)
        a2 = _precise_matmul(a, a)
        if degree == 13:
            a4 = _precise_matmul(a2, a2)
            a6 = _precise_matmul(a4, a2)
            u = _precise_matmul(
                a,
                _precise_matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
                + b[7] * a6
                + b[5] * a4
                + b[3] * a2
                + b[1] * ident,
            )
            v = (
                _precise_matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2)
                + b[6] * a6
                + b[4] * a4
                + b[2] * a2
                + b[0] * ident
            )
            return u, v
        powers = [ident, a2]
        while len(powers) <= degree // 2:
            powers.append(_precise_matmul(powers[-1], a2))
        u_inner = sum((b[2 * i + 1] * powers[i] for i in range(1, len(powers))), b[1] * ident)
        v = sum((b[2 * i] * powers[i] for i in range(1, len(powers))), b[0] * ident)
        return _precise_matmul(a, u_inner), v

    return approximant


def _expm_2d(a: Array, upper_triangular: bool, max_squarings: int) -> Array:
    dtype = get_aval(a).dtype
    real_dtype = dtypes.real_dtype(dtype)  # the norm's, and the thresholds'
    a_l1 = norm(a, 1)
    if real_dtype == dtypes.float64:
        maxnorm = 5.371920351148152
        conds = np.array(
            [
                1.495585217958292e-002,
                2.539398330063230e-001,
                9.504178996162932e-001,
                2.097847961257068e000,
            ],
            real_dtype,
        )
        degrees: tuple[int, ...] = (3, 5, 7, 9, 13)
    elif real_dtype == dtypes.float32:
        maxnorm = 3.925724783138660
        conds = np.array([4.258730016922831e-001, 1.880152677804762e000], real_dtype)
        degrees = (3, 5, 7)
    else:
        raise TypeError(f"A.dtype={dtype} is not supported.")
    n_squarings = maximum(0.0, floor(log2(a_l1 / maxnorm)))
    a = a / 2.0**n_squarings
    idx = digitize(a_l1, conds)
    u, v = switch(idx, [_pade(d) for d in degrees], a)
    p, q = u + v, -u + v
    r = solve_triangular(q, p) if upper_triangular else _solve(q, p)

    def square(c: Any, i: Any) -> tuple[Any, None]:
        return cond(i < n_squarings, lambda x: _precise_matmul(x, x), lambda x: x, c), None

    def compute(r: Array) -> Array:
        out: Array
        out, _ = scan(square, r, np.arange(max_squarings, dtype=real_dtype))
        return out

    def nan(r: Array) -> Array:
        return r * np.nan

    result: Array = cond(n_squarings > max_squarings, nan, compute, r)
    return result


def expm(a: ArrayLike, *, upper_triangular: bool = False, max_squarings: int = 16) -> Array:
    """The matrix exponential, by Padé approximation with scaling and squaring (JAX's).

    >>> import numpy as np
    >>> expm(np.array([[0.0, 1.0], [0.0, 0.0]]))
    Array([[1., 1.],
           [0., 1.]], dtype=float32)
    """
    v = inexact(a)
    shape = get_aval(v).shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={shape}")
    fn: Any = lambda x: _expm_2d(x, upper_triangular, max_squarings)  # noqa: E731
    for _ in shape[:-2]:
        fn = vmap(fn)
    out: Array = fn(v)
    return out
