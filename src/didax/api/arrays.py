"""Arrays at the API: moving them (``device_put``, ``device_get``), waiting for them, and shapes.

Design rules:
- Every function here takes pytrees, as JAX's do, and leaves a leaf that
  is not an array alone where JAX does (``device_get``, ``block_until_ready``).
- ``ShapeDtypeStruct`` is the user's way of naming an abstract value
  (``eval_shape``'s results, and arguments that need no data); it converts
  to and from ``ShapedArray``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, SupportsIndex, final

import attrs
import numpy as np
from jax import tree_util

from didax.core import dtypes, transfer_guard
from didax.core.abstract import ShapedArray
from didax.core.array import Array
from didax.core.shape_poly import dims
from didax.core.sharding import NamedSharding, SingleDeviceSharding
from didax.core.values import get_aval
from didax.interpreters.staging import trace_to_jaxpr
from didax.lowering.array import on_device
from didax.lowering.sharding import device_put_sharded

__all__ = [
    "Array",
    "device_put",
    "device_get",
    "block_until_ready",
    "ShapeDtypeStruct",
    "eval_shape",
]


def device_put(x: Any, device: Any = None) -> Any:
    """``x`` (a pytree of array-likes) as Arrays on the device (``jax.device_put``).

    NumPy data is copied; an Array already on the device is returned as it
    is; a Python scalar gives a weakly typed Array. ``device`` may be a
    sharding (``NamedSharding`` lays each array out over its mesh, one
    piece per device) or a device.

    >>> import didax as dx
    >>> dx.device_put({"w": np.ones(2), "b": 0.5})
    {'b': Array(0.5, dtype=float32, weak_type=True), 'w': Array([1., 1.], dtype=float32)}
    """
    with transfer_guard.explicit():  # guarded only at the ``*_explicit`` levels
        if device is None:
            return tree_util.tree_map(on_device, x)
        if isinstance(device, (NamedSharding, SingleDeviceSharding)):
            sharding: NamedSharding | SingleDeviceSharding = device
        else:
            sharding = SingleDeviceSharding(device)
        return tree_util.tree_map(lambda leaf: device_put_sharded(leaf, sharding), x)


def device_get(x: Any) -> Any:
    """``x`` (a pytree) with every Array replaced by a NumPy array of its data (``jax.device_get``).

    >>> import didax as dx
    >>> dx.device_get([dx.numpy.ones(2), "label"])
    [array([1., 1.], dtype=float32), 'label']
    """
    with transfer_guard.explicit():
        return tree_util.tree_map(
            lambda leaf: np.asarray(leaf) if isinstance(leaf, Array) else leaf, x
        )


def block_until_ready(x: Any) -> Any:
    """Waits until every Array in the pytree ``x`` is computed; returns ``x``."""
    for leaf in tree_util.tree_leaves(x):
        if isinstance(leaf, Array):
            leaf.block_until_ready()
    return x


def _shape_tuple(shape: Sequence[SupportsIndex]) -> tuple[int, ...]:
    # A symbolic dimension (``export.symbolic_shape``) stands for an int.
    return dims(shape)


@final
@attrs.frozen
class ShapeDtypeStruct:
    """A shape and dtype without data (``jax.ShapeDtypeStruct``).

    >>> ShapeDtypeStruct((2, 3), np.float32)
    ShapeDtypeStruct(shape=(2, 3), dtype=float32)
    """

    shape: tuple[int, ...] = attrs.field(converter=_shape_tuple)
    dtype: np.dtype[Any] = attrs.field(converter=dtypes.canonicalize)
    weak_type: bool = False
    # Where ``jit(f).lower`` lays the argument out (a ``NamedSharding``), as JAX's.
    sharding: NamedSharding | SingleDeviceSharding | None = attrs.field(default=None, kw_only=True)

    def aval(self) -> ShapedArray:
        return ShapedArray(self.shape, self.dtype, self.weak_type)

    @property
    def ndim(self) -> int:
        return self.aval().ndim

    @property
    def size(self) -> int:
        return self.aval().size

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        laid = "" if self.sharding is None else f", sharding={self.sharding}"
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak}{laid})"


def leaf_aval(x: object) -> ShapedArray:
    """A leaf's abstract value: a ``ShapeDtypeStruct``'s, or an array's (or scalar's) type."""
    return x.aval() if isinstance(x, ShapeDtypeStruct) else get_aval(x)


def eval_shape(fun: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The shapes and dtypes ``fun(*args, **kwargs)`` would have, computed by tracing only.

    Arguments may be arrays or ``ShapeDtypeStruct``s; nothing is computed.

    >>> import didax as dx
    >>> dx.eval_shape(lambda x: x.sum(axis=0), ShapeDtypeStruct((5, 3), np.float32))
    ShapeDtypeStruct(shape=(3,), dtype=float32)
    """
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    out_trees: list[Any] = []

    def flat(*xs: Any) -> list[Any]:
        a, k = tree_util.tree_unflatten(in_tree, xs)
        out_leaves, out_tree = tree_util.tree_flatten(fun(*a, **k))
        out_trees.append(out_tree)
        return out_leaves

    closed = trace_to_jaxpr(flat, [leaf_aval(x) for x in leaves], "eval_shape")
    structs = [ShapeDtypeStruct(a.shape, a.dtype, a.weak_type) for a in closed.out_avals]
    return tree_util.tree_unflatten(out_trees[0], structs)
