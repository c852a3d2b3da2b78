"""Vectorisation: the batching trace (vmap) and its rules.

Design rules:
- A ``BatchTracer`` holds a value and the axis of it that is batched, or
  ``None`` (``not_mapped``) when the value is the same for every batch
  element. Unbatched values are never broadcast until a rule needs them
  to be.
- Operands are type-checked in the user's terms (without the batch axis)
  before the rule runs, so a vmapped ill-typed call fails with the same
  message as the unbatched one.
- Rules run under the parent trace and receive
  ``(axis_size, values, dims, **params)``; they return the result and its
  batch axis. Most rules move batch axes to the front (``bdim_at_front``),
  which keeps each rule a few lines; a transpose that would be the identity
  is never emitted.
- Batched start indices of dynamic slices become a gather (a scatter for
  an update), as in JAX: the batched program has a constant number of
  equations whatever the batch size, and costs what the slices do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol

from didax.core import lax
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import abstract_eval
from didax.core.basearray import Value
from didax.core.primitive import Primitive, RuleTable
from didax.core.trace import Trace, Tracer, check_valid, current_trace, new_trace, set_current_trace
from didax.core.values import ArrayLike, get_aval

Dim = int | None
not_mapped: Final = None


class BatchRule(Protocol):
    """``(axis_size, values, dims, **params) -> (result, result_dim)``.

    Results and dims are lists when the primitive has multiple results; a
    dim is an axis or ``None`` (unbatched). Each rule names its own params.
    """

    def __call__(
        self, axis_size: int, args: Sequence[Any], dims: Sequence[Dim], /, *a: Any, **params: Any
    ) -> tuple[Any, Any]: ...


BATCH_RULES: Final[RuleTable[BatchRule]] = RuleTable("batching (vmap)")


class NamedBatchRule(Protocol):
    """``(axis_size, axis_name, values, dims, **params) -> (result, result_dim)``.

    A collective over the named axis of ``vmap(f, axis_name=...)``: the
    positions along that axis are the batch, so the collective becomes an
    operation across the batch dimension (``psum`` a sum over it). Values
    may be unbatched (dim ``None``): they are equal at every position.
    """

    def __call__(
        self,
        axis_size: int,
        axis_name: str,
        args: Sequence[Any],
        dims: Sequence[Dim],
        /,
        **params: Any,
    ) -> tuple[Any, Dim]: ...


NAMED_BATCH_RULES: Final[RuleTable[NamedBatchRule]] = RuleTable(
    "named-axis batching (vmap with axis_name)"
)


class BatchTracer(Tracer):
    __slots__ = ("batch_dim", "val")

    def __init__(self, trace: BatchTrace, val: ArrayLike, batch_dim: int) -> None:
        super().__init__(trace)
        self.val = val
        self.batch_dim = batch_dim

    @property
    def aval(self) -> ShapedArray:
        aval = get_aval(self.val)
        shape = aval.shape[: self.batch_dim] + aval.shape[self.batch_dim + 1 :]
        return ShapedArray(shape, aval.dtype, aval.weak_type)

    def concretization_reason(self) -> str:
        return "it differs across the batch of vmap (use lax.select or lax.cond instead of if)"


class BatchTrace(Trace):
    name = "vmap"

    def __init__(self, parent: Trace, axis_size: int, axis_name: str | None = None) -> None:
        super().__init__(parent)
        self.axis_size = axis_size
        # Collectives naming it act across this trace's batch (NAMED_BATCH_RULES).
        self.axis_name = axis_name

    def lift(self, x: Any) -> tuple[Any, Dim]:
        if isinstance(x, BatchTracer) and x._trace is self:
            return x.val, x.batch_dim
        check_valid(x)
        return x, not_mapped

    def process_primitive(
        self, prim: Primitive, args: Sequence[Any], params: dict[str, Any]
    ) -> Any:
        vals, dims = zip(*(self.lift(x) for x in args), strict=True) if args else ((), ())
        parent = self.parent
        assert parent is not None
        if self.axis_name is not None and self.axis_name in params.get("axes", ()):
            with set_current_trace(parent):
                out, out_dim = NAMED_BATCH_RULES[prim](
                    self.axis_size, self.axis_name, vals, dims, **params
                )
            return self.box(out, out_dim)
        if all(d is None for d in dims):
            with set_current_trace(parent):
                return prim.bind(*vals, **params)
        abstract_eval(prim, [unbatched_aval(v, d) for v, d in zip(vals, dims, strict=True)], params)
        with set_current_trace(parent):
            out, out_dim = BATCH_RULES[prim](self.axis_size, vals, dims, **params)
        if prim.multiple_results:
            return [self.box(o, d) for o, d in zip(out, out_dim, strict=True)]
        return self.box(out, out_dim)

    def box(self, val: ArrayLike, dim: Dim) -> ArrayLike:
        return val if dim is None else BatchTracer(self, val, dim)


def unbatched_aval(x: object, d: Dim) -> ShapedArray:
    aval = get_aval(x)
    if d is None:
        return aval
    return ShapedArray(aval.shape[:d] + aval.shape[d + 1 :], aval.dtype, aval.weak_type)


def vmap_flat(
    fun: Callable[..., Sequence[Any]],
    axis_size: int,
    args: Sequence[Any],
    in_dims: Sequence[Dim],
    axis_name: str | None = None,
) -> list[tuple[Any, Dim]]:
    """Maps ``fun`` over axis ``in_dims[i]`` of each argument.

    Returns each result with its batch axis (None where it is unbatched);
    the caller moves axes where it wants them, under the outer trace. With
    ``axis_name``, collectives inside ``fun`` may name the batch axis (the
    caller binds the name, ``core.lax.parallel.axis_frame``).
    """
    with new_trace(BatchTrace(current_trace(), axis_size, axis_name)) as trace:
        assert isinstance(trace, BatchTrace)
        ins = [trace.box(x, d) for x, d in zip(args, in_dims, strict=True)]
        outs = fun(*ins)
        return [trace.lift(o) for o in outs]


# --- helpers -------------------------------------------------------------------


def move_axis(x: ArrayLike, src: Dim, dst: int, axis_size: int) -> ArrayLike:
    """Moves batch axis ``src`` of ``x`` to ``dst``, broadcasting ``x`` if it is unbatched."""
    aval = get_aval(x)
    if src is None:
        shape = (*aval.shape[:dst], axis_size, *aval.shape[dst:])
        dims = tuple(i if i < dst else i + 1 for i in range(aval.ndim))
        return lax.broadcast_in_dim(x, shape, dims)
    if src == dst:
        return x
    perm = [i for i in range(aval.ndim) if i != src]
    perm.insert(dst, src)
    return lax.transpose(x, perm)


def select_lanes(lanes: ArrayLike, on_true: ArrayLike, on_false: ArrayLike) -> Value:
    """Per batch element (axis 0), ``on_true`` where ``lanes`` (a bool vector) holds."""
    shape = get_aval(on_true).shape
    if get_aval(lanes).shape != shape:
        lanes = lax.broadcast_in_dim(lanes, shape, (0,))
    return lax.select(lanes, on_true, on_false)


def bdim_at_front(x: ArrayLike, d: Dim, axis_size: int) -> ArrayLike:
    return move_axis(x, d, 0, axis_size)


def shift_axes(axes: Sequence[int]) -> tuple[int, ...]:
    """``axes`` moved one place right: their numbers once a batch axis is at the front."""
    return tuple(a + 1 for a in axes)


def elementwise_batcher(prim: Primitive) -> None:
    """Element-wise primitives: align every operand's batch axis, broadcasting unbatched ones."""

    def rule(
        axis_size: int, args: Sequence[Any], dims: Sequence[Dim], **params: Any
    ) -> tuple[Any, Any]:
        first = dims[0] if all(d == dims[0] for d in dims) else None
        if prim.scalar_operands:
            shapes = [unbatched_aval(x, d).shape for x, d in zip(args, dims, strict=True)]
            if first is None or any(s != shapes[0] for s in shapes):
                return _scalar_operands_batched(prim, axis_size, args, dims, shapes, params)
        if first is not None:
            return prim.bind(*args, **params), first
        args = [bdim_at_front(x, d, axis_size) for x, d in zip(args, dims, strict=True)]
        return prim.bind(*args, **params), 0

    BATCH_RULES.register(prim, rule)


def _scalar_operands_batched(
    prim: Primitive,
    axis_size: int,
    args: Sequence[Any],
    dims: Sequence[Dim],
    shapes: Sequence[tuple[int, ...]],
    params: dict[str, Any],
) -> tuple[Any, Dim]:
    """A ``scalar_operands`` primitive whose operands' batch axes or shapes differ.

    An unbatched rank-0 operand stays as it is (a scalar needs no
    broadcast); a batched one (a vector along the batch) beside arrays of
    a shape is broadcast to the batch of that shape; the rest move their
    batch axis to the front.
    """
    shape = next((s for s in shapes if s), ())
    args = [
        x
        if d is None and not s
        else lax.broadcast_in_dim(x, (axis_size, *shape), (0,))
        if not s and shape
        else bdim_at_front(x, d, axis_size)
        for x, d, s in zip(args, dims, shapes, strict=True)
    ]
    return prim.bind(*args, **params), 0


def front_batcher(prim: Primitive, adjust: Callable[..., dict[str, Any]]) -> None:
    """Unary primitives with axis params: batch at the front, params shifted by ``adjust``."""

    def rule(
        axis_size: int, args: Sequence[Any], dims: Sequence[Dim], **params: Any
    ) -> tuple[Any, Any]:
        (x,), (d,) = args, dims
        x = bdim_at_front(x, d, axis_size)
        return prim.bind(x, **adjust(axis_size, **params)), 0

    BATCH_RULES.register(prim, rule)
