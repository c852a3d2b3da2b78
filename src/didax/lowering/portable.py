"""StableHLO portable artifacts: a program's module in the form JAX's exports carry.

Design rules:
- An exported module takes the program's arguments only: the traced
  jaxpr's constants (its leading inputs, which jit passes as device
  buffers) become ``stablehlo.constant``s of a new public ``main`` that
  calls the lowered one, made private (as JAX's ``_wrap_main_func`` wraps
  ``main`` for its own extra arguments). The module says whether it uses
  shape polymorphism (``jax.uses_shape_polymorphism``: symbolic dimensions
  in its argument types, ``lowering.shape_poly``), as JAX's exports say.
- A shape-polymorphic module (JAX's exports with symbolic dimensions) is
  called at concrete shapes as JAX calls it: a new ``main`` takes the
  arguments' static types and converts them to the module's dynamic ones,
  then jaxlib's shape refinement makes every shape static (checking the
  module's shape assertions); the results' shapes are read from the
  refined ``main`` (``compile_refined``).
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
from didax.core.shape_poly import is_constant_shape
from didax.ir.jaxpr import Jaxpr
from didax.lowering import xla
from didax.lowering.compiled import Compiled
from didax.lowering.mlir import aval_to_ir_type, constant, ir, lower_with_callbacks
from didax.lowering.shape_poly import SymbolicSizes

__all__ = [
    "compile_artifact",
    "compile_refined",
    "deserialize_module",
    "export_module",
    "module_text",
]

_INNER_MAIN = "_didax_export_main"
# The exported ``main`` under a wrapper giving it static argument types
# (another name: didax's own exports already hold an ``_INNER_MAIN``).
_REFINED_MAIN = "_didax_refined_main"


def export_module(jaxpr: Jaxpr, consts: Sequence[Any], name: str, platform: str) -> bytes:
    """The portable artifact of ``jaxpr`` (its first ``len(consts)`` inputs bound to ``consts``).

    Symbolic dimensions in its input types make a shape-polymorphic module
    (``lowering.shape_poly``).
    """
    in_avals = [v.aval for v in jaxpr.in_binders]
    polymorphic = not all(is_constant_shape(a.shape) for a in in_avals)
    sizes = SymbolicSizes(in_avals, f"export({name})") if polymorphic else None
    module, callbacks = lower_with_callbacks(jaxpr, name, platform=platform, sizes=sizes)
    if callbacks:  # they live in this process: JAX refuses them with these words
        raise NotImplementedError("serialization of host_callbacks is not yet implemented")
    with module.context, ir.Location.unknown():
        if consts:
            _bind_constants(module, jaxpr, consts)
        module.operation.attributes["jax.uses_shape_polymorphism"] = ir.BoolAttr.get(polymorphic)
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


def compile_refined(
    artifact: bytes, in_avals: Sequence[ShapedArray], out_dtypes: Sequence[np.dtype[Any]]
) -> Compiled:
    """A shape-polymorphic artifact refined for arguments of types ``in_avals`` and compiled."""
    module = deserialize_module(artifact)
    with module.context, ir.Location.unknown():
        table = ir.SymbolTable(module.operation)
        inner = cast(func.FuncOp, table["main"])
        inner.attributes["sym_visibility"] = ir.StringAttr.get("private")
        table.set_symbol_name(inner, _REFINED_MAIN)
        signature = ir.FunctionType(ir.TypeAttr(inner.attributes["function_type"]).value)
        static = [aval_to_ir_type(a) for a in in_avals]
        with ir.InsertionPoint(module.body):
            main = func.FuncOp("main", ir.FunctionType.get(static, list(signature.results)))
        main.attributes["sym_visibility"] = ir.StringAttr.get("public")
        entry = main.regions[0].blocks.append(*static)
        with ir.InsertionPoint(entry):
            # As JAX's call of an export: a convert is the argument's only
            # use, which shape refinement then makes static.
            args = [
                a if a.type == want else hlo.convert(want, a)
                for a, want in zip(entry.arguments, signature.inputs, strict=True)
            ]
            callee = ir.FlatSymbolRefAttr.get(_REFINED_MAIN)
            func.ReturnOp(list(func.CallOp(list(signature.results), callee, args).results))
    refined_bytes = xla.refine_shapes(module)
    with xla.ir_context() as context:
        refined = ir.Module.parse(refined_bytes, context)
        main_type = ir.TypeAttr(
            ir.SymbolTable(refined.operation)["main"].attributes["function_type"]
        )
        results = ir.FunctionType(main_type.value).results
        out_avals = tuple(
            ShapedArray(tuple(ir.RankedTensorType(t).shape), d)
            for t, d in zip(results, out_dtypes, strict=True)
        )
    return Compiled(xla.compile(refined), tuple(in_avals), out_avals, refined)
