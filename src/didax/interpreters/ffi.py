"""The interpreters' rules for ``ffi_call`` (``core.lax.ffi``), as JAX's.

Design rules:
- No impl rule: eager evaluation takes the compiled route, the call as a
  one-equation XLA program (the target is XLA's to run).
- jvp refuses, naming the target and ``custom_jvp``/``custom_vjp`` as the way.
- vmap follows ``vmap_method`` as ``pure_callback``'s does
  (``interpreters.callbacks.vmap_method_batcher``).
- Flops: the foreign function is opaque to the counter: none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from didax.core.abstract import ShapedArray
from didax.core.lax.ffi import ffi_call_p
from didax.interpreters.batching import BATCH_RULES
from didax.interpreters.callbacks import vmap_method_batcher
from didax.interpreters.flops import FLOPS_RULES, ZERO, Cost, Operand
from didax.interpreters.jvp import JVP_RULES

__all__: list[str] = []


@JVP_RULES.defines(ffi_call_p)
def _ffi_call_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], *, target_name: str, **params: object
) -> tuple[Any, Any]:
    raise ValueError(
        f"The FFI call to `{target_name}` cannot be differentiated. "
        "You can use `didax.custom_jvp` or `didax.custom_vjp` to add support."
    )


BATCH_RULES.register(ffi_call_p, vmap_method_batcher(ffi_call_p))


@FLOPS_RULES.defines(ffi_call_p)
def _ffi_call_flops(
    operands: Sequence[Operand], out_avals: Sequence[ShapedArray], /, **_: object
) -> Cost:
    return ZERO
