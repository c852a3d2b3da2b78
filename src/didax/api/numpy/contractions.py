"""Tensor contractions: ``einsum`` (any number of operands), ``tensordot``, ``inner``, ``kron``.

``einsum`` follows ``jax.numpy.einsum``: the subscripts (with ellipses,
or NumPy's sublist form) are parsed once, ``opt_einsum`` (JAX's own
dependency for this) chooses the order of pairwise contractions, and each
pair becomes one ``dot_general`` after its operands drop what no later
step needs: repeated letters within an operand take a diagonal, letters
no one else uses are summed.

Every product takes ``precision`` and ``preferred_element_type`` as
``jax.numpy``'s do, and binds ``dot_general`` with the preferred type set
(the promoted operands' dtype when none is given), as JAX's.

>>> import numpy as np
>>> a, b, c = np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 5))
>>> einsum("ij,jk,kl->il", a, b, c).shape
(2, 5)
>>> einsum("ii->i", np.arange(4.0).reshape(2, 2))
Array([0., 3.], dtype=float32)
"""

from __future__ import annotations

import builtins
import operator
import string
from collections.abc import Sequence
from typing import Any, Unpack

import numpy as np
import opt_einsum

from didax.api.numpy.array_types import Array, ArrayLike, DotOptions
from didax.api.numpy.elementwise import multiply, subtract
from didax.api.numpy.linear_algebra import (
    _dot_general,
    _promote_no_broadcast,
    _strong_if,
    dot_options,
)
from didax.api.numpy.manipulation import broadcast_to, moveaxis, ravel, reshape, stack
from didax.api.numpy.matrices import diagonal
from didax.api.numpy.operands import astype, dtype_arg, operand
from didax.api.numpy.reductions import sum
from didax.core import dtypes, lax
from didax.core.dtypes import DType
from didax.core.lax.precision import PrecisionLike
from didax.core.values import get_aval

__all__ = [
    "einsum",
    "einsum_path",
    "tensordot",
    "inner",
    "vdot",
    "kron",
    "cross",
]

_LETTERS = string.ascii_letters


def _sublist_to_subscripts(args: Sequence[Any]) -> tuple[str, list[Any]]:
    """NumPy's ``einsum(op0, sublist0, op1, sublist1, ..., [sublist_out])`` as a string."""

    def term(sub: Sequence[Any]) -> str:
        out = []
        for s in sub:
            if s is Ellipsis:
                out.append("...")
            else:
                i = operator.index(s)
                if not 0 <= i < len(_LETTERS):
                    raise ValueError(f"einsum: sublist index {i} out of range")
                out.append(_LETTERS[i])
        return "".join(out)

    ops, terms = [], []
    rest = list(args)
    while len(rest) >= 2:
        ops.append(rest.pop(0))
        terms.append(term(rest.pop(0)))
    spec = ",".join(terms)
    if rest:
        spec += "->" + term(rest[0])
    return spec, ops


def _parse(subscripts: str, shapes: list[tuple[int, ...]]) -> tuple[list[str], str]:
    """Input terms and output term with ellipses replaced by fresh letters."""
    spec = subscripts.replace(" ", "")
    inputs, arrow, out = spec.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(
            f"einsum: {subscripts!r} names {len(terms)} operands, {len(shapes)} were given"
        )
    used = set(spec) - {".", ",", "-", ">"}
    for c in used:
        if c not in _LETTERS:
            raise ValueError(f"einsum: invalid subscript {c!r} in {subscripts!r}")
    fresh = [c for c in _LETTERS if c not in used]
    n_ell = 0
    for t, shape in zip(terms, shapes, strict=True):
        if "..." in t:
            n_ell = builtins.max(n_ell, len(shape) - (len(t) - 3))
    ell = "".join(fresh[:n_ell])
    out_terms = []
    for t, shape in zip(terms, shapes, strict=True):
        if "..." in t:
            k = len(shape) - (len(t) - 3)
            if k < 0:
                raise ValueError(f"einsum: {t!r} has more letters than its operand's rank")
            t = t.replace("...", ell[n_ell - k :])
        if "." in t:
            raise ValueError(f"einsum: invalid '.' in {subscripts!r}")
        if len(t) != len(shape):
            raise ValueError(
                f"einsum: {t!r} has {len(t)} letters but its operand has rank {len(shape)}"
            )
        out_terms.append(t)
    if arrow:
        out = out.replace("...", ell)
    else:
        # NumPy's implicit output: the ellipsis axes, then the letters used once, sorted.
        letters = "".join(out_terms)
        out = ell + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1 and c not in ell)
        )
    if len(set(out)) != len(out):
        raise ValueError(f"einsum: output subscript {out!r} repeats a letter")
    for c in out:
        if c not in "".join(out_terms):
            raise ValueError(f"einsum: output subscript {c!r} does not appear in the inputs")
    return out_terms, out


def _reduce_term(term: str, v: Array, keep: set[str], dt: DType) -> tuple[str, Array]:
    """``v`` with repeated letters taken as diagonals and letters not in ``keep`` summed.

    ``dt`` is the einsum's result type: a sum runs in it when it is above
    ``v``'s type (JAX's einsum: int32 sums for int8 operands asked to give
    int32), else in ``v``'s type.
    """
    while True:
        repeated = next((c for c in term if term.count(c) > 1), None)
        if repeated is None:
            break
        i = term.index(repeated)
        j = term.index(repeated, i + 1)
        v = diagonal(v, 0, i, j)  # the shared axis moves to the end
        term = "".join(c for k, c in enumerate(term) if k not in (i, j)) + repeated
    drop = tuple(i for i, c in enumerate(term) if c not in keep)
    if drop:
        vt = get_aval(v).dtype
        v = sum(v, axis=drop, dtype=dt if dtypes.promote_types(vt, dt) != vt else vt)
        term = "".join(c for i, c in enumerate(term) if i not in drop)
    return term, v


def _contract_pair(
    lt: str, x: Array, rt: str, y: Array, result: str, dt: DType, precision: PrecisionLike
) -> tuple[str, Array]:
    keep_l = set(rt) | set(result)
    keep_r = set(lt) | set(result)
    lt, x = _reduce_term(lt, x, keep_l, dt)
    rt, y = _reduce_term(rt, y, keep_r, dt)
    batch = [c for c in lt if c in rt and c in result]
    contract = [c for c in lt if c in rt and c not in result]
    # Sizes of shared letters must agree (a size-1 side broadcasts, as NumPy).
    lshape, rshape = get_aval(x).shape, get_aval(y).shape
    for c in batch + contract:
        a, b = lshape[lt.index(c)], rshape[rt.index(c)]
        if a != b:
            if a == 1 or b == 1:
                target = builtins.max(a, b)
                if a == 1:
                    x = broadcast_to(
                        x, tuple(target if k == c else s for k, s in zip(lt, lshape, strict=True))
                    )
                    lshape = get_aval(x).shape
                else:
                    y = broadcast_to(
                        y, tuple(target if k == c else s for k, s in zip(rt, rshape, strict=True))
                    )
                    rshape = get_aval(y).shape
            else:
                raise ValueError(f"einsum: letter {c!r} has sizes {a} and {b}")
    dims = (
        (tuple(lt.index(c) for c in contract), tuple(rt.index(c) for c in contract)),
        (tuple(lt.index(c) for c in batch), tuple(rt.index(c) for c in batch)),
    )
    out = _dot_general(x, y, dims, get_aval(x).dtype, precision, dt)
    got = (
        "".join(batch)
        + "".join(c for c in lt if c not in rt)
        + "".join(c for c in rt if c not in lt)
    )
    return got, out


def einsum(
    subscripts: Any,
    *operands: Any,
    optimize: Any = "auto",
    **options: Unpack[DotOptions],
) -> Array:
    """Einstein summation over any number of operands (``jax.numpy.einsum``).

    Ellipses, repeated letters (diagonals), implicit outputs and NumPy's
    sublist form are accepted; ``opt_einsum`` picks the contraction order
    (``optimize``: ``"auto"``, ``"greedy"``, ``"optimal"``, or False for
    left to right). ``precision`` and ``preferred_element_type`` apply to
    each pairwise product, as in JAX.

    >>> x = np.array([[1, 2], [3, 4]], np.int8)
    >>> einsum("ij,jk->ik", x, x, preferred_element_type=np.int32)
    Array([[ 7, 10],
           [15, 22]], dtype=int32)
    """
    precision, preferred_element_type = dot_options(**options)
    if not isinstance(subscripts, str):
        subscripts, ops = _sublist_to_subscripts((subscripts, *operands))
        operands = tuple(ops)
    if not operands:
        raise ValueError("einsum: no operands given")
    vals, dt = _promote_no_broadcast("einsum", *operands)
    asked = dtype_arg(preferred_element_type)
    if asked is not None:
        dt = asked
    shapes = [get_aval(v).shape for v in vals]
    terms, out = _parse(subscripts, shapes)
    items = list(zip(terms, vals, strict=True))
    if len(items) > 1:
        path_kind = optimize if optimize not in (True, "auto") else "auto"
        if optimize is False:
            path: list[tuple[int, ...]] = [(0, 1)] * (len(items) - 1)
        else:
            spec = ",".join(terms) + "->" + out
            path, _ = opt_einsum.contract_path(spec, *shapes, shapes=True, optimize=path_kind)
        for step in path:
            picked = [items[i] for i in step]
            for i in sorted(step, reverse=True):
                items.pop(i)
            others = set("".join(t for t, _ in items)) | set(out)
            if len(picked) == 1:
                ((t, v),) = picked
                items.append(_reduce_term(t, v, others, dt))
                continue
            (lt, x), (rt, y) = picked[0], picked[1]
            # The result keeps what later steps or the output need.
            result = "".join(c for c in dict.fromkeys(lt + rt) if c in others)
            t, v = _contract_pair(lt, x, rt, y, result, dt, precision)
            for extra_t, extra_v in picked[2:]:
                t, v = _contract_pair(t, v, extra_t, extra_v, result, dt, precision)
            items.append((t, v))
    ((t, v),) = items
    t, v = _reduce_term(t, v, set(out), dt)
    perm = tuple(t.index(c) for c in out)
    v = lax.transpose(v, perm) if perm != tuple(range(len(perm))) else v
    if get_aval(v).dtype != dt:
        # (No product ran, or none at the end: the result has the einsum's type.)
        v = astype(v, dt, get_aval(v).weak_type and asked is None)
    return _strong_if(asked, v)


def einsum_path(subscripts: str, *operands: ArrayLike, optimize: Any = "greedy") -> Any:
    """``opt_einsum``'s contraction path for these operands (as ``jnp.einsum_path``)."""
    shapes = [get_aval(operand(x)).shape for x in operands]
    return opt_einsum.contract_path(subscripts, *shapes, shapes=True, optimize=optimize)


def tensordot(
    a: ArrayLike,
    b: ArrayLike,
    axes: int | Sequence[Any] = 2,
    **options: Unpack[DotOptions],
) -> Array:
    """Sums products over ``axes``: ``a``'s last ``axes`` with ``b``'s first, or two axis lists.

    >>> tensordot(np.ones((2, 3, 4)), np.ones((3, 4, 5))).shape
    (2, 5)
    """
    precision, preferred_element_type = dot_options(**options)
    (x, y), dt = _promote_no_broadcast("tensordot", a, b)
    asked = dtype_arg(preferred_element_type)
    ax, bx = get_aval(x), get_aval(y)
    if isinstance(axes, (int, np.integer)):
        n = operator.index(axes)
        if n < 0 or n > builtins.min(ax.ndim, bx.ndim):
            raise TypeError(f"tensordot: axes={n} out of range for ranks {ax.ndim} and {bx.ndim}")
        la, lb = tuple(range(ax.ndim - n, ax.ndim)), tuple(range(n))
    else:
        if len(axes) != 2:
            raise TypeError("tensordot: axes must be an int or a pair of axis sequences")
        pa, pb = axes
        la_raw = (pa,) if isinstance(pa, (int, np.integer)) else tuple(pa)
        lb_raw = (pb,) if isinstance(pb, (int, np.integer)) else tuple(pb)
        if len(la_raw) != len(lb_raw):
            raise TypeError("tensordot: the two axis sequences must have the same length")
        la = tuple(operator.index(i) % ax.ndim for i in la_raw)
        lb = tuple(operator.index(i) % bx.ndim for i in lb_raw)
    for i, j in zip(la, lb, strict=True):
        if ax.shape[i] != bx.shape[j]:
            raise TypeError(
                f"tensordot: shape mismatch: a's axis {i} has size {ax.shape[i]}, "
                f"b's axis {j} has size {bx.shape[j]}"
            )
    out = _dot_general(x, y, ((la, lb), ((), ())), dt, precision, asked)
    return _strong_if(asked, out)


def inner(
    a: ArrayLike,
    b: ArrayLike,
    **options: Unpack[DotOptions],
) -> Array:
    """Sums products over the last axes of ``a`` and ``b`` (scalars multiply)."""
    _, preferred_element_type = dot_options(**options)
    (x, y), _ = _promote_no_broadcast("inner", a, b)
    ax, bx = get_aval(x), get_aval(y)
    if ax.ndim == 0 or bx.ndim == 0:
        asked = dtype_arg(preferred_element_type)
        if asked is not None:
            # As JAX's: the scalars take the preferred type, then multiply.
            x, y = astype(x, asked), astype(y, asked)
        return multiply(x, y)
    return tensordot(x, y, ((ax.ndim - 1,), (bx.ndim - 1,)), **options)


def vdot(
    a: ArrayLike,
    b: ArrayLike,
    **options: Unpack[DotOptions],
) -> Array:
    """The dot product of the flattened arrays, ``a`` conjugated (NumPy's ``vdot``).

    >>> vdot(np.array([1j, 2.0]), np.array([1j, 1.0]))
    Array(3.+0.j, dtype=complex64)
    """
    x = operand(a)
    if dtypes.is_complex(get_aval(x).dtype):
        x = lax.conj(x)
    return tensordot(ravel(x), ravel(b), 1, **options)


def kron(a: ArrayLike, b: ArrayLike) -> Array:
    """The Kronecker product: blocks ``a[i, j] * b``.

    >>> kron(np.array([1, 2]), np.array([1, 10]))
    Array([ 1, 10,  2, 20], dtype=int32)
    """
    (x, y), _ = _promote_no_broadcast("kron", a, b)
    ax, bx = get_aval(x), get_aval(y)
    nd = builtins.max(ax.ndim, bx.ndim)
    x = reshape(x, (1,) * (nd - ax.ndim) + ax.shape)
    y = reshape(y, (1,) * (nd - bx.ndim) + bx.shape)
    xs, ys = get_aval(x).shape, get_aval(y).shape
    # x[i] * y[j] laid out as (i0, j0, i1, j1, ...), then each pair merged.
    wide = tuple(s for p in zip(xs, ys, strict=True) for s in p)
    xb = lax.broadcast_in_dim(x, wide, tuple(2 * i for i in range(nd)))
    yb = lax.broadcast_in_dim(y, wide, tuple(2 * i + 1 for i in range(nd)))
    return reshape(multiply(xb, yb), tuple(p * q for p, q in zip(xs, ys, strict=True)))


def cross(
    a: ArrayLike,
    b: ArrayLike,
    axisa: int = -1,
    axisb: int = -1,
    axisc: int = -1,
    axis: int | None = None,
) -> Array:
    """The cross product of 3-vectors (2-vectors give the scalar z component)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    x = moveaxis(a, axisa, -1)
    y = moveaxis(b, axisb, -1)
    na, nb = get_aval(x).shape[-1], get_aval(y).shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError(
            "cross: incompatible dimensions for cross product (dimension must be 2 or 3)"
        )

    def comp(v: Array, i: int) -> Array:
        shape = get_aval(v).shape
        out: Array = lax.reshape(
            lax.slice(v, (*[0] * (len(shape) - 1), i), (*shape[:-1], i + 1)), shape[:-1]
        )
        return out

    (x, y), _ = _promote_no_broadcast("cross", x, y)
    a0, a1 = comp(x, 0), comp(x, 1)
    b0, b1 = comp(y, 0), comp(y, 1)
    if na == 2 and nb == 2:
        return subtract(multiply(a0, b1), multiply(a1, b0))
    a2 = comp(x, 2) if na == 3 else lax.full_like(a0, 0)
    b2 = comp(y, 2) if nb == 3 else lax.full_like(b0, 0)
    c = stack(
        [
            subtract(multiply(a1, b2), multiply(a2, b1)),
            subtract(multiply(a2, b0), multiply(a0, b2)),
            subtract(multiply(a0, b1), multiply(a1, b0)),
        ],
        axis=-1,
    )
    return moveaxis(c, -1, axisc)
