"""didax.interpreters: one module per interpreter, each owning its rule table.

Importing this package installs the eager-evaluation root trace and every
interpreter's rules for the standard primitives.
"""

from didax.interpreters import (
    batching,
    bits,
    checkpoint,
    cond,
    cumulative,
    custom_derivatives,
    evaluation,
    fft,
    flops,
    indexing,
    jaxpr_transforms,
    jit,
    jvp,
    linalg,
    loop_flops,
    parallel,
    partial_eval,
    scan,
    shard_map,
    sorting,
    special,
    staging,
    transpose,
    while_loop,
)

__all__ = [
    "batching",
    "bits",
    "checkpoint",
    "cond",
    "cumulative",
    "fft",
    "custom_derivatives",
    "evaluation",
    "flops",
    "indexing",
    "linalg",
    "loop_flops",
    "jaxpr_transforms",
    "jit",
    "jvp",
    "parallel",
    "partial_eval",
    "scan",
    "shard_map",
    "sorting",
    "special",
    "staging",
    "transpose",
    "while_loop",
]
