"""``didax.scipy.linalg``'s special matrices, as ``jax.scipy.linalg`` builds them.

``toeplitz``, ``hankel``, ``circulant``, ``leslie``, ``companion``,
``fiedler``, ``fiedler_companion``, ``convolution_matrix``, ``hilbert``,
``invhilbert``, ``pascal``, ``invpascal``, ``helmert``, ``hadamard`` and
``dft``.

Design rules:
- The matrices built from vectors take a batch: their vector operands'
  leading axes broadcast, as JAX's ``vectorize`` signatures do, and the
  matrix is built by gathering the vector at a static index grid (an
  ``(i, j)`` table computed with NumPy, as the grid depends on shapes only).
  JAX gathers ``toeplitz`` and ``hankel`` through patches of a convolution at
  HIGHEST precision: a copy of the same entries.
- Dtypes are JAX's: ``companion`` and ``fiedler_companion`` promote to an
  inexact dtype; ``toeplitz``, ``hankel``, ``circulant``, ``leslie`` and
  ``fiedler`` keep the operands' promoted dtype; ``hilbert``, ``invhilbert``,
  ``invpascal`` and ``helmert`` are of the default float dtype, ``pascal``
  is float32 in both modes (as JAX's), ``dft`` the default complex dtype.
- ``invhilbert`` and ``pascal``/``invpascal`` are JAX's formulas over
  ``exp(lgamma)`` binomials, so they round as JAX's do.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.creation import arange, ones
from didax.api.numpy.elementwise import abs as _abs
from didax.api.numpy.elementwise import exp, sqrt, where
from didax.api.numpy.indexing import take
from didax.api.numpy.joining import atleast_1d
from didax.api.numpy.linear_algebra import matmul
from didax.api.numpy.logic import select
from didax.api.numpy.manipulation import broadcast_to, concatenate, expand_dims
from didax.api.numpy.more_elementwise import conj
from didax.api.numpy.operands import astype, broadcast_shapes, operand
from didax.api.numpy.rearranging import flip, pad
from didax.api.scipy_special import gammaln
from didax.core import dtypes
from didax.core.dtypes import DTypeLike
from didax.core.values import get_aval

__all__ = [
    "toeplitz",
    "hankel",
    "circulant",
    "leslie",
    "companion",
    "fiedler",
    "fiedler_companion",
    "convolution_matrix",
    "hilbert",
    "invhilbert",
    "pascal",
    "invpascal",
    "helmert",
    "hadamard",
    "dft",
]


def _promoted(name: str, *xs: ArrayLike, inexact: bool = False) -> list[Array]:
    """The operands (at least 1-D) in their promoted dtype, leading axes broadcast."""
    vals = [atleast_1d(operand(x)) for x in xs]
    avals = [get_aval(v) for v in vals]
    dtype, _ = dtypes.result_type((a.dtype, a.weak_type) for a in avals)
    if inexact:
        dtype = dtypes.to_inexact(dtype)
    batch = broadcast_shapes(name, *(a.shape[:-1] for a in avals))
    return [
        broadcast_to(astype(v, dtype), (*batch, a.shape[-1]))
        for v, a in zip(vals, avals, strict=True)
    ]


def _grid(n: int, m: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    return np.arange(n)[:, None], np.arange(m)[None, :]


def toeplitz(c: ArrayLike, r: ArrayLike | None = None) -> Array:
    """The Toeplitz matrix with first column ``c`` and first row ``r`` (``conj(c)`` if omitted).

    >>> import numpy as np
    >>> toeplitz(np.array([1, 2, 3]), np.array([1, 4]))
    Array([[1, 4],
           [2, 1],
           [3, 2]], dtype=int32)
    """
    if r is None:
        r = conj(atleast_1d(operand(c)))
    c_val, r_val = _promoted("toeplitz", c, r)
    m, n = get_aval(c_val).shape[-1], get_aval(r_val).shape[-1]
    if m == 0 or n == 0:
        return broadcast_to(c_val[..., :0, None], (*get_aval(c_val).shape[:-1], m, n))
    # entry (i, j) is elems[m - 1 - i + j]: c[i - j] on and below the diagonal, r[j - i] above.
    elems = concatenate([flip(c_val, -1), r_val[..., 1:]], axis=-1)
    i, j = _grid(m, n)
    return take(elems, m - 1 - i + j, axis=-1)


def hankel(c: ArrayLike, r: ArrayLike | None = None) -> Array:
    """The Hankel matrix with first column ``c`` and last row ``r`` (zeros if omitted).

    >>> import numpy as np
    >>> hankel(np.array([1, 2, 3]))
    Array([[1, 2, 3],
           [2, 3, 0],
           [3, 0, 0]], dtype=int32)
    """
    c_op = operand(c)
    r_op = operand(r) if r is not None else None
    for what, v in (("c", c_op), ("r", r_op)):
        if v is not None and get_aval(v).ndim == 0:
            raise ValueError(f"hankel: {what} must be at least 1-dimensional, got a scalar.")
    if r_op is None:
        r_op = astype(c_op, get_aval(c_op).dtype) * 0
    c_val, r_val = _promoted("hankel", c_op, r_op)
    m, n = get_aval(c_val).shape[-1], get_aval(r_val).shape[-1]
    if m == 0 or n == 0:
        return broadcast_to(c_val[..., :0, None], (*get_aval(c_val).shape[:-1], m, n))
    elems = concatenate([c_val, r_val[..., 1:]], axis=-1)
    i, j = _grid(m, n)
    return take(elems, i + j, axis=-1)


def circulant(c: ArrayLike) -> Array:
    """The circulant matrix whose first column is ``c``.

    >>> import numpy as np
    >>> circulant(np.array([1, 2, 3]))
    Array([[1, 3, 2],
           [2, 1, 3],
           [3, 2, 1]], dtype=int32)
    """
    (c_val,) = _promoted("circulant", c)
    n = get_aval(c_val).shape[-1]
    i, j = _grid(n, n)
    return take(c_val, (i - j) % n, axis=-1)


def leslie(f: ArrayLike, s: ArrayLike) -> Array:
    """The Leslie matrix: fecundities ``f`` in the first row, survivals ``s`` below the diagonal.

    >>> import numpy as np
    >>> leslie(np.array([0.1, 2.0]), np.array([0.5]))
    Array([[0.1, 2. ],
           [0.5, 0. ]], dtype=float32)
    """
    f_shape = get_aval(atleast_1d(operand(f))).shape
    s_shape = get_aval(atleast_1d(operand(s))).shape
    if f_shape[-1] < 2:
        raise ValueError(
            f"The length of f along the last axis must be at least 2; got shape {f_shape}."
        )
    if s_shape[-1] != f_shape[-1] - 1:
        raise ValueError(
            "Incorrect lengths for f and s. The length of s along the last axis must be one "
            f"less than the length of f; got f shape {f_shape} and s shape {s_shape}."
        )
    f_val, s_val = _promoted("leslie", f, s)
    n = f_shape[-1]
    i, j = _grid(n, n)
    s_pad = pad(s_val, [(0, 0)] * (get_aval(s_val).ndim - 1) + [(0, 1)])
    below = where(i == j + 1, expand_dims(s_pad, -2), 0)
    return where(i == 0, expand_dims(f_val, -2), below)


def companion(a: ArrayLike) -> Array:
    """The companion matrix of the polynomial with coefficients ``a`` (highest degree first).

    >>> import numpy as np
    >>> companion(np.array([1.0, -3.0, 2.0]))
    Array([[ 3., -2.],
           [ 1.,  0.]], dtype=float32)
    """
    (a_val,) = _promoted("companion", a, inexact=True)
    shape = get_aval(a_val).shape
    if shape[-1] < 2:
        raise ValueError(
            f"The length of `a` along the last axis must be at least 2; got shape {shape}."
        )
    first_row = -a_val[..., 1:] / a_val[..., :1]
    m = shape[-1] - 1
    i, j = _grid(m, m)
    return where(i == 0, expand_dims(first_row, -2), (i == j + 1).astype(get_aval(a_val).dtype))


def fiedler(a: ArrayLike) -> Array:
    """The symmetric Fiedler matrix ``|a[i] - a[j]|``.

    >>> import numpy as np
    >>> fiedler(np.array([1, 4, 2]))
    Array([[0, 3, 1],
           [3, 0, 2],
           [1, 2, 0]], dtype=int32)
    """
    arr = atleast_1d(operand(a))
    return _abs(expand_dims(arr, -1) - expand_dims(arr, -2))


def fiedler_companion(a: ArrayLike) -> Array:
    """Fiedler's pentadiagonal companion matrix of the polynomial ``a`` (highest degree first).

    >>> import numpy as np
    >>> fiedler_companion(np.array([1.0, -3.0, 2.0]))
    Array([[ 3., -2.],
           [ 1.,  0.]], dtype=float32)
    """
    (a_val,) = _promoted("fiedler_companion", a, inexact=True)
    shape = get_aval(a_val).shape
    if shape[-1] == 0:
        raise ValueError(
            "fiedler_companion requires the last axis of 'a' to have nonzero length, but got "
            f"an array of shape {shape}."
        )
    n = shape[-1] - 1
    if n == 0:
        return broadcast_to(a_val[..., :0, None], (*shape[:-1], 0, 0))
    a_val = a_val / a_val[..., :1]
    if n == 1:
        return -expand_dims(a_val[..., 1:], -1)
    i, j = _grid(n, n)
    super_val = -take(a_val, np.broadcast_to(np.minimum(i + 2, n), (n, n)), axis=-1)
    sub_val = -take(a_val, np.broadcast_to(np.minimum(i + 1, n), (n, n)), axis=-1)
    even, odd = i % 2 == 0, i % 2 == 1
    conditions = [
        (i == 0) & (j == 0),
        (i == 1) & (j == 0),
        (j == i + 1) & even,
        (j == i + 2) & even,
        (j == i - 1) & even & (i >= 2),
        (j == i - 2) & odd & (i >= 3),
    ]
    one = np.ones((), get_aval(a_val).dtype)
    first = expand_dims(expand_dims(-a_val[..., 1], -1), -1)
    choices: list[ArrayLike] = [first, one, super_val, one, sub_val, one]
    conds = [np.broadcast_to(c, (n, n)) for c in conditions]
    return select(conds, choices, default=np.zeros((), get_aval(a_val).dtype))


def convolution_matrix(a: ArrayLike, n: int, mode: str = "full") -> Array:
    """The matrix ``A`` with ``A @ v == convolve(a, v, mode)`` for ``v`` of length ``n``.

    >>> import numpy as np
    >>> convolution_matrix(np.array([1.0, 2.0]), 2)
    Array([[1., 0.],
           [2., 1.],
           [0., 2.]], dtype=float32)
    """
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    arr = operand(a)
    shape = get_aval(arr).shape
    if len(shape) == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = shape[-1]
    if m < 1:
        raise ValueError(f"len(a) must be at least 1; got shape {shape}.")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    widths = [(0, 0)] * (len(shape) - 1) + [(0, n - 1)]
    az, raz = pad(arr, widths), pad(flip(arr, -1), widths)
    length = m + n - 1
    if mode == "same":
        trim = min(n, m) - 1
        tb, te = trim // 2, trim - trim // 2
    elif mode == "valid":
        tb = te = min(n, m) - 1
    else:
        tb = te = 0
    return toeplitz(az[..., tb : length - te], raz[..., length - n - tb : length - tb])


def hilbert(n: int) -> Array:
    """The ``n x n`` Hilbert matrix ``1 / (i + j + 1)``.

    >>> hilbert(2)
    Array([[1.        , 0.5       ],
           [0.5       , 0.33333334]], dtype=float32)
    """
    a = arange(n, dtype=dtypes.default_float())[:, None]
    return 1 / (a + a.T + 1)


def _binom(n: Array, k: Array) -> Array:
    """``C(n, k)`` as ``exp(lgamma)``s (0 where ``k > n``: lgamma's pole), as JAX's ``_binom``."""
    return exp(gammaln(n + 1.0) - gammaln(n - k + 1.0) - gammaln(k + 1.0))


def _comb(n: Array, k: Array) -> Array:
    """``scipy.special.comb(n, k)`` (JAX's: 0 outside ``0 <= k <= n``)."""
    ok = (k <= n) & (n >= 0) & (k >= 0)
    safe_n, safe_k = where(ok, n, 0.0), where(ok, k, 0.0)
    return where(ok, _binom(safe_n, safe_k), 0.0)


def invhilbert(n: int) -> Array:
    """The inverse of ``hilbert(n)``, from its closed form.

    >>> np.asarray(invhilbert(2)).round(3)
    array([[ 4., -6.],
           [-6., 12.]], dtype=float32)
    """
    a = arange(n, dtype=dtypes.default_float())
    i, j = a[:, None], a[None, :]
    s = i + j
    return (
        (-1.0) ** s
        * (s + 1.0)
        * _comb(n + i, n - j - 1)
        * _comb(n + j, n - i - 1)
        * _comb(s, i) ** 2
    )


def _kind(kind: str | None) -> str:
    kind = "symmetric" if kind is None else kind
    if kind not in ("symmetric", "lower", "upper"):
        raise ValueError(f"Expected kind to be one of: ['symmetric', 'lower', 'upper']; got {kind}")
    return kind


def pascal(n: int, kind: str | None = None) -> Array:
    """The Pascal matrix: ``'symmetric'`` (default), ``'lower'`` or ``'upper'`` (float32, as JAX's).

    >>> np.asarray(pascal(3, kind="lower")).round(3)
    array([[1., 0., 0.],
           [1., 1., 0.],
           [1., 2., 1.]], dtype=float32)
    """
    kind = _kind(kind)
    a = arange(n, dtype=dtypes.float32)
    lower = _binom(a[:, None], a[None, :])
    if kind == "lower":
        return lower
    if kind == "upper":
        return lower.T
    return matmul(lower, lower.T)


def invpascal(n: int, kind: str | None = None) -> Array:
    """The inverse of ``pascal(n, kind)`` (of the default float dtype).

    >>> np.asarray(invpascal(3, kind="lower")).round(3)
    array([[ 1., -0.,  0.],
           [-1.,  1., -0.],
           [ 1., -2.,  1.]], dtype=float32)
    """
    kind = _kind(kind)
    a = arange(n, dtype=dtypes.default_float())
    i, j = a[:, None], a[None, :]
    lower_inv = (-1.0) ** (i - j) * _binom(i, j)
    if kind == "lower":
        return lower_inv
    if kind == "upper":
        return lower_inv.T
    return matmul(lower_inv.T, lower_inv)


def helmert(n: int, full: bool = False) -> Array:
    """The Helmert matrix: ``n - 1`` orthonormal rows orthogonal to ones (``n`` when ``full``).

    >>> helmert(2)
    Array([[ 0.70710677, -0.70710677]], dtype=float32)
    """
    if n < 1:
        raise ValueError(f"n must be a positive integer; got {n}.")
    i, j = _grid(n - 1, n)
    k = arange(1, n, dtype=dtypes.default_float())[:, None]
    denom = sqrt(k * (k + 1))
    h = where(j <= i, 1.0 / denom, where(j == i + 1, -k / denom, 0.0))
    if full:
        first = broadcast_to(1.0 / sqrt(astype(operand(n), h.dtype, weak=True)), (1, n))
        h = concatenate([first, h], axis=0)
    return h


def hadamard(n: int, dtype: DTypeLike = int) -> Array:
    """The ``n x n`` Hadamard matrix (Sylvester's construction; ``n`` a power of 2).

    >>> hadamard(2)
    Array([[ 1,  1],
           [ 1, -1]], dtype=int32)
    """
    if n < 1 or not math.log2(n).is_integer():
        raise ValueError(f"n must be a positive power of 2; got {n}.")
    h = ones((1, 1), dtype=dtype)
    for _ in range(int(math.log2(n))):
        h = concatenate([concatenate([h, h], axis=1), concatenate([h, -h], axis=1)], axis=0)
    return h


def dft(n: int, scale: str | None = None, *, dtype: DTypeLike | None = None) -> Array:
    """The ``n``-point discrete Fourier transform matrix (``scale`` None, ``'sqrtn'`` or ``'n'``).

    >>> np.asarray(dft(2)).round(3)
    array([[ 1.+0.j,  1.+0.j],
           [ 1.+0.j, -1.+0.j]], dtype=complex64)
    """
    if scale is not None and scale not in ("sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    if dtype is None:
        dt = dtypes.default_complex()
    else:
        dt = dtypes.canonicalize(dtype)
        if not dtypes.is_complex(dt):
            raise ValueError(f"dtype must be a complex floating-point type; got {dt}.")
    a = arange(n, dtype=dt)
    omegas = exp(-2j * np.pi * a[:, None] * a[None, :] / n)
    if scale == "sqrtn":
        omegas = omegas / sqrt(astype(operand(n), dtypes.real_dtype(dt), weak=True))
    elif scale == "n":
        omegas = omegas / n
    return omegas
