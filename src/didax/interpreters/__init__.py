"""didax.interpreters: one module per interpreter, each owning its rule table.

Importing this package installs the eager-evaluation root trace and every
interpreter's rules for the standard primitives.
"""

from didax.interpreters import (
    batching,
    checkpoint,
    cond,
    custom_derivatives,
    evaluation,
    flops,
    flops_control_flow,
    jaxpr_transforms,
    jit,
    jvp,
    partial_eval,
    scan,
    staging,
    transpose,
    while_loop,
)

__all__ = [
    "batching",
    "checkpoint",
    "cond",
    "custom_derivatives",
    "evaluation",
    "flops",
    "flops_control_flow",
    "jaxpr_transforms",
    "jit",
    "jvp",
    "partial_eval",
    "scan",
    "staging",
    "transpose",
    "while_loop",
]
