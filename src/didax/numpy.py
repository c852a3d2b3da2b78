"""didax.numpy: NumPy-named functions with NumPy broadcasting and NEP 50 promotion."""

from didax.api import numpy as _numpy  # noqa: F401

__all__: list[str] = []
