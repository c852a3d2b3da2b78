"""didax.numpy: NumPy's names over didax's primitives (being written)."""

import didax.interpreters  # noqa: F401  (installs the root trace and all rules)

__all__: list[str] = []
