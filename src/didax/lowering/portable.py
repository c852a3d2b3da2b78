"""StableHLO portable artifacts: a program's module in the form JAX's exports carry.

Design rules:
- An exported module takes the program's arguments only: the traced
  jaxpr's constants (its leading inputs, which jit passes as device
  buffers) become ``stablehlo.constant``s of a new public ``main`` that
  calls the lowered one, made private (as JAX's ``_wrap_main_func`` wraps
  ``main`` for its own extra arguments). The module says it uses no shape
  polymorphism (``jax.uses_shape_polymorphism``), as JAX's exports say.
- The artifact is VHLO bytes serialized for the StableHLO version JAX
  targets: the newest at least four weeks old
  (``StablehloCompatibilityRequirement.WEEK_4``), so a consumer updated
  monthly reads it. Deserializing gives a module in a fresh context, which
  compiles as any other (``compile_artifact``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from jaxlib.mlir.dialects import func
from jaxlib.mlir.dialects import stablehlo as hlo

from didax.core.abstract import ShapedArray
from didax.ir.jaxpr import Jaxpr
from didax.lowering import xla
from didax.lowering.compiled import Compiled
from didax.lowering.mlir import constant, ir, lower_to_module

__all__ = ["compile_artifact", "deserialize_module", "export_module", "module_text"]

_INNER_MAIN = "_didax_export_main"


def export_module(jaxpr: Jaxpr, consts: Sequence[Any], name: str, platform: str) -> bytes:
    """The portable artifact of ``jaxpr`` (its first ``len(consts)`` inputs bound to ``consts``)."""
    module = lower_to_module(jaxpr, name, platform=platform)
    with module.context, ir.Location.unknown():
        if consts:
            _bind_constants(module, jaxpr, consts)
        module.operation.attributes["jax.uses_shape_polymorphism"] = ir.BoolAttr.get(False)
        target = hlo.get_version_from_compatibility_requirement(
            hlo.StablehloCompatibilityRequirement.WEEK_4
        )
        artifact: bytes = hlo.serialize_portable_artifact(module, target)
    return artifact


def _bind_constants(module: ir.Module, jaxpr: Jaxpr, consts: Sequence[Any]) -> None:
    """Makes ``main`` private and adds a public ``main`` passing it ``consts`` as constants."""
    table = ir.SymbolTable(module.operation)
    inner = cast(func.FuncOp, table["main"])
    inner.attributes["sym_visibility"] = ir.StringAttr.get("private")
    table.set_symbol_name(inner, _INNER_MAIN)
    n = len(consts)
    signature = ir.FunctionType(ir.TypeAttr(inner.attributes["function_type"]).value)
    in_types = list(signature.inputs)[n:]
    out_types = list(signature.results)
    with ir.InsertionPoint(module.body):
        main = func.FuncOp("main", ir.FunctionType.get(in_types, out_types))
    main.attributes["sym_visibility"] = ir.StringAttr.get("public")
    entry = main.regions[0].blocks.append(*in_types)
    with ir.InsertionPoint(entry):
        values = [constant(np.asarray(c)) for c in consts]
        call = func.CallOp(
            out_types, ir.FlatSymbolRefAttr.get(_INNER_MAIN), [*values, *entry.arguments]
        )
        func.ReturnOp(list(call.results))
    if not module.operation.verify():
        raise RuntimeError(f"didax produced an invalid exported module:\n{module}")


def deserialize_module(artifact: bytes) -> ir.Module:
    """The module a portable artifact holds, in a fresh context."""
    context = xla.ir_context()
    module: ir.Module = hlo.deserialize_portable_artifact(context, artifact)
    return module


def module_text(artifact: bytes) -> str:
    module = deserialize_module(artifact)
    with module.context:
        return str(module)


def compile_artifact(
    artifact: bytes, in_avals: Sequence[ShapedArray], out_avals: Sequence[ShapedArray]
) -> Compiled:
    """A portable artifact compiled for this machine's device, called as any compiled program."""
    module = deserialize_module(artifact)
    executable = xla.compile(module)
    return Compiled(executable, tuple(in_avals), tuple(out_avals), module)
