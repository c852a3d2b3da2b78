"""The cumulative primitives beyond ``cumsum``: declarations, typing rule, ``didax.lax`` wrappers.

``cumprod``, ``cummax``, ``cummin`` and ``cumlogsumexp`` are JAX's
primitives of those names: an inclusive running product, maximum, minimum
or ``log(sum(exp(...)))`` along ``axis``, from the end when ``reverse``.
``cumsum_p``, linear, is here too (a standard primitive: it is not in
``CUMULATIVE_PRIMITIVES``, the non-linear four). The interpreters' rules are in
``interpreters.cumulative``; the lowering, an associative scan shared with
``cumsum``, in ``lowering.cumulative``.

Design rules:
- Types are JAX's: the result has the operand's type (weak type included);
  ``cumprod``, ``cummax`` and ``cummin`` take numbers (integers, floats and
  complex numbers, not booleans; complex ones in JAX's lexicographic order),
  ``cumlogsumexp`` floats only (JAX's ``logaddexp`` refuses integers).
- The params are ``axis`` (non-negative, normalised by the wrappers) and
  ``reverse``, as ``cumsum``'s.
"""

from __future__ import annotations

from typing import Final

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import (
    ABSTRACT_EVAL,
    AbstractEvalRule,
    check_axes,
    check_kinds,
    dtype_failure,
    shape_failure,
)
from didax.core.basearray import Value
from didax.core.lax.operands import as_operand, bind_value, ndim, normalize_axis
from didax.core.primitive import Primitive, primitives
from didax.core.values import ArrayLike

__all__ = [
    "cumsum_p",
    "cumprod_p",
    "cummax_p",
    "cummin_p",
    "cumlogsumexp_p",
    "cumsum",
    "cumprod",
    "cummax",
    "cummin",
    "cumlogsumexp",
]

cumsum_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p = primitives(
    "cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"
)

CUMULATIVE_PRIMITIVES: Final[tuple[Primitive, ...]] = (
    cumprod_p,
    cummax_p,
    cummin_p,
    cumlogsumexp_p,
)


def _cumulative_rule(kinds: str, what: str) -> AbstractEvalRule:
    def rule(x: ShapedArray, *, axis: int, reverse: bool) -> ShapedArray:
        if dtypes.kind(x.dtype) not in kinds:
            raise dtype_failure(f"operands must be {what}, got {x.dtype}")
        if not 0 <= axis < x.ndim:
            raise shape_failure(f"axis {axis} is out of range for rank {x.ndim}")
        return x

    return rule


for _p in (cumprod_p, cummax_p, cummin_p):
    ABSTRACT_EVAL.register(_p, _cumulative_rule("iufc", "numbers"))
ABSTRACT_EVAL.register(cumlogsumexp_p, _cumulative_rule("f", "floating-point numbers"))


@ABSTRACT_EVAL.defines(cumsum_p)
def _cumsum_abstract_eval(x: ShapedArray, *, axis: int, reverse: bool) -> ShapedArray:
    check_kinds("iufc", "numbers", x)
    check_axes((axis,), x.ndim, "axis")
    return x


def cumsum(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Value:
    """Inclusive cumulative sum along ``axis`` (from the end when ``reverse``)."""
    axis = normalize_axis(axis, ndim(operand))
    return bind_value(cumsum_p, as_operand(operand), axis=axis, reverse=bool(reverse))


def _bind(prim: Primitive, operand: ArrayLike, axis: int, reverse: bool) -> Value:
    axis = normalize_axis(int(axis), ndim(operand))
    return bind_value(prim, as_operand(operand), axis=axis, reverse=bool(reverse))


def cumprod(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Value:
    """Inclusive cumulative product along ``axis`` (from the end when ``reverse``).

    >>> import numpy as np
    >>> cumprod(np.array([1, 2, 3, 4]))
    Array([ 1,  2,  6, 24], dtype=int32)
    """
    return _bind(cumprod_p, operand, axis, reverse)


def cummax(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Value:
    """Inclusive cumulative maximum along ``axis`` (from the end when ``reverse``).

    >>> import numpy as np
    >>> cummax(np.array([1, 3, 2, 5]), reverse=True)
    Array([5, 5, 5, 5], dtype=int32)
    """
    return _bind(cummax_p, operand, axis, reverse)


def cummin(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Value:
    """Inclusive cumulative minimum along ``axis`` (from the end when ``reverse``).

    >>> import numpy as np
    >>> cummin(np.array([3, 1, 2, 0]))
    Array([3, 1, 1, 0], dtype=int32)
    """
    return _bind(cummin_p, operand, axis, reverse)


def cumlogsumexp(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Value:
    """Inclusive cumulative ``log(sum(exp(x)))`` along ``axis``, computed without overflow.

    >>> import numpy as np
    >>> cumlogsumexp(np.log(np.array([1.0, 2.0, 3.0])))
    Array([0.       , 1.0986123, 1.7917595], dtype=float32)
    """
    return _bind(cumlogsumexp_p, operand, axis, reverse)
