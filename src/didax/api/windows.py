"""``lax.reduce_window``: reductions over sliding windows, with a Python reducer.

Design rules:
- JAX's function: ``operand`` and ``init_value`` are pytrees of one
  structure (several operands reduced together), ``computation(xs, ys)``
  combines two such trees of scalars into one; ``padding`` is explicit
  ``(low, high)`` pairs or ``'VALID'``, ``'SAME'``, ``'SAME_LOWER'``
  (computed, as JAX does, from the operand's shape, the dilated window and
  the strides).
- JAX's monoids are recognised: one operand, a concrete scalar init value,
  and ``lax.add`` with 0, ``lax.max`` with the dtype's least value or
  ``lax.min`` with its greatest bind ``reduce_window_sum``,
  ``reduce_window_max``, ``reduce_window_min`` (which have transposes, so
  max-pooling has a vjp). Anything else traces the reducer into a
  constant-free jaxpr and binds the generic ``reduce_window_p``; a reducer
  that closes over arrays or traced values is refused, as JAX refuses it.
- A weakly typed init value (a Python scalar) takes its operand's dtype;
  any other dtype mismatch is the primitive's typing error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from jax import tree_util

from didax.api.transformations import PyTreeDef, _FlatFun
from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.lax.convolution_shapes import padtype_to_pads
from didax.core.lax.windows import (
    WindowParams,
    bind_window,
    dilate_shape,
    identity,
    reduce_window_max_p,
    reduce_window_min_p,
    reduce_window_p,
    reduce_window_sum_p,
)
from didax.core.primitive import Primitive
from didax.core.promotion import convert
from didax.core.source_info import user_frame_summary
from didax.core.trace import Tracer
from didax.core.values import get_aval
from didax.interpreters.staging import trace_to_jaxpr

__all__ = ["reduce_window"]


def _monoid(computation: Callable[..., Any], init: object) -> Primitive | None:
    """The monoid window primitive ``computation`` with ``init`` is, if it is one (JAX's test)."""
    if isinstance(init, Tracer):
        value = init.to_concrete_value()
        if value is None:
            return None
    else:
        value = np.asarray(init)
    if value.shape != ():
        return None
    dtype = get_aval(init).dtype
    if computation is lax.add:
        return reduce_window_sum_p if value == 0 else None
    if computation is lax.max:
        return reduce_window_max_p if value == identity(lax.ge_p, dtype) else None
    if computation is lax.min:
        return reduce_window_min_p if value == identity(lax.le_p, dtype) else None
    return None


def reduce_window(
    operand: Any,
    init_value: Any,
    computation: Callable[..., Any],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None = None,
    padding: str | Sequence[tuple[int, int]] = "VALID",
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> Any:
    """Reduces each window of ``operand`` with ``computation``, starting from ``init_value``.

    >>> import numpy as np
    >>> from didax import lax
    >>> x = np.arange(10, dtype=np.float32)
    >>> lax.reduce_window(x, np.float32(1), lax.mul, window_dimensions=(2,))
    Array([ 0.,  2.,  6., 12., 20., 30., 42., 56., 72.], dtype=float32)
    >>> lax.reduce_window(x, -np.inf, lax.max, (3,), (3,), "SAME")
    Array([1., 4., 7., 9.], dtype=float32)
    """
    leaves: list[Any]
    tree: PyTreeDef
    leaves, tree = tree_util.tree_flatten(operand)
    inits, init_tree = tree_util.tree_flatten(init_value)
    if tree != init_tree:
        raise ValueError(
            "Operands must have the same tree structure as init_values: "
            f"{tree} vs. {init_tree} (at {user_frame_summary()})"
        )
    if not leaves:
        raise ValueError("reduce_window must have at least one operand.")
    if isinstance(padding, str):
        ones = [1] * len(window_dimensions)
        dilated = dilate_shape(window_dimensions, window_dilation or ones)
        strides = ones if window_strides is None else window_strides
        padding = padtype_to_pads(get_aval(leaves[0]).shape, dilated, strides, padding)
    w = WindowParams.of(window_dimensions, window_strides, padding, base_dilation, window_dilation)
    prim = _monoid(computation, inits[0]) if len(leaves) == 1 else None
    if prim is not None:
        return tree_util.tree_unflatten(tree, [bind_window(prim, leaves[0], window=w)])
    # A weakly typed init value (a Python scalar) takes its operand's dtype.
    inits = [
        convert(i, get_aval(x).dtype) if get_aval(i).weak_type else i
        for x, i in zip(leaves, inits, strict=True)
    ]
    scalars = [ShapedArray((), get_aval(i).dtype) for i in inits]
    _, pair_tree = tree_util.tree_flatten((init_value, init_value))
    flat = _FlatFun(computation, pair_tree, keep_scalars=True)
    closed = trace_to_jaxpr(flat, [*scalars, *scalars], "reduce_window_reducer")
    if flat.out_tree is None or flat.out_tree != tree:
        raise ValueError(
            "reduce_window output must have the same tree structure as the operands "
            f"{tree} vs. {flat.out_tree} (at {user_frame_summary()})"
        )
    if closed.consts:
        raise NotImplementedError(
            "reduce_window: the computation may not close over arrays or traced values "
            f"(only scalars), as JAX's may not (at {user_frame_summary()})"
        )
    outs = reduce_window_p.bind(*leaves, *inits, jaxpr=closed.jaxpr, **w.as_params())
    return tree_util.tree_unflatten(tree, outs)
