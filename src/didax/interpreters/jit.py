"""The jit-call primitive's interpreter rules: partial evaluation here, the others shared.

Design rules:
- ``jit_p`` (declared and typed in ``core.lax.jit``) binds a constant-free
  ``Jaxpr`` (param ``jaxpr``) to explicit operands. Whatever the traced
  function closed over (arrays, tracers of enclosing transformations) was
  hoisted by staging and is passed as leading operands: that is closure
  conversion, and it is why jvp/vmap of jit need no special knowledge of
  closures.
- This module holds the primitive's interpreter rules: partial evaluation
  here, and jvp, batching, transposition and DCE from ``call_rules`` (the
  rules every call primitive shares). Its lowering (a ``func.call``) is in
  ``lowering.jit``, its impl (compile and execute, the lowering layer's
  job) in ``lowering.eager``; its flops rule is in ``interpreters.flops``.
  Each transforms the body with ``jaxpr_transforms`` and binds ``jit_p``
  again on the result (initial style); those jaxprs are cached by
  fingerprint, so ``jvp(jit(f))`` called again builds nothing new.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from didax.core.abstract import ShapedArray
from didax.core.lax.jit import jit_p
from didax.core.trace import set_current_trace
from didax.interpreters.call_rules import register_call_rules
from didax.interpreters.flops import FLOPS_RULES, Counted, Operand, count_jaxpr
from didax.interpreters.jaxpr_transforms import (
    close_over_nothing,
    partial_eval_jaxpr,
)
from didax.interpreters.partial_eval import PE_RULES, PartialEvalTrace
from didax.ir.jaxpr import Jaxpr


def _retag(params: dict[str, Any], body: Jaxpr, transformation: str) -> dict[str, Any]:
    return {**params, "jaxpr": body, "name": f"{transformation}({params['name']})"}


register_call_rules(jit_p, _retag)


def _jit_partial_eval(
    trace: PartialEvalTrace, args: Sequence[Any], params: dict[str, Any]
) -> list[Any]:
    """A jit call with unknown operands: a known call now, an unknown call staged."""
    jaxpr: Jaxpr = params["jaxpr"]
    name: str = params["name"]
    in_unknowns = [trace.is_unknown(x) for x in args]
    known, unknown, out_unknowns, num_res = partial_eval_jaxpr(jaxpr, in_unknowns)
    known_args = [x for x, u in zip(args, in_unknowns, strict=True) if not u]
    parent = trace.parent
    assert parent is not None
    known_body, known_consts = close_over_nothing(known)
    with set_current_trace(parent):
        known_results = jit_p.bind(*known_consts, *known_args, jaxpr=known_body, name=name)
    num_known = len(known_results) - num_res
    known_outs, residuals = known_results[:num_known], known_results[num_known:]
    unknown_args = [x for x, u in zip(args, in_unknowns, strict=True) if u]
    unknown_outs = trace.stage(
        jit_p, [*residuals, *unknown_args], {"jaxpr": unknown, "name": f"{name}_unknown"}
    )
    known_it, unknown_it = iter(known_outs), iter(unknown_outs)
    return [next(unknown_it) if u else next(known_it) for u in out_unknowns]


PE_RULES.register(jit_p, _jit_partial_eval)


# --- flops ----------------------------------------------------------------------------


@FLOPS_RULES.defines(jit_p)
def _jit_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, *, jaxpr: Jaxpr, name: str
) -> Counted:
    return count_jaxpr(jaxpr, operands)
