"""didax.lowering: jaxpr -> StableHLO, compilation through PJRT, device arrays.

Importing this package imports every family's lowering module
(``lowering.<family>``), registering the lowering rules of every primitive,
and registers the jit primitive's impl (compile and execute).
"""

from didax.lowering import (
    array,
    bits,
    contractions,
    conversions,
    cumulative,
    dispatch,
    elementwise,
    fft,
    higher_order,
    indexing,
    linalg,
    mlir,
    parallel,
    reductions,
    rules,
    scan_ops,
    slicing,
    sorting,
    special,
    structural,
    xla,
)

__all__ = [
    "array",
    "bits",
    "contractions",
    "conversions",
    "cumulative",
    "fft",
    "dispatch",
    "elementwise",
    "higher_order",
    "indexing",
    "linalg",
    "mlir",
    "parallel",
    "reductions",
    "rules",
    "scan_ops",
    "slicing",
    "sorting",
    "special",
    "structural",
    "xla",
]
