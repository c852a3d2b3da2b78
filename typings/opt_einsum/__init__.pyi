# The part of opt_einsum (JAX's dependency for einsum paths) that didax uses.
from typing import Any

__version__: str

def contract_path(
    subscripts: str, *operands: Any, shapes: bool = ..., optimize: Any = ...
) -> tuple[list[tuple[int, ...]], Any]: ...
