"""What the distributions share: JAX's promotion of their arguments and its typed constants.

Design rules:
- ``inexact`` is JAX's ``promote_args_inexact``: one float dtype (integers
  become the default float), one rank (scalars kept scalars, shapes only
  checked to broadcast), weak Python scalars kept weak; a complex argument
  is refused, naming the function.
- ``const(x, v)`` is JAX's ``_lax_const``: ``v`` as a strongly typed
  constant of ``x``'s dtype, so that results are strongly typed where
  JAX's are (a weak Python constant would leave them weak).
- ``standardize`` is ``(x - loc) / scale``, the first step of every
  location-scale family; ``nan_unless_scale_positive`` is the rule of the
  families that are NaN where ``scale <= 0`` (the Gumbels), written once;
  ``reflected`` the survival functions of the symmetric families
  (``sf(x) = cdf(-x)`` about ``-loc``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np

from didax.api.numpy.array_types import Array, ArrayLike
from didax.api.numpy.elementwise import where
from didax.api.numpy.manipulation import reshape
from didax.api.numpy.operands import as_result, asarray, astype, broadcast_shapes, operand
from didax.core import dtypes
from didax.core.values import get_aval

__all__ = [
    "NAN",
    "NEG_INF",
    "const",
    "inexact",
    "nan_unless_scale_positive",
    "promote_dtypes_inexact",
    "reflected",
    "standardize",
]

NAN: Final = float("nan")
NEG_INF: Final = float("-inf")


def inexact(name: str, *args: ArrayLike) -> list[Array]:
    """The arguments of ``name`` in one float dtype and one rank (JAX's ``promote_args_inexact``).

    Shapes must broadcast; a lower-ranked argument gets leading axes of 1
    and a scalar stays a scalar, as JAX's (so ``log(scale)`` of a scalar
    scale is computed once, not once per element).
    """
    vals = promote_dtypes_inexact(name, *args)
    shapes = [get_aval(v).shape for v in vals]
    broadcast_shapes(name, *shapes)  # a clear error naming the function
    ranks = {len(s) for s in shapes if s}
    if len(ranks) < 2:
        return vals
    rank = max(ranks)
    return [
        reshape(v, (1,) * (rank - len(s)) + s) if s and len(s) < rank else v
        for v, s in zip(vals, shapes, strict=True)
    ]


def promote_dtypes_inexact(name: str, *args: ArrayLike) -> list[Array]:
    """The arguments of ``name`` in one float dtype, their shapes kept (JAX's rule of that name)."""
    vals = [operand(a) for a in args]
    dtype, weak = dtypes.result_type((get_aval(v).dtype, get_aval(v).weak_type) for v in vals)
    dtype = dtypes.to_inexact(dtype)
    if dtypes.is_complex(dtype):
        raise TypeError(f"{name}: complex arguments are not supported, got {np.dtype(dtype)}")
    return [as_result(astype(v, dtype, weak)) for v in vals]


def const(x: Array, value: float) -> Array:
    """``value`` as a strongly typed constant of ``x``'s dtype (JAX's ``_lax_const``)."""
    return asarray(np.array(value, get_aval(x).dtype))


def standardize(x: Array, loc: Array, scale: Array) -> Array:
    return (x - loc) / scale


def nan_unless_scale_positive(
    name: str,
    of: Callable[[Array, Array, Array], Array],
    x: ArrayLike,
    loc: ArrayLike,
    scale: ArrayLike,
) -> Array:
    """``of(x, loc, scale)`` over the arguments promoted for ``name``; NaN where ``scale <= 0``."""
    x, loc, scale = inexact(name, x, loc, scale)
    return where(scale > const(scale, 0), of(x, loc, scale), NAN)


def reflected(name: str, fn: Callable[[Array, Array, Array], Array], *args: ArrayLike) -> Array:
    """``fn(-x, -loc, scale)`` of the promoted ``(x, loc, scale)``: a symmetric tail."""
    x, loc, scale = inexact(name, *args)
    return fn(-x, -loc, scale)
