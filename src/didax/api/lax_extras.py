"""``jax.lax``'s pytree functions that are neither control flow nor collectives.

``optimization_barrier`` (the ``optimization_barrier`` primitive of
``core.lax.structural`` over a pytree's leaves) and ``platform_dependent``
(one branch per platform).

Design rules:
- Pytrees are flattened here, in the api layer, with JAX's ``tree_util``;
  the primitives see flat lists.
- ``platform_dependent`` picks its branch when it is traced, for the
  platform of the default backend (``cpu`` on a CPU, ``cuda`` or ``rocm``
  on a GPU): only that branch is traced and staged. JAX stages every
  branch and picks at lowering, which differs only for a program lowered
  for another platform than the one it is traced on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from jax import tree_util

from didax.core.lax.structural import optimization_barrier_p
from didax.lowering import xla

__all__ = ["optimization_barrier", "platform_dependent"]

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
