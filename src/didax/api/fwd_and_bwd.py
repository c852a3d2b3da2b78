"""``fwd_and_bwd``: a function's forward and backward passes as two functions (``jax.fwd_and_bwd``).

Design rules:
- ``fwd(*args)`` returns ``(fun(*args), residuals)`` and
  ``bwd(residuals, cotangent)`` the cotangents of the ``argnums``
  arguments, as JAX's; with ``jitted`` (the default) each is compiled once
  per argument signature, so a training loop reuses both.
- The residuals are the differentiated arguments themselves (a pytree of
  arrays, as JAX's residuals are): ``bwd`` runs the forward pass again
  inside its program, as a checkpoint would, because didax's ``vjp``
  returns a closure, not a pytree a compiled program could return. The
  values are JAX's; what is stored between the passes is less.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from didax.api.autodiff import vjp
from didax.api.jit import jit

__all__ = ["fwd_and_bwd"]


def fwd_and_bwd(
    fun: Callable[..., Any],
    argnums: int | Sequence[int],
    has_aux: bool = False,
    jitted: bool = True,
) -> tuple[Callable[..., Any], Callable[[Any, Any], Any]]:
    """``(fwd, bwd)`` for ``fun``: ``fwd(*args)`` is ``(out, residuals)`` (``(out, residuals, aux)``
    with ``has_aux``) and ``bwd(residuals, cotangent)`` the cotangents of the ``argnums`` arguments.

    >>> import didax as dx
    >>> fwd, bwd = dx.fwd_and_bwd(lambda x, w: x * w, argnums=(0, 1))
    >>> y, res = fwd(2.0, 3.0)
    >>> bwd(res, 1.0)
    (Array(3., dtype=float32, weak_type=True), Array(2., dtype=float32, weak_type=True))
    """
    if not callable(fun):
        raise TypeError(f"fwd_and_bwd: expected a callable, got {type(fun).__name__}")
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def partial_vjp(args: tuple[Any, ...]) -> tuple[Any, ...]:
        def of_dynamic(*dynamic: Any) -> Any:
            full = list(args)
            for i, d in zip(nums, dynamic, strict=True):
                full[i] = d
            return fun(*full)

        return vjp(of_dynamic, *(args[i] for i in nums), has_aux=has_aux)

    def fwd(*args: Any) -> tuple[Any, ...]:
        out = partial_vjp(args)
        residuals = tuple(args)
        return (out[0], residuals, out[2]) if has_aux else (out[0], residuals)

    def bwd(residuals: tuple[Any, ...], cotangent: Any) -> Any:
        cts = partial_vjp(residuals)[1](cotangent)
        return cts[0] if isinstance(argnums, int) else cts

    if jitted:
        return jit(fwd), jit(bwd)
    return fwd, bwd
