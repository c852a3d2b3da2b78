"""The jit-call primitive: a higher-order primitive carrying a closed jaxpr.

Design rules:
- ``jit_p`` binds a ``ClosedJaxpr`` *without constants* (param ``jaxpr``)
  to explicit operands. Whatever the traced function closed over (arrays,
  tracers of enclosing transformations) was hoisted by staging and is
  passed as leading operands: that is closure conversion, and it is why
  jvp/vmap of jit need no special knowledge of closures.
- Its transformation rules transform the jaxpr (initial style): the jvp
  rule builds a jvp jaxpr and binds ``jit_p`` again; so does batching. The
  rebuilt jaxprs are cached by structural fingerprint, so ``jvp(jit(f))``
  called again builds nothing new.
- Its impl rule (compile and execute) is the only rule registered outside
  this layer: the lowering layer installs it, because running a jit call
  means compiling it, and compiling is lowering's job.
- cond, while and scan (later) reuse ``jaxpr_as_fun``, ``jvp_jaxpr`` and
  ``vmap_jaxpr``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.abstract_eval import ABSTRACT_EVAL, shape_failure
from didax.core.cache import LRUCache
from didax.core.primitive import Primitive
from didax.interpreters.batching import BATCH_RULES, Dim, bdim_at_front, vmap_flat
from didax.interpreters.evaluation import eval_jaxpr
from didax.interpreters.jvp import JVP_RULES, Zero, jvp_flat
from didax.interpreters.staging import trace_to_jaxpr
from didax.ir.fingerprint import fingerprint
from didax.ir.jaxpr import ClosedJaxpr

jit_p: Final = Primitive("jit", multiple_results=True)


def jaxpr_as_fun(closed: ClosedJaxpr) -> Callable[..., list[Any]]:
    """The closed jaxpr as a Python function, binding each equation under the current trace."""
    return lambda *args: eval_jaxpr(closed.jaxpr, [*closed.consts, *args])


def close_over_nothing(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, tuple[Any, ...]]:
    """Closure conversion: the same jaxpr with its constants turned into leading operands."""
    return ClosedJaxpr(closed.jaxpr, ()), closed.consts


@ABSTRACT_EVAL.defines(jit_p)
def _jit_abstract_eval(*avals: ShapedArray, jaxpr: ClosedJaxpr, name: str) -> list[ShapedArray]:
    expected = jaxpr.in_avals
    if len(avals) != len(expected) or any(
        a.strip_weak() != e.strip_weak() for a, e in zip(avals, expected, strict=True)
    ):
        shown = ", ".join(a.str_short() for a in expected)
        raise shape_failure(f"the jitted function {name} expects operands of types ({shown})")
    return list(jaxpr.out_avals)


# --- jvp -----------------------------------------------------------------------


_JVP_JAXPRS: Final[LRUCache[tuple[ClosedJaxpr, tuple[bool, ...]]]] = LRUCache(maxsize=512)
_VMAP_JAXPRS: Final[LRUCache[ClosedJaxpr]] = LRUCache(maxsize=512)


def jvp_jaxpr(
    closed: ClosedJaxpr, nonzeros: Sequence[bool]
) -> tuple[ClosedJaxpr, tuple[bool, ...]]:
    """The jaxpr ``(primals, nonzero tangents) -> (primals_out, nonzero tangents_out)``.

    Also returns which output tangents are nonzero. Cached by fingerprint:
    equal programs have equal jvp jaxprs.
    """
    key = (fingerprint(closed), tuple(nonzeros))
    return _JVP_JAXPRS.get_or_create(key, lambda: _build_jvp_jaxpr(closed, nonzeros))


def _build_jvp_jaxpr(
    closed: ClosedJaxpr, nonzeros: Sequence[bool]
) -> tuple[ClosedJaxpr, tuple[bool, ...]]:
    in_avals = closed.in_avals
    tangent_avals = [
        ShapedArray(a.shape, dtypes.tangent_dtype(a.dtype))
        for a, nz in zip(in_avals, nonzeros, strict=True)
        if nz
    ]
    out_nonzeros: list[bool] = []

    def fun(*args: Any) -> list[Any]:
        primals = args[: len(in_avals)]
        nz_tangents = iter(args[len(in_avals) :])
        tangents = [
            next(nz_tangents) if nz else Zero.like(a)
            for a, nz in zip(in_avals, nonzeros, strict=True)
        ]
        outs, t_outs = jvp_flat(jaxpr_as_fun(closed), primals, tangents)
        out_nonzeros.extend(not isinstance(t, Zero) for t in t_outs)
        return [*outs, *(t for t in t_outs if not isinstance(t, Zero))]

    jvp_closed = trace_to_jaxpr(fun, [*in_avals, *tangent_avals], "jit")
    return jvp_closed, tuple(out_nonzeros)


@JVP_RULES.defines(jit_p)
def _jit_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], *, jaxpr: ClosedJaxpr, name: str
) -> tuple[list[Any], list[Any]]:
    nonzeros = [not isinstance(t, Zero) for t in tangents]
    jvp_closed, out_nonzeros = jvp_jaxpr(jaxpr, nonzeros)
    new_jaxpr, consts = close_over_nothing(jvp_closed)
    nz_tangents = [t for t in tangents if not isinstance(t, Zero)]
    outs = jit_p.bind(*consts, *primals, *nz_tangents, jaxpr=new_jaxpr, name=f"jvp({name})")
    n = len(jaxpr.out_avals)
    primals_out, nz_t_out = outs[:n], iter(outs[n:])
    tangents_out = [
        next(nz_t_out) if nz else Zero.like(a)
        for a, nz in zip(jaxpr.out_avals, out_nonzeros, strict=True)
    ]
    return primals_out, tangents_out


# --- batching --------------------------------------------------------------------


def vmap_jaxpr(closed: ClosedJaxpr, axis_size: int, batched: Sequence[bool]) -> ClosedJaxpr:
    """The jaxpr taking operands batched at axis 0 where ``batched``; every output batched at 0."""
    key = (fingerprint(closed), axis_size, tuple(batched))
    return _VMAP_JAXPRS.get_or_create(key, lambda: _build_vmap_jaxpr(closed, axis_size, batched))


def _build_vmap_jaxpr(closed: ClosedJaxpr, axis_size: int, batched: Sequence[bool]) -> ClosedJaxpr:
    in_avals = [
        ShapedArray((axis_size, *a.shape), a.dtype, a.weak_type) if b else a
        for a, b in zip(closed.in_avals, batched, strict=True)
    ]
    dims: list[Dim] = [0 if b else None for b in batched]

    def fun(*args: Any) -> list[Any]:
        pairs = vmap_flat(jaxpr_as_fun(closed), axis_size, args, dims)
        return [bdim_at_front(v, d, axis_size) for v, d in pairs]

    return trace_to_jaxpr(fun, in_avals, "jit")


@BATCH_RULES.defines(jit_p)
def _jit_batch(
    axis_size: int, args: Sequence[Any], dims: Sequence[Dim], *, jaxpr: ClosedJaxpr, name: str
) -> tuple[list[Any], list[Dim]]:
    batched = [d is not None for d in dims]
    args = [
        x if d is None else bdim_at_front(x, d, axis_size) for x, d in zip(args, dims, strict=True)
    ]
    new_jaxpr, consts = close_over_nothing(vmap_jaxpr(jaxpr, axis_size, batched))
    outs = jit_p.bind(*consts, *args, jaxpr=new_jaxpr, name=f"vmap({name})")
    return outs, [0] * len(outs)
