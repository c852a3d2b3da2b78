"""The positions of nonzero elements: ``nonzero``, below the element-wise functions.

Design rules:
- ``where``'s one-argument form is ``nonzero``, so this module sits below
  ``elementwise`` (it is written with ``lax``'s primitives, ``operands``
  and ``manipulation``, never with the element-wise functions): the
  modules of ``didax.api.numpy`` import each other in one direction.
- The result's length depends on the values: on a concrete array it is
  computed on the host, and under a transformation it needs a static
  ``size`` (the first ``size`` positions, padded with ``fill_value``),
  as ``jax.numpy``'s.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.manipulation import ravel
from didax.api.numpy.operands import as_result, contains_tracer, operand
from didax.core import dtypes, lax
from didax.core.errors import ConcretizationTypeError
from didax.core.trace import Tracer
from didax.core.values import as_array, get_aval, wrap_host

__all__ = ["nonzero"]


def concrete_host(name: str, a: ArrayLike) -> np.ndarray[Any, Any]:
    """``a``'s values on the host, for a function whose result's shape depends on them."""
    if isinstance(a, Tracer) or contains_tracer(a):
        raise ConcretizationTypeError(
            f"{name}: the result's shape depends on the values, which are not known under "
            "a transformation; pass size= (a static bound) to use it under jit"
        )
    return as_array(operand(a))


def nonzero(a: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> tuple[Array, ...]:
    """The indices of the nonzero elements, one array per axis.

    The result's length depends on the values, so ``a`` must be concrete,
    unless ``size`` fixes it: then the first ``size`` positions are
    returned, padded with ``fill_value`` (default 0), under ``jit`` too.

    >>> nonzero(np.array([0, 3, 0, 5]))
    (Array([1, 3], dtype=int32),)
    """
    if size is None:
        host = concrete_host("nonzero", a)
        if host.ndim == 0:
            raise ValueError("nonzero: calling nonzero on 0d arrays is not allowed")
        return tuple(wrap_host(np.asarray(i, dtypes.default_int())) for i in np.nonzero(host))
    return _nonzero_sized(a, operator.index(size), fill_value)


def _nonzero_sized(a: ArrayLike, size: int, fill_value: Any) -> tuple[Array, ...]:
    v = as_result(operand(a))
    aval = get_aval(v)
    if aval.ndim == 0:
        raise ValueError("nonzero: calling nonzero on 0d arrays is not allowed")
    mask = ravel(lax.ne(v, lax.full_like(v, 0)) if aval.dtype != dtypes.bool_ else v)
    n = aval.size
    int_t = dtypes.default_int()
    # slot[i]: which output position element i fills (its rank among the nonzeros).
    slot = lax.sub(lax.cumsum(lax.convert_element_type(mask, int_t), 0), lax.full((n,), 1, int_t))
    hits = lax.and_(
        lax.broadcast_in_dim(mask, (size, n), (1,)),
        lax.eq(
            lax.broadcast_in_dim(slot, (size, n), (1,)),
            lax.broadcast_in_dim(lax.iota(int_t, size), (size, n), (0,)),
        ),
    )
    found = lax.reduce_max(hits, (1,))
    positions = lax.broadcast_in_dim(lax.iota(int_t, n), (size, n), (1,))
    flat_index = lax.reduce_sum(lax.select(hits, positions, lax.full((size, n), 0, int_t)), (1,))
    fills = (
        (0,) * aval.ndim
        if fill_value is None
        else tuple(np.broadcast_to(np.asarray(fill_value), (aval.ndim,)).tolist())
    )
    out = []
    stride = n
    for axis, dim in enumerate(aval.shape):
        stride //= builtins.max(dim, 1)
        coord = lax.rem(
            lax.div(flat_index, lax.full_like(flat_index, builtins.max(stride, 1))),
            lax.full_like(flat_index, builtins.max(dim, 1)),
        )
        out.append(as_result(lax.select(found, coord, lax.full_like(coord, fills[axis]))))
    return tuple(out)
