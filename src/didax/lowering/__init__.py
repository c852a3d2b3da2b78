"""didax.lowering: jaxpr -> StableHLO, compilation through PJRT, device arrays.

Importing this package registers the lowering rules of every standard
primitive and the jit primitive's impl (compile and execute).
"""

from didax.lowering import (
    array,
    bits,
    checkpoint,
    cond,
    cumulative,
    custom_derivatives,
    dispatch,
    fft,
    indexing,
    jit,
    linalg,
    mlir,
    parallel,
    rules,
    scan,
    scan_ops,
    scatter,
    shard_map,
    sorting,
    special,
    while_loop,
    xla,
)

__all__ = [
    "array",
    "bits",
    "checkpoint",
    "cond",
    "cumulative",
    "custom_derivatives",
    "fft",
    "dispatch",
    "jit",
    "indexing",
    "linalg",
    "mlir",
    "parallel",
    "rules",
    "scan",
    "scan_ops",
    "scatter",
    "shard_map",
    "sorting",
    "special",
    "while_loop",
    "xla",
]
