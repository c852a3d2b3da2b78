"""Host callbacks: ``pure_callback``, ``io_callback`` and ``effects_barrier``, as JAX's.

Design rules:
- The user's function takes pytrees of Arrays and returns a pytree
  matching ``result_shape_dtypes``; it is flattened once into a
  ``core.lax.callbacks.HostCallback`` of flat host arrays, and the
  primitive (``pure_callback_p``, ``io_callback_p``) carries it. What a
  callback does under each transformation is the primitive's rules
  (``interpreters.callbacks``); under jit it runs inside the XLA program
  through jaxlib's Python-callback custom call (``lowering.callbacks``).
- Arguments that are not arrays (strings, None, functions) stay Python
  values the callback receives as they are (JAX's static arguments); the
  arrays reach it as didax Arrays over the host data.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from jax import tree_util

from didax.core import dtypes
from didax.core.abstract import ShapedArray
from didax.core.array import Array
from didax.core.lax.callbacks import (
    VMAP_METHODS,
    HostCallback,
    io_callback_p,
    pure_callback_p,
)
from didax.core.trace import Tracer
from didax.core.values import is_python_scalar, wrap_host

__all__ = ["pure_callback", "io_callback", "effects_barrier"]


def _is_dynamic(x: object) -> bool:
    return isinstance(x, (Array, Tracer, np.ndarray, np.generic)) or is_python_scalar(x)


def flatten_callback(
    name: str,
    callback: Callable[..., Any],
    args: Sequence[object],
    kwargs: dict[str, object],
    results: Callable[[Any], Sequence[Any]] = tree_util.tree_leaves,
) -> tuple[HostCallback, list[Any]]:
    """``callback`` as a function of the array leaves of ``(args, kwargs)``, and those leaves.

    ``results`` turns what the callback returns into its flat results.
    """
    if not callable(callback):
        raise TypeError(
            f"first argument to {name} must be callable, but got an object of type "
            f"{type(callback).__name__}"
        )
    leaves, tree = tree_util.tree_flatten((tuple(args), kwargs))
    dynamic = [_is_dynamic(x) for x in leaves]
    static = {i: x for i, (x, d) in enumerate(zip(leaves, dynamic, strict=True)) if not d}

    def flat(*host: object) -> Sequence[Any]:
        it = iter(host)
        merged = [
            static[i] if i in static else wrap_host(np.array(next(it))) for i in range(len(leaves))
        ]
        a, kw = tree_util.tree_unflatten(tree, merged)
        return results(callback(*a, **kw))

    fn_name = getattr(callback, "__name__", type(callback).__name__)
    dyn = [x for x, d in zip(leaves, dynamic, strict=True) if d]
    return HostCallback(flat, fn_name), dyn


def result_avals(
    name: str, result_shape_dtypes: object
) -> tuple[tree_util.PyTreeDef, tuple[ShapedArray, ...]]:
    leaves, tree = tree_util.tree_flatten(result_shape_dtypes)
    avals = []
    for x in leaves:
        if not (hasattr(x, "shape") and hasattr(x, "dtype")):
            raise TypeError(
                f"{name}: result_shape_dtypes must be a pytree of objects with shape and "
                f"dtype (ShapeDtypeStruct), got {type(x).__name__}"
            )
        avals.append(ShapedArray(tuple(x.shape), dtypes.canonicalize(np.dtype(x.dtype))))
    return tree, tuple(avals)


def pure_callback(
    callback: Callable[..., Any],
    result_shape_dtypes: object,
    *args: object,
    sharding: object = None,
    vmap_method: str | None = None,
    **kwargs: object,
) -> Any:
    """Calls the pure Python function ``callback`` from a program (``jax.pure_callback``).

    ``callback`` must be pure: didax may drop it when its results are
    unused, or call it several times. Under vmap it follows
    ``vmap_method``: ``"sequential"`` (once per batch element),
    ``"expand_dims"`` (once, unbatched arguments with a leading axis of
    size 1), ``"broadcast_all"`` (once, every argument batched), or
    ``None`` (vmap refuses). Not differentiable: wrap it in ``custom_jvp``.

    >>> import numpy as np, didax
    >>> f = lambda x: didax.pure_callback(np.sin, didax.ShapeDtypeStruct((), "float32"), x)
    >>> didax.jit(f)(np.float32(0.5))
    Array(0.47942555, dtype=float32)
    """
    del sharding  # one device: the callback runs on the host of the one device
    if vmap_method is not None and vmap_method not in VMAP_METHODS:
        raise ValueError(
            f"pure_callback: invalid vmap_method {vmap_method!r}, expected one of {VMAP_METHODS}"
        )
    tree, avals = result_avals("pure_callback", result_shape_dtypes)
    host, flat = flatten_callback("pure_callback", callback, args, kwargs)
    outs = pure_callback_p.bind(*flat, callback=host, result_avals=avals, vmap_method=vmap_method)
    return tree_util.tree_unflatten(tree, list(outs))


def io_callback(
    callback: Callable[..., Any],
    result_shape_dtypes: object,
    *args: object,
    sharding: object = None,
    ordered: bool = False,
    **kwargs: object,
) -> Any:
    """Calls the impure Python function ``callback`` (``jax.experimental.io_callback``).

    It is never dropped; with ``ordered=True`` calls happen in program
    order (jit threads a token through them), and vmap refuses. Not
    differentiable.

    >>> import numpy as np, didax
    >>> seen = []
    >>> def log(x):
    ...     seen.append(float(x))
    ...     return x
    >>> spec = didax.ShapeDtypeStruct((), "float32")
    >>> f = didax.jit(lambda x: didax.experimental.io_callback(log, spec, x, ordered=True))
    >>> f(np.float32(2.0)), seen
    (Array(2., dtype=float32), [2.0])
    """
    del sharding
    tree, avals = result_avals("io_callback", result_shape_dtypes)
    host, flat = flatten_callback("io_callback", callback, args, kwargs)
    outs = io_callback_p.bind(*flat, callback=host, result_avals=avals, ordered=bool(ordered))
    return tree_util.tree_unflatten(tree, list(outs))


def effects_barrier() -> None:
    """Waits until the callbacks of the programs dispatched so far have run (JAX's).

    A callback runs inside its program, and on the CPU backend jaxlib runs
    such a program to its end before the call returns (the tests check the
    order of prints against code after the call), so this waits for
    nothing; it is here so that code written for JAX runs.
    """
