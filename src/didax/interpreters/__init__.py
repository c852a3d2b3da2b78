"""didax.interpreters: one module per interpreter, each owning its rule table, and one per family.

An interpreter's module (``evaluation``, ``jvp``, ``batching``,
``transpose``, ``partial_eval``, ``flops``, ...) holds its trace, its rule
table and the helpers rules are built with; a primitive family's module
(``elementwise``, ``structural``, ``slicing``, ``reductions``,
``contractions``, ``conversions``, ``cumulative``, ``indexing``, ...)
registers all of that family's rules, in every table. Importing this
package installs the eager-evaluation root trace and imports every family
module, so every rule is registered.
"""

from didax.interpreters import (
    batching,
    bits,
    checkpoint,
    cond,
    contractions,
    conversions,
    cumulative,
    custom_derivatives,
    elementwise,
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
    reductions,
    scan,
    scatter,
    shard_map,
    slicing,
    sorting,
    special,
    staging,
    structural,
    transpose,
    while_loop,
)

__all__ = [
    "batching",
    "bits",
    "checkpoint",
    "cond",
    "contractions",
    "conversions",
    "cumulative",
    "fft",
    "custom_derivatives",
    "elementwise",
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
    "reductions",
    "scan",
    "scatter",
    "shard_map",
    "slicing",
    "sorting",
    "special",
    "staging",
    "structural",
    "transpose",
    "while_loop",
]
