"""``lax.reduce`` with a Python reducer, and ``lax.associative_scan``.

Design rules:
- ``reduce`` takes pytrees of operands and of init values (one structure)
  and a reducer on pairs of such trees of scalars. As JAX's, it first
  looks for a monoid: one operand, a concrete scalar init value, and the
  reducer one of ``lax.add``, ``lax.mul``, ``lax.max``, ``lax.min`` (or
  ``lax.bitwise_and``/``or``/``xor`` on booleans and integers) with the
  init value its identity; that is the monoid's own primitive
  (``reduce_sum``, ...), weakly typed only when operand and init value both
  are. Otherwise it traces the reducer once per (reducer, init types) and
  binds ``reduce_p`` with the closed program; a reducer that closes over a
  tracer is refused, as JAX refuses it, and so is one that closes over an
  array (scalars are inlined; an array constant would be invisible to the
  program fingerprints that key the transformation caches).
- ``associative_scan`` flattens its pytree and runs the odd/even
  recursion of ``interpreters.cumulative`` (JAX's algorithm), with the
  user's ``fn`` unflattening and flattening the trees around each
  combination.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
from jax import tree_util

from didax.api.control_flow import _flatten, _stage
from didax.api.transformations import PyTreeDef
from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.cache import LRUCache
from didax.core.dtypes import DType
from didax.core.lax.operands import as_operand, normalize_axes, normalize_axis
from didax.core.lax.reductions import reduce_p
from didax.core.source_info import user_frame_summary
from didax.core.trace import Tracer
from didax.core.values import ArrayLike, get_aval
from didax.interpreters import cumulative
from didax.ir.jaxpr import ClosedJaxpr

__all__ = ["reduce", "associative_scan"]

Monoid = Callable[[ArrayLike, Sequence[int]], Any]


def _identity_of(fn: Callable[..., Any], dtype: DType) -> tuple[Monoid, object] | None:
    """The monoid primitive's wrapper that ``fn`` with its identity is, and that identity."""
    intlike = dtype == dtypes.bool_ or dtypes.is_integer(dtype)
    if fn is lax.add:
        return lax.reduce_sum, 0
    if fn is lax.mul:
        return lax.reduce_prod, 1
    if fn is lax.max:
        return lax.reduce_max, _extreme(dtype, lowest=True)
    if fn is lax.min:
        return lax.reduce_min, _extreme(dtype, lowest=False)
    if intlike and fn is lax.bitwise_and:
        return lax.reduce_and, np.array(-1).astype(dtype)
    if intlike and fn is lax.bitwise_or:
        return lax.reduce_or, 0
    if intlike and fn is lax.bitwise_xor:
        return lax.reduce_xor, 0
    return None


def _extreme(dtype: DType, lowest: bool) -> object:
    """The identity of max (``lowest``) or min: an infinity, or the dtype's bound."""
    if dtypes.is_float(dtype) or dtypes.is_complex(dtype):
        return -np.inf if lowest else np.inf
    if dtype == dtypes.bool_:
        return not lowest
    info = np.iinfo(np.dtype(dtype.name))
    return info.min if lowest else info.max


def _monoid(fn: Callable[..., Any], init: Any) -> Monoid | None:
    """JAX's monoid recognition: the reduction primitive, if ``init`` is ``fn``'s identity."""
    if isinstance(init, Tracer):
        return None
    aval = get_aval(init)
    if aval.shape != ():
        return None
    found = _identity_of(fn, aval.dtype)
    if found is None:
        return None
    wrapper, identity = found
    return wrapper if bool(np.asarray(init) == np.asarray(identity)) else None


_REDUCERS: Final[LRUCache[tuple[ClosedJaxpr, PyTreeDef]]] = LRUCache(maxsize=256)


def _reducer_jaxpr(
    computation: Callable[[Any, Any], Any], avals: tuple[ShapedArray, ...], tree: PyTreeDef
) -> tuple[ClosedJaxpr, PyTreeDef]:
    def build() -> tuple[ClosedJaxpr, PyTreeDef]:
        scalars = tree_util.tree_unflatten(tree, list(avals))
        _, in_tree = tree_util.tree_flatten((scalars, scalars))
        closed, out_tree = _stage(computation, in_tree, [*avals, *avals], "reduce_comp")
        if any(isinstance(c, Tracer) for c in closed.consts):
            raise NotImplementedError(
                "reduce: reduction computations can't close over tracers (as in JAX): "
                f"pass such values as operands (at {user_frame_summary()})"
            )
        if closed.consts:
            # Closed-over scalars are inlined as literals; an array would be a
            # constant of the reducer program, which program fingerprints (the
            # keys of the transformation caches) do not see.
            raise NotImplementedError(
                "reduce: a reduction computation may close over scalars but not arrays "
                f"(got {', '.join(get_aval(c).str_short() for c in closed.consts)}); "
                f"pass them as operands (at {user_frame_summary()})"
            )
        return closed, out_tree

    return _REDUCERS.get_or_create((computation, avals, tree), build)


def reduce(
    operands: Any,
    init_values: Any,
    computation: Callable[[Any, Any], Any],
    dimensions: Sequence[int],
) -> Any:
    """XLA's reduce: ``computation`` folds ``operands`` (a pytree) over ``dimensions``.

    ``init_values`` (scalars, in the operands' structure) and
    ``computation`` must form a monoid: the init values an identity, the
    computation associative. A known monoid is its own primitive.

    >>> import didax as dx
    >>> from didax import lax
    >>> x = np.array([[1.0, 5.0], [3.0, 2.0]], np.float32)
    >>> lax.reduce(x, -np.inf, lax.max, (1,))
    Array([5., 3.], dtype=float32)
    >>> lax.reduce((x, x), (0.0, 1.0), lambda a, b: (a[0] + b[0], a[1] * b[1]), (0,))
    (Array([4., 7.], dtype=float32), Array([ 3., 10.], dtype=float32))
    """
    flat_ops, op_tree = _flatten(operands, "reduce operand")
    flat_inits, init_tree = _flatten(init_values, "reduce init value")
    if op_tree != init_tree:
        raise ValueError(
            "reduce: operands must have the same tree structure as init_values: "
            f"{op_tree} vs. {init_tree}"
        )
    flat_ops = [as_operand(x) for x in flat_ops]
    nd = get_aval(flat_ops[0]).ndim if flat_ops else 0
    dims = normalize_axes(tuple(operator.index(d) for d in dimensions), nd)
    monoid = _monoid(computation, flat_inits[0]) if len(flat_inits) == 1 else None
    if monoid is not None:
        (x,) = flat_ops
        weak = get_aval(x).weak_type and get_aval(flat_inits[0]).weak_type
        out = monoid(x, dims)
        aval = get_aval(out)
        if aval.weak_type != weak:
            out = lax.convert_element_type(out, aval.dtype, weak_type=weak)
        return out
    flat_inits = [as_operand(i) for i in flat_inits]
    init_avals = tuple(get_aval(i) for i in flat_inits)
    closed, out_tree = _reducer_jaxpr(computation, init_avals, init_tree)
    if out_tree != init_tree:
        raise TypeError(
            f"reduce: the computation must return the structure of init_values, {init_tree}, "
            f"got {out_tree} (at {user_frame_summary()})"
        )
    outs = reduce_p.bind(*flat_ops, *flat_inits, jaxpr=closed, dimensions=tuple(sorted(dims)))
    return tree_util.tree_unflatten(out_tree, outs)


def associative_scan(
    fn: Callable[[Any, Any], Any], elems: Any, reverse: bool = False, axis: int = 0
) -> Any:
    """The inclusive scan of ``elems`` (a pytree) along ``axis`` by the associative ``fn``.

    ``fn(a, b)`` combines two trees of arrays element-wise along ``axis``;
    the ``k``-th result is ``fn`` folded over the first ``k + 1`` elements
    (the last ones with ``reverse``). O(n) combinations in O(log n) depth.

    >>> import didax as dx
    >>> from didax import lax
    >>> lax.associative_scan(lax.add, np.arange(4))
    Array([0, 1, 3, 6], dtype=int32)
    >>> lax.associative_scan(lax.add, np.arange(4), reverse=True)
    Array([6, 6, 5, 3], dtype=int32)
    """
    if not callable(fn):
        raise TypeError("lax.associative_scan: fn argument should be callable.")
    leaves, tree = _flatten(elems, "associative_scan elems")
    leaves = [as_operand(x) for x in leaves]
    if not leaves:
        return elems
    axis = normalize_axis(operator.index(axis), get_aval(leaves[0]).ndim)
    sizes = [get_aval(x).shape[axis] if get_aval(x).ndim > axis else None for x in leaves]
    if any(s != sizes[0] for s in sizes):
        raise ValueError(
            "Array inputs to associative_scan must have the same first dimension. "
            f"(saw: {[get_aval(x).shape for x in leaves]})"
        )

    def combine(a: Sequence[Any], b: Sequence[Any]) -> list[Any]:
        out = fn(tree_util.tree_unflatten(tree, list(a)), tree_util.tree_unflatten(tree, list(b)))
        flat: list[Any] = tree_util.tree_leaves(out)
        return flat

    outs = cumulative.associative_scan(combine, leaves, axis, bool(reverse))
    return tree_util.tree_unflatten(tree, outs)
