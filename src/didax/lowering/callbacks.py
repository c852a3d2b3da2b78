"""Lowering host callbacks: jaxlib's Python-callback custom call (JAX's ``emit_python_callback``).

Design rules:
- A callback lowers to ``stablehlo.custom_call @xla_ffi_python_cpu_callback``
  (``..._gpu_callback`` on CUDA and ROCm), an XLA FFI target of jaxlib whose
  ``backend_config`` holds the callback's index in the module's
  ``host_callbacks``: XLA calls back into Python with the operands' host
  data where the op runs, and the program never leaves XLA otherwise.
- Debug and IO callbacks have side effects (``has_side_effect``), so XLA
  keeps them whether or not their results are used; a pure callback has
  none, and XLA may drop or merge it as JAX's may.
- An ordered callback takes the module context's token as its first
  operand and returns the next one first, as JAX's: the callback's
  function is wrapped to pass the token through.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core.abstract import ShapedArray
from didax.core.effects import Effect
from didax.core.lax.callbacks import (
    HostCallback,
    checked_results,
    debug_callback_p,
    io_callback_p,
    pure_callback_p,
)
from didax.lowering.mlir import (
    LOWERING_RULES,
    IrValue,
    LoweringRuleContext,
    aval_to_ir_type,
    token_type,
)

__all__: list[str] = []


def emit_python_callback(
    ctx: LoweringRuleContext,
    fn: Callable[..., Sequence[Any]],
    operands: Sequence[IrValue],
    result_avals: Sequence[ShapedArray],
    *,
    has_side_effect: bool,
    ordered: bool,
) -> list[IrValue]:
    """A custom call of ``fn`` on ``operands``; its results, of ``result_avals``."""
    mctx = ctx.module_context
    call: Callable[..., Sequence[Any]] = fn
    result_types: list[ir.Type] = [aval_to_ir_type(a) for a in result_avals]
    if ordered:
        operands = [mctx.current_token(), *operands]
        result_types = [token_type(), *result_types]

        def call(token: Any, *args: Any) -> Sequence[Any]:
            return (token, *fn(*args))

    index = len(mctx.host_callbacks)
    mctx.host_callbacks.append(call)
    device = "gpu" if ctx.platform in ("cuda", "rocm") else "cpu"
    u64 = ir.IntegerType.get_unsigned(64)
    op = hlo.CustomCallOp(
        result_types,
        list(operands),
        f"xla_ffi_python_{device}_callback",
        has_side_effect=ir.BoolAttr.get(has_side_effect),
        backend_config=ir.DictAttr.get({"index": ir.IntegerAttr.get(u64, index)}),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
    )
    results: list[IrValue] = list(op.results)
    if ordered:
        mctx.token, results = results[0], results[1:]
    return results


def _host_function(
    callback: HostCallback, result_avals: Sequence[ShapedArray]
) -> Callable[..., Sequence[Any]]:
    # jaxlib reads the results as a tuple.
    def fn(*args: Any) -> Sequence[Any]:
        return tuple(checked_results(callback.name, callback(*map(np.asarray, args)), result_avals))

    return fn


@LOWERING_RULES.defines(debug_callback_p)
def _debug_callback_lowering(
    ctx: LoweringRuleContext, *args: IrValue, callback: HostCallback, effect: Effect
) -> list[IrValue]:
    return emit_python_callback(
        ctx, _host_function(callback, ()), args, (), has_side_effect=True, ordered=effect.ordered
    )


@LOWERING_RULES.defines(pure_callback_p)
def _pure_callback_lowering(
    ctx: LoweringRuleContext,
    *args: IrValue,
    callback: HostCallback,
    result_avals: tuple[ShapedArray, ...],
    vmap_method: str | None,
) -> list[IrValue]:
    fn = _host_function(callback, result_avals)
    return emit_python_callback(ctx, fn, args, result_avals, has_side_effect=False, ordered=False)


@LOWERING_RULES.defines(io_callback_p)
def _io_callback_lowering(
    ctx: LoweringRuleContext,
    *args: IrValue,
    callback: HostCallback,
    result_avals: tuple[ShapedArray, ...],
    ordered: bool,
) -> list[IrValue]:
    fn = _host_function(callback, result_avals)
    return emit_python_callback(ctx, fn, args, result_avals, has_side_effect=True, ordered=ordered)
