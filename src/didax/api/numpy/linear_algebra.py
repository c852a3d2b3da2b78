"""Products: ``dot``, ``matmul``, ``outer`` and two-operand ``einsum``, all one ``dot_general``.

Booleans multiply as NumPy does (an ``or`` of ``and``s), through the default int.
"""

from __future__ import annotations

import builtins
import string
from typing import Any

from didax.api.numpy.elementwise import multiply, not_equal
from didax.api.numpy.manipulation import ravel, reshape
from didax.api.numpy.operands import (
    Array,
    ArrayLike,
    as_result,
    astype,
    broadcast_shapes,
    broadcast_to_shape,
    operand,
)
from didax.api.numpy.reductions import sum
from didax.core import dtypes, lax
from didax.core.dtypes import DType
from didax.core.promotion import result_type
from didax.core.values import get_aval

__all__ = [
    "dot",
    "matmul",
    "outer",
    "einsum",
]


def _dot_general(a: Any, b: Any, dims: lax.DotDimensionNumbers, dt: DType) -> Array:
    """``lax.dot_general`` of operands already of dtype ``dt``; booleans as NumPy (any of ands)."""
    if dt == dtypes.bool_:
        ai, bi = astype(a, dtypes.default_int()), astype(b, dtypes.default_int())
        return not_equal(lax.dot_general(ai, bi, dims), 0)
    return lax.dot_general(a, b, dims)


def _promote_no_broadcast(name: str, *args: ArrayLike) -> tuple[list[Any], DType]:
    vals = [operand(x) for x in args]
    dt, weak = result_type(*vals)
    return [as_result(astype(v, dt, weak)) for v in vals], dt


def dot(a: ArrayLike, b: ArrayLike) -> Array:
    """NumPy's ``dot``: contracts ``a``'s last axis with ``b``'s second-to-last (or only) axis.

    >>> dot(np.array([[1.0, 2.0]]), np.array([3.0, 4.0]))
    Array([11.], dtype=float64)
    """
    (x, y), dt = _promote_no_broadcast("dot", a, b)
    ax, bx = get_aval(x), get_aval(y)
    if ax.ndim == 0 or bx.ndim == 0:
        return multiply(x, y)
    rc = 0 if bx.ndim == 1 else bx.ndim - 2
    if ax.shape[-1] != bx.shape[rc]:
        raise ValueError(
            f"dot: shapes {ax.shape} and {bx.shape} not aligned: "
            f"{ax.shape[-1]} (dim {ax.ndim - 1}) != {bx.shape[rc]} (dim {rc})"
        )
    return _dot_general(x, y, (((ax.ndim - 1,), (rc,)), ((), ())), dt)


def matmul(a: ArrayLike, b: ArrayLike) -> Array:
    """NumPy's ``matmul`` (``@``): batched matrix product with broadcast batch axes.

    >>> matmul(np.ones((2, 1, 6, 3)), np.ones((4, 3, 5))).shape
    (2, 4, 6, 5)
    """
    (x, y), dt = _promote_no_broadcast("matmul", a, b)
    ax, bx = get_aval(x), get_aval(y)
    if ax.ndim == 0 or bx.ndim == 0:
        raise ValueError("matmul: operands must not be scalars (use multiply)")
    lc, rc = ax.ndim - 1, builtins.max(bx.ndim - 2, 0)
    if ax.shape[lc] != bx.shape[rc]:
        raise ValueError(
            f"matmul: mismatch in its core dimension: {ax.shape} @ {bx.shape} "
            f"({ax.shape[lc]} != {bx.shape[rc]})"
        )
    if bx.ndim <= 2:
        # b has no batch axes: a's leading axes are free axes of one dot_general.
        return _dot_general(x, y, (((lc,), (rc,)), ((), ())), dt)
    if ax.ndim <= 2:
        # (n, k) @ (..., k, m): the dot_general result is (n, ..., m).
        out = _dot_general(x, y, (((lc,), (rc,)), ((), ())), dt)
        if ax.ndim == 1:
            return out
        perm = (*range(1, bx.ndim - 1), 0, bx.ndim - 1)
        return lax.transpose(out, perm)
    batch = broadcast_shapes("matmul", ax.shape[:-2], bx.shape[:-2])
    x = broadcast_to_shape(x, batch + ax.shape[-2:])
    y = broadcast_to_shape(y, batch + bx.shape[-2:])
    nb = len(batch)
    return _dot_general(x, y, (((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb)))), dt)


def outer(a: ArrayLike, b: ArrayLike) -> Array:
    """``outer(a, b)[i, j] = ravel(a)[i] * ravel(b)[j]``."""
    x, y = ravel(a), ravel(b)
    return multiply(reshape(x, (-1, 1)), reshape(y, (1, -1)))


def einsum(subscripts: str, *operands: ArrayLike) -> Array:
    """Two-operand Einstein summation, e.g. ``einsum("bij,bjk->bik", x, y)``.

    Letters in both operands and in the output are batch axes, letters in
    both operands only are contracted, and letters of one operand missing
    from the output are summed first. Ellipses, repeated letters within an
    operand and other operand counts raise ``NotImplementedError``.

    >>> einsum("ij,jk", np.eye(2), np.array([[1.0, 2.0], [3.0, 4.0]]))
    Array([[1., 2.],
           [3., 4.]], dtype=float64)
    """
    if len(operands) != 2:
        raise NotImplementedError(f"einsum: only two operands are supported, got {len(operands)}")
    spec = subscripts.replace(" ", "")
    if "." in spec:
        raise NotImplementedError("einsum: ellipsis ('...') is not supported")
    inputs, arrow, out_spec = spec.partition("->")
    parts = inputs.split(",")
    if len(parts) != 2:
        raise ValueError(f"einsum: {subscripts!r} names {len(parts)} operands, 2 were given")
    ls, rs = parts
    for s in (ls, rs, out_spec):
        if not builtins.all(c in string.ascii_letters for c in s):
            raise ValueError(f"einsum: invalid subscript in {subscripts!r}")
    for s in (ls, rs):
        if len(set(s)) != len(s):
            raise NotImplementedError(
                f"einsum: repeated subscripts within one operand ({s!r}: diagonals) "
                "are not supported"
            )
    if not arrow:
        # NumPy's implicit output: the letters that appear once, in order.
        counts = {c: (ls + rs).count(c) for c in ls + rs}
        out_spec = "".join(sorted(c for c, n in counts.items() if n == 1))
    if len(set(out_spec)) != len(out_spec):
        raise ValueError(f"einsum: output subscript {out_spec!r} repeats a letter")
    for c in out_spec:
        if c not in ls and c not in rs:
            raise ValueError(f"einsum: output subscript {c!r} does not appear in the inputs")
    (x, y), dt = _promote_no_broadcast("einsum", *operands)
    for s, v, side in ((ls, x, "first"), (rs, y, "second")):
        if len(s) != get_aval(v).ndim:
            raise ValueError(
                f"einsum: {s!r} has {len(s)} letters but the {side} operand has rank "
                f"{get_aval(v).ndim}"
            )
    sizes: dict[str, int] = {}
    for s, v in ((ls, x), (rs, y)):
        for c, n in zip(s, get_aval(v).shape, strict=True):
            if sizes.setdefault(c, n) != n:
                raise ValueError(f"einsum: letter {c!r} has sizes {sizes[c]} and {n}")

    # Letters of one operand only and not in the output are summed out first.
    def drop_lone(s: str, v: Any, other: str) -> tuple[str, Any]:
        lone = tuple(i for i, c in enumerate(s) if c not in other and c not in out_spec)
        if not lone:
            return s, v
        return "".join(c for i, c in enumerate(s) if i not in lone), sum(v, axis=lone, dtype=dt)

    ls, x = drop_lone(ls, x, rs)
    rs, y = drop_lone(rs, y, ls)
    batch = [c for c in ls if c in rs and c in out_spec]
    contract = [c for c in ls if c in rs and c not in out_spec]
    dims = (
        (tuple(ls.index(c) for c in contract), tuple(rs.index(c) for c in contract)),
        (tuple(ls.index(c) for c in batch), tuple(rs.index(c) for c in batch)),
    )
    out = _dot_general(x, y, dims, dt)
    got = (
        "".join(batch)
        + "".join(c for c in ls if c not in rs)
        + "".join(c for c in rs if c not in ls)
    )
    perm = tuple(got.index(c) for c in out_spec)
    return lax.transpose(out, perm) if perm != tuple(range(len(perm))) else out
