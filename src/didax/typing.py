"""didax.typing: the annotations of JAX's ``jax.typing`` (``ArrayLike``, ``DTypeLike``).

``ArrayLike`` is what ``didax.numpy`` functions take as an array (didax
Arrays and tracers, NumPy arrays and scalars, Python scalars);
``DTypeLike`` what they take as a dtype.
"""

from didax.api.numpy.array_types import ArrayLike as ArrayLike
from didax.core.dtypes import DTypeLike as DTypeLike

__all__ = ["ArrayLike", "DTypeLike"]
