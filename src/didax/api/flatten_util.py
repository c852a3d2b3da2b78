"""``ravel_pytree``: a pytree of arrays as one flat vector, and the function that undoes it.

Design rules:
- JAX's algorithm (``jax.flatten_util``): the leaves' dtypes are promoted
  to one (``dtypes.result_type``), each leaf is converted to it and
  reshaped to a vector, and the vectors are concatenated; the inverse
  splits by the leaves' sizes, reshapes, and converts back. Where every
  leaf already has the promoted dtype, nothing is converted and the
  inverse takes a vector of any dtype (JAX's issue 7809); otherwise it
  takes only the promoted dtype, as JAX's.
- A leaf's dtype is its own; a Python scalar's is its type's 64-bit dtype
  before promotion (JAX's ``dtypes.dtype``), so ``1.0`` beside a float32
  array promotes to float64, which the mode then makes canonical (and
  unravelling gives the leaf back in its canonical dtype).
- The inverse is a frozen value (``Unravel``): hashable and comparable,
  so it can be a static argument of ``jit``, as JAX's ``HashablePartial``.
- An empty pytree ravels to a float32 vector of length 0.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
from jax import tree_util

from didax.api.dtypes_module import result_type
from didax.api.numpy.array_types import Array
from didax.core import dtypes, lax
from didax.core.values import ArrayLike, get_aval

__all__ = ["ravel_pytree"]


def _leaf_dtype(x: object) -> np.dtype[Any]:
    if type(x) in (bool, int, float, complex):
        # JAX's ``dtypes.dtype`` of a Python scalar: its type's 64-bit dtype,
        # before the mode makes it canonical (``as_dtype`` reads them so).
        return dtypes.as_dtype(type(x))
    dtype: np.dtype[Any] = get_aval(x).dtype
    return dtype


@attrs.frozen
class Unravel:
    """The inverse of one ``ravel_pytree``: a flat vector back to the pytree."""

    treedef: Any
    sizes: tuple[int, ...]
    shapes: tuple[tuple[int, ...], ...]
    # The leaves' dtypes and the promoted one, or None where all were the same.
    from_dtypes: tuple[np.dtype[Any], ...] | None
    to_dtype: np.dtype[Any] | None

    def __call__(self, flat: ArrayLike) -> Any:
        return tree_util.tree_unflatten(self.treedef, self._leaves(flat))

    def _leaves(self, flat: ArrayLike) -> list[Any]:
        if not self.sizes:
            return []
        if self.to_dtype is not None:
            dtype = get_aval(flat).dtype
            if dtype != self.to_dtype:
                raise TypeError(
                    f"unravel function given array of dtype {dtype}, "
                    f"but expected dtype {self.to_dtype}"
                )
        chunks = lax.split(flat, self.sizes)
        leaves = [lax.reshape(c, s) for c, s in zip(chunks, self.shapes, strict=True)]
        if self.from_dtypes is None:
            return leaves
        with warnings.catch_warnings():
            # Back to a real leaf from a complex vector: the imaginary parts
            # are the leaf's zeros (JAX casts without the warning too).
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            return [
                lax.convert_element_type(leaf, dtypes.canonical(dtype))
                for leaf, dtype in zip(leaves, self.from_dtypes, strict=True)
            ]


def ravel_pytree(pytree: object) -> tuple[Array, Unravel]:
    """Ravels a pytree of arrays and scalars into one 1-D Array (``jax.flatten_util``).

    Returns the vector (its dtype the leaves' promoted dtype) and the
    function that unravels a vector of that length back to the pytree.

    >>> import didax.numpy as dnp
    >>> from didax.flatten_util import ravel_pytree
    >>> flat, unravel = ravel_pytree({"w": dnp.ones((2, 2)), "b": dnp.zeros(2)})
    >>> flat
    Array([0., 0., 1., 1., 1., 1.], dtype=float32)
    >>> unravel(flat * 2)["w"]
    Array([[2., 2.],
           [2., 2.]], dtype=float32)
    """
    leaves, treedef = tree_util.tree_flatten(pytree)
    if not leaves:
        return lax.full((0,), 0, np.float32), Unravel(treedef, (), (), None, None)
    from_dtypes = tuple(_leaf_dtype(x) for x in leaves)
    to_dtype: np.dtype[Any] = result_type(*from_dtypes)
    shapes = tuple(tuple(np.shape(x)) for x in leaves)
    sizes = tuple(int(np.prod(s, dtype=np.int64)) for s in shapes)
    if all(d == to_dtype for d in from_dtypes):
        vectors: Sequence[Any] = [lax.reshape(x, (n,)) for x, n in zip(leaves, sizes, strict=True)]
        unravel = Unravel(treedef, sizes, shapes, None, None)
    else:
        vectors = [
            lax.reshape(lax.convert_element_type(x, to_dtype), (n,))
            for x, n in zip(leaves, sizes, strict=True)
        ]
        unravel = Unravel(treedef, sizes, shapes, from_dtypes, to_dtype)
    return lax.concatenate(vectors, 0), unravel
