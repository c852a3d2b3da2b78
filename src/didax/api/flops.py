"""``flops``: how many floating-point operations a function performs, counted without running it.

Design rules:
- The count is the ``flops`` interpreter's over the function's jaxpr
  (``didax.interpreters.flops``); this module only translates the user's
  conventions (pytree arguments, as ``make_jaxpr`` takes them) into one
  flat call of it.
- Integer and boolean scalar arguments are *known* to the count (they may
  decide a branch or a loop's trip count); every other argument is only
  its type. Nothing is computed on arrays.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from jax import tree_util

from didax.api.transformations import _FlatFun
from didax.core.abstract import ShapedArray
from didax.core.trace import Tracer
from didax.core.values import get_aval
from didax.interpreters.flops import Cost, Operand, count_jaxpr, operand_of
from didax.interpreters.staging import trace_to_jaxpr

__all__ = ["flops"]


def _type_of(x: Any) -> ShapedArray:
    try:
        return get_aval(x)
    except TypeError:
        what = f"{type(x).__name__} {x!r}"
        raise TypeError(f"flops argument: {what} is not a valid didax value") from None


def _operand(x: Any) -> Operand:
    """An argument or constant as the count sees it: its type, and its value if a known scalar.

    Only a scalar is read (an array's data never leaves its device).
    """
    aval = _type_of(x)
    if isinstance(x, Tracer) or aval.shape != ():
        return Operand(aval)
    return operand_of(aval, np.asarray(x))


def cost(fun: Callable[..., Any]) -> Callable[..., Cost]:
    """``fun``'s ``Cost`` (flops and transcendentals) on arguments like these, counted by type.

    >>> import didax.numpy as dnp
    >>> cost(lambda x: dnp.tanh(x) * 2.0)(np.ones(3))
    Cost(flops=3, transcendentals=3, estimated=False)
    """

    @functools.wraps(fun)
    def counted(*args: Any) -> Cost:
        leaves, in_tree = tree_util.tree_flatten(args)
        closed = trace_to_jaxpr(_FlatFun(fun, in_tree), [_type_of(x) for x in leaves], "flops")
        operands = [_operand(x) for x in (*closed.consts, *leaves)]
        return count_jaxpr(closed.jaxpr, operands).cost

    return counted


def flops(fun: Callable[..., Any]) -> Callable[..., int]:
    """The number of floating-point operations ``fun(*args)`` performs, counted without running it.

    The count is XLA's model: one per element of an element-wise result,
    ``2 * m * k * n`` for a matrix product, ``n - 1`` per reduced output;
    transcendental functions (``exp``, ``tanh``, ...) are counted apart, not
    here. Loops count every iteration when their trip count is known
    (``docs/flops.md``).

    >>> import didax as dx
    >>> dx.flops(lambda a, b: a @ b)(np.ones((2, 3)), np.ones((3, 4)))
    48
    >>> dx.flops(lambda x: dx.lax.fori_loop(0, 10, lambda i, c: c * 2.0, x))(np.ones(5))
    50
    """

    @functools.wraps(fun)
    def counted(*args: Any) -> int:
        return cost(fun)(*args).flops

    return counted
