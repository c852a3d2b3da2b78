"""Control flow: ``cond``, ``switch``, ``while_loop``, ``fori_loop``, ``scan``, ``map``.

Design rules:
- Each function traces its Python callables into constant-free jaxprs
  (``_stage``) and binds one higher-order primitive of ``interpreters``
  (``cond_p``, ``while_p``, ``scan_p``). Whatever a callable closed over (an
  array, a tracer of an enclosing transformation) was hoisted by staging and
  becomes an explicit operand: closure conversion, so ``grad`` of a function
  whose loop body reads the parameters needs nothing special.
- Operands, carries, ``xs`` and results are pytrees, as in JAX; the
  primitives see flat lists.
- Types are checked at trace time, with the user's line in the message:
  branch outputs of different structure or types, a body that changes the
  carry's type, a predicate that is not a boolean scalar. A weakly typed
  initial carry (a Python scalar) takes the dtype the body returns for it,
  as JAX does: ``scan(f, 0.0, xs)`` with an ``f32`` carry out carries
  ``f32``. Branch outputs must match exactly (weakness aside), as in JAX.
- ``switch`` clamps its index into range, as JAX does; ``cond`` is a
  two-branch switch on ``int32(pred)``; ``fori_loop`` with Python-int (static)
  bounds is a ``scan`` (so it is reverse-differentiable), otherwise a
  ``while_loop``; ``map`` is a ``scan`` without a carry.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from jax import tree_util

from didax.api.transformations import PyTreeDef, _FlatFun
from didax.core import dtypes, lax
from didax.core.abstract import ShapedArray
from didax.core.lax.cond import cond_p
from didax.core.lax.programs import differ, types
from didax.core.lax.scan import scan_p
from didax.core.lax.while_loop import while_p
from didax.core.promotion import convert
from didax.core.source_info import user_frame_summary
from didax.core.trace import Tracer
from didax.core.values import ArrayLike, get_aval, is_value, wrap_host
from didax.interpreters.cond import join_consts
from didax.interpreters.jaxpr_transforms import close_over_nothing
from didax.interpreters.staging import trace_to_jaxpr
from didax.ir.jaxpr import ClosedJaxpr

__all__ = ["cond", "switch", "while_loop", "fori_loop", "scan", "map"]


def _flatten(tree: Any, what: str) -> tuple[list[Any], PyTreeDef]:
    leaves, treedef = tree_util.tree_flatten(tree)
    for x in leaves:
        if not is_value(x):
            raise TypeError(
                f"{what}: {type(x).__name__} {x!r} is not a valid didax value "
                f"(at {user_frame_summary()})"
            )
    return leaves, treedef


def _stage(
    fun: Callable[..., Any], in_tree: PyTreeDef, in_avals: Sequence[ShapedArray], name: str
) -> tuple[ClosedJaxpr, PyTreeDef]:
    """``fun`` traced on ``in_avals``: its jaxpr, whose constants are what it closed over.

    Also returns the tree of its output.
    """
    flat = _FlatFun(fun, in_tree, keep_scalars=True)
    closed = trace_to_jaxpr(flat, in_avals, name)
    assert flat.out_tree is not None
    return closed, flat.out_tree


def _cast_leaves(leaves: Sequence[Any], avals: Sequence[ShapedArray]) -> list[Any]:
    return [
        x if get_aval(x).dtype == a.dtype else convert(x, a.dtype, a.weak_type)
        for x, a in zip(leaves, avals, strict=True)
    ]


# --- cond and switch ---------------------------------------------------------------------


def switch(index: ArrayLike, branches: Sequence[Callable[..., Any]], *operands: Any) -> Any:
    """``branches[index](*operands)``, with ``index`` clamped to ``[0, len(branches) - 1]``.

    Every branch is traced and staged; at run time only the chosen one runs
    (under ``vmap`` with a batched index, all run and each lane selects).

    >>> import didax as dx
    >>> from didax import lax
    >>> dx.jit(lambda i, x: lax.switch(i, [lambda x: -x, lambda x: 2 * x], x))(5, 3.0)
    Array(6., dtype=float32, weak_type=True)
    """
    if not branches:
        raise ValueError("switch: branches must be a non-empty sequence of callables")
    aval = get_aval(index)
    if aval.shape != ():
        raise TypeError(
            f"switch: the branch index must be a scalar, got {aval.str_short()} "
            f"(at {user_frame_summary()})"
        )
    if not dtypes.is_integer(aval.dtype):
        raise TypeError(
            f"switch: the branch index must be an integer, got {aval.str_short()} "
            f"(at {user_frame_summary()})"
        )
    idx = convert(index, dtypes.int32)
    idx = lax.max(lax.min(idx, np.int32(len(branches) - 1)), np.int32(0))
    names = [f"branch {i}" for i in range(len(branches))]
    return _bind_cond(idx, list(branches), names, operands)


def cond(
    pred: ArrayLike, true_fun: Callable[..., Any], false_fun: Callable[..., Any], *operands: Any
) -> Any:
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, staged.

    ``pred`` is a boolean (or integer: nonzero is true) scalar.

    >>> import didax as dx
    >>> from didax import lax
    >>> dx.jit(lambda x: lax.cond(x > 0, lambda x: x, lambda x: -x, x))(-2.0)
    Array(2., dtype=float32, weak_type=True)
    """
    aval = get_aval(pred)
    if aval.shape != ():
        raise TypeError(
            f"cond: the predicate must be a scalar, got {aval.str_short()} "
            f"(at {user_frame_summary()})"
        )
    if aval.dtype.kind in "iu":
        pred = lax.ne(pred, lax.full_like(pred, 0))
    elif aval.dtype != dtypes.bool_:
        raise TypeError(
            f"cond: the predicate must be a boolean or integer scalar, got {aval.str_short()} "
            f"(at {user_frame_summary()})"
        )
    idx = lax.convert_element_type(pred, dtypes.int32)
    return _bind_cond(idx, [false_fun, true_fun], ["false_fun", "true_fun"], operands)


def _bind_cond(
    index: Any, funs: Sequence[Callable[..., Any]], names: Sequence[str], operands: Sequence[Any]
) -> Any:
    leaves, in_tree = _flatten(tuple(operands), "cond operand")
    in_avals = [get_aval(x) for x in leaves]
    staged = [_stage(f, in_tree, in_avals, "cond_branch") for f in funs]
    out_trees = [t for _, t in staged]
    for name, tree in zip(names[1:], out_trees[1:], strict=True):
        if tree != out_trees[0]:
            raise TypeError(
                f"cond: {names[0]} and {name} must return the same structure, got "
                f"{out_trees[0]} and {tree} (at {user_frame_summary()})"
            )
    out_avals = [c.out_avals for c, _ in staged]
    for name, avals in zip(names[1:], out_avals[1:], strict=True):
        if differ(avals, out_avals[0]):
            # As JAX: a Python scalar does not take the other branch's dtype here.
            raise TypeError(
                f"cond: the branches must return the same types: {names[0]} returns "
                f"{types(out_avals[0])} and {name} returns {types(avals)} "
                f"(at {user_frame_summary()})"
            )
    branches, consts = join_consts([c for c, _ in staged])
    outs = cond_p.bind(index, *consts, *leaves, branches=branches)
    return tree_util.tree_unflatten(out_trees[0], outs)


# --- while_loop and fori_loop ------------------------------------------------------------


def while_loop(
    cond_fun: Callable[[Any], Any], body_fun: Callable[[Any], Any], init_val: Any
) -> Any:
    """``val = init_val; while cond_fun(val): val = body_fun(val); return val``, staged.

    ``cond_fun`` returns a boolean scalar; ``body_fun`` returns a value of the
    same structure and types as ``init_val``. Forward-mode differentiable
    (``jvp``, ``jacfwd``); reverse mode needs ``scan`` or ``fori_loop`` with
    static bounds.

    >>> import didax as dx
    >>> from didax import lax
    >>> dx.jit(lambda x: lax.while_loop(lambda v: v < 100.0, lambda v: 2.0 * v, x))(3.0)
    Array(192., dtype=float32, weak_type=True)
    """
    leaves, tree = _flatten(init_val, "while_loop init_val")
    _, in_tree = tree_util.tree_flatten((init_val,))
    avals = [get_aval(x) for x in leaves]
    body, body_tree = _stage(body_fun, in_tree, avals, "while_body")
    new_avals, leaves = _unify_carry(
        "while_loop", "body_fun", tree, avals, body_tree, body.out_avals, leaves
    )
    if new_avals != avals:  # a weak carry took the body's dtype: trace again with it
        avals = new_avals
        body, _ = _stage(body_fun, in_tree, avals, "while_body")
    cond, _ = _stage(cond_fun, in_tree, avals, "while_cond")
    pred = cond.out_avals
    if len(pred) != 1 or pred[0].shape != () or pred[0].dtype != dtypes.bool_:
        raise TypeError(
            f"while_loop: cond_fun must return a boolean scalar, got {types(pred)} "
            f"(at {user_frame_summary()})"
        )
    cond_jaxpr, cond_consts = close_over_nothing(cond)
    body_jaxpr, body_consts = close_over_nothing(body)
    outs = while_p.bind(
        *cond_consts,
        *body_consts,
        *leaves,
        cond_jaxpr=cond_jaxpr,
        body_jaxpr=body_jaxpr,
        cond_nconsts=len(cond_consts),
        body_nconsts=len(body_consts),
    )
    return tree_util.tree_unflatten(tree, outs)


def _unify_carry(
    fun_name: str,
    body_name: str,
    tree: PyTreeDef,
    avals: list[ShapedArray],
    out_tree: PyTreeDef,
    out_avals: Sequence[ShapedArray],
    leaves: list[Any],
) -> tuple[list[ShapedArray], list[Any]]:
    """The carry's types, checked against what the body returns for it.

    A weakly typed carry entry (a Python scalar) whose body result has
    another dtype takes that dtype (as JAX); any other difference is an
    error naming both types.
    """
    if out_tree != tree:
        raise TypeError(
            f"{fun_name}: {body_name} must return the carry with the structure it was given, "
            f"{tree}, but returned {out_tree} (at {user_frame_summary()})"
        )
    out = list(out_avals)
    if not differ(out, avals):
        return avals, leaves
    # JAX's rule: a weak carry entry that the body changes takes the dtype it
    # promotes to with the body's result (a Python int carry a body makes
    # float becomes a float).
    targets = [
        a.update(dtype=dtypes.result_type([(a.dtype, True), (o.dtype, o.weak_type)])[0])
        if a.weak_type and a.shape == o.shape and a.dtype != o.dtype
        else a
        for a, o in zip(avals, out, strict=True)
    ]
    if differ(targets, out):
        raise TypeError(
            f"{fun_name}: {body_name} must return the carry with the types it was given: "
            f"the carry is {types(avals)} but {body_name} returns {types(out)} "
            f"(at {user_frame_summary()})"
        )
    new_avals = [
        a if a.dtype == t.dtype else a.update(dtype=t.dtype, weak_type=False)
        for a, t in zip(avals, targets, strict=True)
    ]
    return new_avals, _cast_leaves(leaves, new_avals)


def fori_loop(
    lower: Any, upper: Any, body_fun: Callable[[Any, Any], Any], init_val: Any, *, unroll: int = 1
) -> Any:
    """``val = init_val; for i in range(lower, upper): val = body_fun(i, val); return val``.

    With static bounds (Python or NumPy integers) this is a ``scan`` of
    ``upper - lower`` steps, so it is reverse-differentiable; with traced
    bounds a ``while_loop``.

    >>> import didax as dx
    >>> from didax import lax
    >>> dx.grad(lambda x: lax.fori_loop(0, 3, lambda i, v: v * x, 1.0))(2.0)
    Array(12., dtype=float32)
    """
    for bound in (lower, upper):
        aval = get_aval(bound)
        if aval.shape != () or not dtypes.is_integer(aval.dtype):
            raise TypeError(
                f"fori_loop: lower and upper must be integer scalars, got {aval.str_short()} "
                f"(at {user_frame_summary()})"
            )
    dtype, weak = dtypes.result_type(
        [
            (get_aval(lower).dtype, get_aval(lower).weak_type),
            (get_aval(upper).dtype, get_aval(upper).weak_type),
        ]
    )
    if not isinstance(lower, Tracer) and not isinstance(upper, Tracer):
        lo, hi = operator.index(lower), operator.index(upper)

        def step(carry: Any, _: Any) -> Any:
            i, x = carry
            return (lax.add(i, lax.full_like(i, 1)), body_fun(i, x)), None

        start = wrap_host(np.asarray(lo, dtype), weak)
        (_, result), _ = scan(step, (start, init_val), None, length=max(hi - lo, 0), unroll=unroll)
        return result

    def keep_going(carry: Any) -> Any:
        i, hi_, _ = carry
        return lax.lt(i, hi_)

    def step_while(carry: Any) -> Any:
        i, hi_, x = carry
        return lax.add(i, lax.full_like(i, 1)), hi_, body_fun(i, x)

    lo_v = lax.convert_element_type(lower, dtype, weak)
    hi_v = lax.convert_element_type(upper, dtype, weak)
    _, _, result = while_loop(keep_going, step_while, (lo_v, hi_v, init_val))
    return result


# --- scan and map ------------------------------------------------------------------------


def scan(
    f: Callable[[Any, Any], Any],
    init: Any,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
) -> tuple[Any, Any]:
    """Loops ``f`` over the leading axis of ``xs``, threading a carry; returns ``(carry, ys)``.

    ``f(carry, x) -> (carry, y)``; the ``y``s are stacked along a new leading
    axis. With ``xs=None``, ``length`` says how many steps; ``reverse`` runs
    from the end; ``unroll`` copies of the body run per loop trip (``True``:
    all of them).

    >>> import didax as dx
    >>> import numpy as np
    >>> from didax import lax
    >>> lax.scan(lambda c, x: (c + x, c * x), 0.0, np.arange(4.0))
    (Array(6., dtype=float32), Array([0., 0., 2., 9.], dtype=float32))
    """
    init_leaves, carry_tree = _flatten(init, "scan init")
    xs_leaves, _ = _flatten(xs, "scan xs")
    lengths = set()
    for x in xs_leaves:
        aval = get_aval(x)
        if aval.ndim == 0:
            raise ValueError(
                f"scan: xs leaves must have a leading axis to scan over, got {aval.str_short()} "
                f"(at {user_frame_summary()})"
            )
        lengths.add(aval.shape[0])
    if length is not None:
        length = operator.index(length)
        lengths.add(length)
    if len(lengths) > 1:
        raise ValueError(
            f"scan: the leading axes of xs and length disagree: {sorted(lengths)} "
            f"(at {user_frame_summary()})"
        )
    if not lengths:
        raise ValueError("scan: with no xs, length must be given")
    (n,) = lengths
    if isinstance(unroll, bool):
        unroll_n = max(n, 1) if unroll else 1
    else:
        unroll_n = operator.index(unroll)
        if unroll_n < 1:
            raise ValueError(f"scan: unroll must be a positive integer or a bool, got {unroll}")
    x_avals = [
        ShapedArray(a.shape[1:], a.dtype, a.weak_type) for a in (get_aval(x) for x in xs_leaves)
    ]
    carry_avals = [get_aval(c) for c in init_leaves]
    _, in_tree = tree_util.tree_flatten((init, _slice_tree(xs)))
    body, out_tree = _stage(f, in_tree, [*carry_avals, *x_avals], "scan_body")
    carry_out_tree, y_tree = _pair_trees(out_tree)
    num_carry = len(init_leaves)
    new_avals, init_leaves = _unify_carry(
        "scan",
        "f",
        carry_tree,
        carry_avals,
        carry_out_tree,
        body.out_avals[:num_carry],
        init_leaves,
    )
    if new_avals != carry_avals:  # a weak carry took the body's dtype: trace again with it
        body, out_tree = _stage(f, in_tree, [*new_avals, *x_avals], "scan_body")
    jaxpr, consts = close_over_nothing(body)
    outs = scan_p.bind(
        *consts,
        *init_leaves,
        *xs_leaves,
        jaxpr=jaxpr,
        num_consts=len(consts),
        num_carry=num_carry,
        length=n,
        reverse=bool(reverse),
        unroll=unroll_n,
    )
    carry = tree_util.tree_unflatten(carry_tree, outs[:num_carry])
    ys = tree_util.tree_unflatten(y_tree, outs[num_carry:])
    return carry, ys


def _slice_tree(xs: Any) -> Any:
    """A stand-in of ``xs``'s structure for one slice (the leaves do not matter)."""
    return tree_util.tree_map(lambda _: 0.0, xs)


def _pair_trees(out_tree: PyTreeDef) -> tuple[PyTreeDef, PyTreeDef]:
    children = tree_util.treedef_children(out_tree)
    if (
        out_tree.num_nodes - out_tree.num_leaves < 1
        or len(children) != 2
        or (tree_util.tree_unflatten(out_tree, [0] * out_tree.num_leaves).__class__ is not tuple)
    ):
        raise TypeError(
            f"scan: f must return a pair (carry, y), got a value of structure {out_tree} "
            f"(at {user_frame_summary()})"
        )
    return children[0], children[1]


def map(f: Callable[[Any], Any], xs: Any) -> Any:  # noqa: A001 - lax's name
    """``f`` applied to every slice of ``xs`` along its leading axis, stacked (a ``scan``).

    >>> import numpy as np
    >>> from didax import lax
    >>> lax.map(lambda x: x * x, np.arange(3.0))
    Array([0., 1., 4.], dtype=float32)
    """
    _, ys = scan(lambda carry, x: (carry, f(x)), (), xs)
    return ys
