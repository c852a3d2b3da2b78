# The part of ml_dtypes (JAX's source of bfloat16) that didax uses.
from typing import Any

import numpy as np

bfloat16: type[np.generic[Any]]

class finfo:
    """NumPy's finfo, extended to ml_dtypes' floats (bfloat16)."""

    max: Any
    min: Any
    eps: Any
    tiny: Any
    bits: int
    def __init__(self, dtype: Any) -> None: ...
