"""``jax.lax``'s pytree functions that are neither control flow nor collectives.

``optimization_barrier`` (the ``optimization_barrier`` primitive of
``core.lax.structural`` over a pytree's leaves), ``platform_dependent``
(one branch per platform) and ``scatter_apply`` (a function applied at a
scatter's indices), each over a user's Python function or pytree.

Design rules:
- Pytrees are flattened here, in the api layer, with JAX's ``tree_util``;
  the primitives see flat lists.
- ``platform_dependent`` picks its branch when it is traced, for the
  platform of the default backend (``cpu`` on a CPU, ``cuda`` or ``rocm``
  on a GPU): only that branch is traced and staged. JAX stages every
  branch and picks at lowering, which differs only for a program lowered
  for another platform than the one it is traced on.
- ``scatter_apply`` is JAX's scatter whose combiner ignores the update and
  applies ``func`` to the element: an element hit ``k`` times gets
  ``func`` applied ``k`` times, as XLA applies the combiner once per
  update. didax's scatters have no update program, so it counts the hits
  (a ``scatter_add`` of ones, with the same mode: dropped and clamped
  updates alike) and applies ``func`` in a ``while_loop`` until no element
  is owed one more (one ``select`` when ``unique_indices``). ``func`` is
  traced on scalars, as JAX's (``vmap`` over the elements). Unlike JAX's,
  it is differentiable forward (JAX's has no jvp).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np
from jax import tree_util

from didax.api.control_flow import while_loop
from didax.api.transformations import vmap
from didax.core import dtypes, lax
from didax.core.basearray import Value
from didax.core.lax.indexing import GatherScatterMode, ScatterDimensionNumbers
from didax.core.lax.structural import optimization_barrier_p
from didax.core.values import ArrayLike, get_aval
from didax.lowering import xla

__all__ = ["optimization_barrier", "platform_dependent", "scatter_apply"]

T = TypeVar("T")


def optimization_barrier(operand: T) -> T:
    """``operand`` (a pytree) unchanged, as one value XLA may not move computations across.

    It stops common-subexpression elimination and fusion across it inside
    a compiled program; eagerly it is the identity. Differentiable and
    batchable (JAX's rules: a barrier on the tangents, on the cotangents).

    >>> import didax as dx
    >>> from didax import lax
    >>> dx.jit(lambda x: lax.optimization_barrier((x, 2 * x)))(1.0)
    (Array(1., dtype=float32, weak_type=True), Array(2., dtype=float32, weak_type=True))
    """
    leaves, treedef = tree_util.tree_flatten(operand)
    if not leaves:
        return operand
    out: T = tree_util.tree_unflatten(treedef, optimization_barrier_p.bind(*leaves))
    return out


_PLATFORMS = ("cpu", "cuda", "rocm", "tpu")


def platform_dependent(
    *args: Any, default: Callable[..., T] | None = None, **per_platform: Callable[..., T]
) -> T:
    """``per_platform[platform](*args)`` for the platform code runs on, else ``default(*args)``.

    >>> from didax import lax
    >>> lax.platform_dependent(3.0, cpu=lambda x: 2 * x, default=lambda x: x)
    6.0
    """
    for name, branch in per_platform.items():
        if not callable(branch):
            raise TypeError(f"lax.platform_dependent: the '{name}' branch must be a callable.")
        if name == "gpu":
            raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
        if name not in _PLATFORMS:
            raise ValueError(
                f"lax.platform_dependent: unknown platform '{name}' (one of {_PLATFORMS})"
            )
    if default is not None and not callable(default):
        raise TypeError("lax.platform_dependent: the 'default' branch must be a callable.")
    platform = xla.platform()
    chosen = per_platform.get(platform, default)
    if chosen is None:
        raise NotImplementedError(
            f"lax.platform_dependent: no branch for platform '{platform}' and no default "
            f"(branches for {sorted(per_platform)})"
        )
    return chosen(*args)


def scatter_apply(
    operand: ArrayLike,
    scatter_indices: ArrayLike,
    func: Callable[[Value], Value],
    dimension_numbers: ScatterDimensionNumbers,
    *,
    update_shape: Sequence[int] = (),
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: str | GatherScatterMode | None = None,
) -> Value:
    """``operand`` with ``func`` applied to the elements at ``scatter_indices`` (once per hit).

    ``update_shape`` is the shape the updates of such a scatter would have.

    >>> from didax import lax
    >>> dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
    ...                                     scatter_dims_to_operand_dims=(0,))
    >>> lax.scatter_apply(np.zeros(3), np.array([[2], [0], [2]]), lambda v: v + 1, dnums,
    ...                   update_shape=(3,))
    Array([1., 0., 2.], dtype=float32)
    """
    aval = get_aval(operand)
    count = dtypes.int32
    ones = lax.full(tuple(int(s) for s in update_shape), 1, count)
    hits = lax.scatter_add(
        lax.full(aval.shape, 0, count),
        scatter_indices,
        ones,
        dimension_numbers,
        indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices,
        mode=mode,
    )
    per_element = vmap(func)

    def applied(x: Value) -> Value:
        flat: Value = per_element(lax.reshape(x, (aval.size,)))
        return lax.reshape(flat, aval.shape)

    def once_more(i: ArrayLike, x: Value) -> Value:
        return lax.select(lax.gt(hits, i), applied(x), x)

    x = lax.reshape(operand, aval.shape)  # a Value, whatever operand was
    if unique_indices:
        return once_more(np.int32(0), x)
    rounds = lax.reduce_max(hits, tuple(range(aval.ndim))) if aval.ndim else hits
    _, out = while_loop(
        lambda c: lax.lt(c[0], rounds),
        lambda c: (lax.add(c[0], np.int32(1)), once_more(c[0], c[1])),
        (np.int32(0), x),
    )
    result: Value = out
    return result
