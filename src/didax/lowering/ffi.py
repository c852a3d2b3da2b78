"""Lowering foreign function calls: ``stablehlo.custom_call`` of an XLA FFI target.

Design rules:
- ``ffi_call_p`` lowers to ``stablehlo.custom_call @target`` with
  ``api_version = 4`` (XLA's typed FFI) and the call's attributes as the
  ``backend_config`` dictionary, which XLA decodes into the handler's
  ``Attr<...>`` arguments: a NumPy scalar keeps its type (``np.float32``
  is an ``f32`` attribute), a Python ``int``/``float`` is 64-bit, a
  ``bool`` is ``i1``, a ``str`` a string.
- ``ffi_lowering(name)`` is the same lowering as a rule a user registers
  for their own primitive (``didax.extend``), as JAX's ``jax.ffi.ffi_lowering``.
- Registering a target (``register_ffi_target``) is jaxlib's process-wide
  registry: a target registered through JAX or didax serves both.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from jaxlib import xla_client
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core.abstract import ShapedArray
from didax.core.lax.ffi import ffi_call_p
from didax.lowering.mlir import LOWERING_RULES, IrValue, LoweringRuleContext, aval_to_ir_type

__all__: list[str] = []


def attribute(value: object) -> ir.Attribute:
    """The MLIR attribute of an FFI call's keyword argument (see the design rules)."""
    if isinstance(value, (bool, np.bool_)):
        return ir.BoolAttr.get(bool(value))
    if isinstance(value, str):
        return ir.StringAttr.get(value)
    if isinstance(value, int):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)
    if isinstance(value, float):
        return ir.FloatAttr.get(ir.F64Type.get(), value)
    if isinstance(value, np.integer):
        bits = 8 * value.dtype.itemsize
        kind = (
            ir.IntegerType.get_unsigned if value.dtype.kind == "u" else ir.IntegerType.get_signless
        )
        return ir.IntegerAttr.get(kind(bits), int(value))
    if isinstance(value, np.floating) and value.dtype.itemsize in (4, 8):
        ftype = ir.F32Type.get() if value.dtype.itemsize == 4 else ir.F64Type.get()
        return ir.FloatAttr.get(ftype, float(value))
    raise TypeError(
        f"ffi_call: no XLA FFI attribute for a keyword argument of type {type(value).__name__}"
    )


def emit_ffi_call(
    target_name: str,
    operands: Sequence[IrValue],
    result_avals: Sequence[ShapedArray],
    attributes: Mapping[str, object],
    has_side_effect: bool = False,
) -> list[IrValue]:
    """The custom call of ``target_name``; its results."""
    config = ir.DictAttr.get({k: attribute(v) for k, v in attributes.items()})
    op = hlo.CustomCallOp(
        [aval_to_ir_type(a) for a in result_avals],
        list(operands),
        target_name,
        has_side_effect=ir.BoolAttr.get(has_side_effect),
        backend_config=config,
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
    )
    return list(op.results)


@LOWERING_RULES.defines(ffi_call_p)
def _ffi_call_lowering(
    ctx: LoweringRuleContext,
    *args: IrValue,
    target_name: str,
    result_avals: tuple[ShapedArray, ...],
    attributes: tuple[tuple[str, object], ...],
    has_side_effect: bool,
    vmap_method: str | None,
) -> list[IrValue]:
    return emit_ffi_call(target_name, args, result_avals, dict(attributes), has_side_effect)


def ffi_lowering(
    call_target_name: str, *, has_side_effect: bool = False, **lowering_args: object
) -> Callable[..., Sequence[IrValue]]:
    """A lowering rule calling ``call_target_name`` with the primitive's params as attributes."""
    del lowering_args

    def rule(ctx: LoweringRuleContext, *operands: IrValue, **params: object) -> list[IrValue]:
        return emit_ffi_call(call_target_name, operands, ctx.avals_out, params, has_side_effect)

    return rule


def register_ffi_target(
    name: str, fn: object, platform: str = "cpu", api_version: int = 1, **kwargs: Any
) -> None:
    """Registers ``fn`` (a ``PyCapsule`` of an FFI handler) as the target ``name``."""
    register: Any = xla_client.register_custom_call_target
    register(name, fn, platform, api_version, **kwargs)


def register_ffi_type(name: str, type_registration: object, platform: str = "cpu") -> None:
    """Registers a custom FFI type (jaxlib's ``register_custom_type``)."""
    register: Any = xla_client.register_custom_type
    register(name, type_registration, platform=platform)


def register_ffi_target_as_batch_partitionable(name: str) -> None:
    """Registers the target ``name`` as batch partitionable (for SPMD programs)."""
    register: Any = xla_client.register_custom_call_as_batch_partitionable
    register(name)


def include_dir() -> str:
    """The directory of the XLA FFI headers jaxlib ships (``xla/ffi/api/ffi.h``)."""
    import jaxlib

    return os.path.join(os.path.dirname(os.path.abspath(jaxlib.__file__)), "include")
