"""``didax.ffi``: calling foreign functions registered with XLA, as ``jax.ffi``.

Design rules:
- ``ffi_call(target_name, result_shape_dtypes, ...)`` returns a function of
  the operands and the call's attributes (keyword arguments), which binds
  ``core.lax.ffi.ffi_call_p``; the lowering is ``lowering.ffi``'s
  ``stablehlo.custom_call``. Its results have the structure of
  ``result_shape_dtypes`` (one ShapeDtypeStruct, or a sequence of them).
- Registration goes to jaxlib's process-wide registry (``lowering.ffi``):
  a handler built against ``include_dir()``'s headers, wrapped with
  ``pycapsule``, registered with ``register_ffi_target``.
- ``register_ffi_type_id`` is gone from jaxlib, as from JAX: it raises as
  JAX's does, naming ``register_ffi_type``.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from typing import Any

from jax import tree_util

from didax.api.callbacks import result_avals
from didax.core.lax.callbacks import VMAP_METHODS
from didax.core.lax.ffi import ffi_call_p
from didax.lowering import ffi as _ffi
from didax.lowering.mlir import IrValue, LoweringRuleContext

__all__ = [
    "build_ffi_lowering_function",
    "ffi_call",
    "ffi_lowering",
    "include_dir",
    "pycapsule",
    "register_ffi_target",
    "register_ffi_target_as_batch_partitionable",
    "register_ffi_type",
    "register_ffi_type_id",
]

include_dir = _ffi.include_dir
register_ffi_target = _ffi.register_ffi_target
register_ffi_type = _ffi.register_ffi_type
register_ffi_target_as_batch_partitionable = _ffi.register_ffi_target_as_batch_partitionable
ffi_lowering = _ffi.ffi_lowering


def register_ffi_type_id(name: str, obj: object, platform: str = "cpu") -> None:
    """Refused, as JAX's: jaxlib dropped type ids; use ``register_ffi_type``."""
    raise ValueError("register_ffi_type_id is not supported after jaxlib version 381.")


def build_ffi_lowering_function(
    call_target_name: str, *, has_side_effect: bool = False, **lowering_args: object
) -> Callable[..., Sequence[IrValue]]:
    """``ffi_lowering``'s rule, called as ``build(ctx, *operands, **attributes)``."""
    rule = ffi_lowering(call_target_name, has_side_effect=has_side_effect, **lowering_args)

    def build(ctx: LoweringRuleContext, *operands: IrValue, **attributes: object) -> Any:
        return rule(ctx, *operands, **attributes)

    return build


def pycapsule(funcptr: Any) -> Any:
    """A ``PyCapsule`` of the ctypes function pointer ``funcptr`` (for ``register_ffi_target``).

    >>> import ctypes, didax
    >>> libc = ctypes.CDLL(None)
    >>> type(didax.ffi.pycapsule(libc.abs)).__name__
    'PyCapsule'
    """
    destructor = ctypes.CFUNCTYPE(None, ctypes.py_object)
    builder = ctypes.pythonapi.PyCapsule_New
    builder.restype = ctypes.py_object
    builder.argtypes = (ctypes.c_void_p, ctypes.c_char_p, destructor)
    return builder(funcptr, None, destructor(0))


def ffi_call(
    target_name: str,
    result_shape_dtypes: object,
    *,
    has_side_effect: bool = False,
    vmap_method: str | None = None,
    input_layouts: object = None,
    output_layouts: object = None,
    input_output_aliases: object = None,
    custom_call_api_version: int = 4,
    legacy_backend_config: object = None,
) -> Callable[..., Any]:
    """A function calling the FFI target ``target_name`` (``jax.ffi.ffi_call``).

    ``call(*operands, **attributes)`` returns results shaped as
    ``result_shape_dtypes``; the attributes become the handler's
    ``Attr<...>`` arguments. ``has_side_effect`` keeps an unused call;
    ``vmap_method`` is as ``pure_callback``'s. Layout and alias options of
    JAX's are refused when given (didax uses XLA's default layouts).
    """
    options = {
        "input_layouts": input_layouts,
        "output_layouts": output_layouts,
        "input_output_aliases": input_output_aliases,
        "legacy_backend_config": legacy_backend_config,
    }
    unsupported = sorted(k for k, v in options.items() if v is not None)
    if custom_call_api_version != 4:
        unsupported.append(f"custom_call_api_version={custom_call_api_version}")
    if unsupported:
        raise NotImplementedError(f"ffi_call: didax does not support {unsupported}")
    if vmap_method is not None and vmap_method not in VMAP_METHODS:
        raise ValueError(f"ffi_call: invalid vmap_method {vmap_method!r}")
    single = hasattr(result_shape_dtypes, "shape")
    tree, avals = result_avals("ffi_call", result_shape_dtypes)

    def call(*args: object, **attributes: object) -> Any:
        outs = ffi_call_p.bind(
            *args,
            target_name=target_name,
            result_avals=avals,
            attributes=tuple(sorted(attributes.items())),
            has_side_effect=has_side_effect,
            vmap_method=vmap_method,
        )
        return outs[0] if single else tree_util.tree_unflatten(tree, list(outs))

    return call
